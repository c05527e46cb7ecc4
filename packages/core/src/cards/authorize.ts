import { Effect, Result } from "effect"
import { type LockedAccount, writeTransfersSteps } from "../accounts/balance-updates.ts"
import type { InternalAccountRecord } from "../accounts/model.ts"
import type { Customer } from "../customers/model.ts"
import type { LedgerBalance } from "../ledger/model.ts"
import { KeyVault } from "../ports/key-vault.ts"
import { type Step, Store, together } from "../ports/store.ts"
import type { NotFound, StoreError } from "../shared/errors.ts"
import { transition } from "../shared/machine.ts"
import { utcDay } from "../shared/time.ts"
import type { Steps } from "../shared/tracing.ts"
import { recordTransitionSteps } from "../timelines/transitions.ts"
import { signWithDelegatedKey } from "../wallet-auth/delegated-keys.ts"
import { emitSteps } from "../webhooks/emit.ts"
import {
  countsTowardLimits,
  coveringSource,
  dailyLimitDecline,
  directionOf,
  effectiveCaps,
  isWalletBinding,
  postsAtOnce,
  stateDeclineReason,
  transactionLimitDecline
} from "./decision.ts"
import { cardNotFound } from "./errors.ts"
import { pullPayload, spendLeg } from "./legs.ts"
import { type CardTransactionEvent, cardTransactionMachine } from "./machine.ts"
import {
  type AuthorizationDecision,
  type AuthorizationRequest,
  type CardFundingBinding,
  type CardRecord,
  type CardTransactionKind,
  type CardTransactionRecord,
  cardCounters,
  type DeclineReason
} from "./model.ts"
import type { CardNetworkPorts, CardPorts } from "./ports.ts"
import { dieOnUniqueViolation, storedState } from "./reconcile.ts"
import { toCardTransaction } from "./views.ts"

// The real-time authorization (docs/design/cards.md, section 3 "Authorization"): one store transaction of plain
// steps, locks always in the order card → counters → balances, so two cards on one funding source cannot deadlock
// (the shared balance row is locked last) and racing authorizations of one card queue on its row.
// On PostgreSQL (issue 34) every statement that does not need an earlier one's answer is sent with it: the card locked,
// the platform's caps and the token's stored decision; the cardholder, the counters counted, the sources' balances
// locked and their accounts' records; every write; COMMIT. The card's row is held from the first round trip to the
// COMMIT, and every authorization of a hot card waits for it, so the second round trip is asked for ahead, with the
// first, from what the last authorization of the card in this process saw (`CardHints`): only a hint, checked against
// the locked card, and asked for again (the counters given back) when the card changed. An approval is then three
// round trips, four without a hint.

/**
 * What an authorization of a card asks for once the card is locked, as the last one in this process saw it: its
 * cardholder, its currency and its funding sources' accounts in priority order (none an embedded wallet, whose key
 * is looked up first). Bounded (forgotten all at once when full); never trusted: see `authorizeSteps`.
 */
export interface CardHints {
  readonly get: (cardId: string) => CardHint | undefined
  readonly learn: (card: CardRecord) => void
}

interface CardHint {
  readonly cardholderId: string
  readonly currency: string
  readonly accounts: ReadonlyArray<string>
}

/** Hints of at most `max` cards. */
export const makeCardHints = (max = 10_000): CardHints => {
  const hints = new Map<string, CardHint>()
  return {
    get: (cardId) => hints.get(cardId),
    learn: (card) => {
      if (card.state !== "ACTIVE" || card.bindings.length === 0 || card.bindings.some(isWalletBinding)) {
        hints.delete(card.id)
        return
      }
      if (hints.size >= max && !hints.has(card.id)) hints.clear()
      hints.set(card.id, {
        cardholderId: card.cardholderId,
        currency: card.currency,
        accounts: card.bindings.map((b) => b.accountId)
      })
    }
  }
}

/** A funding source that may pay now, with the delegated key an embedded wallet signs its pull with. */
interface Candidate {
  readonly binding: CardFundingBinding
  readonly keyId: string | undefined
}

/** The first decision of a stored authorization (a network retry of its token gets the same answer). */
const decisionOf = (tx: CardTransactionRecord): AuthorizationDecision =>
  tx.state === "DECLINED"
    ? { _tag: "Declined", cardTransactionId: tx.id, reason: tx.declineReason ?? "CARD_NOT_ACTIVE" }
    : { _tag: "Approved", cardTransactionId: tx.id }

/** CD-13: the card's bindings in priority order, an embedded wallet only with an `ACTIVE` delegated key. */
function* candidatesSteps(ports: CardPorts, card: CardRecord): Steps<ReadonlyArray<Candidate>, StoreError> {
  const out: Array<Candidate> = []
  for (const binding of card.bindings) {
    if (!isWalletBinding(binding)) {
      out.push({ binding, keyId: undefined })
      continue
    }
    const key = yield* ports.store.delegatedKeys.findUnique("activeSlot", binding.id)
    if (key !== undefined) out.push({ binding, keyId: key.id })
  }
  return out
}

interface NewTransaction {
  readonly id: CardTransactionRecord["id"]
  readonly card: CardRecord
  readonly platformCustomerId: string
  readonly request: AuthorizationRequest
  readonly kind: CardTransactionKind
  readonly now: string
}

/** The row of a new card transaction before its first move (`REQUESTED` is never stored). */
const newRecord = (
  n: NewTransaction,
  accountId: CardTransactionRecord["accountId"],
  fundingSourceId: CardTransactionRecord["fundingSourceId"]
): Omit<CardTransactionRecord, "state"> => ({
  id: n.id,
  cardId: n.card.id,
  customerId: n.card.cardholderId,
  platformCustomerId: n.platformCustomerId,
  issuerTransactionToken: n.request.issuerTransactionToken,
  kind: n.kind,
  direction: directionOf(n.kind),
  merchant: n.request.merchant,
  currency: n.card.currency,
  authorizedAmount: n.request.amount,
  settledAmount: 0,
  refundedAmount: 0,
  heldAmount: 0,
  accountId,
  ...(fundingSourceId === undefined ? {} : { fundingSourceId }),
  pullSummary: { count: 0, totalAmount: 0, pendingCount: 0 },
  settlementSummary: { count: 0, totalAmount: 0 },
  refundSummary: { count: 0, totalAmount: 0 },
  returns: [],
  day: utcDay(n.now),
  authorizedAt: n.now,
  createdAt: n.now,
  updatedAt: n.now
})

/**
 * Stores a new card transaction as the result of its first move (the first entry of its timeline: `REQUESTED` is
 * never stored, so it has no `from`), and emits that move's events.
 */
function* firstMoveSteps(
  ports: CardPorts,
  row: Omit<CardTransactionRecord, "state">,
  event: CardTransactionEvent,
  now: string
): Steps<CardTransactionRecord, StoreError> {
  const move = transition(cardTransactionMachine, "REQUESTED", event)
  if (Result.isFailure(move)) return yield* Effect.die(move.failure)
  const record: CardTransactionRecord = { ...row, state: storedState(move.success.to) }
  // The writes nothing refuses go first (unanswered, see `TransitionCollection.append`): they travel with the insert,
  // whose answer is the one waited for.
  yield* recordTransitionSteps(ports.store, ports.ids, record.id, undefined, record.state, move.success.emits, now)
  yield* emitSteps(ports.store, ports.ids, move.success.emits, record.id, toCardTransaction(record), now)
  yield* dieOnUniqueViolation(ports.store.cardTransactions.insert(record))
  return record
}

/** Design Q1: a refused authorization is a `DECLINED` row with its reason; no money moves, no capacity is used. */
function* declineSteps(
  ports: CardPorts,
  n: NewTransaction,
  reason: DeclineReason,
  source: CardFundingBinding | undefined
): Steps<AuthorizationDecision, StoreError> {
  const binding = source ?? n.card.bindings[0]
  const accountId = binding?.accountId ?? n.card.fundingSources[0]
  if (accountId === undefined) return yield* Effect.die(new Error(`card ${n.card.id} has no funding source`))
  const row = { ...newRecord(n, accountId, binding?.id), declineReason: reason }
  yield* firstMoveSteps(ports, row, "DECLINE", n.now)
  return { _tag: "Declined", cardTransactionId: n.id, reason }
}

/** The delegated key's signature over the pull (design section 3, step 7), or `undefined` when it cannot sign. */
function* walletSignatureSteps(
  ports: CardNetworkPorts,
  keyId: string,
  payload: string
): Steps<string | undefined, never> {
  const signed = yield* Effect.result(
    signWithDelegatedKey(keyId, payload).pipe(
      Effect.provideService(Store, ports.store),
      Effect.provideService(KeyVault, ports.vault)
    )
  )
  return Result.isSuccess(signed) ? signed.success : undefined
}

/** The funding sources' balances, locked, and their accounts' records, in the order of `accounts`. */
interface Sources {
  readonly balances: ReadonlyArray<LedgerBalance>
  readonly records: ReadonlyArray<InternalAccountRecord | undefined>
}

/** The day's counters after adding a purchase, and the sources (locked after the counters: the lock order). */
type Limits = readonly [readonly [spend: number, count: number], Sources]

/**
 * The sources' balances locked with their accounts' records: what the approval's `INTERNAL_ACCOUNT.BALANCE_UPDATED`
 * shows, without reading them again after the hold.
 */
function* sourcesSteps(
  ports: CardPorts,
  accounts: ReadonlyArray<string>,
  currency: string
): Steps<Sources, StoreError> {
  const { store } = ports
  const [balances, records] = yield* together(
    store,
    () => store.ledger.balances(accounts.map((account) => ({ account, currency }))),
    () =>
      Effect.forEach(accounts, (id) => store.internalAccounts.get(id), {
        concurrency: store.pipelines ? "unbounded" : 1
      })
  )
  return { balances, records }
}

/** The purchase counted into the day's counters, then the sources locked (one round trip on PostgreSQL). */
const countSteps = (
  ports: CardPorts,
  keys: CounterKeys,
  amount: number,
  accounts: ReadonlyArray<string>,
  currency: string
) =>
  together(
    ports.store,
    () =>
      together(
        ports.store,
        () => ports.store.counters.add(keys.spend, amount),
        () => ports.store.counters.add(keys.count, 1)
      ),
    () => sourcesSteps(ports, accounts, currency)
  )

interface CounterKeys {
  readonly spend: string
  readonly count: string
}

/** What a hint let the first round trip ask for: the cardholder, and for a purchase the counters and sources. */
interface Ahead {
  readonly hint: CardHint
  readonly customer: Customer | undefined
  readonly limits: Limits
}

const sameAccounts = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i])

/**
 * `CardNetwork.authorize` inside its store transaction: the card locked, its state and caps, the funding source, the
 * daily counters counted first and checked after (a decline gives them back in this transaction: the rows are still
 * locked, so nobody saw them; no savepoint, since the call may join an outer transaction), the hold, the row and its
 * event. A balance inquiry runs the checks only (design Q14). With a hint of the card (`CardHints`), a purchase's
 * cardholder, counters and sources are asked for in the card lock's round trip, after it (the lock order holds); what
 * the locked card shows otherwise is asked for again, and anything counted and not approved is given back.
 */
export function* authorizeSteps(
  ports: CardNetworkPorts,
  request: AuthorizationRequest,
  now: string,
  hints?: CardHints
): Steps<AuthorizationDecision, NotFound | StoreError> {
  const { store } = ports
  const amount = request.amount
  const counted = countsTowardLimits(request.kind)
  const day = utcDay(now)
  const keys: CounterKeys = {
    spend: cardCounters.spend(request.cardId, day),
    count: cardCounters.count(request.cardId, day)
  }
  const hint = counted ? hints?.get(request.cardId) : undefined
  const [[card, config], [existing, ahead]] = yield* together(
    store,
    () =>
      together(
        store,
        () => store.cards.getForUpdate(request.cardId),
        () => store.config.get()
      ),
    () =>
      together(
        store,
        () =>
          request.kind === "BALANCE_INQUIRY"
            ? Effect.succeed(undefined)
            : store.cardTransactions.findUnique("issuerTransactionToken", request.issuerTransactionToken),
        () =>
          hint === undefined
            ? Effect.succeed(undefined)
            : Effect.map(
                Effect.gen(() =>
                  together(
                    store,
                    () => store.customers.get(hint.cardholderId),
                    () => countSteps(ports, keys, amount, hint.accounts, hint.currency)
                  )
                ),
                ([customer, limits]): Ahead => ({ hint, customer, limits })
              )
      )
  )
  if (card === undefined) return yield* Effect.fail(cardNotFound(request.cardId))
  hints?.learn(card)
  const caps = effectiveCaps(card, config)
  const early =
    stateDeclineReason[card.state] ??
    request.forcedDecline ??
    (counted ? transactionLimitDecline(caps, amount) : undefined) ??
    // No FX on cards (design Q9): no source pays another currency.
    (request.currency !== card.currency ? "NO_USABLE_FUNDING_SOURCE" : undefined)
  const candidates = early === undefined ? yield* candidatesSteps(ports, card) : []
  const refusal = early ?? (candidates.length === 0 ? "NO_USABLE_FUNDING_SOURCE" : undefined)
  if (request.kind === "BALANCE_INQUIRY") {
    return refusal === undefined ? { _tag: "Approved" } : { _tag: "Declined", reason: refusal }
  }
  const kind = request.kind
  // CD-29 counts approvals only: a purchase counted and not approved is given back (never a refund, expiry or
  // reversal), a decline's in the round trip of its writes.
  const giveBack = () =>
    together(
      store,
      () => store.counters.add(keys.spend, -amount),
      () => store.counters.add(keys.count, -1)
    )
  const giveBackAhead = function* () {
    if (ahead !== undefined) yield* giveBack()
  }
  if (existing !== undefined) {
    yield* giveBackAhead()
    return decisionOf(existing)
  }
  const accounts = candidates.map((c) => c.binding.accountId)
  const counting = refusal === undefined && counted
  // What the hint did not bring, or brought for a card that has changed since (nothing, usually).
  const [customer, limits] = yield* together(
    store,
    () =>
      ahead !== undefined && ahead.hint.cardholderId === card.cardholderId
        ? Effect.succeed(ahead.customer)
        : store.customers.get(card.cardholderId),
    (): Step<Limits | undefined, StoreError> => {
      if (!counting) return Effect.succeed(undefined)
      if (ahead === undefined) return countSteps(ports, keys, amount, accounts, card.currency)
      if (ahead.hint.currency === card.currency && sameAccounts(ahead.hint.accounts, accounts)) {
        return Effect.succeed(ahead.limits)
      }
      return Effect.map(
        Effect.gen(() => sourcesSteps(ports, accounts, card.currency)),
        (sources): Limits => [ahead.limits[0], sources]
      )
    }
  )
  const n: NewTransaction = {
    id: yield* ports.ids.make("CardTransaction"),
    card,
    platformCustomerId: customer?.platformCustomerId ?? "",
    request,
    kind,
    now
  }
  if (refusal !== undefined) {
    const [, declined] = yield* together(store, giveBackAhead, () => declineSteps(ports, n, refusal, undefined))
    return declined
  }
  if (limits !== undefined) {
    const [[spend, count], { balances, records }] = limits
    const overCap = dailyLimitDecline(caps, spend, count)
    const index = overCap === undefined ? coveringSource(balances, amount) : undefined
    const signature =
      index !== undefined && candidates[index]!.keyId !== undefined
        ? yield* walletSignatureSteps(
            ports,
            candidates[index]!.keyId!,
            pullPayload({
              cardTransactionId: n.id,
              accountId: candidates[index]!.binding.accountId,
              amount,
              currency: card.currency
            })
          )
        : undefined
    const unsigned = index !== undefined && candidates[index]!.keyId !== undefined && signature === undefined
    if (index === undefined || unsigned) {
      const reason = overCap ?? (unsigned ? "NO_USABLE_FUNDING_SOURCE" : "INSUFFICIENT_FUNDS")
      const [, declined] = yield* together(store, giveBack, () =>
        declineSteps(ports, n, reason, index === undefined ? undefined : candidates[index]!.binding)
      )
      return declined
    }
    const record = records[index]
    const locked = record === undefined ? undefined : [{ record, balance: balances[index]! }]
    return yield* approveSteps(ports, n, candidates[index]!, signature, locked)
  }
  // A credit needs no balance: the first usable source receives it.
  return yield* approveSteps(ports, n, candidates[0]!, undefined, undefined)
}

/** The approval: the hold (or, for a single-message kind, the posting), the row and its event. */
function* approveSteps(
  ports: CardPorts,
  n: NewTransaction,
  source: Candidate,
  pullSignature: string | undefined,
  locked: ReadonlyArray<LockedAccount> | undefined
): Steps<AuthorizationDecision, StoreError> {
  const amount = n.request.amount
  const posted = postsAtOnce(n.kind)
  const pending = n.request.awaitPullResult === true ? 1 : 0
  const base = newRecord(n, source.binding.accountId, source.binding.id)
  const row: Omit<CardTransactionRecord, "state"> = {
    ...base,
    heldAmount: posted ? 0 : amount,
    settledAmount: posted ? amount : 0,
    settlementSummary: posted ? { count: 1, totalAmount: amount } : base.settlementSummary,
    pullSummary: { count: 1, totalAmount: amount, pendingCount: pending },
    ...(pullSignature === undefined ? {} : { pullSignature })
  }
  // A new transaction has no transfers yet: numbered from 1 (a racing second writer would collide on the ids).
  yield* writeTransfersSteps(ports, n.id, [spendLeg(row, amount)], posted ? "POSTED" : "PENDING", n.now, 0, locked)
  yield* firstMoveSteps(ports, row, posted ? "POST" : "APPROVE", n.now)
  return { _tag: "Approved", cardTransactionId: n.id }
}
