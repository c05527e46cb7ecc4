/**
 * Issue 28, item 2: paycore as a user installs it, what a user's compilers, attw and `npm publish` see of the
 * packages, in the host project host-project.ts installs (shared with install.test.ts, on another worker: these tools
 * take about as long as the rest of the install test). A failure says what the user would see: the command, where it
 * ran, and its output.
 */
import { join } from "node:path"
import { expect } from "vitest"
import { describeRun, mapLimit, type Ran, run } from "./commands.ts"
import { describeInstall, manifest, PUBLIC, ROOT } from "./host-project.ts"

describeInstall(
  "test/install/install-types.test.ts",
  "issue 28, item 2: paycore packed and installed as a user installs it, as the tools see it",
  ({ installed, step, timed }) => {
    // A slow 2-vCPU VM took 135 s for one TypeScript 5 compile beside the rest of the suite (CI, 2026-11-30).
    const inHost = (command: string, args: ReadonlyArray<string>) =>
      run(command, args, { cwd: installed().host, timeoutMs: 300_000 })

    step(
      "tsc --noEmit of the host project under moduleResolution nodenext and bundler with skipLibCheck: false (TypeScript 7, the repository's, and TypeScript 5)",
      420_000,
      async () => {
        // Both packages have a `tsc` bin and npm links one of them: each is run by its path.
        const compilers = [
          ["TypeScript 7", "node_modules/typescript/bin/tsc"],
          ["TypeScript 5", "node_modules/typescript5/bin/tsc"]
        ] as const
        const runs = compilers.flatMap(([label, tsc]) =>
          ["tsconfig.nodenext.json", "tsconfig.bundler.json"].map((config) => ({ label, tsc, config }))
        )
        const results = await mapLimit(runs, 2, ({ label, tsc, config }) =>
          timed(`  tsc ${label} -p ${config}`, () => inHost("node", [tsc, "--noEmit", "-p", config]))
        )
        const versions = await Promise.all(compilers.map(([, tsc]) => inHost("node", [tsc, "--version"])))
        expect(versions.map((v) => v.stdout.trim())).toEqual([
          expect.stringMatching(/^Version 7\./),
          expect.stringMatching(/^Version 5\./)
        ])
        const failed = results.filter((ran) => ran.code !== 0)
        expect(failed.length, failed.map(describeRun).join("\n\n")).toBe(0)
      }
    )

    step(
      "@arethetypeswrong/cli on each tarball, --profile esm-only (the packages are ESM only by design: require() of them is not supported): no problem reported",
      120_000,
      async () => {
        const results = await mapLimit(PUBLIC, 3, (name) =>
          inHost("npx", [
            "attw",
            installed().packed.get(`@paycore/${name}`)!.filename,
            "--profile",
            "esm-only",
            "--no-color"
          ])
        )
        const failed = results.filter((ran: Ran) => ran.code !== 0)
        expect(failed.length, failed.map(describeRun).join("\n\n")).toBe(0)
      }
    )

    step("npm publish --dry-run passes for each package", 120_000, async () => {
      const ran = await run("npm", ["publish", "--dry-run", ...PUBLIC.flatMap((name) => ["-w", `@paycore/${name}`])], {
        cwd: ROOT,
        timeoutMs: 120_000
      })
      expect(ran.code, describeRun(ran)).toBe(0)
      for (const name of PUBLIC) {
        const version = manifest(join(ROOT, "packages", name)).version
        expect(ran.stdout, describeRun(ran)).toContain(`+ @paycore/${name}@${version}`)
      }
    })
  }
)
