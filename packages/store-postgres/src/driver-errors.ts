/** The server errors both stores of this package tell apart (node-postgres and PGlite set the same fields). */

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
