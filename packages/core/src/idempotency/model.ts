import { Schema } from "effect"

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255

/** The `Idempotency-Key` header: 1-255 characters, chosen by the client (a UUID is typical). */
export const IdempotencyKey = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(IDEMPOTENCY_KEY_MAX_LENGTH))
export type IdempotencyKey = typeof IdempotencyKey.Type

/** The HTTP response a command produced: what is stored and replayed. `body` must be JSON-serializable. */
export interface RenderedResponse {
  readonly status: number
  readonly body: unknown
}

/**
 * The outcome of an idempotent command: the stored response (`body` as parsed JSON, identical on the first run
 * and on every replay; `undefined` for an empty body) and whether it was replayed instead of executed.
 */
export interface IdempotentResponse {
  readonly status: number
  readonly body: unknown
  readonly replayed: boolean
}
