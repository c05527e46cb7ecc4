import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import type { SqlClient, SqlTransaction } from "../src/sql.ts"
import { makeCurrentTx, makeTransaction } from "../src/transaction.ts"

// Issue 33, item 4 (docs/operations.md, "Failover", the rule for a lost COMMIT answer): a COMMIT whose answer was
// lost with its connection may have committed, so the store never runs the transaction again by itself; it fails
// with a retryable StoreError (503: the client retries with its idempotency key). A COMMIT the server answered with
// a rollback did not commit: a group's members then run again alone, as before.

/** A client whose every COMMIT fails with `commitError`. */
const failingCommits = (commitError: () => Error) => {
  const sql: SqlClient = {
    pipelines: true,
    query: async () => ({ rows: [] }),
    queryUnflushed: async () => ({ rows: [] }),
    begin: async (): Promise<SqlTransaction> => {
      return {
        query: async () => ({ rows: [] }),
        send: () => undefined,
        commit: () => Promise.reject(commitError()),
        rollback: async () => undefined
      }
    }
  }
  return { sql }
}

const runThree = async (sql: SqlClient, groups: number) => {
  const transaction = makeTransaction(sql, { groups, members: 32, lockTimeoutMs: 200 }, makeCurrentTx())
  let runs = 0
  const exits = await Promise.all(
    [1, 2, 3].map(() =>
      Effect.runPromiseExit(
        transaction(
          Effect.sync(() => {
            runs++
          })
        )
      )
    )
  )
  return { exits, runs }
}

const failure = (exit: Exit.Exit<unknown, unknown>) => (Exit.isFailure(exit) ? exit.cause : undefined)

describe("a COMMIT whose answer was lost with the connection", () => {
  for (const [mode, groups] of [
    ["in a group", 1],
    ["alone", 0]
  ] as const) {
    it(`${mode}: each transaction ran once and fails retryable (never run again by the store)`, async () => {
      const { sql } = failingCommits(() => new Error("Connection terminated unexpectedly"))
      const { exits, runs } = await runThree(sql, groups)
      expect(runs).toBe(3)
      for (const exit of exits) {
        expect(Exit.isFailure(exit)).toBe(true)
        expect(JSON.stringify(failure(exit))).toContain('"retryable":true')
      }
    })
  }

  it("a group whose COMMIT the server answered with a rollback runs its members again alone", async () => {
    const { sql } = failingCommits(() => new Error("the transaction was rolled back instead of committed"))
    const { exits, runs } = await runThree(sql, 1)
    expect(runs).toBe(6)
    for (const exit of exits) expect(JSON.stringify(failure(exit))).toContain('"retryable":false')
  })
})
