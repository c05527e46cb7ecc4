import { Store, type TransitionFilter, type TransitionId, type TransitionRecord } from "@paycore/core"
import { Effect } from "effect"
import { expectList } from "./assertions.ts"
import type { CollectionCase } from "./collections.ts"
import { type It, makeScope, newId, type Scope, scopedId } from "./ids.ts"

// ---- records ----

/** The payment a scope's transitions belong to. */
const transactionOf = scopedId("Transaction")

/** The first entry of a timeline: the transaction's creation (no `from`, no webhook). */
export const transitionMinimal = (s: Scope, id: string = newId("Transition")): TransitionRecord => ({
  id: id as TransitionId,
  transactionId: transactionOf(s),
  state: "PENDING",
  at: s.next()
})

/** A move with every optional field. */
export const transitionFull = (s: Scope, id?: string): TransitionRecord => ({
  ...transitionMinimal(s, id),
  from: "PROCESSING",
  state: "REFUND_PENDING",
  event: "OUTGOING_PAYMENT.FAILED"
})

export const transitionsCase: CollectionCase<TransitionRecord, TransitionFilter> = {
  name: "transitions",
  of: (store) => store.transitions,
  newId: () => newId("Transition"),
  full: transitionFull,
  minimal: transitionMinimal,
  filter: (s) => ({ transactionId: transactionOf(s) }),
  exact: true
}

// ---- what timelines rely on beyond a collection ----

export const timelineTests = (it: It) => {
  it.effect(
    "issue 18: a timeline lists one transaction's moves in the order recorded, a card transaction's apart",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const s = makeScope()
        const other = makeScope()
        const card: TransitionRecord = {
          ...transitionMinimal(other),
          transactionId: newId("CardTransaction"),
          state: "AUTHORIZED",
          event: "CARD_TRANSACTION.AUTHORIZED"
        }
        const created = transitionMinimal(s)
        const processing: TransitionRecord = {
          ...transitionMinimal(s),
          from: "PENDING",
          state: "PROCESSING",
          event: "OUTGOING_PAYMENT.PROCESSING"
        }
        const failed = { ...transitionFull(s), from: "PROCESSING" }
        yield* store.transitions.insert(created)
        // `append` is the write of every move (in the move's store transaction): a row like `insert`'s.
        for (const row of [card, processing, failed]) yield* store.transaction(store.transitions.append(row))
        yield* expectList(store.transitions.list, { transactionId: created.transactionId }, [
          created,
          processing,
          failed
        ])
        yield* expectList(store.transitions.list, { transactionId: card.transactionId }, [card])
        yield* expectList(store.transitions.list, { transactionId: newId("Transaction") }, [])
      })
  )
}
