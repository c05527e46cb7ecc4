import { Schema } from "effect"
import type { TransitionId } from "../shared/ids.ts"
import { DateTimeString } from "../shared/schemas.ts"

/**
 * One move of a payment's or a card transaction's machine, as recorded in the store transaction that made it
 * (issue 18, docs/design/dashboard-cli.md section 2). `transactionId` is a `Transaction:` or a `CardTransaction:` id:
 * its prefix says which machine. The row that creates the transaction has no `from`. `event` is the first webhook
 * type the move emitted (a failure emits `…FAILED` then `…REFUND_PENDING`: the state reached names the second).
 */
export interface TransitionRecord {
  readonly id: TransitionId
  readonly transactionId: string
  readonly from?: string
  readonly state: string
  readonly event?: string
  readonly at: string
}

export interface TransitionFilter {
  readonly transactionId?: string | undefined
}

/** One entry of `GET /transactions/{transactionId}/timeline`: the machine states, not the public status. */
export const TimelineEntry = Schema.Struct({
  at: DateTimeString,
  from: Schema.optionalKey(Schema.String),
  state: Schema.String,
  event: Schema.optionalKey(Schema.String)
})
export type TimelineEntry = typeof TimelineEntry.Type

export const Timeline = Schema.Struct({ data: Schema.Array(TimelineEntry) })
export type Timeline = typeof Timeline.Type
