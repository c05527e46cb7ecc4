/**
 * The store on a node-postgres pool its host made (`makePgKyselyFromPool`): the host keeps its connection settings,
 * the store keeps its fast path (prepared, pipelined statements) and its int8 amounts as numbers.
 */
import { Store } from "@paycore/core"
import { Effect } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makePgKyselyFromPool, makePostgresStore, migrate, pgTypeParsers } from "../src/index.ts"
import { transaction } from "./records.ts"

describe("makePgKyselyFromPool", () => {
  it("refuses a pool that would read int8 amounts as strings (node-postgres' default)", async () => {
    const pool = new pg.Pool({ connectionString: "postgres://nobody@127.0.0.1:1/none" })
    try {
      expect(() => makePgKyselyFromPool(pool)).toThrow(/types: pgTypeParsers/)
    } finally {
      await pool.end()
    }
  })

  const url = process.env.DATABASE_URL
  describe.runIf(url !== undefined && url !== "")("on the server of DATABASE_URL", () => {
    const schema = `test_host_pool_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
    const admin = async (statement: string) => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        await client.query(statement)
      } finally {
        await client.end()
      }
    }
    beforeAll(() => admin(`CREATE SCHEMA ${schema}`))
    afterAll(() => admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`))

    it("migrates in the pool's search_path and round-trips a record with its amounts as numbers", async () => {
      const pool = new pg.Pool({
        connectionString: url,
        max: 2,
        types: pgTypeParsers,
        pipeline: true,
        options: `-c search_path=${schema}`
      })
      const db = makePgKyselyFromPool(pool)
      try {
        expect((await migrate(db)).length).toBeGreaterThan(0)
        const record = transaction(1)
        const read = await Effect.runPromise(
          Effect.gen(function* () {
            const store = yield* Store
            yield* store.transaction(store.transactions.insert(record))
            return yield* store.transactions.get(record.id)
          }).pipe(Effect.provideServiceEffect(Store, makePostgresStore(db)))
        )
        expect(read).toStrictEqual(record)
        const { rows } = await pool.query(`SELECT count(*) AS n FROM ${schema}.transactions`)
        expect(rows[0]?.n).toBe(1)
      } finally {
        await db.destroy()
      }
      expect(pool.ended).toBe(true)
    })
  })
})
