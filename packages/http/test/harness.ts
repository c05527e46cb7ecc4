import type { Server } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import {
  CardsWorker,
  DocumentStore,
  defaultEngineSettings,
  EngineConfig,
  type EngineSettings,
  Ids,
  Invitations,
  OidcKeys,
  type OidcKeysService,
  type Permission,
  StablecoinsWorker,
  Store,
  Tokens,
  Transactions,
  WebhookDispatcher,
  WebhookSigner
} from "@paycore/core"
import * as Sandbox from "@paycore/sandbox"
import * as MemoryStore from "@paycore/store-memory"
import { makeWebhookRecorder, type WebhookRecorder } from "@paycore/testkit"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { afterAll, beforeAll, expect } from "vitest"
import { API_VERSION, createApiServer, type MissBudgetKey, makeApp } from "../src/index.ts"
import { flushFigures, recordResponse } from "./conformance.ts"

export interface Credentials {
  readonly clientId: string
  readonly clientSecret: string
}

export interface CallResult {
  readonly status: number
  readonly headers: Headers
  /** Parsed JSON, or `undefined` for an empty body. */
  readonly json: any
}

export interface TestServer {
  /** `http://127.0.0.1:<port>/2025-10-13` */
  readonly baseUrl: string
  /** A sandbox token with VIEW, TRANSACT and MANAGE. */
  readonly admin: Credentials
  /**
   * Calls the API; `auth` defaults to `admin`, `null` sends no credentials. An object body is sent as JSON; a
   * `FormData` as multipart; a string or bytes as they are (Content-Type JSON unless `headers` gives one).
   */
  readonly call: (
    method: string,
    path: string,
    body?: unknown,
    options?: { readonly auth?: Credentials | null; readonly headers?: Record<string, string> }
  ) => Promise<CallResult>
  /** Creates another token (e.g. VIEW only, or a PRODUCTION one). */
  readonly token: (
    permissions: ReadonlyArray<Permission>,
    environment?: "SANDBOX" | "PRODUCTION"
  ) => Promise<Credentials>
  /**
   * One pass of the settlement/expiry worker (the rail settles everything at once: speedUp 1e9), then one of the
   * cards worker (issuer provisioning and syncs, deferred network events).
   */
  readonly processDue: () => Promise<void>
  /** One pass of the webhook dispatcher. */
  readonly dispatch: () => Promise<void>
  /** Every webhook the engine POSTed (an in-memory transport). */
  readonly webhooks: WebhookRecorder
  readonly publicKeyPem: string
  readonly store: Store["Service"]
  /** Where uploaded files are. */
  readonly documentStore: DocumentStore["Service"]
  readonly close: () => Promise<void>
}

export interface TestServerOptions {
  /** The store (default: a fresh memory store), e.g. `layerPglite()` from `@paycore/store-postgres`. */
  readonly storeLayer?: Layer.Layer<Store, unknown> | undefined
  /** Options of the sandbox ports, besides `speedUp` (e.g. the KYC provider's contact-verification regions). */
  readonly sandbox?: Sandbox.SandboxOptions | undefined
  /** Where uploaded files go (default: a fresh memory DocumentStore), e.g. `documentStoreLayerPglite()`. */
  readonly documentStoreLayer?: Layer.Layer<DocumentStore, unknown> | undefined
  /** OIDC signing keys the server checks tokens against (default: none, the sandbox rule W-21). */
  readonly oidcKeys?: OidcKeysService["resolver"]
  /**
   * More ports, provided beside the others (e.g. `cardFundingSourcesRegistry().layer` or `deferredVault(n).layer`
   * from `@paycore/testkit`).
   */
  readonly extraLayer?: Layer.Layer<never> | undefined
  /** Engine settings over the defaults (e.g. `incomingApproval`), for the requests, the worker and the dispatcher. */
  readonly settings?: Partial<EngineSettings> | undefined
  /** The app's `missBudgetKey` (default: the token, else the peer's address). */
  readonly missBudgetKey?: MissBudgetKey | undefined
}

/**
 * A real HTTP server on an ephemeral port: memory store (or `options.storeLayer`), sandbox ports (settling at
 * once), a recording webhook transport, background workers off (tests drive them).
 */
export const startTestServer = async (options: TestServerOptions = {}): Promise<TestServer> => {
  const webhooks = makeWebhookRecorder()
  const ports = Layer.mergeAll(
    options.storeLayer === undefined ? MemoryStore.layer : Layer.orDie(options.storeLayer),
    options.documentStoreLayer === undefined ? MemoryStore.documentStoreLayer : Layer.orDie(options.documentStoreLayer),
    Ids.layer,
    Sandbox.layer({ ...options.sandbox, speedUp: 1e9 }),
    webhooks.layer,
    WebhookSigner.layerGenerated,
    options.extraLayer ?? Layer.empty
  )
  const settings: EngineSettings = { ...defaultEngineSettings, ...options.settings }
  const scope = Effect.runSync(Scope.make())
  const { portsContext, app } = await Effect.runPromise(
    Effect.gen(function* () {
      const portsContext = yield* Layer.build(ports)
      const app = yield* makeApp({
        workerIntervalMillis: 0,
        webhookIntervalMillis: 0,
        onDefect: () => {},
        missBudgetKey: options.missBudgetKey
      }).pipe(
        Effect.provideService(OidcKeys, { resolver: options.oidcKeys }),
        Effect.provideService(EngineConfig, settings),
        Effect.provide(portsContext)
      )
      return { portsContext, app }
    }).pipe(Scope.provide(scope))
  )
  const run = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.runPromise(Effect.provideService(effect, EngineConfig, settings))
  const tokens = Context.get(app.context, Tokens)
  const created = await run(tokens.create({ name: "admin", permissions: ["VIEW", "TRANSACT", "MANAGE"] }))
  const admin = { clientId: created.clientId, clientSecret: created.clientSecret }

  const server: Server = createApiServer(app.listener)
  // The connections no request came on (fetch's pool opens one now and then and keeps it): Node counts each as a
  // request whose headers are on the way, so close() would wait its headers timeout (60 s) for it.
  const connections = new Set<Socket>()
  server.on("connection", (socket: Socket) => {
    connections.add(socket)
    socket.once("close", () => connections.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${API_VERSION}`

  const call: TestServer["call"] = async (method, path, body, options) => {
    const auth = options?.auth === undefined ? admin : options.auth
    const headers: Record<string, string> = { ...options?.headers }
    if (auth !== null) {
      headers.authorization = `Basic ${Buffer.from(`${auth.clientId}:${auth.clientSecret}`).toString("base64")}`
    }
    // A FormData body carries its own multipart Content-Type; raw bytes and strings keep a given one.
    const raw = typeof body === "string" || body instanceof Uint8Array || body instanceof FormData
    if (body !== undefined && !(body instanceof FormData)) headers["content-type"] ??= "application/json"
    const response = await fetch(baseUrl + path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: raw ? (body as NonNullable<RequestInit["body"]>) : JSON.stringify(body) })
    })
    const text = await response.text()
    const json = text === "" ? undefined : JSON.parse(text)
    // Every response is checked against the upstream OpenAPI document (conformance.ts); a difference not listed
    // in upstream-differences.ts fails the calling test here, naming the operation, status, pointer and rule.
    const difference = recordResponse(method, path, response.status, json)
    expect(difference, difference).toBeUndefined()
    return { status: response.status, headers: response.headers, json }
  }

  return {
    baseUrl,
    admin,
    call,
    token: async (permissions, environment = "SANDBOX") => {
      const t = await run(tokens.create({ name: "test", permissions: [...permissions] as [Permission], environment }))
      return { clientId: t.clientId, clientSecret: t.clientSecret }
    },
    processDue: () =>
      run(
        Effect.asVoid(
          Effect.andThen(
            Context.get(app.context, Transactions).processDue(),
            Context.get(app.context, CardsWorker).processDue()
          ).pipe(
            Effect.andThen(Context.get(app.context, Invitations).processDue()),
            Effect.andThen(Context.get(app.context, StablecoinsWorker).processDue())
          )
        )
      ),
    // Every due event, batch after batch (a batch holds 50; a file's earlier tests may have left more due).
    dispatch: () =>
      run(
        Effect.gen(function* () {
          const dispatcher = Context.get(app.context, WebhookDispatcher)
          for (let pass = 0; pass < 100; pass++) {
            const summary = yield* dispatcher.dispatchDue()
            if (summary.claimed === 0 || summary.blocked === summary.claimed) return
          }
        })
      ),
    webhooks,
    publicKeyPem: Context.get(portsContext, WebhookSigner).publicKeyPem,
    store: Context.get(portsContext, Store),
    documentStore: Context.get(portsContext, DocumentStore),
    close: async () => {
      flushFigures()
      // The server stops taking connections; closing the app ends its event streams, so their connections end too.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      await Effect.runPromise(Scope.close(scope, Exit.void))
      for (const socket of connections) if (socket.bytesRead === 0) socket.destroy()
      await closed
    }
  }
}

/** Terms consent the sandbox accepts (the current terms version). */
export const consent = {
  acceptedAt: "2026-01-01T00:00:00Z",
  ipAddress: "203.0.113.7",
  termsVersion: "2025-10-13",
  acceptanceMethod: "CHECKBOX"
} as const

export /** 400 INVALID_INPUT naming exactly `fields`, each with a machine-readable constraint. */
const expectInvalid = (r: CallResult, fields: ReadonlyArray<string>) => {
  expect(r.status).toBe(400)
  expect(r.json.status).toBe(400)
  expect(r.json.code).toBe("INVALID_INPUT")
  const errors: Array<{ field: string; constraint: unknown; message: unknown }> = r.json.details.errors
  expect(errors.map((e) => e.field).sort()).toEqual([...fields].sort())
  for (const e of errors) {
    expect(e.constraint).toBeTypeOf("object")
    expect(Object.keys(e.constraint as object).length).toBeGreaterThan(0)
    expect(e.message).toBeTypeOf("string")
  }
}

export const errorOf = (r: CallResult, field: string) =>
  (r.json.details.errors as Array<{ field: string; constraint: Record<string, unknown> }>).find(
    (e) => e.field === field
  )

export const expectUnauthorized = (r: CallResult) => {
  expect(r.status).toBe(401)
  expect(r.json.code).toBe("UNAUTHORIZED")
  expect(r.json.status).toBe(401)
  expect(r.headers.get("www-authenticate")).toBe('Basic realm="paycore"')
}

/**
 * Starts a test server before the file's tests and closes it after them. The returned object
 * stands for that server (use it inside tests and hooks, not at module load).
 */
export const useTestServer = (
  afterStart: (server: TestServer) => Promise<void> = async () => {},
  options: TestServerOptions = {}
): TestServer => {
  let current: TestServer | undefined
  beforeAll(async () => {
    current = await startTestServer(options)
    await afterStart(current)
  })
  afterAll(() => current?.close())
  return new Proxy({} as TestServer, {
    get: (_, key) => {
      if (current === undefined) throw new Error("the test server is not started yet")
      return current[key as keyof TestServer]
    }
  })
}

/** Any `{status, code}` error body: the status, the code, and `status` repeated in the body. */
export const expectError = (result: CallResult, status: number, code: string) => {
  expect({ status: result.status, code: result.json?.code }).toEqual({ status, code })
  expect(result.json.status).toBe(status)
}

export interface Onboarded {
  readonly id: string
  readonly umaAddress: string
  /** Internal account id per currency code. */
  readonly accounts: Readonly<Record<string, string>>
}

/** A complete individual KYC packet (every field the review asks for); `fullName` carries the sandbox suffix. */
export const individualPacket = (fullName: string, overrides: Record<string, unknown> = {}) => ({
  customerType: "INDIVIDUAL",
  fullName,
  birthDate: "1990-12-10",
  nationality: "US",
  address: { line1: "1 Market St", city: "San Francisco", state: "CA", postalCode: "94105", country: "US" },
  idType: "SSN",
  identifier: "123-45-6789",
  currencies: ["USD"],
  endUserTermsConsent: consent,
  ...overrides
})

/** POST /customers (an individual, with terms consent unless `withConsent: false`) → 201, and its internal accounts. */
export const onboardCustomer = async (
  server: TestServer,
  options: { readonly currencies?: ReadonlyArray<string>; readonly withConsent?: boolean } = {}
): Promise<Onboarded> => {
  const created = await server.call("POST", "/customers", {
    customerType: "INDIVIDUAL",
    fullName: "Ada Lovelace",
    currencies: options.currencies ?? ["USD"],
    ...(options.withConsent === false ? {} : { endUserTermsConsent: consent })
  })
  expect(created.status).toBe(201)
  const listed = await server.call("GET", `/customers/internal-accounts?customerId=${created.json.id}`)
  expect(listed.status).toBe(200)
  const accounts: Record<string, string> = {}
  for (const a of listed.json.data) accounts[a.currency] = a.id
  return { id: created.json.id, umaAddress: created.json.umaAddress, accounts }
}

/** POST /sandbox/internal-accounts/{id}/fund → 200; the new balance. */
export const fundAccount = async (server: TestServer, accountId: string, amount: number): Promise<number> => {
  const funded = await server.call("POST", `/sandbox/internal-accounts/${accountId}/fund`, { amount })
  expect(funded.status).toBe(200)
  return funded.json.balance.amount
}

/** POST /customers/external-accounts with a US account → 201; its id. */
export const addUsPayee = async (
  server: TestServer,
  customerId: string,
  options: { readonly accountNumber?: string; readonly fullName?: string } = {}
): Promise<string> => {
  const created = await server.call("POST", "/customers/external-accounts", {
    customerId,
    currency: "USD",
    accountInfo: {
      accountType: "US_ACCOUNT",
      accountNumber: options.accountNumber ?? "123456789",
      routingNumber: "021000021",
      beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: options.fullName ?? "Grace Hopper" }
    }
  })
  expect(created.status).toBe(201)
  return created.json.id
}

/**
 * A payer for payment tests: a customer (`onboardCustomer`) with its USD account funded with `amount`, and a US payee
 * per account number (`addUsPayee`), in that order.
 */
export const fundedPayer = async (
  server: TestServer,
  amount: number,
  accountNumbers: ReadonlyArray<string> = ["123456789"]
): Promise<{ readonly payer: Onboarded; readonly payees: ReadonlyArray<string> }> => {
  const payer = await onboardCustomer(server)
  const payees: Array<string> = []
  for (const accountNumber of accountNumbers) payees.push(await addUsPayee(server, payer.id, { accountNumber }))
  await fundAccount(server, payer.accounts.USD!, amount)
  return { payer, payees }
}

/** A POST /quotes body paying `amount` (sending side locked) from an internal account to another account. */
export const quoteBody = (
  source: string,
  destination: string,
  amount: number,
  extra: Record<string, unknown> = {}
) => ({
  source: { sourceType: "ACCOUNT", accountId: source },
  destination: { destinationType: "ACCOUNT", accountId: destination },
  lockedCurrencySide: "SENDING",
  lockedCurrencyAmount: amount,
  ...extra
})

/**
 * `GET /receiver/uma/{address}` → 200 (Q-47): the `lookupId` a quote to the address names (Q-03), as a client
 * looks the receiver up before it quotes.
 */
export const lookupUma = async (server: TestServer, address: string, customerId?: string): Promise<string> => {
  const query = customerId === undefined ? "" : `?customerId=${customerId}`
  const lookup = await server.call("GET", `/receiver/uma/${encodeURIComponent(address)}${query}`)
  expect(lookup.status, JSON.stringify(lookup.json)).toBe(200)
  return lookup.json.lookupId
}

/** The available balance of a customer's internal account in `currency`. */
export const balanceIn = async (server: TestServer, customerId: string, currency = "USD"): Promise<number> => {
  const listed = await server.call("GET", `/internal-account?customerId=${customerId}&currency=${currency}`)
  expect(listed.status).toBe(200)
  return listed.json.data[0].balance.amount
}

/** POST /customers/external-accounts with a Mexican CLABE account → 201; its id. */
export const addMxPayee = async (server: TestServer, customerId: string): Promise<string> => {
  const created = await server.call("POST", "/customers/external-accounts", {
    customerId,
    currency: "MXN",
    accountInfo: {
      accountType: "CLABE",
      clabeNumber: "002010077777777771",
      beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Frida Kahlo" }
    }
  })
  expect(created.status).toBe(201)
  return created.json.id
}

/** The UUID part of an id, as a regular expression source. */
export const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
export const UNKNOWN_CUSTOMER = "Customer:01234567-89ab-7def-8123-456789abcdef"

/** 403 FORBIDDEN for a write by a token without TRANSACT or MANAGE. */
export const expectForbiddenWrite = (r: CallResult) => {
  expect(r.status).toBe(403)
  expect(r.json).toEqual({
    status: 403,
    code: "FORBIDDEN",
    message: "This token lacks the TRANSACT or MANAGE permission needed for this request"
  })
}

/** The ids of a list page, in order. */
export const ids = (r: CallResult): Array<string> => r.json.data.map((item: { id: string }) => item.id)

/** A small PNG (signature and IHDR): what a client uploads as an image. */
export const PNG_BYTES = Uint8Array.from(
  Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex")
)

/** A multipart form: text fields, and a `file` part with its Content-Type and file name (unless `file: null`). */
export const documentForm = (
  fields: Readonly<Record<string, string>>,
  file: { readonly bytes?: Uint8Array; readonly type?: string; readonly name?: string } | null = {}
): FormData => {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  if (file !== null) {
    form.append("file", new Blob([file.bytes ?? PNG_BYTES], { type: file.type ?? "image/png" }), file.name ?? "id.png")
  }
  return form
}

/** POST /documents of a PNG for `holder` → 201; the document. */
export const uploadDocument = async (
  server: TestServer,
  documentHolder: string,
  documentType: string,
  fields: Readonly<Record<string, string>> = {}
) => {
  const r = await server.call(
    "POST",
    "/documents",
    documentForm({ documentHolder, documentType, country: "US", ...fields })
  )
  expect(r.status, JSON.stringify(r.json)).toBe(201)
  return r.json
}
