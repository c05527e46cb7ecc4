/**
 * Cards over HTTP (issue 15, slice A): a cardholder whose KYC the sandbox approved, issuing with an Idempotency-Key,
 * activating through a worker pass, the webhook events of a card, and accounts the sandbox issuer refuses.
 */
import { randomUUID } from "node:crypto"
import type { InternalAccountRecord } from "@paycore/core"
import { Effect } from "effect"
import { expect } from "vitest"
import { type CallResult, individualPacket, type TestServer } from "./harness.ts"

/** The platform setup card tests start from: USDB among the currencies, KYC decided on the packet alone. */
export const cardPlatform = async (server: TestServer) => {
  const r = await server.call("PATCH", "/config", {
    supportedCurrencies: ["USD", "EUR", "MXN", "USDC", "USDB"],
    skipVerificationPaperwork: true
  })
  expect(r.status, JSON.stringify(r.json)).toBe(200)
}

export interface Cardholder {
  readonly id: string
  /** Internal account id per currency code (the embedded wallet's also under `EMBEDDED_WALLET`). */
  readonly accounts: Readonly<Record<string, string>>
}

/** The customer's internal accounts by currency (an embedded wallet under `EMBEDDED_WALLET`). */
export const accountsOf = async (server: TestServer, customerId: string): Promise<Record<string, string>> => {
  const listed = await server.call("GET", `/customers/internal-accounts?customerId=${customerId}`)
  expect(listed.status).toBe(200)
  const accounts: Record<string, string> = {}
  for (const a of listed.json.data) {
    accounts[a.currency] = a.id
    if (a.type === "EMBEDDED_WALLET") accounts.EMBEDDED_WALLET = a.id
  }
  return accounts
}

/** POST /verifications → APPROVED (the sandbox approves a complete packet without a magic suffix). */
export const approveKyc = async (server: TestServer, customerId: string) => {
  const r = await server.call("POST", "/verifications", { customerId })
  expect(r.status, JSON.stringify(r.json)).toBe(200)
  expect(r.json.verificationStatus, JSON.stringify(r.json.errors)).toBe("APPROVED")
}

/**
 * A customer with a complete KYC packet (`extra` adds to it), KYC `APPROVED` unless `approved: false`, and an
 * internal account in each of `currencies` (default USD). Without a `platformCustomerId` in `extra` the sandbox
 * issuer takes its accounts (CD-44 reads only one the platform set).
 */
export const cardholder = async (
  server: TestServer,
  options: {
    readonly currencies?: ReadonlyArray<string>
    readonly approved?: boolean
    readonly extra?: Record<string, unknown>
  } = {}
): Promise<Cardholder> => {
  const created = await server.call(
    "POST",
    "/customers",
    individualPacket("Cora Cardholder", { currencies: options.currencies ?? ["USD"], ...options.extra })
  )
  expect(created.status, JSON.stringify(created.json)).toBe(201)
  const accounts = await accountsOf(server, created.json.id)
  if (options.approved !== false) await approveKyc(server, created.json.id)
  return { id: created.json.id, accounts }
}

/** A `POST /cards` body for these funding sources (`extra` adds or overrides fields). */
export const cardBody = (
  holder: string,
  fundingSources: ReadonlyArray<string>,
  extra: Record<string, unknown> = {}
) => ({
  cardholderId: holder,
  fundingSources,
  form: "VIRTUAL",
  ...extra
})

/** `POST /cards` with an Idempotency-Key (a fresh one unless given). */
export const issue = (server: TestServer, body: unknown, key: string = randomUUID()): Promise<CallResult> =>
  server.call("POST", "/cards", body, { headers: { "idempotency-key": key } })

/** Issues a card and runs a worker pass: the card as `GET /cards/{id}` then shows it. */
export const issued = async (server: TestServer, body: unknown) => {
  const r = await issue(server, body)
  expect(r.status, JSON.stringify(r.json)).toBe(201)
  await server.processDue()
  return (await server.call("GET", `/cards/${r.json.id}`)).json
}

/**
 * A platform-set id ending `suffix`: as a `platformCardId`, the sandbox issuer's issuance outcome (CD-43; `000` is
 * active at once, with last4 `4000`); as a `platformCustomerId`, its funding outcome (CD-44: `002` and `003` refused).
 */
export const endingIn = (suffix: string) => `emp-${randomUUID().slice(0, 8)}-${suffix}`

/** An `ACTIVE` card of `holder` funded by its USD account (`extra` adds to the body). */
export const activeCard = async (server: TestServer, holder: Cardholder, extra: Record<string, unknown> = {}) => {
  const card = await issued(
    server,
    cardBody(holder.id, [holder.accounts.USD!], { platformCardId: endingIn("000"), ...extra })
  )
  expect(card.state).toBe("ACTIVE")
  return card
}

/** The webhook events written about `subject`, oldest first: `{type, data}`. */
export const eventsOf = async (
  server: TestServer,
  subject: string
): Promise<Array<{ readonly type: string; readonly data: any }>> => {
  const r = await server.call("GET", `/webhooks/deliveries?subject=${subject}&sortOrder=asc&limit=100`)
  expect(r.status).toBe(200)
  return r.json.data.map((d: { event: { type: string; data: unknown } }) => d.event)
}

/** The store's row of a card (what the API does not show: bindings, the sealed password, the worker's bookkeeping). */
export const cardRow = (server: TestServer, id: string) => Effect.runPromise(server.store.cards.get(id))

/**
 * Another `ACTIVE` USD internal account of `customerId` (the API opens one per currency), written straight to the
 * store, or with other fields (`overrides`).
 */
export const extraAccount = async (
  server: TestServer,
  customerId: string,
  overrides: Partial<InternalAccountRecord> = {}
): Promise<string> => {
  const id = `InternalAccount:${randomUUID()}` as InternalAccountRecord["id"]
  const now = new Date().toISOString()
  await Effect.runPromise(
    server.store.internalAccounts.insert({
      id,
      customerId: customerId as NonNullable<InternalAccountRecord["customerId"]>,
      type: "INTERNAL_FIAT",
      status: "ACTIVE",
      currency: "USD",
      fundingPaymentInstructions: [],
      cardCapabilities: { supportsSpendLimits: true, supportsTransactionCountLimit: true },
      createdAt: now,
      updatedAt: now,
      ...overrides
    })
  )
  return id
}
