import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts"],
    globalSetup: ["packages/http/test/conformance-setup.ts"],
    reporters: ["default", "./vitest.closing-line.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
