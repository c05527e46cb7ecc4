import { Effect } from "effect"
import { Ids } from "../ports/ids.ts"
import { Store } from "../ports/store.ts"
import { nowIso } from "../shared/time.ts"

/**
 * Writes a domain event into the outbox. Call it inside the `Store.transaction` of the change
 * it reports, so the event commits with the change or not at all. `subject` is the resource
 * the event is about; events of one subject get increasing sequence numbers.
 */
export const emit = Effect.fnUntraced(function* (type: string, subject: string, data: unknown) {
  const store = yield* Store
  const ids = yield* Ids
  const id = yield* ids.make("Webhook")
  const timestamp = yield* nowIso
  const sequence = yield* store.outbox.nextSequence(subject)
  const body = JSON.stringify({ id, type, timestamp, data })
  yield* store.outbox.append([
    { id, type, subject, sequence, createdAt: timestamp, body, status: "PENDING", attempts: [], nextAttemptAt: timestamp }
  ])
})
