/**
 * What must hold after every step of a model run: the ledger's own invariants, the model's balances, the outbox
 * (what was delivered is what was committed, in order per subject, and tells each payment's state) and the
 * idempotency keys (each accepted execute stored with the answer it gave).
 */
import { Accounts, Store, type Transaction } from "@paycore/core"
import { Effect } from "effect"
import { ledgerViolations } from "../ledger-invariants.ts"
import { type ExecuteResponse, IDEMPOTENCY_SCOPE } from "./commands.ts"
import type { ModelEngine } from "./engine.ts"
import type { EngineModel } from "./model.ts"

/** A property of the engine and the model: the sentences saying how it is broken (empty: it holds). */
export interface EngineInvariant<U = unknown> {
  readonly name: string
  readonly violations: (model: Readonly<EngineModel<U>>, engine: ModelEngine) => Promise<ReadonlyArray<string>>
}

/** Per currency the postings sum to zero, pending debits equal pending credits, no internal account is overdrawn. */
export const ledgerInvariant: EngineInvariant = {
  name: "ledger",
  violations: (_model, engine) => engine.run(ledgerViolations)
}

/** Every account the model knows has the available balance the model predicts. */
export const balancesInvariant: EngineInvariant = {
  name: "balances",
  violations: (model, engine) =>
    engine.run(
      Effect.gen(function* () {
        const accounts = yield* Accounts
        const out: Array<string> = []
        for (const [id, predicted] of model.balances) {
          const { amount } = (yield* accounts.getInternal(id)).balance
          if (amount !== predicted) out.push(`${id}: available ${amount}, the model says ${predicted}`)
        }
        return out
      })
    )
}

/**
 * The events an outgoing payment has sent by its current state, in order: one per state it entered (`PENDING`,
 * `PROCESSING`, then `COMPLETED`, or `FAILED` and the steps of its refund).
 */
const expectedEvents = (t: Transaction): ReadonlyArray<string> => {
  const path = ["PENDING", "PROCESSING"]
  if (t.status === "COMPLETED" || t.status === "FAILED") path.push(t.status)
  if (t.status === "FAILED" && t.refund !== undefined) {
    path.push("REFUND_PENDING")
    if (t.refund.status !== "PENDING") path.push(`REFUND_${t.refund.status}`)
  }
  return path.map((step) => `OUTGOING_PAYMENT.${step}`)
}

/**
 * The outbox: per subject the events are numbered 1, 2, 3… with no gap; every webhook the receiver got is an event
 * of the outbox, byte for byte (nothing delivered that was not committed); every event marked delivered reached the
 * receiver; each accepted payment sent one event per state it entered, in order.
 */
export const outboxInvariant: EngineInvariant = {
  name: "outbox",
  violations: (model, engine) =>
    engine.run(
      Effect.gen(function* () {
        const store = yield* Store
        const { data: events } = yield* store.outbox.list({}, { limit: 1_000_000, sortOrder: "asc" })
        const out: Array<string> = []
        const bySubject = new Map<string, Array<number>>()
        for (const e of events) bySubject.set(e.subject, [...(bySubject.get(e.subject) ?? []), e.sequence])
        for (const [subject, sequences] of bySubject) {
          const sorted = [...sequences].sort((a, b) => a - b)
          if (sorted.some((s, i) => s !== i + 1)) out.push(`${subject}: event sequences ${sorted.join(",")}`)
        }
        const byId = new Map(events.map((e) => [e.id as string, e]))
        const received = new Set<string>()
        for (const request of engine.webhooks.requests()) {
          const id = (JSON.parse(request.body) as { id: string }).id
          received.add(id)
          if (byId.get(id)?.body !== request.body) out.push(`delivered ${id}: not the body of a committed event`)
        }
        for (const e of events) {
          if (e.status === "DELIVERED" && !received.has(e.id)) out.push(`${e.id} marked DELIVERED, never received`)
        }
        for (const payment of model.payments) {
          const record = yield* store.transactions.get(payment.transactionId)
          if (record === undefined) {
            out.push(`${payment.transactionId}: not in the store`)
            continue
          }
          const sent = events.filter((e) => e.subject === payment.transactionId).map((e) => e.type)
          const expected = expectedEvents(record.transaction)
          if (sent.join() !== expected.join()) {
            out.push(
              `${payment.transactionId} is ${record.transaction.status}: events ${sent.join(", ")}, not ${expected.join(", ")}`
            )
          }
        }
        return out
      })
    )
}

/** Every accepted execute's key is stored with the answer it gave (a replay would give that answer again). */
export const idempotencyInvariant: EngineInvariant = {
  name: "idempotency",
  violations: (model, engine) =>
    engine.run(
      Effect.gen(function* () {
        const store = yield* Store
        const out: Array<string> = []
        for (const payment of model.payments) {
          const record = yield* store.idempotency.get(`${IDEMPOTENCY_SCOPE}:${payment.key}`)
          const body = record === undefined ? undefined : (JSON.parse(record.body) as ExecuteResponse)
          if (body?.transactionId !== payment.transactionId) {
            out.push(`key ${payment.key}: stored ${record?.body}, not ${payment.transactionId}`)
          }
        }
        return out
      })
    )
}

/** The invariants the harness checks after every step (yours are checked beside them). */
export const engineInvariants: ReadonlyArray<EngineInvariant> = [
  ledgerInvariant,
  balancesInvariant,
  outboxInvariant,
  idempotencyInvariant
]
