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

/**
 * A conflict with a concurrent transaction that running the whole transaction again resolves: a
 * serialization failure, a deadlock, or a second writer of the same ledger transfer id (the ledger numbers
 * transfers per reference, so a racing writer collides on the id; the rerun reads the winner's transfers).
 */
export const isConflict = (error: unknown): boolean =>
  isRerunnable(error) ||
  (field(error, "code") === UNIQUE_VIOLATION && field(error, "constraint") === "ledger_transfers_pkey")

/** The Store's error for a driver error (retryable when it is a conflict). */
export const storeError = (error: unknown): StoreError => {
  const code = field(error, "code")
  const message = field(error, "message") ?? String(error)
  return new StoreError({
    message: `PostgreSQL store: ${code === undefined ? "" : `[${code}] `}${message}`,
    retryable: isConflict(error)
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
