import { Effect } from "effect"
import { Ids } from "../ports/ids.ts"
import { type NewOutboxRecord, Store } from "../ports/store.ts"
import type { StoreError } from "../shared/errors.ts"
import type { WebhookId } from "../shared/ids.ts"
import { nowIso } from "../shared/time.ts"
import type { DeliveryAttempt } from "./model.ts"

// Writing events into the outbox, in the store transaction of the change they report (`emitSteps`, `emit`).

/**
 * The outbox row of a new event; the store numbers it. `body` is the exact JSON `{id, type, timestamp, data}`,
 * serialized on first read and then kept: a store that persists bytes reads it at once, the memory store only
 * when the event is delivered (records are immutable, so `data` cannot change in between). A class, its getter
 * on the prototype: cheaper to make than a literal with a getter, but a spread would leave `body` behind, so a
 * store copies its fields by name.
 */
class NewEvent implements NewOutboxRecord {
  readonly id: WebhookId
  readonly type: string
  readonly subject: string
  readonly createdAt: string
  readonly status = "PENDING" as const
  readonly attempts: ReadonlyArray<DeliveryAttempt> = []
  readonly nextAttemptAt: string
  readonly #data: unknown
  #body: string | undefined = undefined

  constructor(id: WebhookId, type: string, subject: string, timestamp: string, data: unknown) {
    this.id = id
    this.type = type
    this.subject = subject
    this.createdAt = timestamp
    this.nextAttemptAt = timestamp
    this.#data = data
  }

  get body(): string {
    if (this.#body === undefined) {
      this.#body = JSON.stringify({ id: this.id, type: this.type, timestamp: this.createdAt, data: this.#data })
    }
    return this.#body
  }
}

/** A new event's outbox row (see `NewEvent`). */
export const newEvent = (
  id: WebhookId,
  type: string,
  subject: string,
  timestamp: string,
  data: unknown
): NewOutboxRecord => new NewEvent(id, type, subject, timestamp, data)

/**
 * `emit` for the events of one change, as a plain generator over ports the caller already holds:
 * `yield*` it inside an `Effect.gen` (inside the change's store transaction) and it costs one id per
 * event and one store call, with the command's timestamp.
 */
export function* emitSteps(
  store: Pick<Store["Service"], "outbox">,
  ids: Ids["Service"],
  types: ReadonlyArray<string>,
  subject: string,
  data: unknown,
  timestamp: string
): Generator<Effect.Effect<unknown, StoreError>, void, any> {
  if (types.length === 0) return
  const events: Array<NewOutboxRecord> = []
  for (const type of types) events.push(newEvent(yield* ids.make("Webhook"), type, subject, timestamp, data))
  yield* store.outbox.appendEvents(events)
}

/**
 * Writes a domain event into the outbox. Call it inside the `Store.transaction` of the change
 * it reports, so the event commits with the change or not at all. `subject` is the resource
 * the event is about; events of one subject get increasing sequence numbers.
 */
export const emit = Effect.fnUntraced(function* (type: string, subject: string, data: unknown) {
  const store = yield* Store
  const ids = yield* Ids
  const timestamp = yield* nowIso
  yield* emitSteps(store, ids, [type], subject, data, timestamp)
})
