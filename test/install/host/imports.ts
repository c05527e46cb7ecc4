/**
 * Imports every installed @paycore package and each of its subpath exports in plain Node, as `import "@paycore/core"`
 * in a user's program does (no --conditions: the `types`/`default` conditions lead to the built dist/). Prints one JSON
 * line per entry point; an entry point that fails to import prints its error and the program exits 1 at the end.
 *
 *   node imports.ts
 */
import { readdirSync, readFileSync } from "node:fs"

const scope = new URL("./node_modules/@paycore/", import.meta.url)
let failed = 0
for (const folder of readdirSync(scope).sort()) {
  const manifest = JSON.parse(readFileSync(new URL(`${folder}/package.json`, scope), "utf8")) as {
    name: string
    exports: Record<string, unknown>
  }
  for (const subpath of Object.keys(manifest.exports)) {
    if (subpath === "./package.json") continue
    const specifier = `${manifest.name}${subpath.slice(1)}`
    try {
      const resolved = import.meta.resolve(specifier)
      const module: Record<string, unknown> = await import(specifier)
      console.log(JSON.stringify({ specifier, resolved, exports: Object.keys(module).length }))
    } catch (error) {
      failed++
      const code = (error as { code?: string }).code ?? "Error"
      console.error(`import("${specifier}") failed: ${code}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
}
if (failed > 0) process.exitCode = 1
