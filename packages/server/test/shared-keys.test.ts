/**
 * Issue 33: instances on one PostgreSQL server share the webhook signing key and the wallet KEK. Without them in the
 * environment, the first instance generates them and keeps them in the database sealed under PAYCORE_MASTER_KEY;
 * every instance uses those: webhooks from either verify with one public key, and a wallet's mnemonic exported
 * through either is the same. Without the keys and without a master key, an instance refuses to start (exit 1, one
 * line naming the variables). On a fresh database of the server of DATABASE_URL (skipped without it).
 */
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { Store, verifyWebhookSignature } from "@paycore/core"
import * as PostgresStore from "@paycore/store-postgres"
import { openWalletCredentials, sessionKey } from "@paycore/testkit/wallet-client"
import { ConfigProvider, Context, Effect, Exit, Layer, Redacted, Scope } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CallResult, TestServer } from "../../http/test/harness.ts"
import { ensureUsdb, retry, walletKit } from "../../http/test/wallet-kit.ts"
import { type RunningSandbox, SharedKeysRefused, serve } from "../src/index.ts"
import { openInstanceKey, sealInstanceKey } from "../src/shared-keys.ts"

const adminUrl = process.env.DATABASE_URL
const MAIN = fileURLToPath(new URL("../../../examples/server/src/main.ts", import.meta.url))
const MASTER_KEY = randomBytes(32).toString("hex")

describe("instance keys sealed under the master key", () => {
  it("open only with the master key and the name they were sealed under", () => {
    const master = randomBytes(32)
    const sealed = sealInstanceKey(master, "wallet-kek", "ab".repeat(32))
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/)
    expect(sealed).not.toContain("ab".repeat(32))
    expect(openInstanceKey(master, "wallet-kek", sealed)).toBe("ab".repeat(32))
    expect(openInstanceKey(randomBytes(32), "wallet-kek", sealed)).toBeUndefined()
    expect(openInstanceKey(master, "webhook-private-key", sealed)).toBeUndefined()
    expect(openInstanceKey(master, "wallet-kek", `${sealed.slice(0, -2)}AA`)).toBeUndefined()
  })
})

describe.runIf(adminUrl)("several instances on one PostgreSQL server (issue 33)", () => {
  const name = `paycore_keys_${process.pid}_${Date.now()}`
  const url = new URL(adminUrl ?? "postgres://unused")
  url.pathname = `/${name}`
  const databaseUrl = url.toString()
  const scope = Effect.runSync(Scope.make())
  const received: Array<{ readonly headers: IncomingMessage["headers"]; readonly body: string }> = []
  const receiver = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk) => {
      body += chunk
    })
    req.on("end", () => {
      received.push({ headers: req.headers, body })
      res.writeHead(200).end("ok")
    })
  })

  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl })
    await client.connect()
    await client.query(sql).finally(() => client.end())
  }

  /** An instance of `npm start` in this process, with only `env` for its environment. */
  const start = (env: Record<string, string>) =>
    Effect.runPromise(
      serve({ port: 0, worker: false }).pipe(
        Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env })),
        Scope.provide(scope)
      )
    )

  const caller = (sandbox: RunningSandbox, auth: RunningSandbox) => {
    const authorization = `Basic ${Buffer.from(`${auth.clientId}:${Redacted.value(auth.clientSecret)}`).toString("base64")}`
    return async (method: string, path: string, body?: unknown, options?: { headers?: Record<string, string> }) => {
      const response = await fetch(sandbox.baseUrl + path, {
        method,
        headers: {
          authorization,
          ...options?.headers,
          ...(body === undefined ? {} : { "content-type": "application/json" })
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const text = await response.text()
      return { status: response.status, headers: response.headers, json: text === "" ? undefined : JSON.parse(text) }
    }
  }

  let first: RunningSandbox
  let second: RunningSandbox
  let store: Store["Service"]

  beforeAll(async () => {
    await admin(`CREATE DATABASE ${name}`)
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    const env = { DATABASE_URL: databaseUrl, PAYCORE_MASTER_KEY: MASTER_KEY }
    // Two instances starting together on the fresh database: both generate keys, one's are kept.
    ;[first, second] = await Promise.all([start(env), start(env)])
    const context = await Effect.runPromise(
      Layer.build(PostgresStore.layerPg({ connectionString: databaseUrl })).pipe(Scope.provide(scope))
    )
    store = Context.get(context, Store)
  })

  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await new Promise<void>((resolve) => receiver.close(() => resolve()))
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  })

  it("webhooks sent by either instance verify with one public key", async () => {
    expect(second.webhookPublicKeyPem).toBe(first.webhookPublicKeyPem)
    const onFirst = caller(first, first)
    const onSecond = caller(second, first)
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
    expect((await onFirst("PATCH", "/config", { webhookEndpoint: endpoint })).status).toBe(200)
    const published = (await onSecond("GET", "/webhooks/public-key")).json.publicKey
    expect(published).toBe(first.webhookPublicKeyPem)
    received.length = 0
    for (const call of [onFirst, onSecond]) {
      const sent = await call("POST", "/sandbox/webhooks/test")
      expect(sent.status, JSON.stringify(sent.json)).toBe(200)
    }
    expect(received).toHaveLength(2)
    for (const { headers, body } of received) {
      expect(verifyWebhookSignature(published, body, String(headers["x-service-signature"]))).toBe(true)
    }
  })

  it("a wallet's mnemonic exported through either instance is the same", async () => {
    const server = (sandbox: RunningSandbox) => ({ call: caller(sandbox, first), store }) as unknown as TestServer
    await ensureUsdb(server(first))
    const wallet = await walletKit(server(first)).signedInWallet()
    const exportThrough = async (sandbox: RunningSandbox) => {
      const call = caller(sandbox, first)
      const exportKey = sessionKey({ legacy: true })
      const path = `/internal-accounts/${wallet.accountId}/export`
      const body = { clientPublicKey: exportKey.publicKey }
      const leg: CallResult = await call("POST", path, body)
      expect(leg.status, JSON.stringify(leg.json)).toBe(202)
      const done = await call("POST", path, body, { headers: retry(leg, wallet.key) })
      expect(done.status, JSON.stringify(done.json)).toBe(200)
      return openWalletCredentials(done.json.encryptedWalletCredentials, exportKey.privateKey)
    }
    const mnemonic = await exportThrough(first)
    expect(mnemonic.split(" ")).toHaveLength(12)
    expect(await exportThrough(second)).toBe(mnemonic)
  })

  it("the keys are kept sealed: a wrong master key does not open them and the instance does not start", async () => {
    const refused = await Effect.runPromiseExit(
      serve({ port: 0, worker: false }).pipe(
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromEnv({
            env: { DATABASE_URL: databaseUrl, PAYCORE_MASTER_KEY: randomBytes(32).toString("hex") }
          })
        ),
        Effect.scoped
      )
    )
    expect(Exit.isFailure(refused)).toBe(true)
    const error = Exit.isFailure(refused) ? refused.cause : undefined
    expect(String(error)).toContain("does not open the keys kept in the database")
    // With both keys given, no master key is needed.
    const given = await Effect.runPromiseExit(
      serve({ port: 0, worker: false }).pipe(
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromEnv({
            env: {
              DATABASE_URL: databaseUrl,
              PAYCORE_WEBHOOK_PRIVATE_KEY: randomBytes(32).toString("hex"),
              PAYCORE_WALLET_KEK: randomBytes(32).toString("hex")
            }
          })
        ),
        Effect.scoped
      )
    )
    expect(Exit.isSuccess(given)).toBe(true)
  })

  it("without the keys and without a master key `npm start` refuses: exit 1, one line naming the variables", async () => {
    const inProcess = await Effect.runPromiseExit(
      serve({ port: 0, worker: false }).pipe(
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromEnv({ env: { DATABASE_URL: databaseUrl } })
        ),
        Effect.scoped
      )
    )
    expect(Exit.isFailure(inProcess) && String(inProcess.cause)).toContain("SharedKeysRefused")

    const { DATABASE_URL: _, ...inherited } = process.env
    const env = Object.fromEntries(Object.entries(inherited).filter(([key]) => !key.startsWith("PAYCORE_")))
    const child = spawn(process.execPath, ["--conditions=@paycore/source", MAIN], {
      env: { ...env, DATABASE_URL: databaseUrl, PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => {
      stdout += chunk
    })
    child.stderr.on("data", (chunk) => {
      stderr += chunk
    })
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve))
    expect(code, stderr).toBe(1)
    expect(stdout).toBe("")
    const lines = stderr.trim().split("\n")
    expect(lines).toHaveLength(1)
    expect(lines[0]).toBe(
      new SharedKeysRefused({
        missing: ["PAYCORE_WEBHOOK_PRIVATE_KEY", "PAYCORE_WALLET_KEK"],
        reason: "no master key"
      }).message
    )
  }, 60_000)
})
