/**
 * The CLI as a user runs it (issue 18 item 4; docs/cli.md): each command a child process against a sandbox the test
 * starts with `paycore serve`. serve answers /health and stops on Ctrl-C; migrate on a fresh PGlite folder applies
 * every migration, then none (and on a new database of the PostgreSQL server of DATABASE_URL, when set); tokens create prints the secret once and list never does; --json prints documents
 * that parse; a refused request is one line on stderr and exit code 1.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { migrations } from "@paycore/store-postgres"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { apiEnv, interrupt, jsonLines, type Running, runCli, startSandbox } from "./kit.ts"

// Each command is a process that loads the engine: seconds apiece on a loaded machine. A limit, not a measurement.
describe("paycore serve, tokens (issue 18 item 4)", { timeout: 240_000 }, () => {
  let sandbox: Running & { readonly baseUrl: string }
  beforeAll(async () => {
    sandbox = await startSandbox()
  })
  afterAll(async () => {
    if (sandbox.process.exitCode === null) await interrupt(sandbox)
  })

  it("serve prints what npm start prints and answers GET /health", async () => {
    expect(sandbox.stdout()).toMatch(/^paycore sandbox is up \(in-memory store/)
    expect(sandbox.stdout()).toContain("token id        cli-test")
    const health = await fetch(new URL("/health", sandbox.baseUrl))
    expect(health.status).toBe(200)
    expect(await health.json()).toEqual({ ok: true })
  })

  it("tokens create prints the secret once; tokens list shows the token, never a secret", async () => {
    const env = apiEnv(sandbox.baseUrl)
    const created = await runCli(["tokens", "create", "--name", "ci", "--permissions", "VIEW,TRANSACT", "--json"], env)
    expect(created.code, created.stderr).toBe(0)
    const [token] = jsonLines(created.stdout)
    expect(token).toMatchObject({ name: "ci", permissions: ["VIEW", "TRANSACT"], environment: "SANDBOX" })
    expect(token.clientSecret).toMatch(/^[0-9a-f]{32,}$/)

    const human = await runCli(["tokens", "create", "--name", "human", "--permissions", "VIEW"], env)
    expect(human.code, human.stderr).toBe(0)
    const secretLines = human.stdout.split("\n").filter((line) => /client secret\s+[0-9a-f]{32,}/.test(line))
    expect(secretLines).toHaveLength(1)

    const listed = await runCli(["tokens", "list", "--json"], env)
    expect(listed.code, listed.stderr).toBe(0)
    const [page] = jsonLines(listed.stdout)
    expect(page.data.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(["ci", "human"]))
    expect(listed.stdout).not.toContain(token.clientSecret)
    expect(listed.stdout).not.toContain("clientSecret")
    const table = await runCli(["tokens", "list"], env)
    expect(table.stdout).toContain(token.id)
    expect(table.stdout).not.toContain(token.clientSecret)
    // The token made works: its own credentials list the tokens.
    const asCi = await runCli(
      ["tokens", "list", "--client-id", token.clientId, "--client-secret", token.clientSecret],
      {
        PAYCORE_API: sandbox.baseUrl
      }
    )
    expect(asCi.code, asCi.stderr).toBe(0)
  })

  it("a refused request: the server's error on one line of stderr, exit code 1; bad --permissions: no request", async () => {
    const env = { ...apiEnv(sandbox.baseUrl), PAYCORE_CLIENT_SECRET: "not-the-secret" }
    const refused = await runCli(["tokens", "list"], env)
    expect(refused.code).toBe(1)
    expect(refused.stdout).toBe("")
    expect(refused.stderr.trim()).toMatch(/^error 401 UNAUTHORIZED: /)
    // Issue 32 item 4: one line that says which credentials the server refused.
    expect(refused.stderr.trimEnd().split("\n")).toHaveLength(1)
    expect(refused.stderr).toContain("this server does not know the credentials of --client-id and --client-secret")
    expect(refused.stderr).not.toContain("not-the-secret")
    const bad = await runCli(["tokens", "create", "--name", "x", "--permissions", "ADMIN"], apiEnv(sandbox.baseUrl))
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain("--permissions")
  })

  it("serve stops on SIGINT", async () => {
    const code = await interrupt(sandbox)
    expect(code).not.toBeNull()
    await expect(fetch(new URL("/health", sandbox.baseUrl))).rejects.toThrow()
  })
})

describe("paycore migrate (issue 18 item 4)", () => {
  const dir = mkdtempSync(join(tmpdir(), "paycore-cli-migrate-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("a fresh PGlite folder gets every migration; a second run applies none", { timeout: 600_000 }, async () => {
    const first = await runCli(["migrate", "--data-dir", dir, "--json"])
    expect(first.code, first.stderr).toBe(0)
    expect(jsonLines(first.stdout)).toEqual([
      { store: expect.stringContaining(dir), applied: Object.keys(migrations).sort() }
    ])
    const again = await runCli(["migrate", "--data-dir", dir])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toBe(`embedded PGlite in ${dir} (fsync off: for development, not production): up to date\n`)
  })
})

describe.skipIf(process.env.DATABASE_URL === undefined)("paycore migrate --database-url (issue 18 item 4)", () => {
  const adminUrl = process.env.DATABASE_URL ?? ""
  const name = `paycore_cli_${process.pid}_${Date.now()}`
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl })
    await client.connect()
    await client.query(sql)
    await client.end()
  }
  afterAll(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))

  it("a new database gets every migration; a second run applies none", { timeout: 240_000 }, async () => {
    await admin(`CREATE DATABASE ${name}`)
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    const first = await runCli(["migrate", "--database-url", url.toString(), "--json"])
    expect(first.code, first.stderr).toBe(0)
    expect(jsonLines(first.stdout)).toEqual([
      { store: "PostgreSQL server (--database-url)", applied: Object.keys(migrations).sort() }
    ])
    const again = await runCli(["migrate", "--database-url", url.toString(), "--json"])
    expect(jsonLines(again.stdout)).toEqual([{ store: "PostgreSQL server (--database-url)", applied: [] }])
    // The URL (it may carry a password) is never printed.
    expect(first.stdout + first.stderr + again.stdout + again.stderr).not.toContain(name)
  })
})
