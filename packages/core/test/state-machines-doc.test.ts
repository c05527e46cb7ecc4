/**
 * Keeps docs/state-machines.md in sync with the machine tables: for every machine exported by a
 * `machine.ts` under `src/`, the doc's section `## \`<name>\`` holds the mermaid block equal to
 * `toMermaid(machine)` and a transition table with one row per legal (state, event) pair and
 * none for an illegal one. On failure the message prints the expected block to paste into the doc.
 * An area's page that shows a machine's diagram too (`EMBEDDED_DIAGRAMS`) is held to the same mermaid block.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { type Machine, toMermaid } from "../src/shared/machine.ts"

type AnyMachine = Machine<string, string, string>

const srcDir = join(import.meta.dirname, "../src")
const docsDir = join(import.meta.dirname, "../../../docs")
const doc = readFileSync(join(docsDir, "state-machines.md"), "utf8")

/** Area pages that show machines' diagrams, each under a heading `#… \`<name>\`` of its own. */
const EMBEDDED_DIAGRAMS: ReadonlyArray<{ readonly page: string; readonly machines: ReadonlyArray<string> }> = [
  { page: "cards.md", machines: ["Card", "CardTransaction"] }
]

const isMachine = (value: unknown): value is AnyMachine =>
  typeof value === "object" &&
  value !== null &&
  "name" in value &&
  "states" in value &&
  "events" in value &&
  "transitions" in value

/** Every machine exported by a `machine.ts` under src (shared/machine.ts defines the type, not a machine). */
const machineFiles = readdirSync(srcDir, { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith("machine.ts") && !file.startsWith("shared"))
  .sort()
const machines: Array<AnyMachine> = []
for (const file of machineFiles) {
  const exports: Record<string, unknown> = await import(join(srcDir, file))
  machines.push(...Object.values(exports).filter(isMachine))
}

const TABLE_HEADER = "| State | Event | Next state | Events emitted |"

/** The table rows the doc must have: one per legal move, in the order of `states` × `events`. */
const expectedRows = (machine: AnyMachine): Array<string> => {
  const rows: Array<string> = []
  for (const state of machine.states) {
    for (const event of machine.events) {
      const move = machine.transitions[state]?.[event]
      if (move === undefined) continue
      const emits = move.emits.length === 0 ? "—" : move.emits.join(", ")
      rows.push(`| ${state} | ${event} | ${move.to} | ${emits} |`)
    }
  }
  return rows
}

/** What to paste under the machine's heading when the test fails. */
const expectedBlock = (machine: AnyMachine): string =>
  ["```mermaid", toMermaid(machine), "```", "", TABLE_HEADER, "|---|---|---|---|", ...expectedRows(machine)].join("\n")

const hint = (machine: AnyMachine): string =>
  `docs/state-machines.md is out of date for ${machine.name}. Regenerate it: paste this under ` +
  `"## \`${machine.name}\`":\n\n${expectedBlock(machine)}\n\n`

/** A page's text from the heading `#… \`<name>\`` (any level) up to the next heading of that level or above. */
const sectionOf = (page: string, name: string): string | undefined => {
  const heading = new RegExp(`^(#{2,6}) \`${name}\`$`, "m").exec(page)
  if (heading === null) return undefined
  const level = heading[1]!.length
  const rest = page.slice(heading.index + heading[0].length)
  const next = new RegExp(`^#{1,${level}} `, "m").exec(rest)
  return page.slice(heading.index, next === null ? undefined : heading.index + heading[0].length + next.index)
}

/** The content of the first ```mermaid block of a section. */
const mermaidOf = (section: string): string | undefined => section.match(/```mermaid\n([\s\S]*?)\n```/)?.[1]

/** The rows of the transition table of a section (the lines after its header and separator that start with `|`). */
const tableRowsOf = (section: string): Array<string> => {
  const lines = section.split("\n")
  const header = lines.indexOf(TABLE_HEADER)
  if (header < 0) return []
  const rows: Array<string> = []
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith("|")) break
    rows.push(line.trim())
  }
  return rows
}

describe("docs/state-machines.md", () => {
  it("finds the machines", () => {
    expect(machines.map((m) => m.name).sort()).toEqual(
      expect.arrayContaining(["IncomingPayment", "OutgoingPayment", "Quote"])
    )
  })

  describe.each(machines.map((machine) => [machine.name, machine] as const))("%s", (_name, machine) => {
    const section = sectionOf(doc, machine.name) ?? ""

    it("has a section", () => {
      expect(section, hint(machine)).not.toBe("")
    })

    it("embeds toMermaid(machine)", () => {
      expect(mermaidOf(section), hint(machine)).toBe(toMermaid(machine))
    })

    it("has a row for every legal move and none for an illegal one", () => {
      expect(tableRowsOf(section), hint(machine)).toEqual(expectedRows(machine))
    })
  })
})

describe.each(EMBEDDED_DIAGRAMS.flatMap(({ page, machines: names }) => names.map((name) => [page, name] as const)))(
  "docs/%s shows %s",
  (page, name) => {
    const machine = machines.find((m) => m.name === name)
    const section = sectionOf(readFileSync(join(docsDir, page), "utf8"), name) ?? ""
    const pasteHint = (m: AnyMachine) =>
      `docs/${page} is out of date for ${m.name}: paste under its heading:\n\n\`\`\`mermaid\n${toMermaid(m)}\n\`\`\`\n\n`

    it("names a machine of the code", () => {
      expect(machine, `no machine named ${name}: fix EMBEDDED_DIAGRAMS`).toBeDefined()
    })

    it("embeds toMermaid(machine) under its heading", () => {
      if (machine === undefined) return
      expect(section, `docs/${page} has no heading \`${name}\``).not.toBe("")
      expect(mermaidOf(section), pasteHint(machine)).toBe(toMermaid(machine))
    })
  }
)
