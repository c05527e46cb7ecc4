/**
 * docs/embedding.md is made of the examples' code: every TypeScript block names the file it is quoted from on its
 * fence (```ts examples/host-node-http/src/paycore.ts), and test/docs/quoted-code.test.ts finds it there verbatim, so
 * the guide never shows code that no longer runs. On failure, copy the block again from the file (or fix the name on
 * the fence).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { fencedBlocks } from "../../../test/docs/doc-blocks.ts"

const ROOT = join(import.meta.dirname, "../../..")
const GUIDE = "docs/embedding.md"
const guide = readFileSync(join(ROOT, GUIDE), "utf8")

const quoted = fencedBlocks(guide).flatMap(({ info, line }) => {
  const [lang, file] = info.split(/\s+/)
  return lang === "ts" || lang === "js" || lang === "typescript" ? [{ line, file }] : []
})

describe(`${GUIDE}: every code block is quoted from a program`, () => {
  it("has the blocks of the examples it walks through", () => {
    expect(quoted.length).toBeGreaterThanOrEqual(10)
    const files = new Set(quoted.map((b) => b.file))
    for (const example of ["host-node-http", "host-hono", "embedded"]) {
      expect([...files].some((file) => file?.startsWith(`examples/${example}/src/`))).toBe(true)
    }
  })

  it.each(quoted.map((b) => [`line ${b.line} (${b.file ?? "no file named"})`, b] as const))(
    "the block at %s names the example file it is quoted from",
    (_, block) => {
      expect(block.file, `the fence at line ${block.line} must name the file the block is quoted from`).toMatch(
        /^examples\/[^/]+\/src\/.+\.ts$/
      )
    }
  )

  it("the README's first screen links the guide", () => {
    const firstScreen = readFileSync(join(ROOT, "README.md"), "utf8").split("\n").slice(0, 15).join("\n")
    expect(firstScreen).toContain("(docs/embedding.md)")
  })
})
