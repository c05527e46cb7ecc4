/**
 * Row coverage (issue 31, item 8): every row of the spec's checklist (`FEATURES.md`, a copy of
 * `../shared/spec/FEATURES.md` kept here so a clone tests alone) is named by a test, in its title or a comment, or is
 * listed below with the reason no test names it. A range in a title (`CD-36 … CD-40`, `K-17..K-20`) names each row of
 * it. A listed row that a test names is stale and fails too.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const ROOT = join(import.meta.dirname, "../..")
const CHECKLIST = join(import.meta.dirname, "FEATURES.md")
const UPSTREAM_CHECKLIST = join(ROOT, "../shared/spec/FEATURES.md")

/** Rows no test names, each with why: a deliberate difference, or a row that asks for nothing to test. */
const NOT_TESTED: Readonly<Record<string, string>> = {
  "C-13":
    "401 INVALID_SIGNATURE is for a signature header the service checks; the only request signature here is the " +
    "wallet stamp, whose refusals have their own codes (C-14 … C-17, tested).",
  "C-29":
    "500 SERVICE_SWITCH_ERROR names a failure of the vendor's internal service switch, which this engine does not " +
    "have: an unexpected failure is 500 INTERNAL_ERROR (C-30, tested).",
  "SB-12":
    "Optional legacy shortcuts, deliberately not accepted: the sandbox verifies real stamps and assertions, which " +
    "the wallet client kit (@paycore/testkit/wallet-client) makes for real."
}

const ROW = /^\| ([A-Z]+-\d{2}) \|/gm

/** Every `.ts` file under the test folders of the packages, the examples and `test/`. */
const testSources = (): Array<string> => {
  const files: Array<string> = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      if (entry === "node_modules" || entry === "dist") continue
      const path = join(dir, entry)
      if (statSync(path).isDirectory()) walk(path)
      else if (/\.tsx?$/.test(entry)) files.push(path)
    }
  }
  for (const top of ["packages", "examples"]) {
    for (const name of readdirSync(join(ROOT, top))) {
      const dir = join(ROOT, top, name, "test")
      if (existsSync(dir)) walk(dir)
    }
  }
  walk(join(ROOT, "test"))
  return files.filter((file) => file !== join(import.meta.dirname, "row-coverage.test.ts"))
}

/** The row ids a text names: `Q-04`, and each row of a range (`CD-36 … CD-40`, `K-17..K-20`, `WH-13 – WH-16`). */
const namedRows = (text: string): Set<string> => {
  const named = new Set<string>()
  const id = (prefix: string, n: number) => `${prefix}-${String(n).padStart(2, "0")}`
  for (const m of text.matchAll(/\b([A-Z]{1,3})-(\d{2,3})(?:\s*(?:…|\.\.\.?|–)\s*(?:\1-)?(\d{2,3}))?/g)) {
    const [, prefix = "", from = "", to] = m
    const first = Number(from)
    const last = to === undefined ? first : Number(to)
    for (let n = first; n <= (last >= first && last - first <= 40 ? last : first); n++) named.add(id(prefix, n))
  }
  return named
}

describe("row coverage (issue 31)", () => {
  const checklist = readFileSync(CHECKLIST, "utf8")
  const rows = [...checklist.matchAll(ROW)].map((m) => m[1] as string)

  it("reads every row of the checklist", () => {
    expect(rows.length).toBeGreaterThan(400)
    expect(new Set(rows).size).toBe(rows.length)
  })

  it("every row is named by a test, or listed with a reason; no listed row is named by a test", () => {
    const named = namedRows(
      testSources()
        .map((file) => readFileSync(file, "utf8"))
        .join("\n")
    )
    const unnamed = rows.filter((row) => !named.has(row) && NOT_TESTED[row] === undefined)
    expect(unnamed, "name these rows in the title or a comment of the tests that prove them").toEqual([])
    const stale = Object.keys(NOT_TESTED).filter((row) => named.has(row))
    expect(stale, "these rows are named by a test now: take them off NOT_TESTED").toEqual([])
    const unknown = Object.keys(NOT_TESTED).filter((row) => !rows.includes(row))
    expect(unknown, "NOT_TESTED lists rows the checklist does not have").toEqual([])
  })

  it("a range names each row of it, and a longer id is not a shorter one", () => {
    expect([...namedRows("CD-36 … CD-40, K-17..K-20 and Q-104")].sort()).toEqual(
      ["CD-36", "CD-37", "CD-38", "CD-39", "CD-40", "K-17", "K-18", "K-19", "K-20", "Q-104"].sort()
    )
  })

  // The copy is the spec's checklist as it is now: a row added upstream is a row to cover.
  it.skipIf(!existsSync(UPSTREAM_CHECKLIST))("the copy is the spec's checklist as it is", () => {
    expect(checklist).toBe(readFileSync(UPSTREAM_CHECKLIST, "utf8"))
  })
})
