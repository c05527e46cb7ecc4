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
  const extensionOperations = new Set<string>()
  const used = new Set<string>()
  for (const f of perFile) {
    validated += f.validated
    extensions += f.extensions
    for (const key of Object.keys(f.byOperation)) operations.add(key.slice(0, key.lastIndexOf(" ")))
    for (const key of Object.keys(f.extensionOperations)) extensionOperations.add(key)
    for (const id of Object.keys(f.differencesUsed)) used.add(id)
  }
  return [
    `upstream conformance: ${validated} responses validated, ${operations.size}/${upstreamOperations} upstream operations covered,`,
    `${extensions} responses of ${extensionOperations.size} extension operations, ${differences.length + operationAliases.length} deliberate differences (${used.size} met in this run)`
  ].join(" ")
}
