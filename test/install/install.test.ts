/**
 * Issue 28, item 2: paycore as a user installs it. The public packages are packed from their built dist/ (`npm ci`
 * built them: the root's `prepare` runs `npm run build`; this test builds nothing), the tarballs installed by file path
 * into a project outside the workspace (a folder under the OS's temp folder: no link, no workspace, no node_modules of
 * the repository above it), and that project then does what a team does with them, in plain Node (none of the
 * monorepo's `@paycore/source` condition: every command runs with the environment of a user's shell, see
 * commands.ts). A failure says what the user would see: the command, where it ran, and its output.
 *
 * What the host project installs from the registry (effect, pg, kysely, vitest, typescript, hono...) has the versions
 * of this repository's lock, so `npm install --prefer-offline` finds them in the npm cache `npm ci` filled; the tools
 * that only this test uses (attw, TypeScript 5) are pinned below. Skipped, with the reason, only when the npm registry
 * does not answer `npm ping`. Set PAYCORE_KEEP_INSTALL_TEST=1 to keep the host project (its path is printed).
 */
import { randomBytes } from "node:crypto"
import {
  cpSync,
  existsSync,
  globSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative } from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { firstPayment } from "../../examples/host-node-http/test/first-payment.ts"
import { describeRun, mapLimit, type Ran, run, type Started, start, succeed } from "./commands.ts"

const ROOT = realpathSync(join(import.meta.dirname, "../.."))

/** The public packages (issue 28): the test fails when a package becomes public or private without it changing here. */
const PUBLIC = [
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
 * The tools only this test uses: TypeScript 5 (what most users have today) beside the repository's TypeScript 7, under
 * another name (both have a `tsc` bin: the test runs each by its path), and attw.
 */
const TOOLS = ["typescript5@npm:typescript@5.9.3", "@arethetypeswrong/cli@0.18.5"] as const

const API_TOKEN = `host-token-${randomBytes(8).toString("hex")}`
const databaseUrl = process.env.DATABASE_URL === "" ? undefined : process.env.DATABASE_URL

interface Manifest {
  readonly name: string
  readonly version: string
  readonly private?: boolean
  readonly exports: Record<string, string | Record<string, string>>
}
const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))

/** The subpaths of a package's exports, as specifiers (`@paycore/http/api`); `./package.json` left out. */
const entryPoints = (m: Manifest) =>
  Object.keys(m.exports)
    .filter((subpath) => subpath !== "./package.json")
    .map((subpath) => `${m.name}${subpath.slice(1)}`)

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

// One retry, 2 s apart: a registry that refuses the connection is known in seconds.
const ping = await run("npm", ["ping", "--fetch-retries=1", "--fetch-retry-mintimeout=2000", "--fetch-timeout=15000"], {
  cwd: tmpdir(),
  timeoutMs: 40_000
})
const unreachable = ping.code === 0 ? undefined : `the npm registry did not answer:\n${describeRun(ping)}`
if (unreachable !== undefined) console.warn(`test/install is SKIPPED: nothing can be installed, ${unreachable}`)

describe.skipIf(unreachable !== undefined)(
  `issue 28, item 2: paycore packed and installed as a user installs it${unreachable === undefined ? "" : " (SKIPPED: the npm registry is unreachable)"}`,
  () => {
    const timings: Array<readonly [string, number]> = []
    const timed = async <A>(label: string, task: () => Promise<A>): Promise<A> => {
      const started = performance.now()
      try {
        return await task()
      } finally {
        timings.push([label, performance.now() - started])
      }
    }
    /** An `it` whose time goes into the summary printed at the end. */
    const step = (title: string, timeoutMs: number, body: () => Promise<void>) =>
      it(title, () => timed(title, body), timeoutMs)

    let work: string | undefined // the temp folder: tarballs/ and host/
    let tarballs: string
    let host: string
    const packed = new Map<string, { filename: string; files: ReadonlyArray<string> }>()
    const running: Array<Started> = []
    const schemas: Array<string> = []
    let nodeHttpHost: { url: string; server: Started } | undefined

    const inHost = (command: string, args: ReadonlyArray<string>, env?: Record<string, string | undefined>) =>
      run(command, args, { cwd: host, env, timeoutMs: 180_000 })

    beforeAll(async () => {
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
      work = realpathSync(mkdtempSync(join(tmpdir(), "paycore-install-")))
      tarballs = join(work, "tarballs")
      host = join(work, "host")
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
      for (const p of json)
        packed.set(p.name, { filename: join(tarballs, p.filename), files: p.files.map((f) => f.path) })

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
    }, 420_000)

    afterAll(async () => {
      await Promise.all(running.map((server) => server.stop("SIGKILL", 5_000)))
      for (const schema of schemas) {
        const client = new pg.Client({ connectionString: databaseUrl })
        await client.connect()
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => client.end())
      }
      if (work !== undefined) {
        if (process.env.PAYCORE_KEEP_INSTALL_TEST === "1")
          console.log(`test/install: the host project is kept at ${host}`)
        else rmSync(work, { recursive: true, force: true })
      }
      if (timings.length > 0)
        console.log(
          `test/install timings${databaseUrl === undefined ? " (PGlite)" : " (DATABASE_URL)"}:\n${timings
            .map(([label, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${label}`)
            .join("\n")}`
        )
    })

    step(
      "npm pack every public package into a temp folder, npm install the tarballs outside the workspace (no links)",
      30_000,
      async () => {
        const names = readdirSync(join(ROOT, "packages"))
        const publicInWorkspace = names.filter((name) => manifest(join(ROOT, "packages", name)).private !== true).sort()
        expect(publicInWorkspace, "the public packages of packages/* (update PUBLIC when one is added)").toEqual(
          [...PUBLIC].sort()
        )
        const hostManifest = JSON.parse(readFileSync(join(host, "package.json"), "utf8")) as {
          dependencies: Record<string, string>
        }
        for (const name of PUBLIC) {
          const pkg = `@paycore/${name}`
          const files = packed.get(pkg)?.files ?? []
          expect(files, `${pkg}'s tarball`).toContain("dist/index.js")
          expect(files, `${pkg}'s tarball`).toContain("dist/index.d.ts")
          expect(files, `${pkg}'s tarball`).toContain("README.md")
          expect(
            files.filter((file) => file.endsWith(".tsbuildinfo")),
            `${pkg}'s tarball ships no build info`
          ).toEqual([])
          expect(hostManifest.dependencies[pkg], `the host's package.json depends on ${pkg}'s tarball`).toMatch(
            /^file:.*\.tgz$/
          )
          const installed = join(host, "node_modules", pkg)
          const stat = lstatSync(installed)
          expect(stat.isSymbolicLink(), `${installed} is a symlink (npm linked it instead of installing it)`).toBe(
            false
          )
          expect(stat.isDirectory(), `${installed} is a real folder`).toBe(true)
          expect(manifest(installed).version).toBe(manifest(join(ROOT, "packages", name)).version)
        }
        expect(
          globSync("node_modules/**/node_modules/effect/package.json", { cwd: host }),
          "one copy of effect, the host's (a peer dependency of the packages)"
        ).toEqual([])
      }
    )

    step("import every package in plain Node: each package and subpath export, no conditions", 60_000, async () => {
      const ran = await inHost("node", ["imports.ts"])
      expect(ran.code, describeRun(ran)).toBe(0)
      const lines = ran.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { specifier: string; resolved: string; exports: number })
      const expected = PUBLIC.flatMap((name) => entryPoints(manifest(join(ROOT, "packages", name)))).sort()
      expect(lines.map((l) => l.specifier).sort(), describeRun(ran)).toEqual(expected)
      for (const { specifier, resolved, exports } of lines) {
        const folder = specifier.split("/").slice(0, 2).join("/")
        expect(resolved, `${specifier} resolves to the built JavaScript in the host's node_modules`).toMatch(
          new RegExp(`^file://${host}/node_modules/${folder}/dist/.+\\.js$`)
        )
        expect(exports, `${specifier} exports something`).toBeGreaterThan(0)
      }
    })

    step("run examples/embedded copied into that project", 90_000, async () => {
      const main = await inHost("node", ["embedded/src/main.ts"])
      expect(main.code, describeRun(main)).toBe(0)
      const summary = main.stdout
      expect(summary, describeRun(main)).toMatch(/^USD account \S+: 1000\.00 USD -> 875\.00 USD$/m)
      expect(summary, describeRun(main)).toMatch(/send 25\.00 USD .* receive 25\.00 USD/)
      expect(summary, describeRun(main)).toMatch(/send 100\.00 USD {2}fees 0\.50 USD .* receive 1716\.37 MXN/)
      expect(summary, describeRun(main)).toMatch(/^ {2}Transaction:\S+ COMPLETED on RTP at /m)
      expect(summary, describeRun(main)).toMatch(/^ {2}Transaction:\S+ COMPLETED on SPEI at /m)
      const delivered = summary.match(/webhooks delivered (\d+) of (\d+) claimed/)
      expect(delivered?.[1], describeRun(main)).toBe(delivered?.[2])
      expect(summary.match(/OUTGOING_PAYMENT\.COMPLETED/g)?.length, describeRun(main)).toBe(2)
      // The worker and the dispatcher forked into the runtime's scope settle a payment nobody drives.
      const workers = await inHost("node", ["embedded/src/workers.ts"])
      expect(workers.code, describeRun(workers)).toBe(0)
      expect(workers.stdout, describeRun(workers)).toMatch(/^Transaction:\S+ COMPLETED at \S+$/m)
    })

    step(
      `an embedded program on store-postgres with the host's own pg pool / Kysely and migrate() called from the host (examples/host-node-http, on ${databaseUrl === undefined ? "PGlite: DATABASE_URL is not set" : "the PostgreSQL server of DATABASE_URL"}): a first payment`,
      150_000,
      async () => {
        const env: Record<string, string | undefined> = {
          PORT: "0",
          HOST_API_TOKEN: API_TOKEN,
          PAYCORE_CLIENT_SECRET: randomBytes(24).toString("hex"),
          PAYCORE_WEBHOOK_PRIVATE_KEY: randomBytes(32).toString("hex")
        }
        if (databaseUrl !== undefined) {
          const schema = `install_node_http_${process.pid}_${randomBytes(3).toString("hex")}`
          schemas.push(schema)
          Object.assign(env, { DATABASE_URL: databaseUrl, PAYCORE_SCHEMA: schema })
          // Once per deployment, by the host's own program: the store's migrate() on the host's pool.
          const first = await inHost("node", ["host-node-http/src/migrate.ts"], env)
          expect(first.code, describeRun(first)).toBe(0)
          expect(first.stdout, describeRun(first)).toMatch(/^applied \S+/)
          const again = await inHost("node", ["host-node-http/src/migrate.ts"], env)
          expect(again.stdout, describeRun(again)).toBe("up to date\n")
        } // else: on PGlite the host migrates at start (startHost's migrateAtStart), through the same migrateDatabase.
        const server = await start("node", ["host-node-http/src/main.ts"], {
          cwd: host,
          env,
          ready: /host on (http:\/\/127\.0\.0\.1:\d+);/,
          timeoutMs: 120_000
        })
        running.push(server)
        nodeHttpHost = { url: server.ready[1]!, server }
        try {
          const { funded, quote, transaction, balanceAfter } = await firstPayment(
            `${nodeHttpHost.url}/payments/2025-10-13`,
            `Bearer ${API_TOKEN}`
          )
          expect(funded.balance.amount).toBe(100_000)
          expect(quote.totalSendingAmount).toBe(2_500)
          expect(transaction.status).toBe("COMPLETED")
          expect(balanceAfter.amount).toBe(100_000 - 2_500)
        } catch (error) {
          throw new Error(`${String(error)}\nthe host server's output:\n$ ${server.command}\n${server.output()}`)
        }
      }
    )

    /** The host's own auth in front, paycore under the prefix, the host's routes beside it. */
    const checkMounted = async (url: string, server: Started, refusedStatus: (headers: Headers) => void) => {
      const api = `${url}/payments/2025-10-13`
      const context = `the host server's output:\n$ ${server.command}\n${server.output()}`
      for (const authorization of [undefined, "Bearer wrong-token"]) {
        const refused = await fetch(`${api}/config`, authorization === undefined ? {} : { headers: { authorization } })
        expect(refused.status, `GET /payments/2025-10-13/config with ${authorization ?? "no token"}\n${context}`).toBe(
          401
        )
        refusedStatus(refused.headers)
        expect(await refused.text(), "the host answers, not paycore").not.toContain("UNAUTHORIZED")
      }
      const config = await fetch(`${api}/config`, { headers: { authorization: `Bearer ${API_TOKEN}` } })
      const body = await config.text()
      expect(config.status, `GET /payments/2025-10-13/config with the host's token: ${body}\n${context}`).toBe(200)
      expect(JSON.parse(body).id, body).toMatch(/^PlatformConfig:/)
      const unknown = await fetch(`${api}/no-such-route`, { headers: { authorization: `Bearer ${API_TOKEN}` } })
      expect(unknown.status).toBe(404)
      expect(await unknown.json(), "paycore's own 404 under the prefix").toMatchObject({ code: "NOT_FOUND" })
      for (const path of ["/2025-10-13/config", "/paymentsx/2025-10-13/config"]) {
        const outside = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${API_TOKEN}` } })
        expect(outside.status, `GET ${path} is the host's`).toBe(404)
        expect(await outside.json()).toEqual({ error: "not found", by: "host" })
      }
      expect(await (await fetch(`${url}/health`)).json()).toEqual({ ok: true })
    }

    step(
      "the HTTP binding mounted inside a host server under a path prefix with the host's own authentication in front: plain node:http",
      60_000,
      async () => {
        expect(nodeHttpHost, "the host of the step before did not start").toBeDefined()
        const { url, server } = nodeHttpHost!
        await checkMounted(url, server, (headers) =>
          expect(headers.get("www-authenticate")).toBe('Bearer realm="host"')
        )
        // The graceful shutdown on SIGTERM: requests finish, the worker stops, the pool closes, exit code 0.
        expect(await server.stop("SIGTERM"), `the host's exit on SIGTERM\n${server.output()}`).toBe(0)
      }
    )

    step(
      "the HTTP binding mounted inside a host server under a path prefix with the host's own authentication in front: Hono (examples/host-hono)",
      150_000,
      async () => {
        const env: Record<string, string | undefined> = {
          PORT: "0",
          HOST_API_TOKEN: API_TOKEN,
          PAYCORE_CLIENT_SECRET: randomBytes(24).toString("hex"),
          PAYCORE_WEBHOOK_PRIVATE_KEY: randomBytes(32).toString("hex")
        }
        if (databaseUrl !== undefined) {
          const schema = `install_hono_${process.pid}_${randomBytes(3).toString("hex")}`
          schemas.push(schema)
          const client = new pg.Client({ connectionString: databaseUrl })
          await client.connect()
          await client.query(`CREATE SCHEMA ${schema}`).finally(() => client.end())
          Object.assign(env, { DATABASE_URL: databaseUrl, PAYCORE_SCHEMA: schema })
        }
        const server = await start("node", ["host-hono/src/main.ts"], {
          cwd: host,
          env,
          ready: /host on (http:\/\/127\.0\.0\.1:\d+);/,
          timeoutMs: 120_000
        })
        running.push(server)
        await checkMounted(server.ready[1]!, server, (headers) =>
          expect(headers.get("www-authenticate")).toMatch(/^Bearer/)
        )
        expect(await server.stop("SIGTERM"), `the host's exit on SIGTERM\n${server.output()}`).toBe(0)
      }
    )

    step(
      "examples/custom-rail copied into that project as a third party's package: the Rail conformance kit on it, the kit catching a broken variant, and a payment over it end to end, with vitest from the tarballs",
      150_000,
      async () => {
        for (const folder of ["src", "test"])
          cpSync(join(ROOT, "examples", "custom-rail", folder), join(host, "custom-rail", folder), { recursive: true })
        const ran = await inHost("npx", [
          "vitest",
          "run",
          "custom-rail/test",
          "--reporter=default",
          "--reporter=json",
          "--outputFile.json=vitest-custom-rail.json"
        ])
        expect(ran.code, describeRun(ran)).toBe(0)
        const report = JSON.parse(readFileSync(join(host, "vitest-custom-rail.json"), "utf8")) as {
          numFailedTests: number
          testResults: Array<{ assertionResults: Array<{ ancestorTitles: Array<string>; status: string }> }>
        }
        expect(report.numFailedTests, describeRun(ran)).toBe(0)
        const passed = (suite: string) =>
          report.testResults
            .flatMap((r) => r.assertionResults)
            .filter((a) => a.ancestorTitles[0] === suite && a.status === "passed").length
        expect(passed("Rail conformance: QuillRail"), describeRun(ran)).toBeGreaterThanOrEqual(12)
        expect(passed("the Rail conformance kit on a broken Quill rail"), describeRun(ran)).toBe(1)
        expect(passed("a server with the Quill rail in place of the sandbox rail"), describeRun(ran)).toBe(2)
      }
    )

    step(
      "testkit's Store conformance suite run from the tarballs with vitest (memory store and store-postgres's PGlite); the KYC provider and card issuer kits on the sandbox",
      150_000,
      async () => {
        const ran = await inHost("npx", [
          "vitest",
          "run",
          "test/conformance.test.ts",
          "test/port-kits.test.ts",
          // The suite's PGlite file round trips take seconds on a loaded 2-core machine; vitest's default is 5 s.
          "--testTimeout=60000",
          "--reporter=default",
          "--reporter=json",
          "--outputFile.json=vitest-report.json"
        ])
        expect(ran.code, describeRun(ran)).toBe(0)
        const report = JSON.parse(readFileSync(join(host, "vitest-report.json"), "utf8")) as {
          numFailedTests: number
          numPassedTests: number
          testResults: Array<{ assertionResults: Array<{ ancestorTitles: Array<string>; status: string }> }>
        }
        expect(report.numFailedTests, describeRun(ran)).toBe(0)
        const passedBySuite = new Map<string, number>()
        for (const result of report.testResults)
          for (const { ancestorTitles, status } of result.assertionResults)
            if (status === "passed")
              passedBySuite.set(ancestorTitles[0]!, (passedBySuite.get(ancestorTitles[0]!) ?? 0) + 1)
        for (const suite of [
          "Store conformance: memory",
          "Store conformance: pglite",
          "DocumentStore conformance: memory",
          "DocumentStore conformance: pglite",
          "KycProvider conformance: sandbox",
          "CardIssuer conformance: sandbox"
        ])
          expect(
            passedBySuite.get(suite) ?? 0,
            `tests passed in "${suite}"\n${describeRun(ran)}`
          ).toBeGreaterThanOrEqual(10)
      }
    )

    step(
      "testkit's request-body arbitraries in a user's property test, run from the tarballs with vitest (packages/http/test/arbitraries-user.test.ts, the test docs/testing.md quotes)",
      120_000,
      async () => {
        cpSync(join(ROOT, "packages/http/test/arbitraries-user.test.ts"), join(host, "test/arbitraries-user.test.ts"))
        const ran = await inHost("npx", ["vitest", "run", "test/arbitraries-user.test.ts"])
        expect(ran.code, describeRun(ran)).toBe(0)
        expect(ran.stdout, describeRun(ran)).toMatch(/2 passed/)
      }
    )

    step(
      "testkit's model harness extended with a user's own command and invariant, run from the tarballs with vitest (packages/testkit/test/engine-model-user.test.ts, the test docs/testing.md quotes)",
      120_000,
      async () => {
        cpSync(
          join(ROOT, "packages/testkit/test/engine-model-user.test.ts"),
          join(host, "test/engine-model-user.test.ts")
        )
        const ran = await inHost("npx", ["vitest", "run", "test/engine-model-user.test.ts"])
        expect(ran.code, describeRun(ran)).toBe(0)
        expect(ran.stdout, describeRun(ran)).toMatch(/1 passed/)
      }
    )

    step(
      "tsc --noEmit of the host project under moduleResolution nodenext and bundler with skipLibCheck: false (TypeScript 7, the repository's, and TypeScript 5)",
      180_000,
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
          inHost("npx", ["attw", packed.get(`@paycore/${name}`)!.filename, "--profile", "esm-only", "--no-color"])
        )
        const failed = results.filter((ran: Ran) => ran.code !== 0)
        expect(failed.length, failed.map(describeRun).join("\n\n")).toBe(0)
      }
    )

    step("npx paycore --help from the installed CLI (and paycore serve with the dashboard)", 90_000, async () => {
      const help = await inHost("npx", ["paycore", "--help"])
      expect(help.code, describeRun(help)).toBe(0)
      expect(help.stdout, describeRun(help)).toContain("paycore <subcommand> [flags]")
      for (const command of ["serve", "migrate", "tokens", "trigger", "listen"])
        expect(help.stdout, describeRun(help)).toMatch(new RegExp(`^ {2}${command} `, "m"))
      // The bin runs the sandbox from the installed @paycore/server, with the dashboard the published package ships.
      const sandbox = await start(join("node_modules", ".bin", "paycore"), ["serve", "--port", "0"], {
        cwd: host,
        env: { PAYCORE_STORE: "memory" },
        ready: /dashboard\s+(http:\/\/127\.0\.0\.1:\d+\/dashboard\/)/,
        timeoutMs: 60_000
      })
      running.push(sandbox)
      const page = await fetch(sandbox.ready[1]!)
      const html = await page.text()
      expect(page.status, `GET ${sandbox.ready[1]}: ${html}`).toBe(200)
      expect(html).not.toContain("not built")
      expect([0, 130], `paycore serve's exit on Ctrl-C\n${sandbox.output()}`).toContain(await sandbox.stop("SIGINT"))
    })

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
