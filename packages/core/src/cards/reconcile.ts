import { Effect, Result } from "effect"
import { resolveSteps, writeTransfersSteps } from "../accounts/balance-updates.ts"
import type { Leg } from "../ledger/transfers.ts"
import type { UniqueViolation } from "../ports/store.ts"
import type { StoreError } from "../shared/errors.ts"
import { allows, transition } from "../shared/machine.ts"
import type { Steps } from "../shared/tracing.ts"
import { recordTransitionSteps } from "../timelines/transitions.ts"
import { emitSteps } from "../webhooks/emit.ts"
import { frontLeg, returnLeg, spendLeg } from "./legs.ts"
import { type CardTransactionEvent, type CardTransactionState, cardTransactionMachine } from "./machine.ts"
import type { CardTransactionRecord, NetworkEvent, ReconcileOutcome, StoredCardTransactionState } from "./model.ts"
import type { CardPorts } from "./ports.ts"
import { toCardTransaction } from "./views.ts"

// Reconciliation (docs/design/cards.md, section 3 "Reconciliation"): a network event applied to its card transaction,
// locked by the caller (inbox.ts), in the caller's store transaction. Each event is a machine move with its legs; a
// move the machine does not allow, or an amount over its rule, is a refusal the inbox stores as the event's outcome.
// Money is never created or lost: every movement is a balanced transfer of the transaction's reference.

const isUniqueViolation = (e: unknown): e is UniqueViolation =>
  typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === "UniqueViolation"

/** A write of a row by its id cannot take a unique key from another row: a violation is a bug. */
export const dieOnUniqueViolation = <A, E>(
  effect: Effect.Effect<A, E | UniqueViolation>
): Effect.Effect<A, Exclude<E, UniqueViolation>> =>
  Effect.catchIf(effect, isUniqueViolation, (e) =>
    Effect.die(new Error(`unexpected unique violation on ${e.index}`))
  ) as Effect.Effect<A, Exclude<E, UniqueViolation>>

/** A state a move leads to, as stored: no move of the machine leads back to `REQUESTED`. */
export const storedState = (state: CardTransactionState): StoredCardTransactionState =>
  state as Exclude<CardTransactionState, "REQUESTED">

/**
 * Moves a card transaction through its machine (the caller checked the move is legal): saves it with `change`, records
 * the move in its timeline, then emits the move's events with the transaction as the API shows it (WH-13 … WH-16).
 */
export function* moveCardTransactionSteps(
  { store, ids }: Pick<CardPorts, "store" | "ids">,
  record: CardTransactionRecord,
  event: CardTransactionEvent,
  change: Partial<CardTransactionRecord>,
  now: string
): Steps<CardTransactionRecord, StoreError> {
  const move = transition(cardTransactionMachine, record.state as CardTransactionState, event)
  if (Result.isFailure(move)) return yield* Effect.die(move.failure)
  const next: CardTransactionRecord = {
    ...record,
    ...change,
    state: storedState(move.success.to),
    lastEventAt: now,
    updatedAt: now
  }
  yield* dieOnUniqueViolation(store.cardTransactions.update(next))
  yield* recordTransitionSteps(store, ids, next.id, record.state, next.state, move.success.emits, now)
  yield* emitSteps(store, ids, move.success.emits, next.id, toCardTransaction(next), now)
  return next
}

const refused = (reason: string): ReconcileOutcome => ({ _tag: "Refused", reason })
const APPLIED: ReconcileOutcome = { _tag: "Applied" }

/** The transaction's legs written under its reference (legs of amount 0 are skipped). */
const writeLegs = (
  ports: CardPorts,
  tx: CardTransactionRecord,
  legs: ReadonlyArray<Leg>,
  state: "POSTED" | "PENDING",
  now: string
) => writeTransfersSteps(ports, tx.id, legs, state, now)

/**
 * Whether the funding account can pay `amount` now (a post-hoc pull, a late clearing, a return reversal): its
 * available balance (locked) covers it, and an embedded wallet still has an `ACTIVE` delegated key for the binding
 * (CD-13; a closed card's bindings are detached and their keys revoked).
 */
function* canPullSteps(ports: CardPorts, tx: CardTransactionRecord, amount: number): Steps<boolean, StoreError> {
  const { store } = ports
  const account = yield* store.internalAccounts.get(tx.accountId)
  if (account === undefined) return false
  if (account.type === "EMBEDDED_WALLET") {
    if (tx.fundingSourceId === undefined) return false
    const key = yield* store.delegatedKeys.findUnique("activeSlot", tx.fundingSourceId)
    if (key === undefined) return false
  }
  const [balance] = yield* store.ledger.balances([{ account: tx.accountId, currency: tx.currency }])
  return (balance?.posted ?? 0) - (balance?.pendingDebits ?? 0) >= amount
}

const summaryPlus = (s: { count: number; totalAmount: number }, amount: number) => ({
  count: s.count + 1,
  totalAmount: s.totalAmount + amount
})

/** CD-50: an open authorization re-sized to the new total `total` (never below what settled). */
function* adviceSteps(ports: CardPorts, tx: CardTransactionRecord, total: number, now: string) {
  if (!allows(cardTransactionMachine, tx.state, "RESIZE")) return refused(`a ${tx.state} transaction takes no advice`)
  if (total < tx.settledAmount) return refused(`the new total ${total} is below the settled ${tx.settledAmount}`)
  const wanted = total - tx.settledAmount
  let held = tx.heldAmount
  // A raise the balance cannot cover keeps the old hold: it is a network fact, not a decision, and the clearing
  // pulls the rest post hoc. Counters are untouched (design Q12).
  const covered = tx.direction === "CREDIT" || wanted <= held || (yield* canPullSteps(ports, tx, wanted - held))
  if (covered && wanted !== held) {
    yield* resolveSteps(ports, tx.id, "VOIDED", now)
    yield* writeLegs(ports, tx, [spendLeg(tx, wanted)], "PENDING", now)
    held = wanted
  }
  yield* moveCardTransactionSteps(
    ports,
    tx,
    "RESIZE",
    {
      authorizedAmount: total,
      heldAmount: held,
      pullSummary: { ...tx.pullSummary, totalAmount: tx.pullSummary.totalAmount + (held - tx.heldAmount) }
    },
    now
  )
  return APPLIED
}

/** The funding pull of a clearing beyond the hold failed: the service fronts `amount` (CD-37: reads `DECLINED`). */
function* unfundedSteps(
  ports: CardPorts,
  tx: CardTransactionRecord,
  amount: number,
  change: Partial<CardTransactionRecord>,
  now: string
) {
  yield* writeLegs(ports, tx, [frontLeg(tx.currency, amount)], "POSTED", now)
  yield* moveCardTransactionSteps(
    ports,
    tx,
    "CLEAR_UNFUNDED",
    { ...change, heldAmount: 0, declineReason: "PULL_FAILED" },
    now
  )
  return APPLIED
}

/**
 * CD-48: a clearing of `amount`. Open: 0 expires it (hold voided), less than held posts that part and keeps the rest
 * held, the hold exactly posts it, more pulls the difference post hoc (fronted from suspense when the pull is refused).
 * `EXPIRED` (zero clearing, closed card): a late presentment is pulled, or fronted. `PULL_FAILED`: fronted.
 */
function* clearingSteps(
  ports: CardPorts,
  tx: CardTransactionRecord,
  amount: number,
  pullRefused: boolean,
  now: string
) {
  const settled = {
    settledAmount: tx.settledAmount + amount,
    settlementSummary: summaryPlus(tx.settlementSummary, amount)
  }
  const debit = tx.direction === "DEBIT"
  if (allows(cardTransactionMachine, tx.state, "EXPIRE")) {
    const held = tx.heldAmount
    if (amount === 0) {
      yield* resolveSteps(ports, tx.id, "VOIDED", now)
      yield* moveCardTransactionSteps(ports, tx, "EXPIRE", { heldAmount: 0 }, now)
      return APPLIED
    }
    if (amount < held) {
      yield* resolveSteps(ports, tx.id, "VOIDED", now)
      yield* writeLegs(ports, tx, [spendLeg(tx, amount)], "POSTED", now)
      yield* writeLegs(ports, tx, [spendLeg(tx, held - amount)], "PENDING", now)
      yield* moveCardTransactionSteps(ports, tx, "CLEAR_PART", { ...settled, heldAmount: held - amount }, now)
      return APPLIED
    }
    yield* resolveSteps(ports, tx.id, "POSTED", now)
    const extra = amount - held
    if (extra > 0) {
      if (debit && (pullRefused || !(yield* canPullSteps(ports, tx, extra)))) {
        return yield* unfundedSteps(ports, tx, extra, settled, now)
      }
      yield* writeLegs(ports, tx, [spendLeg(tx, extra)], "POSTED", now)
    }
    const pulled = extra > 0 ? { pullSummary: { ...tx.pullSummary, ...summaryPlus(tx.pullSummary, extra) } } : {}
    yield* moveCardTransactionSteps(ports, tx, "CLEAR_ALL", { ...settled, ...pulled, heldAmount: 0 }, now)
    return APPLIED
  }
  if (amount === 0) return refused(`a ${tx.state} transaction has nothing left to expire`)
  if (allows(cardTransactionMachine, tx.state, "CLEAR_LATE")) {
    if (debit && (pullRefused || !(yield* canPullSteps(ports, tx, amount)))) {
      return yield* unfundedSteps(ports, tx, amount, settled, now)
    }
    yield* writeLegs(ports, tx, [spendLeg(tx, amount)], "POSTED", now)
    const pullSummary = { ...tx.pullSummary, ...summaryPlus(tx.pullSummary, amount) }
    yield* moveCardTransactionSteps(ports, tx, "CLEAR_LATE", { ...settled, pullSummary }, now)
    return APPLIED
  }
  if (allows(cardTransactionMachine, tx.state, "CLEAR_UNFUNDED")) {
    // The pull already failed: the network's presentment is force-posted from suspense.
    if (!debit) {
      yield* writeLegs(ports, tx, [spendLeg(tx, amount)], "POSTED", now)
      yield* moveCardTransactionSteps(ports, tx, "CLEAR_UNFUNDED", settled, now)
      return APPLIED
    }
    return yield* unfundedSteps(ports, tx, amount, settled, now)
  }
  return refused(`a ${tx.state} transaction takes no clearing`)
}

/** CD-49, CD-38, CD-40: a merchant return of a purchase credits the account; the status stays, its event re-fires. */
function* returnSteps(ports: CardPorts, tx: CardTransactionRecord, amount: number, now: string) {
  if (tx.direction !== "DEBIT") return refused("only a purchase takes a return")
  if (!allows(cardTransactionMachine, tx.state, "RETURN")) return refused(`a ${tx.state} transaction takes no return`)
  const net = tx.settledAmount - tx.refundedAmount
  if (amount > net) return refused(`the return ${amount} is over the net settled ${net}`)
  yield* writeLegs(ports, tx, [returnLeg(tx, amount)], "POSTED", now)
  yield* moveCardTransactionSteps(
    ports,
    tx,
    "RETURN",
    {
      refundedAmount: tx.refundedAmount + amount,
      refundSummary: summaryPlus(tx.refundSummary, amount),
      returns: [...tx.returns, { amount, at: now }]
    },
    now
  )
  return APPLIED
}

/**
 * CD-51 (design Q16): the latest unreversed return is taken back from the account; refused (funds, no key), the
 * service fronts it and the transaction reads `DECLINED` (`PULL_FAIL`; its remaining hold, if any, is voided).
 */
function* returnReversalSteps(ports: CardPorts, tx: CardTransactionRecord, now: string) {
  if (!allows(cardTransactionMachine, tx.state, "RETURN_REVERSAL")) {
    return refused(`a ${tx.state} transaction takes no return reversal`)
  }
  let index = -1
  for (let i = tx.returns.length - 1; i >= 0; i--) {
    if (tx.returns[i]!.reversedAt === undefined) {
      index = i
      break
    }
  }
  if (index < 0 || tx.refundedAmount === 0) return refused("the transaction has no return to reverse")
  const amount = tx.returns[index]!.amount
  const change = {
    refundedAmount: tx.refundedAmount - amount,
    refundSummary: { count: tx.refundSummary.count, totalAmount: tx.refundSummary.totalAmount - amount },
    returns: tx.returns.map((r, i) => (i === index ? { ...r, reversedAt: now } : r))
  }
  if (yield* canPullSteps(ports, tx, amount)) {
    yield* writeLegs(ports, tx, [spendLeg(tx, amount)], "POSTED", now)
    yield* moveCardTransactionSteps(ports, tx, "RETURN_REVERSAL", change, now)
    return APPLIED
  }
  yield* resolveSteps(ports, tx.id, "VOIDED", now)
  yield* writeLegs(ports, tx, [frontLeg(tx.currency, amount)], "POSTED", now)
  yield* moveCardTransactionSteps(
    ports,
    tx,
    "PULL_FAIL",
    { ...change, heldAmount: 0, declineReason: "PULL_FAILED" },
    now
  )
  return APPLIED
}

/**
 * CD-46 (`005`, `006`): the outcome of the authorization's funding pull. Confirmed: nothing moves. Failed: the hold is
 * voided and what already settled of a purchase is handed back to the account and fronted by the service instead
 * (`PULL_FAILED`, read `DECLINED`: CD-37); later clearings are fronted too.
 */
function* pullResultSteps(ports: CardPorts, tx: CardTransactionRecord, outcome: "CONFIRMED" | "FAILED", now: string) {
  const event = outcome === "CONFIRMED" ? "PULL_CONFIRM" : "PULL_FAIL"
  if (!allows(cardTransactionMachine, tx.state, event)) return refused(`a ${tx.state} transaction takes no pull result`)
  if (tx.pullSummary.pendingCount === 0) return refused("no funding pull of the transaction is pending")
  const pullSummary = { ...tx.pullSummary, pendingCount: tx.pullSummary.pendingCount - 1 }
  if (outcome === "CONFIRMED") {
    yield* moveCardTransactionSteps(ports, tx, event, { pullSummary }, now)
    return APPLIED
  }
  yield* resolveSteps(ports, tx.id, "VOIDED", now)
  const net = tx.settledAmount - tx.refundedAmount
  if (tx.direction === "DEBIT" && net > 0) {
    yield* writeLegs(ports, tx, [returnLeg(tx, net), frontLeg(tx.currency, net)], "POSTED", now)
  }
  yield* moveCardTransactionSteps(ports, tx, event, { pullSummary, heldAmount: 0, declineReason: "PULL_FAILED" }, now)
  return APPLIED
}

/**
 * Applies one network event to its (locked) card transaction, in the caller's store transaction: `Applied`, or
 * `Refused` with why (nothing written: the move was not allowed or the amount broke its rule).
 */
export function* applyNetworkEventSteps(
  ports: CardPorts,
  tx: CardTransactionRecord,
  event: NetworkEvent,
  now: string
): Steps<ReconcileOutcome, StoreError> {
  if ("amount" in event) {
    const least = event._tag === "Clearing" ? 0 : 1
    if (!Number.isSafeInteger(event.amount) || event.amount < least) {
      return refused(`the amount ${event.amount} is not an integer of at least ${least}`)
    }
  }
  switch (event._tag) {
    case "Advice":
      return yield* adviceSteps(ports, tx, event.amount, now)
    case "Clearing":
      return yield* clearingSteps(ports, tx, event.amount, event.pullRefused === true, now)
    case "Return":
      return yield* returnSteps(ports, tx, event.amount, now)
    case "ReturnReversal":
      return yield* returnReversalSteps(ports, tx, now)
    case "PullResult":
      return yield* pullResultSteps(ports, tx, event.outcome, now)
  }
}
