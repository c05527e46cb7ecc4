import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts"],
    globalSetup: ["packages/http/test/conformance-setup.ts", "packages/store-postgres/test/pglite-template-setup.ts"],
    reporters: ["default", "./vitest.closing-line.ts"],
    // A worker per core (vitest's default leaves one idle): the suite spends much of its time waiting on
    // PostgreSQL and PGlite, so two workers on a 2-core CI machine take about two thirds of the time of one.
    maxWorkers: "100%",
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
