/**
 * Issue 34: a payment's steps update its `transactions` row without touching the table's indexes (heap-only
 * updates), its status and due instant being indexed in `transaction_lookups`, which triggers keep equal to the row.
 * Lists by status and the due walk read that table: the testkit's conformance suite checks what they answer.
 */
import * as tables from "@paycore/store-tables"
import { CompiledQuery, type Kysely, sql } from "kysely"
import { assert, describe, it } from "vitest"
import { rowCodecOf } from "../src/codec.ts"
import { migrate } from "../src/index.ts"
import { insertSql, upsertSql } from "../src/queries.ts"
import { testDatabase } from "./helpers.ts"
import { transaction } from "./records.ts"

const db = testDatabase("transaction_lookups")
const codec = rowCodecOf(tables.transactions)

/** The statements the store's `transactions.insert` and `transactions.update` send. */
const write = (k: Kysely<any>, text: string, record: ReturnType<typeof transaction>) =>
  k.executeQuery(CompiledQuery.raw(text, codec.params(record)))

const copies = async (k: Kysely<any>) =>
  (
    await sql<{ id: string; status: string; due_at: string | null }>`
      SELECT id, status, due_at FROM transaction_lookups ORDER BY id`.execute(k)
  ).rows

describe(`transaction_lookups (${db.kind})`, () => {
  it("a payment's steps update its row in place (no index written) and its copy follows, in the same transaction", async () => {
    const k = db.open()
    try {
      await migrate(k)
      const sent = transaction(1, { state: "PENDING", dueAt: undefined })
      const pending = { ...sent, transaction: { ...sent.transaction, status: "PENDING" as const } }
      const processing = { ...pending, state: "PROCESSING", dueAt: "2026-11-21T13:40:00.000Z" }
      const settled = {
        ...processing,
        state: "COMPLETED",
        dueAt: undefined,
        transaction: { ...processing.transaction, status: "COMPLETED" as const, updatedAt: "2026-11-21T13:41:00.000Z" }
      }
      const other = transaction(2)
      await k.transaction().execute(async (trx) => {
        await write(trx, insertSql(codec), pending)
        await write(trx, insertSql(codec), other)
        assert.deepStrictEqual(await copies(trx), [
          { id: pending.id, status: "PENDING", due_at: null },
          { id: other.id, status: "PROCESSING", due_at: other.dueAt! }
        ])
        await write(trx, upsertSql(codec, ["id"]), {
          ...processing,
          transaction: { ...processing.transaction, status: "PROCESSING" }
        })
        assert.deepStrictEqual((await copies(trx))[0], {
          id: pending.id,
          status: "PROCESSING",
          due_at: "2026-11-21T13:40:00.000Z"
        })
        await write(trx, upsertSql(codec, ["id"]), settled)
        // A write that changes neither column leaves the copy alone (the trigger's WHEN).
        await write(trx, upsertSql(codec, ["id"]), { ...settled, attempts: 3 })
        const counts = (
          await sql<{ upd: string; hot: string }>`SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot
            FROM pg_stat_xact_user_tables WHERE relname = 'transactions' AND schemaname = current_schema()`.execute(trx)
        ).rows[0]
        assert.deepStrictEqual(counts && { upd: Number(counts.upd), hot: Number(counts.hot) }, { upd: 3, hot: 3 })
        assert.deepStrictEqual(await copies(trx), [
          { id: pending.id, status: "COMPLETED", due_at: null },
          { id: other.id, status: "PROCESSING", due_at: other.dueAt! }
        ])
        await sql`DELETE FROM transactions WHERE id = ${other.id}`.execute(trx)
        assert.deepStrictEqual(await copies(trx), [{ id: pending.id, status: "COMPLETED", due_at: null }])
        await sql`TRUNCATE transactions`.execute(trx)
        assert.deepStrictEqual(await copies(trx), [])
        // Both at once (as the property tests empty their database).
        await write(trx, insertSql(codec), other)
        await sql`TRUNCATE transactions, transaction_lookups`.execute(trx)
        assert.deepStrictEqual(await copies(trx), [])
      })
    } finally {
      await k.destroy()
    }
  })
})
