import { Schema } from "effect"

/**
 * One invalid field of a request: `field` is a dot path (`address.postalCode`),
 * `constraint` machine-readable (`{ maxLength: 80 }`, `{ enum: [...] }`, `{ required: true }`).
 */
export const FieldError = Schema.Struct({
  field: Schema.String,
  constraint: Schema.Record(Schema.String, Schema.Unknown),
  message: Schema.String
})
export type FieldError = typeof FieldError.Type

/** 400 INVALID_INPUT: every invalid field at once in `details.errors`. */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  message: Schema.String,
  errors: Schema.Array(FieldError)
}) {
  static one(field: string, constraint: Record<string, unknown>, message: string): InvalidInput {
    return new InvalidInput({ message, errors: [{ field, constraint, message }] })
  }
}

/** A domain rule refused the request; `code` is the spec's error code, `status` the HTTP class it belongs to. */
export class Refused extends Schema.TaggedError<Refused>()("Refused", {
  code: Schema.String,
  message: Schema.String,
  details: Schema.optional(Schema.Record(Schema.String, Schema.Unknown))
}) {}

/** An unknown id: `code` is the spec's 404 code (`USER_NOT_FOUND`, `QUOTE_NOT_FOUND`, ...). */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  code: Schema.String,
  message: Schema.String
}) {}

/**
 * The caller may not do this (403): wrong permission, production token on a sandbox helper, terms not accepted, an
 * agent's policy (`details.reason`, design Q2).
 */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  code: Schema.String,
  message: Schema.String,
  details: Schema.optional(Schema.Record(Schema.String, Schema.Unknown))
}) {}

/** The resource is not in a state that allows the request (409). */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  code: Schema.String,
  message: Schema.String,
  details: Schema.optional(Schema.Record(Schema.String, Schema.Unknown))
}) {}

/** A limit was hit (429 for volume / rate limits); `retryAfterSeconds` feeds `Retry-After`. */
export class LimitExceeded extends Schema.TaggedError<LimitExceeded>()("LimitExceeded", {
  code: Schema.String,
  message: Schema.String,
  retryAfterSeconds: Schema.optional(Schema.Number)
}) {}

/** The store failed for a reason the client cannot fix; `retryable` marks serialization failures and deadlocks. */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  message: Schema.String,
  retryable: Schema.Boolean
}) {}

export type DomainError = InvalidInput | Refused | NotFound | Forbidden | Conflict | LimitExceeded
