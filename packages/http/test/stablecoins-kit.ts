/**
 * What the stablecoin HTTP tests share (issue 17 slice B; docs/stablecoins.md): a server with the sandbox provider
 * wrapped by the testkit's scripted one (outage switch, call log), a linked account and registered coins, and the
 * calls with their required `Idempotency-Key`.
 */
import { randomUUID } from "node:crypto"
import { secp256k1 } from "@noble/curves/secp256k1.js"
import { Ids, type InternalAccountRecord, Store, sparkAddressOf } from "@paycore/core"
import { sandboxStablecoinProvider } from "@paycore/sandbox"
import { ledgerViolations, type ScriptedStablecoinProvider, scriptedStablecoinProvider } from "@paycore/testkit"
import { Effect } from "effect"
import { expect } from "vitest"
import { accountsOf } from "./cards-kit.ts"
import { addUsPayee, type CallResult, onboardCustomer, type TestServer } from "./harness.ts"

/** The sandbox provider at the harness's speed (everything due at once), behind an outage switch. */
export const scriptedProvider = (): ScriptedStablecoinProvider =>
  scriptedStablecoinProvider(sandboxStablecoinProvider({ speedUp: 1e9 }))

export const keyed = (key: string = randomUUID()) => ({ headers: { "idempotency-key": key } })

export const link = (server: TestServer, body: Record<string, unknown> = {}, key?: string) =>
  server.call(
    "POST",
    "/stablecoin-provider-accounts",
    // A fixed plain suffix: the sandbox provider refuses ids ending 002 and revokes those ending 006 (1 in 4096 of a
    // bare UUID did, and the test that drew it failed).
    { provider: "BRALE", apiClientId: `client-${randomUUID()}-000`, apiClientSecret: SECRET, ...body },
    keyed(key)
  )

export const register = (server: TestServer, body: Record<string, unknown> = {}, key?: string) =>
  server.call(
    "POST",
    "/stablecoins",
    { providerTokenIdentifier: "usdb", networkTokenIdentifier: "btkn1usdb", network: "SPARK", ...body },
    keyed(key)
  )

export const mint = (server: TestServer, coinId: string, body: Record<string, unknown>, key?: string) =>
  server.call("POST", `/stablecoins/${coinId}/mints`, body, keyed(key))

export const burn = (server: TestServer, coinId: string, body: Record<string, unknown>, key?: string) =>
  server.call("POST", `/stablecoins/${coinId}/burns`, body, keyed(key))

/** The API client secret every test links with: it must appear in no response, row or log. */
export const SECRET = "sk_sandbox_do-not-leak-7f3a9c"

/** A customer holding USD (INTERNAL_FIAT) and USDB (an embedded wallet), a US bank account and a Spark wallet. */
export interface Holder {
  readonly id: string
  readonly usd: string
  readonly usdbWallet: string
  readonly bank: string
  readonly spark: string
}

export const holder = async (server: TestServer): Promise<Holder> => {
  const customer = await onboardCustomer(server, { currencies: ["USD", "USDB"] })
  const accounts = await accountsOf(server, customer.id)
  return {
    id: customer.id,
    usd: accounts.USD!,
    usdbWallet: accounts.EMBEDDED_WALLET!,
    bank: await addUsPayee(server, customer.id),
    spark: await sparkWallet(server, customer.id)
  }
}

/** A customer's external Spark wallet (where a mint may go); its id. */
export const sparkWallet = async (server: TestServer, customerId: string): Promise<string> => {
  const spark = await server.call("POST", "/customers/external-accounts", {
    customerId,
    currency: "BTC",
    accountInfo: {
      accountType: "SPARK_WALLET",
      address: sparkAddressOf(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true))
    }
  })
  expect(spark.status, JSON.stringify(spark.json)).toBe(201)
  return spark.json.id
}

/**
 * A USDB `INTERNAL_CRYPTO` account of no customer, written to the store (as a platform-owned account of slice E will
 * be): an internal account a burn may debit (an embedded wallet never is).
 */
export const usdbHoldingAccount = async (server: TestServer): Promise<string> => {
  const now = new Date().toISOString()
  const id = await Effect.runPromise(
    Effect.gen(function* () {
      return yield* (yield* Ids).make("InternalAccount")
    }).pipe(Effect.provide(Ids.layer))
  )
  const account: InternalAccountRecord = {
    id,
    type: "INTERNAL_CRYPTO",
    status: "ACTIVE",
    currency: "USDB",
    fundingPaymentInstructions: [],
    cardCapabilities: { supportsSpendLimits: false, supportsTransactionCountLimit: false },
    createdAt: now,
    updatedAt: now
  }
  await Effect.runPromise(server.store.internalAccounts.insert(account))
  return id
}

/** Available and total balance of an internal account, in its smallest unit. */
export const balanceOf = async (server: TestServer, accountId: string) => {
  const [b] = await Effect.runPromise(
    server.store.ledger.balances([{ account: accountId, currency: accountCurrency.get(accountId) ?? "USD" }])
  )
  return { available: (b?.posted ?? 0) - (b?.pendingDebits ?? 0), posted: b?.posted ?? 0 }
}

/** Which currency a test's accounts hold (set by `remember`). */
const accountCurrency = new Map<string, string>()
export const remember = (accountId: string, currency: string) => accountCurrency.set(accountId, currency)

/** The posted balance of a system account. */
export const systemPosted = async (server: TestServer, account: string, currency: string): Promise<number> => {
  const [b] = await Effect.runPromise(server.store.ledger.balances([{ account, currency }]))
  return b?.posted ?? 0
}

/** Every currency's postings sum to zero (testkit `ledgerViolations`). */
export const expectLedgerBalanced = async (server: TestServer) => {
  expect(await Effect.runPromise(ledgerViolations.pipe(Effect.provideService(Store, server.store)))).toEqual([])
}

export const expectCreated = (r: CallResult) => {
  expect(r.status, JSON.stringify(r.json)).toBe(201)
  return r.json
}
