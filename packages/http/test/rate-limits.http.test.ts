/**
 * Request rate limits over HTTP (C-43, issue 33 item 6): a token bucket per credential and a throttle on failed
 * authentication per caller address and per client id, each answering 429 `RATE_LIMITED` with `Retry-After`. The
 * app runs on a TestClock the tests move (no timed assertion); callers' addresses are told apart by a header, as a
 * host behind a proxy keys on the client address it forwards (`missBudgetKey`).
 */
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Ids, Store, Tokens, WebhookSigner } from "@paycore/core"
import * as Sandbox from "@paycore/sandbox"
import * as MemoryStore from "@paycore/store-memory"
import { makeWebhookRecorder } from "@paycore/testkit"
import { Clock, Context, Effect, Exit, Layer, Scope } from "effect"
import { TestClock } from "effect/testing"
import { afterEach, describe, expect, it } from "vitest"
import { API_VERSION, type AppOptions, createApiServer, defaultMissBudgetKey, makeApp } from "../src/index.ts"

interface Credentials {
  readonly clientId: string
  readonly clientSecret: string
}

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

/** makeApp on the memory store, on a TestClock, with `options`; workers off. */
const startLimited = async (options: Pick<AppOptions, "rateLimit" | "authFailureLimit">) => {
  const scope = Effect.runSync(Scope.make())
  const { app, store, clock } = await Effect.runPromise(
    Effect.gen(function* () {
      const clock = yield* TestClock.make()
      const ports = yield* Layer.build(
        Layer.mergeAll(
          MemoryStore.layer,
          MemoryStore.documentStoreLayer,
          Ids.layer,
          Sandbox.layer({ speedUp: 1e9 }),
          makeWebhookRecorder().layer,
          WebhookSigner.layerGenerated
        )
      )
      const app = yield* makeApp({
        ...options,
        workerIntervalMillis: 0,
        webhookIntervalMillis: 0,
        onDefect: () => {},
        // The anonymous caller is the `x-peer` header's address; a credential is its token, as by default.
        missBudgetKey: (request) =>
          request.principal === undefined
            ? `address:${String(request.headers["x-peer"])}`
            : defaultMissBudgetKey(request)
      }).pipe(Effect.provide(ports), Effect.provideService(Clock.Clock, clock))
      return { app, store: Context.get(ports, Store), clock }
    }).pipe(Scope.provide(scope))
  )
  const server: Server = createApiServer(app.listener)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  closers.push(async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    server.closeAllConnections()
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await closed
  })
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${API_VERSION}`
  const token = async (): Promise<Credentials> => {
    const created = await Effect.runPromise(
      Context.get(app.context, Tokens).create({ name: "t", permissions: ["VIEW", "TRANSACT", "MANAGE"] })
    )
    return { clientId: created.clientId, clientSecret: created.clientSecret }
  }
  const call = async (
    method: string,
    path: string,
    auth: Credentials,
    peer: string,
    body?: unknown,
    headers: Record<string, string> = {}
  ) => {
    const response = await fetch(baseUrl + path, {
      method,
      headers: {
        authorization: `Basic ${Buffer.from(`${auth.clientId}:${auth.clientSecret}`).toString("base64")}`,
        "x-peer": peer,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    return {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      json: JSON.parse(text || "null")
    }
  }
  const advance = (seconds: number) => Effect.runPromise(clock.adjust(`${seconds} seconds`))
  return { call, token, advance, store }
}

const expectRateLimited = (r: { status: number; retryAfter: string | null; json: any }, retryAfter: number) => {
  expect(r.status).toBe(429)
  expect(r.json).toEqual({ status: 429, code: "RATE_LIMITED", message: expect.stringContaining(`${retryAfter} s`) })
  expect(r.retryAfter).toBe(String(retryAfter))
}

const customer = (name: string) => ({
  customerType: "INDIVIDUAL",
  fullName: name,
  currencies: ["USD"],
  endUserTermsConsent: {
    acceptedAt: "2026-01-01T00:00:00Z",
    ipAddress: "203.0.113.7",
    termsVersion: "2025-10-13",
    acceptanceMethod: "CHECKBOX"
  }
})

describe("per-credential request rate limit (C-43)", () => {
  it("C-43: a credential's burst, then 429 RATE_LIMITED with Retry-After; another credential is unaffected; the bucket refills", async () => {
    const { call, token, advance } = await startLimited({ rateLimit: { perSecond: 2, burst: 3 } })
    const ada = await token()
    const bob = await token()
    for (let i = 0; i < 3; i++) expect((await call("GET", "/customers", ada, "198.51.100.1")).status).toBe(200)
    // From another address too: the bucket is the credential's.
    expectRateLimited(await call("GET", "/customers", ada, "198.51.100.2"), 1)
    expect((await call("GET", "/customers", bob, "198.51.100.1")).status).toBe(200)
    await advance(0.5)
    expect((await call("GET", "/customers", ada, "198.51.100.1")).status).toBe(200)
    expectRateLimited(await call("GET", "/customers", ada, "198.51.100.1"), 1)
    await advance(1)
    expect((await call("GET", "/customers", ada, "198.51.100.1")).status).toBe(200)
    expect((await call("GET", "/customers", ada, "198.51.100.1")).status).toBe(200)
    expectRateLimited(await call("GET", "/customers", ada, "198.51.100.1"), 1)
  })

  it("C-43: a 429 changes nothing in the store: no customer, no idempotency record (the same key later creates it)", async () => {
    const { call, token, advance, store } = await startLimited({ rateLimit: { perSecond: 1, burst: 1 } })
    const ada = await token()
    const count = async () =>
      (await Effect.runPromise(store.customers.list({ includeDeleted: true }, { limit: 100, sortOrder: "asc" }))).data
        .length
    expect((await call("POST", "/customers", ada, "a", customer("First"))).status).toBe(201)
    const key = { "idempotency-key": "rate-limited-create" }
    expectRateLimited(await call("POST", "/customers", ada, "a", customer("Second"), key), 1)
    expect(await count()).toBe(1)
    expect(await Effect.runPromise(store.idempotency.get(`platform:${key["idempotency-key"]}`))).toBeUndefined()
    await advance(1)
    const created = await call("POST", "/customers", ada, "a", customer("Second"), key)
    expect(created.status).toBe(201)
    expect(await count()).toBe(2)
  })
})

describe("throttle on failed authentication (C-43)", () => {
  it("C-43: after 3 failures from an address, 429 before the credential is checked (a good one too); another address passes; 20 s later one more try", async () => {
    const { call, token, advance } = await startLimited({ authFailureLimit: { failures: 3, windowSeconds: 60 } })
    const ada = await token()
    const wrong = { clientId: ada.clientId, clientSecret: "not-the-secret" }
    const nobody = { clientId: "nobody", clientSecret: "guess" }
    expect((await call("GET", "/customers", ada, "203.0.113.9")).status).toBe(200)
    for (const guess of [nobody, { ...nobody, clientId: "nobody-2" }, { ...nobody, clientId: "nobody-3" }]) {
      expect((await call("GET", "/customers", guess, "203.0.113.66")).status).toBe(401)
    }
    // 3 per 60 s: the next token in 20 s. Checked before the credential, so even a good one waits.
    expectRateLimited(await call("GET", "/customers", nobody, "203.0.113.66"), 20)
    expectRateLimited(await call("GET", "/customers", ada, "203.0.113.66"), 20)
    expect((await call("GET", "/customers", ada, "203.0.113.9")).status).toBe(200)
    await advance(20)
    expect((await call("GET", "/customers", wrong, "203.0.113.66")).status).toBe(401)
    expectRateLimited(await call("GET", "/customers", wrong, "203.0.113.66"), 20)
  })

  it("C-43: failures for one client id from many addresses throttle new checks of that id only; its credential this instance verified still passes", async () => {
    const { call, token } = await startLimited({ authFailureLimit: { failures: 3, windowSeconds: 60 } })
    const known = await token()
    const fresh = await token()
    const other = await token()
    expect((await call("GET", "/customers", known, "192.0.2.1")).status).toBe(200)
    for (const target of [known, fresh]) {
      for (const peer of ["192.0.2.10", "192.0.2.11", "192.0.2.12"]) {
        const guess = { clientId: target.clientId, clientSecret: `guess-from-${peer}` }
        expect((await call("GET", "/customers", guess, peer)).status).toBe(401)
      }
    }
    // The id is throttled wherever its next check comes from; the others are not.
    expectRateLimited(await call("GET", "/customers", fresh, "192.0.2.20"), 20)
    expect((await call("GET", "/customers", known, "192.0.2.21")).status).toBe(200)
    expect((await call("GET", "/customers", other, "192.0.2.22")).status).toBe(200)
  })
})
