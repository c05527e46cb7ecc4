import { Conflict, InvalidInput } from "../shared/errors.ts"
import { IDEMPOTENCY_KEY_MAX_LENGTH } from "./model.ts"

/**
 * 409 IDEMPOTENCY_KEY_REUSED: the key was already used with another request (method, path or body).
 * The upstream names no code for this; 409 Conflict, as the key is taken by a different request.
 */
export const idempotencyKeyReused = (key: string): Conflict =>
  new Conflict({
    code: "IDEMPOTENCY_KEY_REUSED",
    message: `Idempotency-Key "${key}" was already used with a different request; use a new key for a new request`,
    details: { idempotencyKey: key }
  })

/** 400 INVALID_INPUT on the `Idempotency-Key` header: empty or longer than 255 characters. */
export const idempotencyKeyInvalid = (key: string): InvalidInput =>
  InvalidInput.one(
    "Idempotency-Key",
    { minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH },
    key.length === 0
      ? "Idempotency-Key must not be empty"
      : `Idempotency-Key must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters (got ${key.length})`
  )
