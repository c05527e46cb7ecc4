import { describe, expect, it } from "vitest"
import { isUnavailable, storeError } from "../src/driver-errors.ts"

// Issue 33, item 4 (docs/operations.md, "Failover"): what the store calls "the database is unavailable" (a retryable
// StoreError, 503 over HTTP: retry with the same Idempotency-Key), and what it does not.

const pgError = (code: string, message = "server error") => Object.assign(new Error(message), { code })

describe("a driver error: unavailable or not", () => {
  it.each([
    ["57P01 admin_shutdown (the old primary stopping)", pgError("57P01")],
    ["57P02 crash_shutdown", pgError("57P02")],
    ["57P03 cannot_connect_now (starting, being promoted)", pgError("57P03")],
    ["53300 too_many_connections", pgError("53300")],
    ["25006 read_only_sql_transaction (a write on a standby)", pgError("25006")],
    ["08006 connection_failure", pgError("08006")],
    ["ECONNREFUSED", pgError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432")],
    ["ECONNRESET", pgError("ECONNRESET", "read ECONNRESET")],
    ["a socket closed under pg", new Error("Connection terminated unexpectedly")],
    ["a client that already broke", new Error("Client has encountered a connection error and is not queryable")]
  ])("%s: unavailable, a retryable StoreError", (_, error) => {
    expect(isUnavailable(error)).toBe(true)
    expect(storeError(error).retryable).toBe(true)
  })

  it.each([
    ["23505 unique_violation", pgError("23505")],
    ["42P01 undefined_table", pgError("42P01")],
    ["22003 numeric_value_out_of_range", pgError("22003")],
    ["a rolled-back COMMIT", new Error("the transaction was rolled back instead of committed")]
  ])("%s: not unavailable, not retryable", (_, error) => {
    expect(isUnavailable(error)).toBe(false)
    expect(storeError(error).retryable).toBe(false)
  })

  it("a named prepared statement missing on its connection names the setting to change", () => {
    const message = storeError(pgError("26000", 'prepared statement "paycore_3" does not exist')).message
    expect(message).toContain("preparedStatements: false")
    expect(message).toContain("PAYCORE_PG_PREPARED_STATEMENTS=false")
  })
})
