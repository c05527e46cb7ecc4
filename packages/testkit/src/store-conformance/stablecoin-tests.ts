import { assert } from "@effect/vitest"
import {
  type ProviderAccountFilter,
  type ProviderAccountRecord,
  type StablecoinFilter,
  type StablecoinOperationFilter,
  type StablecoinOperationRecord,
  type StablecoinProviderAccountId,
  type StablecoinRecord,
  Store
} from "@paycore/core"
import { Effect } from "effect"
import { assertUniqueViolation, expectDue, expectList } from "./assertions.ts"
import type { CollectionCase } from "./collections.ts"
import { type It, makeScope, newId, plusSeconds, type Scope, scopedId, unique } from "./ids.ts"

// ---- records ----

const linkOf = scopedId("StablecoinProviderAccount")
const coinOf = scopedId("Stablecoin")

/** A link that lost its live slot (`INVALID`), never verified. */
export const providerAccountMinimal = (
  s: Scope,
  id: string = newId("StablecoinProviderAccount")
): ProviderAccountRecord => {
  const createdAt = s.next()
  return {
    id: id as StablecoinProviderAccountId,
    provider: "BRALE",
    providerAccountId: `other-${s.tag}`,
    environment: "SANDBOX",
    status: "INVALID",
    apiClientId: `client-${unique()}`,
    sealedSecret: "v1.aXY.c2VhbGVk",
    createdAt,
    updatedAt: createdAt
  }
}

/** An `ACTIVE` link holding its live slot, verified. */
export const providerAccountFull = (s: Scope, id?: string): ProviderAccountRecord => {
  const minimal = providerAccountMinimal(s, id)
  return {
    ...minimal,
    providerAccountId: `account-${s.tag}`,
    status: "ACTIVE",
    liveSlot: `BRALE:account-${s.tag}:${unique()}`,
    lastVerifiedAt: plusSeconds(minimal.createdAt, 1),
    updatedAt: plusSeconds(minimal.createdAt, 1)
  }
}

export const providerAccountsCase: CollectionCase<ProviderAccountRecord, ProviderAccountFilter> = {
  name: "stablecoinProviderAccounts",
  of: (store) => store.stablecoinProviderAccounts,
  newId: () => newId("StablecoinProviderAccount"),
  full: providerAccountFull,
  minimal: providerAccountMinimal,
  filter: (s) => ({ providerAccountId: `account-${s.tag}`, status: "ACTIVE", provider: "BRALE" }),
  exact: true
}

/** A coin that is not an engine currency (no `currency`). */
export const stablecoinMinimal = (s: Scope, id: string = newId("Stablecoin")): StablecoinRecord => {
  const createdAt = s.next()
  return {
    id: id as StablecoinRecord["id"],
    name: "Acme USD",
    symbol: "ACMEUSD",
    baseCurrency: "USD",
    network: "SPARK",
    decimals: 6,
    issuanceStatus: "PROVISIONING",
    serviceOperationsStatus: "NOT_ENABLED",
    networkTokenIdentifier: `btkn1${unique()}`,
    provider: "BRALE",
    providerAccountLinkId: linkOf(s),
    environment: "SANDBOX",
    providerTokenIdentifier: "acme-usd",
    registration: `BRALE:SPARK:${unique()}:SANDBOX`,
    ledgerCurrency: "ACMEUSD",
    createdAt,
    updatedAt: createdAt
  }
}

export const stablecoinFull = (s: Scope, id?: string): StablecoinRecord => ({
  ...stablecoinMinimal(s, id),
  name: "USDB ✓",
  symbol: "USDB",
  issuanceStatus: "PROVISIONED",
  serviceOperationsStatus: "ENABLED",
  currency: "USDB",
  providerTokenIdentifier: "usdb",
  ledgerCurrency: "USDB"
})

export const stablecoinsCase: CollectionCase<StablecoinRecord, StablecoinFilter> = {
  name: "stablecoins",
  of: (store) => store.stablecoins,
  newId: () => newId("Stablecoin"),
  full: stablecoinFull,
  minimal: stablecoinMinimal,
  filter: () => ({ issuanceStatus: "PROVISIONED", serviceOperationsStatus: "ENABLED", provider: "BRALE" }),
  exact: false
}

/** A wire-funded mint just created: no optional field. */
export const stablecoinOperationMinimal = (
  s: Scope,
  id: string = newId("StablecoinOperation")
): StablecoinOperationRecord => {
  const createdAt = s.next()
  return {
    id: id as StablecoinOperationRecord["id"],
    stablecoinId: newId("Stablecoin"),
    operationType: "MINT",
    state: "CREATED",
    amount: "10000",
    minorAmount: 10_000,
    baseAmount: 1,
    baseCurrency: "USD",
    ledgerCurrency: "USDB",
    provider: "BRALE",
    environment: "SANDBOX",
    providerAccountLinkId: linkOf(s),
    source: { type: "WIRE" },
    destination: { accountId: newId("InternalAccount") },
    clientReference: unique() + unique(),
    providerOperationId: `sbxsc:${unique()}`,
    createdAt,
    updatedAt: createdAt
  }
}

/** A burn from an internal account to a bank, waiting on the worker, with every optional field. */
export const stablecoinOperationFull = (s: Scope, id?: string): StablecoinOperationRecord => {
  const minimal = stablecoinOperationMinimal(s, id)
  const heldAccountId = newId("InternalAccount")
  return {
    ...minimal,
    stablecoinId: coinOf(s),
    operationType: "BURN",
    state: "PENDING_FUNDING",
    amount: "9000000000000000",
    minorAmount: 9_000_000_000_000_000,
    baseAmount: 900_000_000_000,
    source: { type: "SERVICE_INTERNAL_ACCOUNT", accountId: heldAccountId },
    destination: { accountId: newId("ExternalAccount"), rail: "ACH_CREDIT" },
    fundingInstructions: { rail: "SPARK", network: "SPARK", address: "spark1…", valueType: "usdb" },
    estimatedDelivery: { rail: "ACH_CREDIT", amount: "900000000000", currency: "USD", timing: "1-3 business days" },
    expiresAt: plusSeconds(minimal.createdAt, 86_400),
    providerStatus: "AWAITING_FUNDS",
    failureReason: "—",
    description: "Zoë's ✓ burn",
    heldAccountId,
    dueAt: plusSeconds(minimal.createdAt, 60),
    attempts: 3,
    stalledAt: plusSeconds(minimal.createdAt, 61),
    updatedAt: plusSeconds(minimal.createdAt, 61)
  }
}

export const stablecoinOperationsCase: CollectionCase<StablecoinOperationRecord, StablecoinOperationFilter> = {
  name: "stablecoinOperations",
  of: (store) => store.stablecoinOperations,
  newId: () => newId("StablecoinOperation"),
  full: stablecoinOperationFull,
  minimal: stablecoinOperationMinimal,
  filter: (s) => ({ stablecoinId: coinOf(s), operationType: "BURN" }),
  exact: true
}

// ---- what stablecoins rely on beyond a collection ----

export const stablecoinTests = (it: It) => {
  it.effect("P-08: one ACTIVE link per live slot; a link that gave it up frees it", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const first = providerAccountFull(s)
      yield* store.stablecoinProviderAccounts.insert(first)
      assertUniqueViolation(
        yield* Effect.flip(
          store.stablecoinProviderAccounts.insert({ ...providerAccountFull(s), liveSlot: first.liveSlot })
        ),
        "liveSlot"
      )
      assert.deepStrictEqual(yield* store.stablecoinProviderAccounts.findUnique("liveSlot", first.liveSlot!), first)
      const { liveSlot: _, ...released } = first
      yield* store.stablecoinProviderAccounts.update({ ...released, status: "REVOKED" })
      yield* store.stablecoinProviderAccounts.insert({ ...providerAccountFull(s), liveSlot: first.liveSlot })
    })
  )

  it.effect("P-10, P-13: a registration and a client reference are unique", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const coin = stablecoinFull(s)
      yield* store.stablecoins.insert(coin)
      assertUniqueViolation(
        yield* Effect.flip(store.stablecoins.insert({ ...stablecoinMinimal(s), registration: coin.registration })),
        "registration"
      )
      const op = stablecoinOperationMinimal(s)
      yield* store.stablecoinOperations.insert(op)
      assertUniqueViolation(
        yield* Effect.flip(
          store.stablecoinOperations.insert({ ...stablecoinOperationMinimal(s), clientReference: op.clientReference })
        ),
        "clientReference"
      )
    })
  )

  it.effect("P-16 and the worker: a coin's operations newest first; live states due by an instant", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const stablecoinId = coinOf(s)
      const mine = (state: StablecoinOperationRecord["state"], dueAt?: string): StablecoinOperationRecord => ({
        ...stablecoinOperationMinimal(s),
        stablecoinId,
        state,
        ...(dueAt === undefined ? {} : { dueAt })
      })
      const due = mine("CREATED", s.at(100))
      const dueExactly = mine("PENDING_PROVIDER", s.at(200))
      const later = mine("PROCESSING", s.at(300))
      const done = mine("COMPLETED")
      for (const row of [due, dueExactly, later, done]) yield* store.stablecoinOperations.insert(row)
      const list = store.stablecoinOperations.list
      yield* expectList(
        list,
        { stablecoinId, states: ["CREATED", "PENDING_FUNDING", "PENDING_PROVIDER", "PROCESSING"], dueBy: s.at(200) },
        [due, dueExactly]
      )
      // The worker's walk (issue 34), earliest due first.
      yield* expectDue(
        store.stablecoinOperations,
        { states: ["CREATED", "PENDING_FUNDING", "PENDING_PROVIDER", "PROCESSING"], dueBy: s.at(200) },
        (r) => r.dueAt,
        [due, dueExactly],
        { among: true, limit: 50, excluded: [later, done] }
      )
      const page = yield* list({ stablecoinId }, { limit: 10, sortOrder: "desc" })
      assert.deepStrictEqual(
        page.data.map((r) => r.id),
        [done.id, later.id, dueExactly.id, due.id]
      )
    })
  )
}
