import { availableParallelism } from "node:os"
import { join } from "node:path"
import { defineConfig } from "vitest/config"
import SlowFilesFirst from "./vitest.sequencer.ts"

/**
 * The monorepo runs the TypeScript sources, never a build: every @paycore package exports its `src/` under this
 * condition (then `types`, `default`: the built dist/ users get). Vite resolves the tests' imports with it (vitest
 * appends its defaults, "node" and "development|production", to the conditions below; vite always adds "import" and
 * "default"), vitest passes it to its workers' `--conditions`, and the child processes tests spawn (`node src/main.ts`
 * of the CLI, the sandbox server) inherit it through NODE_OPTIONS.
 */
const SOURCE_CONDITION = "@paycore/source"
const nodeOptions = process.env.NODE_OPTIONS ?? ""
if (!nodeOptions.includes(`--conditions=${SOURCE_CONDITION}`))
  process.env.NODE_OPTIONS = `${nodeOptions} --conditions=${SOURCE_CONDITION}`.trim()

/**
 * The suite starts node processes by the hundred (the servers, the CLI, the examples, each loading the engine's
 * TypeScript sources): with Node's compile cache they share the compiled modules instead of compiling them again,
 * about half of a start's CPU time. A cache only (entries are checked against the file's contents): set in this
 * process, so vitest's workers and every process a test spawns inherit it.
 */
process.env.NODE_COMPILE_CACHE ??= join(import.meta.dirname, "node_modules/.cache/node-compile-cache")

export default defineConfig({
  resolve: { conditions: [SOURCE_CONDITION] },
  ssr: { resolve: { conditions: [SOURCE_CONDITION] } },
  // The environment vitest runs `globalSetup` in takes no top-level conditions (its own defaults only).
  environments: { __vitest__: { resolve: { conditions: [SOURCE_CONDITION] } } },
  test: {
    include: [
      "packages/*/test/**/*.test.ts",
      "examples/*/test/**/*.test.ts",
      "test/install/*.test.ts",
      "test/spec/*.test.ts",
      "test/docs/*.test.ts"
    ],
    globalSetup: [
      "packages/http/test/conformance-setup.ts",
      "packages/store-postgres/test/pglite-template-setup.ts",
      "test/install/install-setup.ts"
    ],
    reporters: ["default", "./vitest.closing-line.ts"],
    // The longest files first (vitest.sequencer.ts says why).
    sequence: { sequencer: SlowFilesFirst },
    // Three workers for two cores: the suite spends much of its time waiting on PostgreSQL, PGlite and the servers,
    // browsers and installs it starts, so a third worker fills the waits (on the 2-core CI machine, 571 s instead of
    // 630 s with a worker per core, and two workers took about two thirds of the time of one). A fourth worker gains
    // nothing: 828 s against 831 s with three (2026-11-29).
    // (A number: vitest caps a percentage at the core count.)
    maxWorkers: Math.ceil(availableParallelism() * 1.5),
    testTimeout: 30_000,
    // Hooks start servers: PGlite applies every migration in WebAssembly, which on a loaded 2-core machine can take
    // longer than a test may. A limit, not a measurement.
    hookTimeout: 120_000,
    // Most files import the whole engine (core, http, effect): a worker keeps the module graph between files instead
    // of importing it again for each (the suite in about half the time). Tests keep no state in modules: each file
    // makes its own stores, servers, pools and schemas.
    isolate: false
  }
})
