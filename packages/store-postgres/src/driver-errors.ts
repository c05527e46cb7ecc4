import { StoreError, type UniqueViolation } from "@paycore/core"

/**
 * The server errors both stores of this package tell apart (node-postgres and PGlite set the same fields), and the
 * Store's errors made of them.
 */

const SERIALIZATION_FAILURE = "40001"
const DEADLOCK_DETECTED = "40P01"
export const UNIQUE_VIOLATION = "23505"

/** The fields node-postgres and PGlite both set on a server error. */
interface ServerError {
  readonly code?: unknown
  readonly constraint?: unknown
  readonly message?: unknown
}

export const field = (error: unknown, name: keyof ServerError): string | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const value = (error as ServerError)[name]
  return typeof value === "string" ? value : undefined
}

/** A statement that failed only because of a concurrent one: running it again may succeed. */
export const isRerunnable = (error: unknown): boolean => {
  const code = field(error, "code")
  return code === SERIALIZATION_FAILURE || code === DEADLOCK_DETECTED
}

/**
 * The connection broke under the statement (the server terminated the session or restarted, the socket closed):
 * no server error about the statement itself, so whether it was applied is unknown.
 */
export const isBrokenConnection = (error: unknown): boolean => {
  const code = field(error, "code")
  return code === undefined || code.startsWith("E") || code.startsWith("08") || code.startsWith("57P0")
}

/** SQLSTATEs of a server that cannot take the statement now, though another (or the same, soon) will. */
const UNAVAILABLE_CODES = new Set([
  "57P01", // admin_shutdown: the server is stopping (a failover's old primary)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now: starting up, or a standby being promoted
  "53300", // too_many_connections
  "25006" // read_only_sql_transaction: a write reached a standby (a pooler or DNS not yet repointed)
])

/** What node-postgres throws, without a code, when the socket under a client closed or never opened. */
const DROPPED_CONNECTION =
  /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect/i

/**
 * The database cannot be reached or cannot take writes now (connection refused or dropped, the server shutting
 * down or starting, a standby): the request may succeed later, on this server once it is back or on the promoted
 * standby. A statement whose connection dropped under it may have been applied: a COMMIT whose answer was lost
 * is ambiguous (see docs/operations.md, "Failover"): the caller retries the whole request with its idempotency key,
 * which answers as the first attempt did when it committed, and runs it when it did not.
 */
export const isUnavailable = (error: unknown): boolean => {
  const code = field(error, "code")
  if (code === undefined) return DROPPED_CONNECTION.test(field(error, "message") ?? "")
  return code.startsWith("08") || UNAVAILABLE_CODES.has(code) || /^E[A-Z]+$/.test(code)
}

const INVALID_SQL_STATEMENT_NAME = "26000"

/** A named prepared statement the server connection does not have: a pooler switched connections under the store. */
const poolerHint = (code: string | undefined): string =>
  code === INVALID_SQL_STATEMENT_NAME
    ? " (a connection pooler in transaction mode? Named prepared statements need one server connection per session:" +
      " set the store's preparedStatements: false, PAYCORE_PG_PREPARED_STATEMENTS=false; docs/operations.md)"
    : ""

/**
 * A conflict with a concurrent transaction that running the whole transaction again resolves: a
 * serialization failure, a deadlock, or a second writer of the same ledger transfer id (the ledger numbers
 * transfers per reference, so a racing writer collides on the id; the rerun reads the winner's transfers).
 */
export const isConflict = (error: unknown): boolean =>
  isRerunnable(error) ||
  (field(error, "code") === UNIQUE_VIOLATION && field(error, "constraint") === "ledger_transfers_pkey")

/**
 * The Store's error for a driver error: retryable when it is a conflict, or when the database is unavailable (the
 * HTTP API answers those 503 `SERVICE_UNAVAILABLE`: retry with the same idempotency key).
 */
export const storeError = (error: unknown): StoreError => {
  const code = field(error, "code")
  const message = field(error, "message") ?? String(error)
  return new StoreError({
    message: `PostgreSQL store: ${code === undefined ? "" : `[${code}] `}${message}${poolerHint(code)}`,
    retryable: isConflict(error) || isUnavailable(error)
  })
}

export const uniqueViolation = (index: string): UniqueViolation => ({ _tag: "UniqueViolation", index })

/** Maps a unique violation of one of `indexes` (constraint name → the port's index name) to the port's error. */
export const failureOf = (
  error: unknown,
  indexes: ReadonlyMap<string, string> | undefined
): StoreError | UniqueViolation => {
  if (indexes !== undefined && field(error, "code") === UNIQUE_VIOLATION) {
    const index = indexes.get(field(error, "constraint") ?? "")
    if (index !== undefined) return uniqueViolation(index)
  }
  return storeError(error)
}
