/**
 * A property test as a user writes one with `@paycore/testkit/arbitraries` (docs/testing.md quotes it): the engine
 * served over HTTP from the published packages only, then fast-check properties over request bodies (C-11: a refusal
 * names the broken field; no valid body is a server failure).
 */
import type { AddressInfo } from "node:net"
import { defaultEngineSettings, EngineConfig, Ids, OidcKeys, Tokens, WebhookSigner } from "@paycore/core"
import { API_VERSION, createApiServer, makeApp } from "@paycore/http"
import * as Sandbox from "@paycore/sandbox"
import * as MemoryStore from "@paycore/store-memory"
import { makeWebhookRecorder } from "@paycore/testkit"
import { nearValidBody, validBody } from "@paycore/testkit/arbitraries"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import * as fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

// --- setup: an engine on the memory store and the sandbox ports, served on a free port ---
let baseUrl = ""
let authorization = ""
let close = async () => {}

beforeAll(async () => {
  const scope = Effect.runSync(Scope.make())
  const ports = Layer.mergeAll(
    MemoryStore.layer,
    MemoryStore.documentStoreLayer,
    Ids.layer,
    Sandbox.layer({ speedUp: 1e9 }),
    makeWebhookRecorder().layer,
    WebhookSigner.layerGenerated
  )
  const app = await Effect.runPromise(
    makeApp({ workerIntervalMillis: 0, webhookIntervalMillis: 0 }).pipe(
      Effect.provideService(OidcKeys, { resolver: undefined }),
      Effect.provideService(EngineConfig, defaultEngineSettings),
      Effect.provide(ports),
      Scope.provide(scope)
    )
  )
  const token = await Effect.runPromise(
    Context.get(app.context, Tokens)
      .create({ name: "tests", permissions: ["VIEW", "TRANSACT", "MANAGE"] })
      .pipe(Effect.provideService(EngineConfig, defaultEngineSettings))
  )
  authorization = `Basic ${Buffer.from(`${token.clientId}:${token.clientSecret}`).toString("base64")}`
  const server = createApiServer(app.listener)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${API_VERSION}`
  close = async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
})
afterAll(() => close())

/** What a test reads of an answer: an error body's fields (a success's are not looked at). */
interface Answer {
  readonly status: number
  readonly json: {
    readonly status: number
    readonly code: string
    readonly details: { readonly errors: Array<{ readonly field: string }> }
  }
}

const post = async (path: string, body: unknown): Promise<Answer> => {
  const response = await fetch(baseUrl + path, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return { status: response.status, json: (await response.json()) as Answer["json"] }
}

// --- the properties ---
describe("a user's property tests of paycore's request bodies", () => {
  it("a near-valid customer is refused with 400 INVALID_INPUT naming the broken field (C-11)", async () => {
    await fc.assert(
      fc.asyncProperty(nearValidBody("customers.create"), async ({ body, path }) => {
        const { status, json } = await post("/customers", body)
        expect(status).toBe(400)
        expect(json.code).toBe("INVALID_INPUT")
        expect(json.details.errors.map((e: { field: string }) => e.field)).toContain(path || "body")
      }),
      { numRuns: 50 }
    )
  })

  it("a valid quote request is never a server failure, whatever its ids and amounts (C-10)", async () => {
    await fc.assert(
      fc.asyncProperty(validBody("payments.createQuote"), async (body) => {
        const { status, json } = await post("/quotes", body)
        expect(status, JSON.stringify(json)).toBeLessThan(500)
        if (status >= 400) expect(json.status).toBe(status)
      }),
      { numRuns: 50 }
    )
  })
})
