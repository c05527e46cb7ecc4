/**
 * Vitest global setup of the upstream conformance check: parses the upstream OpenAPI YAML once per run (each test
 * file's worker then reads JSON, 20 ms instead of 300 ms), gives the workers a directory for their figures, and
 * prints the run's figures at the end.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"
import { type Figures, prepareUpstream, UPSTREAM_OPENAPI } from "./conformance.ts"
import { differences, operationAliases } from "./upstream-differences.ts"

export default function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), "paycore-conformance-"))
  const statsDir = join(dir, "figures")
  let upstreamJson: string | null = null
  let operations = 0
  if (existsSync(UPSTREAM_OPENAPI)) {
    const prepared = prepareUpstream(readFileSync(UPSTREAM_OPENAPI, "utf8"))
    operations = prepared.operations.length
    upstreamJson = join(dir, "upstream.json")
    writeFileSync(upstreamJson, JSON.stringify(prepared))
  }
  mkdirSync(statsDir)
  project.provide("paycoreConformance", { upstreamJson, statsDir })
  return () => {
    try {
      const files = readdirSync(statsDir)
      if (files.length > 0)
        process.stdout.write(
          `\n${summary(
            files.map((f) => JSON.parse(readFileSync(join(statsDir, f), "utf8"))),
            operations
          )}\n`
        )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** The run's figures, summed over the test files. */
export const summary = (perFile: ReadonlyArray<Figures>, upstreamOperations: number): string => {
  let validated = 0
  let extensions = 0
  const operations = new Set<string>()
  const extensionOperations = new Map<string, number>()
  const used = new Map<string, number>()
  for (const f of perFile) {
    validated += f.validated
    extensions += f.extensions
    for (const key of Object.keys(f.byOperation)) operations.add(key.slice(0, key.lastIndexOf(" ")))
    for (const [key, n] of Object.entries(f.extensionOperations))
      extensionOperations.set(key, (extensionOperations.get(key) ?? 0) + n)
    for (const [id, n] of Object.entries(f.differencesUsed)) used.set(id, (used.get(id) ?? 0) + n)
  }
  const listed = [...differences.map((d) => d.id), ...operationAliases.map((a) => a.id)]
  const unmet = listed.filter((id) => !used.has(id))
  const met = [...used.values()].reduce((a, b) => a + b, 0)
  return [
    `upstream conformance: ${validated} responses validated, ${operations.size}/${upstreamOperations} upstream operations covered;`,
    `  ${extensions} responses of extensions (${[...extensionOperations].map(([k, n]) => `${k} ${n}`).join(", ")});`,
    `  ${listed.length} deliberate differences, ${listed.length - unmet.length} met in this run (${met} times)` +
      (unmet.length === 0 ? "" : `; not met: ${unmet.join(", ")}`)
  ].join("\n")
}
