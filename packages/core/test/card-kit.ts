/**
 * What the card-transaction tests share (card-transactions.test.ts, cards.property.test.ts, the PostgreSQL races): a
 * cardholder with funded accounts and a card written straight to the store (`seedCard`: slice A's issue is not
 * needed), authorizations and network events as an issuer processor sends them, an embedded wallet's delegated key,
 * and the checks every test makes (the ledger, the card holds, the events as walks of the machine).
 */
import { p256 } from "@noble/curves/nist.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { cardTransactionViolations, ledgerViolations, type SeedFundingSource, seedCard } from "@paycore/testkit"
import { Clock, Effect } from "effect"
import { closeOutSteps } from "../src/cards/close-out.ts"
import { cardTransactionMachine } from "../src/cards/machine.ts"
import type {
  AuthorizationRequest,
  CardFundingBinding,
  CardRecord,
  CardTransactionRecord,
  NetworkEvent,
  NetworkEventBase
} from "../src/cards/model.ts"
import { CardNetwork } from "../src/cards/service.ts"
import { Ids } from "../src/ports/ids.ts"
import { KeyVault } from "../src/ports/key-vault.ts"
import { Store } from "../src/ports/store.ts"
import { Transactions } from "../src/transactions/service.ts"
import type { DelegatedKeyRecord } from "../src/wallet-auth/model.ts"
import { eventsOf, seedCustomer, seedInternalAccount } from "./fixtures.ts"

let serial = 0
/** A fresh issuer token or event id (unique across the tests of one process). */
export const fresh = (prefix: string): string => `${prefix}-${++serial}-${Math.random().toString(36).slice(2, 8)}`

/**
 * A cardholder with one USD account per entry of `funding` (funded by sandbox deposits; `wallet` makes it an embedded
 * wallet) and an `ACTIVE` card on them in that order, unless `overrides` say otherwise.
 */
export const cardWorld = Effect.fnUntraced(function* (
  funding: ReadonlyArray<number | { readonly amount: number; readonly wallet: true }>,
  overrides: Partial<CardRecord> = {}
) {
  const customer = yield* seedCustomer()
  const accounts = []
  const sources: Array<SeedFundingSource> = []
  for (const f of funding) {
    const wallet = typeof f === "object"
    const amount = typeof f === "object" ? f.amount : f
    const account = yield* seedInternalAccount(customer.id, "USD", wallet ? { type: "EMBEDDED_WALLET" } : {})
    if (amount > 0) yield* (yield* Transactions).fundSandbox(account.id, amount)
    accounts.push(account)
    sources.push(wallet ? { accountId: account.id, type: "EMBEDDED_WALLET" } : account.id)
  }
  const card = yield* seedCard(customer.id, sources, overrides)
  return { customer, accounts, card }
})

/** A purchase authorization of `amount` USD at a merchant (`more` overrides any field). */
export const authorize = Effect.fnUntraced(function* (
  card: CardRecord,
  amount: number,
  more: Partial<AuthorizationRequest> = {}
) {
  return yield* (yield* CardNetwork).authorize({
    cardId: card.id,
    issuerTransactionToken: fresh("itt"),
    kind: "AUTHORIZATION",
    amount,
    currency: "USD",
    merchant: { descriptor: "PAYCORE COFFEE 100", mcc: "5814", country: "US" },
    ...more
  })
})

type EventBody = NetworkEvent extends infer E
  ? E extends NetworkEvent
    ? Omit<E, keyof NetworkEventBase>
    : never
  : never

/** A network event about `tx` (a fresh `issuerEventId` unless given), applied now or due at `dueAt`. */
export const deliver = Effect.fnUntraced(function* (
  tx: Pick<CardTransactionRecord, "cardId" | "issuerTransactionToken">,
  body: EventBody,
  options: { readonly issuerEventId?: string; readonly dueAt?: string } = {}
) {
  const event = {
    ...body,
    issuerEventId: options.issuerEventId ?? fresh("evt"),
    cardId: tx.cardId,
    issuerTransactionToken: tx.issuerTransactionToken
  } as NetworkEvent
  return yield* (yield* CardNetwork).reconcile(event, options.dueAt === undefined ? {} : { dueAt: options.dueAt })
})

/** The stored card transaction (it must exist). */
export const cardTx = Effect.fnUntraced(function* (id: string | undefined) {
  const store = yield* Store
  const tx = id === undefined ? undefined : yield* store.cardTransactions.get(id)
  if (tx === undefined) return yield* Effect.die(new Error(`no card transaction ${id}`))
  return tx
})

/** An `ACTIVE` delegated key for a wallet binding, sealed by the engine's `KeyVault`; returns it with its public key. */
export const activeDelegatedKey = Effect.fnUntraced(function* (card: CardRecord, binding: CardFundingBinding) {
  const store = yield* Store
  const vault = yield* KeyVault
  const id = `DelegatedKey:${crypto.randomUUID()}` as DelegatedKeyRecord["id"]
  const secret = p256.utils.randomSecretKey()
  const record: DelegatedKeyRecord = {
    id,
    cardId: card.id,
    fundingSourceId: binding.id,
    accountId: binding.accountId,
    publicKey: bytesToHex(p256.getPublicKey(secret, true)),
    privateKeySealed: yield* vault.seal(secret, id),
    nickname: "Card payments key",
    status: "ACTIVE",
    activeSlot: binding.id,
    createdAt: card.createdAt,
    updatedAt: card.createdAt
  }
  yield* Effect.orDie(store.delegatedKeys.insert(record))
  return record
})

/** The key revoked (its slot freed), as a detached binding's key is. */
export const revokeKey = Effect.fnUntraced(function* (key: DelegatedKeyRecord) {
  const store = yield* Store
  const { activeSlot: _slot, ...rest } = key
  yield* Effect.orDie(store.delegatedKeys.update({ ...rest, status: "REVOKED" }))
})

/**
 * Whether a card transaction's events are a walk of its machine from `REQUESTED` to its stored state (several moves
 * share an event, so every state the walk may be in is followed). Returns the problem, or undefined.
 */
export const cardEventProblem = Effect.fnUntraced(function* (tx: CardTransactionRecord) {
  const events = yield* eventsOf(tx.id)
  // A legacy `EXCEPTION` row (CD-37) was stored by an older engine: it has no events of ours and takes none.
  if (tx.state === "EXCEPTION")
    return events.length === 0 ? undefined : `an EXCEPTION row has events: ${events.join(", ")}`
  let states = new Set<string>(["REQUESTED"])
  for (const event of events) {
    if (event === "CARD_TRANSACTION.EXCEPTION" || event === "CARD_TRANSACTION.REFUNDED") return `${event} emitted`
    const next = new Set<string>()
    for (const state of states) {
      const moves =
        (
          cardTransactionMachine.transitions as Record<
            string,
            Record<string, { to: string; emits: ReadonlyArray<string> }>
          >
        )[state] ?? {}
      for (const move of Object.values(moves)) if (move.emits[0] === event) next.add(move.to)
    }
    if (next.size === 0) return `${event} is no move from ${[...states].join("|")} (events: ${events.join(", ")})`
    states = next
  }
  return states.has(tx.state) ? undefined : `events end in ${[...states].join("|")}, the row is ${tx.state}`
})

/** Every invariant at once: the ledger, the card holds and amounts, every card transaction's events. */
export const cardInvariantProblems = Effect.gen(function* () {
  const store = yield* Store
  const problems = [...(yield* ledgerViolations), ...(yield* cardTransactionViolations)]
  const all = yield* store.cardTransactions.list({}, { limit: 1_000_000, sortOrder: "asc" })
  for (const tx of all.data) {
    const problem = yield* cardEventProblem(tx)
    if (problem !== undefined) problems.push(`${tx.id}: ${problem}`)
  }
  return problems
})

/**
 * The card moved to `state` by a store write under its lock, as slice A's PATCH does (a close detaches the bindings
 * and runs `closeOutSteps` in the same transaction).
 */
export const setCardState = Effect.fnUntraced(function* (card: CardRecord, state: CardRecord["state"]) {
  const store = yield* Store
  const ids = yield* Ids
  const now = new Date(yield* Clock.currentTimeMillis).toISOString()
  yield* store.transaction(
    Effect.gen(function* () {
      const current = yield* store.cards.getForUpdate(card.id)
      if (current === undefined) return yield* Effect.die(new Error(`no card ${card.id}`))
      const next: CardRecord =
        state === "CLOSED"
          ? { ...current, state, stateReason: "CLOSED_BY_PLATFORM", bindings: [], updatedAt: now }
          : { ...current, state, updatedAt: now }
      yield* Effect.orDie(store.cards.update(next))
      if (state === "CLOSED") yield* closeOutSteps({ store, ids, issuer: undefined }, next, now)
    })
  )
})

/** The card's bindings replaced by `accountIds` under its lock (slice A's PATCH `fundingSources`), fiat accounts. */
export const rebindCard = Effect.fnUntraced(function* (card: CardRecord, accountIds: ReadonlyArray<string>) {
  const store = yield* Store
  const ids = yield* Ids
  yield* store.transaction(
    Effect.gen(function* () {
      const current = yield* store.cards.getForUpdate(card.id)
      if (current === undefined) return yield* Effect.die(new Error(`no card ${card.id}`))
      const bindings: Array<CardFundingBinding> = []
      for (const accountId of accountIds) {
        bindings.push({
          id: yield* ids.make("CardFundingSource"),
          accountId: accountId as CardFundingBinding["accountId"],
          accountType: "INTERNAL_FIAT"
        })
      }
      yield* Effect.orDie(
        store.cards.update({ ...current, bindings, fundingSources: bindings.map((b) => b.accountId) })
      )
    })
  )
})
