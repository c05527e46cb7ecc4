import { type DomainError, WALLET_UNAUTHORIZED_CODES } from "@paycore/core"
import type { ErrorResponse } from "./listener-types.ts"

/**
 * The one place where a domain refusal gets its HTTP status. Codes not listed are 400:
 * a rule the request broke. The core never knows about HTTP.
 */
const refusedStatus: Readonly<Record<string, number>> = {
  // The signed retry's refusals (W-37, W-38): 401 without the platform's WWW-Authenticate challenge.
  ...Object.fromEntries(WALLET_UNAUTHORIZED_CODES.map((code) => [code, 401])),
  // An agent deleted between its authentication and its write (docs/design/agents.md section 0).
  UNAUTHORIZED: 401,
  END_USER_TERMS_NOT_ACCEPTED: 403,
  USER_NOT_READY: 403,
  // SCA (C-38, C-41): no live SCA login session; too many failed proofs (details: lockedUntil, failedAttempts).
  SCA_SESSION_REQUIRED: 409,
  ACCOUNT_LOCKED: 423,
  COUNTERPARTY_NOT_ALLOWED: 403,
  VELOCITY_LIMIT_EXCEEDED: 403,
  // C-50: an UMA counterparty that could not be dealt with (ports/directory.ts, CounterpartyFailure).
  NO_COMPATIBLE_UMA_VERSION: 424,
  LNURLP_REQUEST_FAILED: 424,
  COUNTERPARTY_PUBKEY_FETCH_ERROR: 424,
  PAYREQ_REQUEST_FAILED: 424,
  CUSTOMER_DELETED: 410,
  UNSUPPORTED_UMA_VERSION: 412,
  EMAIL_OTP_CREDENTIAL_SYNC_FAILED: 424,
  DOCUMENT_REJECTED: 422,
  // CD-42 (upstream Error501): no card issuer is configured here, or the route is not built yet.
  NOT_IMPLEMENTED: 501,
  SERVICE_UNAVAILABLE: 503
}

const isDomainError = (e: unknown): e is DomainError =>
  typeof e === "object" &&
  e !== null &&
  "_tag" in e &&
  ["InvalidInput", "Refused", "NotFound", "Forbidden", "Conflict", "LimitExceeded"].includes(
    (e as { _tag: string })._tag
  )

/**
 * A store failure that a retry may not meet: the database unreachable or switching over (a failover), or a conflict
 * that kept coming back. Nothing of the request was applied, or (a COMMIT whose answer was lost) it was applied
 * whole: the same request with the same `Idempotency-Key` answers as the first did when it was, and runs when not.
 */
const isRetryableStoreError = (e: unknown): boolean =>
  typeof e === "object" &&
  e !== null &&
  (e as { _tag?: unknown })._tag === "StoreError" &&
  (e as { retryable?: unknown }).retryable === true

const unavailable: ErrorResponse = {
  status: 503,
  code: "SERVICE_UNAVAILABLE",
  message: "The database is unavailable for a moment; retry with the same Idempotency-Key",
  headers: { "retry-after": "1" }
}

/**
 * `undefined` for anything that is not a domain error (nor a retryable StoreError, 503): the caller answers 500 and
 * logs it.
 */
export const toErrorResponse = (e: unknown): ErrorResponse | undefined => {
  if (isRetryableStoreError(e)) return unavailable
  if (!isDomainError(e)) return undefined
  switch (e._tag) {
    case "InvalidInput":
      return { status: 400, code: "INVALID_INPUT", message: e.message, details: { errors: e.errors } }
    case "Refused": {
      const status = refusedStatus[e.code] ?? 400
      return e.details === undefined
        ? { status, code: e.code, message: e.message }
        : { status, code: e.code, message: e.message, details: e.details }
    }
    case "NotFound":
      return { status: 404, code: e.code, message: e.message }
    case "Forbidden":
      // An agent's policy refusal says why (`details.reason`, docs/design/agents.md Q2).
      return e.details === undefined
        ? { status: 403, code: e.code, message: e.message }
        : { status: 403, code: e.code, message: e.message, details: e.details }
    case "Conflict":
      return e.details === undefined
        ? { status: 409, code: e.code, message: e.message }
        : { status: 409, code: e.code, message: e.message, details: e.details }
    case "LimitExceeded":
      return e.retryAfterSeconds === undefined
        ? { status: 429, code: e.code, message: e.message }
        : { status: 429, code: e.code, message: e.message, headers: { "retry-after": String(e.retryAfterSeconds) } }
  }
}
