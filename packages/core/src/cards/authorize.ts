import { Effect, Result } from "effect"
import { type LockedAccount, writeTransfersSteps } from "../accounts/balance-updates.ts"
import type { InternalAccountRecord } from "../accounts/model.ts"
import type { LedgerBalance } from "../ledger/model.ts"
import { KeyVault } from "../ports/key-vault.ts"
import { Store, together } from "../ports/store.ts"
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
// On PostgreSQL an approval is four round trips (issue 34): the card locked with the platform's caps; the token's
// stored decision, the cardholder, the counters, the sources' balances locked and their accounts; every write; COMMIT.
// The card's row is held for the last three, so what is asked for together is asked for at once.

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

/**
 * The funding sources' balances, locked (after the counters: the lock order), with their accounts' records: what the
 * approval's `INTERNAL_ACCOUNT.BALANCE_UPDATED` shows, without reading them again after the hold.
 */
function* lockedSourcesSteps(
  ports: CardPorts,
  card: CardRecord,
  candidates: ReadonlyArray<Candidate>
): Steps<
  {
    readonly balances: ReadonlyArray<LedgerBalance>
    readonly records: ReadonlyArray<InternalAccountRecord | undefined>
  },
  StoreError
> {
  const { store } = ports
  const [balances, records] = yield* together(
    store,
    () => store.ledger.balances(candidates.map((c) => ({ account: c.binding.accountId, currency: card.currency }))),
    () =>
      Effect.forEach(candidates, (c) => store.internalAccounts.get(c.binding.accountId), {
        concurrency: store.pipelines ? "unbounded" : 1
      })
  )
  return { balances, records }
}

/**
 * `CardNetwork.authorize` inside its store transaction: the card locked, its state and caps, the funding source, the
 * daily counters counted first and checked after (a decline gives them back in this transaction: the rows are still
 * locked, so nobody saw them; no savepoint, since the call may join an outer transaction), the hold, the row and its
 * event. A balance inquiry runs the checks only (design Q14). The counters are counted along with the look-up of the
 * token's stored decision (one round trip): a network retry, rare, gives them back.
 */
export function* authorizeSteps(
  ports: CardNetworkPorts,
  request: AuthorizationRequest,
  now: string
): Steps<AuthorizationDecision, NotFound | StoreError> {
  const { store } = ports
  const [card, config] = yield* together(
    store,
    () => store.cards.getForUpdate(request.cardId),
    () => store.config.get()
  )
  if (card === undefined) return yield* Effect.fail(cardNotFound(request.cardId))
  const caps = effectiveCaps(card, config)
  const amount = request.amount
  const counted = countsTowardLimits(request.kind)
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
  const day = utcDay(now)
  const spendKey = cardCounters.spend(card.id, day)
  const countKey = cardCounters.count(card.id, day)
  const counting = refusal === undefined && counted
  const [[existing, customer], limits] = yield* together(
    store,
    () =>
      together(
        store,
        () => store.cardTransactions.findUnique("issuerTransactionToken", request.issuerTransactionToken),
        () => store.customers.get(card.cardholderId)
      ),
    () =>
      counting
        ? together(
            store,
            () =>
              together(
                store,
                () => store.counters.add(spendKey, amount),
                () => store.counters.add(countKey, 1)
              ),
            () => lockedSourcesSteps(ports, card, candidates)
          )
        : Effect.succeed(undefined)
  )
  const giveBack = () =>
    together(
      store,
      () => store.counters.add(spendKey, -amount),
      () => store.counters.add(countKey, -1)
    )
  if (existing !== undefined) {
    if (limits !== undefined) yield* giveBack()
    return decisionOf(existing)
  }
  const n: NewTransaction = {
    id: yield* ports.ids.make("CardTransaction"),
    card,
    platformCustomerId: customer?.platformCustomerId ?? "",
    request,
    kind,
    now
  }
  if (refusal !== undefined) return yield* declineSteps(ports, n, refusal, undefined)
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
      // CD-29 counts approvals only: a decline gives its count back (never a refund, expiry or reversal), in the
      // round trip of the decline's writes.
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
