/**
 * Issue 28, item 2: paycore as a user installs it, what a user's programs and tests do with the packages, in the host
 * project host-project.ts installs (shared with install-types.test.ts: the compilers and attw, on another worker). A
 * failure says what the user would see: the command, where it ran, and its output.
 */
import { randomBytes } from "node:crypto"
import { cpSync, globSync, lstatSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import pg from "pg"
import { afterAll, expect } from "vitest"
import { firstPayment } from "../../examples/host-node-http/test/first-payment.ts"
import { describeRun, run, type Started, start } from "./commands.ts"
import { describeInstall, type Manifest, manifest, PUBLIC, ROOT } from "./host-project.ts"

const API_TOKEN = `host-token-${randomBytes(8).toString("hex")}`
const databaseUrl = process.env.DATABASE_URL === "" ? undefined : process.env.DATABASE_URL

/** The subpaths of a package's exports, as specifiers (`@paycore/http/api`); `./package.json` left out. */
const entryPoints = (m: Manifest) =>
  Object.keys(m.exports)
    .filter((subpath) => subpath !== "./package.json")
    .map((subpath) => `${m.name}${subpath.slice(1)}`)

describeInstall(
  "test/install/install.test.ts",
  "issue 28, item 2: paycore packed and installed as a user installs it",
  ({ installed, step }) => {
    const running: Array<Started> = []
    const schemas: Array<string> = []
    let nodeHttpHost: { url: string; server: Started } | undefined

    const inHost = (command: string, args: ReadonlyArray<string>, env?: Record<string, string | undefined>) =>
      run(command, args, { cwd: installed().host, env, timeoutMs: 180_000 })

    afterAll(async () => {
      await Promise.all(running.map((server) => server.stop("SIGKILL", 5_000)))
      for (const schema of schemas) {
        const client = new pg.Client({ connectionString: databaseUrl })
        await client.connect()
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => client.end())
      }
    })

    step(
      "npm pack every public package into a temp folder, npm install the tarballs outside the workspace (no links)",
      30_000,
      async () => {
        const { host, packed } = installed()
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
          const folder = join(host, "node_modules", pkg)
          const stat = lstatSync(folder)
          expect(stat.isSymbolicLink(), `${folder} is a symlink (npm linked it instead of installing it)`).toBe(false)
          expect(stat.isDirectory(), `${folder} is a real folder`).toBe(true)
          expect(manifest(folder).version).toBe(manifest(join(ROOT, "packages", name)).version)
        }
        expect(
          globSync("node_modules/**/node_modules/effect/package.json", { cwd: host }),
          "one copy of effect, the host's (a peer dependency of the packages)"
        ).toEqual([])
      }
    )

    step("import every package in plain Node: each package and subpath export, no conditions", 60_000, async () => {
      const { host } = installed()
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
        const { host } = installed()
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
        const { host } = installed()
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
        const { host } = installed()
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
        const { host } = installed()
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
        const ran = await inHost("npx", ["vitest", "run", "test/arbitraries-user.test.ts"])
        expect(ran.code, describeRun(ran)).toBe(0)
        expect(ran.stdout, describeRun(ran)).toMatch(/2 passed/)
      }
    )

    step(
      "testkit's model harness extended with a user's own command and invariant, run from the tarballs with vitest (packages/testkit/test/engine-model-user.test.ts, the test docs/testing.md quotes)",
      120_000,
      async () => {
        const ran = await inHost("npx", ["vitest", "run", "test/engine-model-user.test.ts"])
        expect(ran.code, describeRun(ran)).toBe(0)
        expect(ran.stdout, describeRun(ran)).toMatch(/1 passed/)
      }
    )

    step("npx paycore --help from the installed CLI (and paycore serve with the dashboard)", 90_000, async () => {
      const { host } = installed()
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
  }
)
