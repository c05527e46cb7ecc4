/**
 * The docs show code that runs: a TypeScript block whose fence names a file (```ts examples/embedded/src/main.ts) is
 * found in that file verbatim, in README.md and every docs/*.md (docs/embedding.md is made of the examples' code,
 * docs/testing.md quotes the tests that run its examples). On failure, copy the block again from the file.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { documents, fencedBlocks, ROOT } from "./doc-blocks.ts"

const quoted = documents().flatMap((file) =>
  fencedBlocks(readFileSync(join(ROOT, file), "utf8")).flatMap(({ info, body, line }) => {
    const [language, source] = info.split(/\s+/)
    return (language === "ts" || language === "js") && source !== undefined
      ? [{ where: `${file}:${line}`, source, code: body }]
      : []
  })
)

describe("code quoted in the docs is found in the file it names", () => {
  it("quotes the embedding guide's examples and the testing guide's tests", () => {
    const sources = new Set(quoted.map((block) => block.source))
    expect([...sources].some((source) => source.startsWith("examples/embedded/src/"))).toBe(true)
    expect(sources).toContain("packages/http/test/arbitraries-user.test.ts")
    expect(sources).toContain("packages/testkit/test/engine-model-user.test.ts")
  })

  it.each(quoted.map((block) => [block.where, block] as const))("%s", (_, block) => {
    const path = join(ROOT, block.source)
    expect(existsSync(path), `${block.source} (named at ${block.where}) does not exist`).toBe(true)
    expect(readFileSync(path, "utf8").includes(block.code), `${block.where} is not in ${block.source} as written`).toBe(
      true
    )
  })
})
