import { Effect, Result } from "effect"
import { recordIfAvailableSteps, writeTransfersSteps } from "../accounts/balance-updates.ts"
import type { CappedCount } from "../ledger/model.ts"
import type { Recorded } from "../ledger/transfers.ts"
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
  dailyLimitDecline,
  directionOf,
  type EffectiveCaps,
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
// (the shared balance row is locked last). On PostgreSQL (issue 34): the card locked to read (shared: its freeze or
// limit change waits for the authorizations, which need not wait for each other), the platform's caps and the
// token's stored decision in the first round trip; then, for a purchase, the day's counts and the hold in one
// conditional statement (`ledger.recordIfAvailable` with counts: written only if the counts stay within their caps
// and the source covers the amount), with the cardholder and the source's account record; the writes; COMMIT. A
// purchase never counts before it knows its decision, so nothing is ever given back, and authorizations of one hot
// card in one commit group each see the counts and holds of those before them: they share the group.

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

/** What a purchase counts into the card's day (CD-11, CD-29): its amount and one more, each within its cap. */
const dayCounts = (cardId: string, day: string, amount: number, caps: EffectiveCaps): ReadonlyArray<CappedCount> => [
  { key: cardCounters.spend(cardId, day), amount, cap: caps.perDay },
  { key: cardCounters.count(cardId, day), amount: 1, cap: caps.countPerDay }
]

/**
 * `CardNetwork.authorize` inside its store transaction: the card locked to read, its state and caps, then for a
 * purchase each usable source in priority order (design Q8: the first that covers the whole amount) tried with the
 * day's counts in one conditional step, until one pays or a count is over its cap; the row and its event. Nothing is
 * counted unless approved (CD-29). A balance inquiry runs the checks only (design Q14).
 */
export function* authorizeSteps(
  ports: CardNetworkPorts,
  request: AuthorizationRequest,
  now: string
): Steps<AuthorizationDecision, NotFound | StoreError> {
  const { store } = ports
  const amount = request.amount
  const [[card, config], existing] = yield* together(
    store,
    () =>
      together(
        store,
        () => store.cards.getForShare(request.cardId),
        () => store.config.get()
      ),
    () =>
      request.kind === "BALANCE_INQUIRY"
        ? Effect.succeed(undefined)
        : store.cardTransactions.findUnique("issuerTransactionToken", request.issuerTransactionToken)
  )
  if (card === undefined) return yield* Effect.fail(cardNotFound(request.cardId))
  const counted = countsTowardLimits(request.kind)
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
  if (existing !== undefined) return decisionOf(existing)
  const n: NewTransaction = {
    id: yield* ports.ids.make("CardTransaction"),
    card,
    platformCustomerId: "",
    request,
    kind: request.kind,
    now
  }
  // The cardholder (for the row) is read with the first conditional step.
  const withCustomer = function* <A>(step: () => Step<A, StoreError>): Steps<readonly [NewTransaction, A], StoreError> {
    const [customer, a] = yield* together(store, () => store.customers.get(card.cardholderId), step)
    return [{ ...n, platformCustomerId: customer?.platformCustomerId ?? "" }, a] as const
  }
  if (refusal !== undefined) {
    const [row] = yield* withCustomer(() => Effect.void)
    return yield* declineSteps(ports, row, refusal, undefined)
  }
  // A credit needs no balance and counts nothing: the first usable source receives it.
  if (!counted) {
    const [row] = yield* withCustomer(() => Effect.void)
    return yield* approveSteps(ports, row, candidates[0]!, undefined)
  }
  const counts = dayCounts(card.id, utcDay(now), amount, caps)
  const posted = postsAtOnce(request.kind)
  if (candidates.length > 1) {
    // Sources tried one after another would be locked one after another: two cards sharing two sources in opposite
    // orders could deadlock. The counts and every source are locked first, in the lock order (a commit group then
    // runs two such authorizations of one card one after the other).
    yield* together(
      store,
      () => Effect.forEach(counts, (c) => store.counters.add(c.key, 0), { concurrency: store.pipelines ? 2 : 1 }),
      () => store.ledger.balances(candidates.map((c) => ({ account: c.binding.accountId, currency: card.currency })))
    )
  }
  let row: NewTransaction | undefined
  let tried = false
  for (const candidate of candidates) {
    const source = candidate.binding
    const side = { accountId: source.accountId, currency: card.currency, direction: directionOf(request.kind) }
    // An embedded wallet's delegated key signs the pull before it is tried: a key that cannot sign makes the source
    // unusable (CD-13), and nothing is written to be taken back.
    const signature =
      candidate.keyId === undefined
        ? undefined
        : yield* walletSignatureSteps(
            ports,
            candidate.keyId,
            pullPayload({ cardTransactionId: n.id, accountId: source.accountId, amount, currency: card.currency })
          )
    if (candidate.keyId !== undefined && signature === undefined) continue
    tried = true
    // A new transaction has no transfers yet: numbered from 1 (a racing second writer would collide on the ids).
    const hold = () =>
      recordIfAvailableSteps(ports, n.id, [spendLeg(side, amount)], posted ? "POSTED" : "PENDING", now, 0, counts)
    let done: Recorded
    if (row === undefined) [row, done] = yield* withCustomer(hold)
    else done = yield* hold()
    const [spend, count] = done.totals
    const overCap = dailyLimitDecline(caps, spend! + amount, count! + 1)
    if (overCap !== undefined) return yield* declineSteps(ports, row, overCap, undefined)
    if (done.written) return yield* approveSteps(ports, row, candidate, signature)
  }
  if (row === undefined) [row] = yield* withCustomer(() => Effect.void)
  return yield* declineSteps(ports, row, tried ? "INSUFFICIENT_FUNDS" : "NO_USABLE_FUNDING_SOURCE", undefined)
}

/**
 * The approval: the row and its event, and for a credit (which holds nothing and counts nothing) its transfer; a
 * purchase's hold or posting is written already, by its conditional step.
 */
function* approveSteps(
  ports: CardPorts,
  n: NewTransaction,
  source: Candidate,
  pullSignature: string | undefined
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
  if (!countsTowardLimits(n.kind)) {
    // A new transaction has no transfers yet: numbered from 1 (a racing second writer would collide on the ids).
    yield* writeTransfersSteps(ports, n.id, [spendLeg(row, amount)], posted ? "POSTED" : "PENDING", n.now, 0)
  }
  yield* firstMoveSteps(ports, row, posted ? "POST" : "APPROVE", n.now)
  return { _tag: "Approved", cardTransactionId: n.id }
}
