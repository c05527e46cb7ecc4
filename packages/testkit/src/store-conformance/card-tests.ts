import { assert } from "@effect/vitest"
import {
  type CardFilter,
  type CardId,
  type CardNetworkEventFilter,
  type CardNetworkEventRecord,
  type CardRecord,
  type CardRevealFilter,
  type CardRevealRecord,
  type CardTransactionFilter,
  type CardTransactionRecord,
  type InternalAccountId,
  Store
} from "@paycore/core"
import { Effect } from "effect"
import { assertUniqueViolation, expectDue, expectList } from "./assertions.ts"
import type { CollectionCase } from "./collections.ts"
import { type It, makeScope, newId, plusSeconds, type Scope, unique } from "./ids.ts"

// ---- records: the card and funding account of one scope ----

const scopeCards = new WeakMap<Scope, { readonly cardId: CardId; readonly accountId: InternalAccountId }>()
/** The card and funding account a scope's card transactions, events and reveals belong to. */
export const cardOf = (s: Scope) => {
  let found = scopeCards.get(s)
  if (found === undefined) {
    found = { cardId: newId("Card"), accountId: newId("InternalAccount") }
    scopeCards.set(s, found)
  }
  return found
}

/** A card just issued: `PROCESSING`, no issuer details, no limit, no worker bookkeeping. */
export const cardMinimal = (s: Scope, id: string = newId("Card")): CardRecord => {
  const createdAt = s.next()
  const accountId = cardOf(s).accountId
  return {
    id: id as CardId,
    cardholderId: s.customerId,
    platformCardId: `card-${unique()}`,
    platformCardIdGiven: false,
    state: "PROCESSING",
    form: "VIRTUAL",
    fundingSources: [accountId],
    bindings: [{ id: newId("CardFundingSource"), accountId, accountType: "INTERNAL_FIAT" }],
    currency: "USD",
    cardCapabilities: { supportsPanReveal: false, supportsSpendLimits: false, supportsTransactionCountLimit: false },
    createdAt,
    updatedAt: createdAt
  }
}

/** A closed card with every optional field (its own `platformCardId`). */
export const cardFull = (s: Scope, id?: string): CardRecord => {
  const minimal = cardMinimal(s, id)
  const second = newId("InternalAccount")
  return {
    ...minimal,
    platformCardId: `emp-${unique()}-✓`,
    platformCardIdGiven: true,
    state: "CLOSED",
    stateReason: "CLOSED_BY_PLATFORM",
    brand: "VISA",
    last4: "0042",
    expMonth: 12,
    expYear: 2031,
    fundingSources: [...minimal.fundingSources, second],
    bindings: [
      ...minimal.bindings,
      { id: newId("CardFundingSource"), accountId: second, accountType: "EMBEDDED_WALLET" }
    ],
    currency: "USDB",
    maxSpendPerTransaction: 9_000_000_000_000_000,
    maxSpendPerDay: 300,
    maxTransactionsPerDay: 1_000_000,
    cardCapabilities: { supportsPanReveal: true, supportsSpendLimits: true, supportsTransactionCountLimit: true },
    processorRef: `proc_${s.tag}`,
    issuerRef: `iss_${s.tag}`,
    threeDSecurePasswordSealed: "v1.aXY.c2VhbGVk",
    issuerSync: { state: "CLOSED", fundingAccountIds: [second] },
    dueAt: plusSeconds(minimal.createdAt, 5),
    attempts: 3,
    stalledAt: plusSeconds(minimal.createdAt, 60),
    updatedAt: plusSeconds(minimal.createdAt, 61)
  }
}

/** A declined authorization: no funding source id, signature, event or due time. */
export const cardTransactionMinimal = (s: Scope, id: string = newId("CardTransaction")): CardTransactionRecord => {
  const createdAt = s.next()
  return {
    id: id as CardTransactionRecord["id"],
    cardId: cardOf(s).cardId,
    customerId: s.customerId,
    platformCustomerId: `p-${s.tag}`,
    issuerTransactionToken: `itt_${unique()}`,
    kind: "AUTHORIZATION",
    direction: "DEBIT",
    state: "DECLINED",
    merchant: { descriptor: "AMAZON RETAIL US-002" },
    currency: "USD",
    authorizedAmount: 5000,
    settledAmount: 0,
    refundedAmount: 0,
    heldAmount: 0,
    accountId: cardOf(s).accountId,
    pullSummary: { count: 0, totalAmount: 0, pendingCount: 0 },
    settlementSummary: { count: 0, totalAmount: 0 },
    refundSummary: { count: 0, totalAmount: 0 },
    returns: [],
    day: createdAt.slice(0, 10),
    authorizedAt: createdAt,
    createdAt,
    updatedAt: createdAt
  }
}

/** A settled purchase with a return and every optional field. */
export const cardTransactionFull = (s: Scope, id?: string): CardTransactionRecord => {
  const minimal = cardTransactionMinimal(s, id)
  return {
    ...minimal,
    state: "SETTLED",
    declineReason: "PULL_FAILED",
    merchant: { descriptor: "BLUE BOTTLE COFFEE ☕ SF", mcc: "5814", country: "US" },
    authorizedAmount: 1250,
    settledAmount: 1500,
    refundedAmount: 200,
    heldAmount: 0,
    fundingSourceId: newId("CardFundingSource"),
    pullSummary: { count: 2, totalAmount: 1500, pendingCount: 0 },
    settlementSummary: { count: 1, totalAmount: 1500 },
    refundSummary: { count: 1, totalAmount: 200 },
    returns: [{ amount: 200, at: plusSeconds(minimal.createdAt, 90), reversedAt: plusSeconds(minimal.createdAt, 95) }],
    pullSignature: "30".repeat(36),
    lastEventAt: plusSeconds(minimal.createdAt, 95),
    dueAt: plusSeconds(minimal.createdAt, 30),
    updatedAt: plusSeconds(minimal.createdAt, 95)
  }
}

/** A network event stored and waiting: no transaction resolved, not applied, no due time. */
export const cardNetworkEventMinimal = (s: Scope, id: string = newId("CardNetworkEvent")): CardNetworkEventRecord => {
  const issuerEventId = `evt_${unique()}`
  const { cardId } = cardOf(s)
  return {
    id: id as CardNetworkEventRecord["id"],
    issuerEventId,
    cardId,
    kind: "ReturnReversal",
    event: { _tag: "ReturnReversal", issuerEventId, cardId, issuerTransactionToken: `itt_${s.tag}` },
    createdAt: s.next()
  }
}

/** A deferred clearing, applied (every optional field). */
export const cardNetworkEventFull = (s: Scope, id?: string): CardNetworkEventRecord => {
  const minimal = cardNetworkEventMinimal(s, id)
  return {
    ...minimal,
    cardTransactionId: newId("CardTransaction"),
    kind: "Clearing",
    event: {
      _tag: "Clearing",
      issuerEventId: minimal.issuerEventId,
      cardId: minimal.cardId,
      issuerTransactionToken: `itt_${s.tag}`,
      amount: 1500,
      pullRefused: true
    },
    dueAt: plusSeconds(minimal.createdAt, 30),
    appliedAt: plusSeconds(minimal.createdAt, 31),
    outcome: { _tag: "Refused", reason: "PULL_FAILED: a clearing of a transaction whose pull failed" }
  }
}

/** One reveal (every field is required). */
export const cardRevealMinimal = (s: Scope, id: string = newId("CardReveal")): CardRevealRecord => {
  const requestedAt = s.next()
  return {
    id: id as CardRevealRecord["id"],
    cardId: cardOf(s).cardId,
    actor: newId("Token"),
    requestedAt,
    expiresAt: plusSeconds(requestedAt, 300)
  }
}

export const cardRevealFull = cardRevealMinimal

// ---- the collection cases ----

export const cardsCase: CollectionCase<CardRecord, CardFilter> = {
  name: "cards",
  of: (store) => store.cards,
  newId: () => newId("Card"),
  full: cardFull,
  minimal: cardMinimal,
  filter: (s) => ({ cardholderId: s.customerId }),
  exact: true
}

export const cardTransactionsCase: CollectionCase<CardTransactionRecord, CardTransactionFilter> = {
  name: "cardTransactions",
  of: (store) => store.cardTransactions,
  newId: () => newId("CardTransaction"),
  full: cardTransactionFull,
  minimal: cardTransactionMinimal,
  filter: (s) => ({ customerId: s.customerId }),
  exact: true
}

export const cardNetworkEventsCase: CollectionCase<CardNetworkEventRecord, CardNetworkEventFilter> = {
  name: "cardNetworkEvents",
  of: (store) => store.cardNetworkEvents,
  newId: () => newId("CardNetworkEvent"),
  full: cardNetworkEventFull,
  minimal: cardNetworkEventMinimal,
  filter: (s) => ({ cardId: cardOf(s).cardId, includeApplied: true }),
  exact: true
}

export const cardRevealsCase: CollectionCase<CardRevealRecord, CardRevealFilter> = {
  name: "cardReveals",
  of: (store) => store.cardReveals,
  newId: () => newId("CardReveal"),
  full: cardRevealFull,
  minimal: cardRevealMinimal,
  filter: (s) => ({ cardId: cardOf(s).cardId }),
  exact: true
}

// ---- what cards rely on beyond a collection ----

/** A due time past the scope's creation instants (`s.next()` counts seconds from 1). */
const DUE = 3_600

export const cardTests = (it: It) => {
  it.effect("CD-16, Q21: platformCardId is unique; the list filters by cardholder, funding account and state", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const { accountId } = cardOf(s)
      const processing = cardMinimal(s)
      const closed = cardFull(s)
      const elsewhere: CardRecord = { ...cardMinimal(makeScope()), fundingSources: [newId("InternalAccount")] }
      for (const row of [processing, closed, elsewhere]) yield* store.cards.insert(row)
      assertUniqueViolation(
        yield* Effect.flip(store.cards.insert({ ...cardMinimal(s), platformCardId: processing.platformCardId })),
        "platformCardId"
      )
      assert.deepStrictEqual(yield* store.cards.findUnique("platformCardId", closed.platformCardId), closed)
      const list = store.cards.list
      // `accountId` matches any position of `fundingSources` (the second of `closed` too).
      yield* expectList(list, { accountId }, [processing, closed])
      yield* expectList(list, { accountId: closed.fundingSources[1]! }, [closed])
      yield* expectList(list, { cardholderId: s.customerId, state: "CLOSED" }, [closed])
      yield* expectList(list, { platformCardId: processing.platformCardId }, [processing])
      yield* expectList(list, { accountId: newId("InternalAccount") }, [])
    })
  )

  it.effect("the worker's list: cards in the given states due at or before the instant", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const due: CardRecord = { ...cardMinimal(s), dueAt: s.at(100) }
      const later: CardRecord = { ...cardMinimal(s), dueAt: s.at(200) }
      const active: CardRecord = { ...cardMinimal(s), state: "ACTIVE", dueAt: s.at(50) }
      const never = cardMinimal(s)
      for (const row of [due, later, active, never]) yield* store.cards.insert(row)
      const list = store.cards.list
      const mine = { cardholderId: s.customerId }
      yield* expectList(list, { ...mine, states: ["PROCESSING"], dueBy: s.at(100) }, [due])
      yield* expectList(list, { ...mine, states: ["PROCESSING", "ACTIVE"], dueBy: s.at(200) }, [due, later, active])
      yield* expectList(list, { ...mine, dueBy: s.at(49) }, [])
      // The worker's walk (issue 34), earliest due first.
      const dueAt = (r: CardRecord) => r.dueAt
      yield* expectDue(store.cards, { ...mine, states: ["PROCESSING", "ACTIVE"], dueBy: s.at(200) }, dueAt, [
        active,
        due,
        later
      ])
      yield* expectDue(store.cards, { dueBy: s.at(200) }, dueAt, [active, due, later], {
        among: true,
        limit: 50,
        excluded: [never]
      })
      // Provisioned: no longer due.
      const { dueAt: _, ...done } = due
      yield* store.cards.update({ ...done, state: "ACTIVE" })
      yield* expectList(list, { ...mine, states: ["PROCESSING", "ACTIVE"], dueBy: s.at(100) }, [active])
    })
  )
}

export const cardTransactionTests = (it: It) => {
  it.effect("CD-41, Q23: issuerTransactionToken is unique; filters by card, account, states, token and time", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const declined = cardTransactionMinimal(s)
      const settled = cardTransactionFull(s)
      const authorized: CardTransactionRecord = {
        ...cardTransactionMinimal(s),
        state: "AUTHORIZED",
        accountId: newId("InternalAccount"),
        dueAt: s.at(DUE)
      }
      for (const row of [declined, settled, authorized]) yield* store.cardTransactions.insert(row)
      // A network retry of one authorization finds the first decision.
      assertUniqueViolation(
        yield* Effect.flip(
          store.cardTransactions.insert({
            ...cardTransactionMinimal(s),
            issuerTransactionToken: declined.issuerTransactionToken
          })
        ),
        "issuerTransactionToken"
      )
      assert.deepStrictEqual(
        yield* store.cardTransactions.findUnique("issuerTransactionToken", settled.issuerTransactionToken),
        settled
      )
      const list = store.cardTransactions.list
      const mine = { customerId: s.customerId }
      yield* expectList(list, { cardId: cardOf(s).cardId }, [declined, settled, authorized])
      yield* expectList(list, { ...mine, accountIdentifier: cardOf(s).accountId }, [declined, settled])
      yield* expectList(list, { ...mine, states: ["DECLINED", "PULL_FAILED", "EXCEPTION"] }, [declined])
      yield* expectList(list, { ...mine, states: ["SETTLED", "EXPIRED"] }, [settled])
      yield* expectList(list, { reference: authorized.issuerTransactionToken }, [authorized])
      yield* expectList(list, { platformCustomerId: `p-${s.tag}` }, [declined, settled, authorized])
      yield* expectList(list, { ...mine, createdAfter: declined.createdAt, createdBefore: authorized.createdAt }, [
        settled
      ])
      // `settled` was due half a minute after its creation.
      yield* expectList(list, { ...mine, dueBy: s.at(DUE - 1) }, [settled])
      yield* expectList(list, { ...mine, dueBy: s.at(DUE) }, [settled, authorized])
    })
  )
}

export const cardNetworkEventTests = (it: It) => {
  it.effect("issuerEventId is unique (an event delivered twice is stored once); the pending ones due by now", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const waiting: CardNetworkEventRecord = { ...cardNetworkEventMinimal(s), dueAt: s.at(DUE) }
      const later: CardNetworkEventRecord = { ...cardNetworkEventMinimal(s), dueAt: s.at(DUE + 30) }
      const applied = cardNetworkEventFull(s)
      const now = cardNetworkEventMinimal(s)
      for (const row of [waiting, later, applied, now]) yield* store.cardNetworkEvents.insert(row)
      assertUniqueViolation(
        yield* Effect.flip(
          store.cardNetworkEvents.insert({ ...cardNetworkEventMinimal(s), issuerEventId: waiting.issuerEventId })
        ),
        "issuerEventId"
      )
      assert.deepStrictEqual(yield* store.cardNetworkEvents.findUnique("issuerEventId", applied.issuerEventId), applied)
      const list = store.cardNetworkEvents.list
      const card = cardOf(s).cardId
      yield* expectList(list, { cardId: card, includeApplied: true }, [waiting, later, applied, now])
      yield* expectList(list, { cardId: card, includeApplied: false }, [waiting, later, now])
      // The worker: pending, due by the instant (the applied one was due earlier, and is left out).
      yield* expectList(list, { cardId: card, includeApplied: false, dueBy: s.at(DUE) }, [waiting])
      yield* expectList(list, { cardId: card, includeApplied: false, dueBy: s.at(DUE + 30) }, [waiting, later])
      yield* expectDue(
        store.cardNetworkEvents,
        { includeApplied: false, dueBy: s.at(DUE + 30) },
        (r) => r.dueAt,
        [waiting, later],
        { among: true, limit: 50, excluded: [applied, now] }
      )
      yield* store.cardNetworkEvents.update({
        ...waiting,
        appliedAt: s.at(DUE),
        outcome: { _tag: "Applied" },
        cardTransactionId: newId("CardTransaction")
      })
      yield* expectList(list, { cardId: card, includeApplied: false, dueBy: s.at(DUE + 30) }, [later])
    })
  )
}
