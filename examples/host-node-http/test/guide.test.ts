/**
 * docs/embedding.md is made of the examples' code: every TypeScript block names the file it is quoted from on its
 * fence (```ts examples/host-node-http/src/paycore.ts) and is found there verbatim, so the guide never shows code
 * that no longer runs. On failure, copy the block again from the file (or fix the name on the fence).
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const ROOT = join(import.meta.dirname, "../../..")
const GUIDE = "docs/embedding.md"
const guide = readFileSync(join(ROOT, GUIDE), "utf8")

interface Block {
  readonly line: number
  readonly lang: string
  readonly file: string | undefined
  readonly code: string
}

const blocks: ReadonlyArray<Block> = [...guide.matchAll(/^```(\S*)[ \t]*(\S*)\n([\s\S]*?)^```$/gm)].map((m) => ({
  line: guide.slice(0, m.index).split("\n").length,
  lang: m[1]!,
  file: m[2] === "" ? undefined : m[2],
  code: m[3]!.replace(/\n$/, "")
}))
const quoted = blocks.filter((b) => b.lang === "ts" || b.lang === "js" || b.lang === "typescript")

describe(`${GUIDE}: every code block is quoted from a program`, () => {
  it("has the blocks of the examples it walks through", () => {
    expect(quoted.length).toBeGreaterThanOrEqual(10)
    const files = new Set(quoted.map((b) => b.file))
    for (const example of ["host-node-http", "host-hono", "embedded"]) {
      expect([...files].some((file) => file?.startsWith(`examples/${example}/src/`))).toBe(true)
    }
  })

  it.each(quoted.map((b) => [`line ${b.line} (${b.file ?? "no file named"})`, b] as const))(
    "the block at %s is found verbatim in the file it names",
    (_, block) => {
      expect(block.file, `the fence at line ${block.line} must name the file the block is quoted from`).toMatch(
        /^examples\/[^/]+\/src\/.+\.ts$/
      )
      const path = join(ROOT, block.file!)
      expect(existsSync(path), `${block.file} (named at line ${block.line}) does not exist`).toBe(true)
      const source = readFileSync(path, "utf8")
      expect(source.includes(block.code), `the block at line ${block.line} is not in ${block.file} as written`).toBe(
        true
      )
    }
  )

  it("the README's first screen links the guide", () => {
    const firstScreen = readFileSync(join(ROOT, "README.md"), "utf8").split("\n").slice(0, 15).join("\n")
    expect(firstScreen).toContain("(docs/embedding.md)")
  })
})
