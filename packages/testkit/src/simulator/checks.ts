/**
 * What must hold after every step of a simulation, read from the database without faults: money conserved, every
 * acknowledged write readable, the outbox sound (nothing delivered that did not commit), no payout moved twice; and
 * at the end of a sequence, once the faults heal and the workers and the dispatcher drain, every committed event
 * delivered at least once and every acknowledged payment ended.
 */
import { type OutboxRecord, Store } from "@paycore/core"
import { Effect } from "effect"
import { cardTransactionViolations, ledgerViolations } from "../ledger-invariants.ts"
import type { Sim } from "./sim.ts"

const allEvents = Effect.flatMap(Store, (store) =>
  Effect.map(store.outbox.list({}, { limit: 1_000_000, sortOrder: "asc" }), (page) => page.data)
)

/** The outbox against what the receiver got and what rolled back. */
const outboxViolations = (sim: Sim, events: ReadonlyArray<OutboxRecord>): Array<string> => {
  const out: Array<string> = []
  const bySubject = new Map<string, Array<number>>()
  for (const e of events) {
    const list = bySubject.get(e.subject)
    if (list === undefined) bySubject.set(e.subject, [e.sequence])
    else list.push(e.sequence)
    if (sim.world.rolledBackEvents.has(e.id)) out.push(`event ${e.id} is in the outbox, its transaction rolled back`)
  }
  for (const [subject, sequences] of bySubject) {
    const sorted = [...sequences].sort((a, b) => a - b)
    if (sorted.some((s, i) => s !== i + 1)) out.push(`${subject}: event sequences ${sorted.join(",")}`)
  }
  const byId = new Map(events.map((e) => [e.id as string, e]))
  for (const request of sim.world.recorder.requests()) {
    const id = (JSON.parse(request.body) as { id: string }).id
    if (sim.world.rolledBackEvents.has(id)) out.push(`delivered ${id}, whose transaction rolled back`)
    else if (byId.get(id)?.body !== request.body) out.push(`delivered ${id}: not the body of a committed event`)
  }
  for (const e of events) {
    if (e.status === "DELIVERED" && !sim.world.receiver.taken.has(e.id)) {
      out.push(`${e.id} marked DELIVERED, the receiver never took it`)
    }
  }
  return out
}

/** Every invariant of a step; the sentences saying what broke (empty: all hold). */
export const stepViolations = async (sim: Sim): Promise<Array<string>> => {
  const out: Array<string> = []
  const { ledger, cards, events, acks } = await sim.read(
    Effect.gen(function* () {
      const acks: Array<string> = []
      for (const ack of sim.state.acks) {
        const problem = yield* ack.check
        if (problem !== undefined) acks.push(`acknowledged ${ack.what} lost: ${problem}`)
      }
      const store = yield* Store
      // Every posting on a customer's account has its cause on record: nothing half committed moved money.
      for (const customer of sim.state.customers) {
        const { transfers } = yield* store.ledger.accountTransfers(customer.accountId, 100_000)
        for (const { transfer } of transfers) {
          const cause =
            (yield* store.transactions.get(transfer.reference)) ??
            (yield* store.cardTransactions.get(transfer.reference))
          if (cause === undefined)
            acks.push(
              `ledger: transfer ${transfer.id} of ${customer.accountId}: its cause ${transfer.reference} is not on record`
            )
        }
      }
      return {
        ledger: yield* ledgerViolations,
        cards: yield* cardTransactionViolations,
        events: yield* allEvents,
        acks
      }
    })
  )
  out.push(...ledger.map((v) => `ledger: ${v}`), ...cards.map((v) => `cards: ${v}`), ...acks)
  out.push(...outboxViolations(sim, events).map((v) => `outbox: ${v}`))
  for (const [transactionId, references] of sim.world.rail.submissions) {
    if (references.size > 1) out.push(`rail: ${transactionId} was paid out ${references.size} times`)
  }
  out.push(...(await sim.read(takenAndRefunded(sim))))
  return out
}

/**
 * A payout the rail took must not be refunded by the engine unless the rail reported it failed: else the money went
 * out twice (to the payee, and back to the customer). The engine asks the rail before it refunds (a status poll).
 */
const takenAndRefunded = (sim: Sim) =>
  Effect.gen(function* () {
    const store = yield* Store
    const out: Array<string> = []
    for (const [transactionId, references] of sim.world.rail.submissions) {
      const record = yield* store.transactions.get(transactionId)
      if (record === undefined || record.transaction.status !== "FAILED") continue
      if (record.railReference === undefined || !references.has(record.railReference)) {
        out.push(`rail: ${transactionId} was taken by the rail, the engine failed it without asking (${record.state})`)
      }
    }
    return out
  })

/** Events with one attempt by design (upstream): a failed attempt makes them DEAD, not retried. */
const ONE_ATTEMPT = new Set(["TEST", "INCOMING_PAYMENT.PENDING"])

/** After the drain: every committed event delivered (or, with one attempt by design, attempted). */
export const drainedViolations = async (sim: Sim): Promise<Array<string>> => {
  const out: Array<string> = []
  const events = await sim.read(allEvents)
  for (const e of events) {
    if (ONE_ATTEMPT.has(e.type)) {
      if (e.status === "PENDING") out.push(`event ${e.id} (${e.type}) never attempted`)
    } else if (!sim.world.receiver.taken.has(e.id)) {
      const when = JSON.stringify({
        next: e.nextAttemptAt,
        lease: e.leaseUntil,
        attempts: e.attempts.length,
        now: new Date(sim.world.nowMs).toISOString()
      })
      out.push(`event ${e.id} (${e.type}, ${e.status}) committed, never delivered: ${when}`)
    }
  }
  const open = await sim.read(
    Effect.gen(function* () {
      const store = yield* Store
      const stuck: Array<string> = []
      for (const p of sim.state.payments) {
        if (p.transactionId === undefined) continue
        const record = yield* store.transactions.get(p.transactionId)
        const t = record?.transaction
        if (t === undefined) continue
        const refundOpen = t.status === "FAILED" && t.refund !== undefined && t.refund.status === "PENDING"
        if (t.status === "PENDING" || t.status === "PROCESSING" || refundOpen) {
          const { state, dueAt, attempts, stalledAt, railReference } = record!
          const detail = JSON.stringify({ state, dueAt, attempts, stalledAt, submitted: railReference !== undefined })
          stuck.push(
            `payment ${p.transactionId} still ${t.status}${refundOpen ? " (refund pending)" : ""} after the drain: ${detail}`
          )
        }
      }
      return stuck
    })
  )
  out.push(...open)
  return out
}
