/**
 * The host project both install tests run in (install.test.ts: what a user's programs and tests do with the
 * packages; install-types.test.ts: what a user's compiler and attw see of them), installed once per run for both.
 * The public packages are packed from their built dist/ (`npm ci` built them: the root's `prepare` runs
 * `npm run build`; nothing here builds), the tarballs installed by file path into a project outside the workspace (a
 * folder under the OS's temp folder, from install-setup.ts: no link, no workspace, no node_modules of the repository
 * above it). Every command runs in plain Node, with the environment of a user's shell (commands.ts).
 *
 * What the host project installs from the registry (effect, pg, kysely, vitest, typescript, hono...) has the versions
 * of this repository's lock, so `npm install --prefer-offline` finds them in the npm cache `npm ci` filled; the tools
 * that only these tests use (attw, TypeScript 5) are pinned below. Skipped, with the reason, only when the npm
 * registry does not answer `npm ping`. Set PAYCORE_KEEP_INSTALL_TEST=1 to keep the host project (its path is printed).
 */
import {
  cpSync,
  existsSync,
  globSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative } from "node:path"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { describeRun, run, succeed } from "./commands.ts"

export const ROOT = realpathSync(join(import.meta.dirname, "../.."))

/** The public packages (issue 28): the test fails when a package becomes public or private without it changing here. */
export const PUBLIC = [
  "core",
  "store-tables",
  "store-memory",
  "store-postgres",
  "http",
  "sandbox",
  "testkit",
  "cli",
  "server",
  "dashboard"
] as const

/** What the host takes from the registry at the version this repository's lock installed (in the npm cache). */
const FROM_THE_LOCK = [
  "effect",
  "@effect/vitest",
  "vitest",
  "typescript",
  "@types/node",
  "pg",
  "@types/pg",
  "kysely",
  "hono",
  "@hono/node-server",
  "fast-check", // what a user's property test with @paycore/testkit/arbitraries imports
  "playwright-core" // the optional peer of @paycore/testkit/browser (a library: it downloads no browser)
] as const

/**
 * The tools only these tests use: TypeScript 5 (what most users have today) beside the repository's TypeScript 7,
 * under another name (both have a `tsc` bin: the test runs each by its path), and attw.
 */
const TOOLS = ["typescript5@npm:typescript@5.9.3", "@arethetypeswrong/cli@0.18.5"] as const

/**
 * The user's own tests docs/testing.md quotes, copied into the host's test/ with the install: install.test.ts runs
 * them with vitest, and install-types.test.ts's `tsc` compiles them with the rest of the host.
 */
const USER_TESTS = ["packages/http/test/arbitraries-user.test.ts", "packages/testkit/test/engine-model-user.test.ts"]

export interface Manifest {
  readonly name: string
  readonly version: string
  readonly private?: boolean
  readonly exports: Record<string, string | Record<string, string>>
}
export const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))

/** Built, not by this test: the files of every entry point (`types` and `default`) and the CLI's bin target. */
const missingBuiltFiles = (): ReadonlyArray<string> => {
  const missing: Array<string> = []
  for (const name of PUBLIC) {
    const dir = join(ROOT, "packages", name)
    for (const target of Object.values(manifest(dir).exports)) {
      if (typeof target === "string") continue
      for (const condition of ["types", "default"] as const) {
        const file = target[condition]
        if (file === undefined) missing.push(`packages/${name}/package.json: an export without "${condition}"`)
        else if (!existsSync(join(dir, file))) missing.push(join("packages", name, file))
      }
    }
  }
  if (!existsSync(join(ROOT, "packages/cli/dist/main.js"))) missing.push("packages/cli/dist/main.js (the bin's)")
  return missing
}

/** The packages whose src/ changed after their last build (the tarballs hold that build, not the change). */
const staleBuilds = (): ReadonlyArray<string> =>
  PUBLIC.filter((name) => {
    const buildInfo = join(ROOT, "packages", name, "dist/tsconfig.build.tsbuildinfo")
    if (!existsSync(buildInfo)) return false
    const built = statSync(buildInfo).mtimeMs
    return globSync("src/**/*.{ts,tsx}", { cwd: join(ROOT, "packages", name) }).some(
      (file) => statSync(join(ROOT, "packages", name, file)).mtimeMs > built
    )
  })

export interface Host {
  /** The temp folder: tarballs/ and host/. */
  readonly work: string
  /** The host project. */
  readonly host: string
  /** Each package's tarball and the files in it, by package name (`@paycore/core`). */
  readonly packed: ReadonlyMap<string, { readonly filename: string; readonly files: ReadonlyArray<string> }>
}

/** What the install left for the other file: the packed tarballs, or why it failed. */
const INSTALLED = "installed.json"
const FAILED = "install-failed.txt"

/** npm pack of every public package, npm install of the tarballs into the host, the examples copied as a user does. */
const install = async (work: string, timed: Timed): Promise<Host> => {
  const missing = missingBuiltFiles()
  if (missing.length > 0)
    throw new Error(
      `the built packages are missing (${missing.length} files), e.g.\n  ${missing.slice(0, 8).join("\n  ")}\n` +
        "They are built by `npm run build`, which `npm ci` and `npm install` run (the root's prepare script); this " +
        "test packs what is built and builds nothing. Run `npm run build`, then the test again."
    )
  const stale = staleBuilds()
  if (stale.length > 0)
    console.warn(
      `test/install: src/ changed after the last build in ${stale.join(", ")}: the tarballs hold that build, not ` +
        "your change (run `npm run build` to test it)"
    )

  // The host project: under the temp folder, and no folder above it has a node_modules Node could find.
  const tarballs = join(work, "tarballs")
  const host = join(work, "host")
  mkdirSync(tarballs)
  expect(relative(ROOT, work).startsWith(".."), `the temp folder ${work} is inside the repository`).toBe(true)
  for (let dir = dirname(work); dir !== dirname(dir); dir = dirname(dir))
    expect(
      existsSync(join(dir, "node_modules")),
      `${dir}/node_modules exists above the host project ${host}: Node would find packages there (set TMPDIR elsewhere)`
    ).toBe(false)

  // npm pack of every public package, from the workspace (what `npm publish` uploads).
  const pack = await timed("npm pack (10 packages)", () =>
    succeed(
      "npm",
      ["pack", "--json", "--pack-destination", tarballs, ...PUBLIC.flatMap((name) => ["-w", `@paycore/${name}`])],
      { cwd: ROOT, timeoutMs: 120_000 }
    )
  )
  const json = JSON.parse(pack.stdout) as Array<{
    name: string
    filename: string
    files: ReadonlyArray<{ path: string }>
  }>
  const packed = new Map(
    json.map((p) => [p.name, { filename: join(tarballs, p.filename), files: p.files.map((f) => f.path) }] as const)
  )

  // The host: its own package.json, the tarballs by path (npm extracts them: no links), the rest from the registry.
  cpSync(join(import.meta.dirname, "host"), host, { recursive: true })
  writeFileSync(
    join(host, "package.json"),
    `${JSON.stringify({ name: "paycore-install-test-host", private: true, type: "module" }, null, 2)}\n`
  )
  const lockVersion = (name: string) => `${name}@${manifest(join(ROOT, "node_modules", name)).version}`
  await timed("npm install (the tarballs and the host's dependencies)", () =>
    succeed(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        ...PUBLIC.map((name) => packed.get(`@paycore/${name}`)?.filename ?? `(no tarball for @paycore/${name})`),
        ...FROM_THE_LOCK.map(lockVersion),
        ...TOOLS
      ],
      { cwd: host, timeoutMs: 240_000 }
    )
  )
  // The examples as a user copies them: their src/ files, unchanged (they import @paycore/* and their own files).
  for (const example of ["embedded", "host-node-http", "host-hono"])
    cpSync(join(ROOT, "examples", example, "src"), join(host, example, "src"), { recursive: true })
  for (const file of USER_TESTS) cpSync(join(ROOT, file), join(host, "test", file.split("/").pop()!))
  return { work, host, packed }
}

/**
 * The host project, installed by the first file that asks (a folder made atomically says which); the other waits
 * until it is there, or fails with the install's error.
 */
const installedHost = async (timed: Timed): Promise<Host> => {
  const work = inject("paycoreInstallWork")
  let installs = true
  try {
    mkdirSync(join(work, "installing"))
  } catch {
    installs = false
  }
  if (installs) {
    try {
      const installed = await install(work, timed)
      // Written whole, then renamed: the other file never reads half of it.
      writeFileSync(join(work, `${INSTALLED}.tmp`), JSON.stringify([...installed.packed]))
      renameSync(join(work, `${INSTALLED}.tmp`), join(work, INSTALLED))
      return installed
    } catch (error) {
      writeFileSync(join(work, FAILED), String((error as Error).stack ?? error))
      throw error
    }
  }
  return timed("waiting for the other install test's npm install", async () => {
    for (;;) {
      if (existsSync(join(work, INSTALLED)))
        return {
          work,
          host: join(work, "host"),
          packed: new Map(JSON.parse(readFileSync(join(work, INSTALLED), "utf8")))
        }
      if (existsSync(join(work, FAILED)))
        throw new Error(`the install of the host project failed:\n${readFileSync(join(work, FAILED), "utf8")}`)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  })
}

type Timed = <A>(label: string, task: () => Promise<A>) => Promise<A>

// One retry, 2 s apart: a registry that refuses the connection is known in seconds.
const ping = await run("npm", ["ping", "--fetch-retries=1", "--fetch-retry-mintimeout=2000", "--fetch-timeout=15000"], {
  cwd: tmpdir(),
  timeoutMs: 40_000
})
const unreachable = ping.code === 0 ? undefined : `the npm registry did not answer:\n${describeRun(ping)}`
if (unreachable !== undefined) console.warn(`test/install is SKIPPED: nothing can be installed, ${unreachable}`)

export interface InstallSuite {
  /** The installed host (inside tests and hooks; not at module load). */
  readonly installed: () => Host
  /** An `it` whose time goes into the summary printed at the end. */
  readonly step: (title: string, timeoutMs: number, body: () => Promise<void>) => void
  readonly timed: Timed
}

/**
 * `describe` of an install test: the host installed (or waited for) before its tests, a summary of the steps' times
 * after them. Skipped when the npm registry is unreachable.
 */
export const describeInstall = (file: string, title: string, suite: (context: InstallSuite) => void) =>
  describe.skipIf(unreachable !== undefined)(
    `${title}${unreachable === undefined ? "" : " (SKIPPED: the npm registry is unreachable)"}`,
    () => {
      const timings: Array<readonly [string, number]> = []
      const timed: Timed = async (label, task) => {
        const started = performance.now()
        try {
          return await task()
        } finally {
          timings.push([label, performance.now() - started])
        }
      }
      let host: Host | undefined
      beforeAll(async () => {
        host = await installedHost(timed)
      }, 420_000)
      afterAll(() => {
        if (timings.length > 0)
          console.log(
            `${file} timings${process.env.DATABASE_URL ? " (DATABASE_URL)" : " (PGlite)"}:\n${timings
              .map(([label, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${label}`)
              .join("\n")}`
          )
      })
      suite({
        installed: () => {
          if (host === undefined) throw new Error("the host project is not installed")
          return host
        },
        step: (title, timeoutMs, body) => it(title, () => timed(title, body), timeoutMs),
        timed
      })
    }
  )
