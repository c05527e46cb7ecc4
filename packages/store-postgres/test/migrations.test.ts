import { assert, describe, it } from "@effect/vitest"
import { expirableQuoteStates } from "@paycore/core"
import * as described from "@paycore/store-tables"
import { type Table, tables } from "@paycore/store-tables"
import { CompiledQuery, type Kysely, sql } from "kysely"
import { Migrator } from "kysely/migration"
import pg from "pg"
import { rowCodecOf } from "../src/codec.ts"
import { MIGRATION_TABLE, makePgKysely, makePgliteKysely, migrate, migrations } from "../src/index.ts"
import { insertSql, sqlTypes } from "../src/queries.ts"
import { pgliteConfig, testDatabase } from "./helpers.ts"
import { transaction } from "./records.ts"

// The migrations stay hand-written; this checks that, applied to a fresh database, they make exactly the tables the
// descriptions (@paycore/store-tables) say: the codecs, statements and memory store all follow the descriptions.

const db = testDatabase("migrations")

interface ColumnFound {
  readonly table: string
  readonly column: string
  readonly type: string
  readonly nullable: boolean
  readonly computed: boolean
  readonly collation: string | null
}

interface IndexFound {
  readonly table: string
  readonly index: string
  readonly unique: boolean
  readonly columns: ReadonlyArray<string>
  readonly predicate: string | null
}

/** The tables, columns and indexes of the connection's current schema, from the catalog. */
const catalog = async (k: Kysely<any>) => {
  const columns = await sql<ColumnFound>`
    SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
      NOT a.attnotnull AS nullable, (a.attgenerated <> '' OR a.attidentity <> '') AS computed,
      co.collname AS collation
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_collation co ON co.oid = a.attcollation
    WHERE n.nspname = current_schema() AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
    ORDER BY c.relname, a.attnum`.execute(k)
  const indexes = await sql<IndexFound>`
    SELECT t.relname AS table, i.relname AS index, x.indisunique AS unique,
      (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
        JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS columns,
      pg_get_expr(x.indpred, x.indrelid) AS predicate
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = current_schema()
    ORDER BY t.relname, i.relname`.execute(k)
  return { columns: columns.rows, indexes: indexes.rows }
}

/** Where the database and the descriptions disagree, one line each (none: they agree). */
const differences = async (k: Kysely<any>, described: ReadonlyArray<Table<any, any, any>>) => {
  const found = await catalog(k)
  const out: Array<string> = []
  const ours = new Set([MIGRATION_TABLE])
  const tableNames = new Set(described.map((t) => t.name))
  for (const table of new Set(found.columns.map((c) => c.table))) {
    if (!tableNames.has(table) && !ours.has(table)) out.push(`${table}: a table no description has`)
  }
  for (const table of described) {
    const columns = new Map(found.columns.filter((c) => c.table === table.name).map((c) => [c.column, c]))
    if (columns.size === 0) {
      out.push(`${table.name}: described, not created`)
      continue
    }
    const all = [...table.columns, ...table.storeColumns]
    for (const c of all) {
      const column = columns.get(c.name)
      const at = `${table.name}.${c.name}`
      if (column === undefined) {
        out.push(`${at}: described, not created`)
        continue
      }
      const expected = sqlTypes[c.kind]
      const collation = column.collation === "C" ? "C" : undefined
      if (column.type !== expected.type) out.push(`${at}: ${column.type}, described as ${c.kind} (${expected.type})`)
      else if (expected.type === "text" && collation !== expected.collation) {
        out.push(`${at}: collation ${column.collation}, described as ${c.kind}`)
      }
      if (column.nullable !== c.optional) {
        out.push(
          `${at}: ${column.nullable ? "nullable" : "NOT NULL"}, described as ${c.optional ? "optional" : "required"}`
        )
      }
      if (column.computed !== (c.role === "generated")) {
        out.push(`${at}: ${column.computed ? "computed by the database" : "written"}, described as ${c.role}`)
      }
    }
    const names = new Set(all.map((c) => c.name))
    for (const column of columns.keys()) {
      if (!names.has(column)) out.push(`${table.name}.${column}: a column the description lacks`)
    }
    const indexes = new Map(found.indexes.filter((i) => i.table === table.name).map((i) => [i.index, i]))
    const primary = indexes.get(`${table.name}_pkey`)
    const key = table.primaryKey.map((c) => c.name)
    if (primary === undefined || primary.columns.join() !== key.join()) {
      out.push(
        `${table.name}: primary key (${primary?.columns.join(", ") ?? "none"}), described as (${key.join(", ")})`
      )
    }
    for (const u of table.unique) {
      const index = indexes.get(u.index)
      // A key only rows that are not deleted hold is a partial index on them.
      const predicate = u.unless === undefined ? null : `(NOT ${u.unless.name})`
      if (index === undefined || !index.unique) out.push(`${table.name}: no unique index ${u.index} (key ${u.name})`)
      else if (index.columns.join() !== u.column.name || index.predicate !== predicate) {
        out.push(
          `${table.name}: unique index ${u.index} on (${index.columns.join(", ")}) WHERE ${index.predicate}, ` +
            `described on (${u.column.name}) WHERE ${predicate}`
        )
      }
    }
  }
  return out
}

/** A fresh database (PGlite), or this file's fresh schema (PostgreSQL), migrated; `test` then runs on it. */
const migrated = async <A>(test: (k: Kysely<any>) => Promise<A>): Promise<A> => {
  const k = db.open()
  try {
    await migrate(k)
    return await test(k)
  } finally {
    await k.destroy()
  }
}

describe(`migrations against the table descriptions (${db.kind})`, () => {
  it("make every described table, column, primary key and unique key, and nothing undescribed", () =>
    migrated(async (k) => {
      assert.deepStrictEqual(await differences(k, tables), [])
    }))

  it("a column, type, nullability or unique index the two disagree on is reported", () =>
    migrated(async (k) => {
      // Drift made in a transaction that is rolled back (PostgreSQL's DDL is transactional).
      const drift = [
        `ALTER TABLE tokens ADD COLUMN nickname text`,
        `ALTER TABLE tokens ALTER COLUMN name DROP NOT NULL`,
        `ALTER TABLE tokens ALTER COLUMN environment TYPE varchar(20)`,
        `ALTER TABLE customers DROP COLUMN pep_status`,
        `ALTER TABLE quotes ALTER COLUMN created_at TYPE text COLLATE "default"`,
        `DROP INDEX customers_uma_address_key`,
        `CREATE UNIQUE INDEX customers_uma_address_key ON customers (uma_address)`,
        `DROP INDEX quotes_transaction_id_key`,
        `CREATE TABLE scratch (id text)`
      ]
      const found = await k
        .transaction()
        .execute(async (trx) => {
          for (const statement of drift) await sql.raw(statement).execute(trx)
          throw await differences(trx, tables)
        })
        .catch((reported: unknown) => reported)
      assert.deepStrictEqual(found, [
        "scratch: a table no description has",
        "tokens.name: nullable, described as required",
        "tokens.environment: character varying(20), described as text (text)",
        "tokens.nickname: a column the description lacks",
        "customers.pep_status: described, not created",
        "customers: unique index customers_uma_address_key on (uma_address) WHERE null, described on (uma_address) WHERE (NOT is_deleted)",
        "quotes.created_at: collation default, described as instant",
        "quotes: no unique index quotes_transaction_id_key (key transactionId)"
      ])
      // And the rollback left the schema as the migrations made it.
      assert.deepStrictEqual(await differences(k, tables), [])
    }))

  // The one list of states a migration spells out: the expiry worker's partial index must hold exactly the quotes
  // the quote machine lets expire (a state added to the machine needs a migration that rebuilds the index).
  it("the quote expiry index covers exactly the states the quote machine lets expire", () =>
    migrated(async (k) => {
      const { indexes } = await catalog(k)
      const predicate = indexes.find((i) => i.index === "quotes_expiry_idx")?.predicate ?? ""
      const named = [...predicate.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]).sort()
      assert.deepStrictEqual(named, [...expirableQuoteStates].sort())
    }))
})

/**
 * `open` gives `count` Kyselys on one fresh, empty database (a new schema on the server, a new PGlite), `test` runs
 * on them, then they are closed and the schema dropped.
 */
const onFreshDatabase = async <A>(count: number, test: (ks: ReadonlyArray<Kysely<any>>) => Promise<A>): Promise<A> => {
  const url = process.env.DATABASE_URL
  if (url === undefined || url === "") {
    const k = makePgliteKysely(pgliteConfig())
    try {
      return await test(Array.from({ length: count }, () => k))
    } finally {
      await k.destroy()
    }
  }
  const schema = `${db.schema}_fresh_${Math.random().toString(36).slice(2, 8)}`
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    await client.query(statement).finally(() => client.end())
  }
  await admin(`CREATE SCHEMA ${schema}`)
  const ks = Array.from({ length: count }, () => makePgKysely({ connectionString: url, schema, max: 2 }))
  try {
    return await test(ks)
  } finally {
    await Promise.all(ks.map((k) => k.destroy()))
    await admin(`DROP SCHEMA ${schema} CASCADE`)
  }
}

/**
 * Kysely's Migrator (the earlier runner) applying `names` in `schema`. It looks for its tables through an
 * introspection of every schema of the database, whose `pg_get_serial_sequence(<schema>.<table>)` fails when another
 * test file drops its schema at that moment (once in CI): here it looks in `schema` only.
 */
const earlierMigrator = (db: Kysely<any>, schema: string, names: ReadonlyArray<string>): Migrator => {
  const introspection = {
    getSchemas: () => db.introspection.getSchemas(),
    getTables: async () =>
      (
        await sql<{ name: string; schema: string }>`SELECT c.relname AS name, n.nspname AS schema FROM pg_class c
          JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ${schema} AND c.relkind IN ('r', 'p')`.execute(
          db
        )
      ).rows.map((t) => ({ ...t, isView: false, columns: [] }))
  }
  // The Kysely instance with that introspection; its methods keep their own `this` (they use private fields).
  const scoped = new Proxy(db, {
    get: (target, property) => {
      if (property === "introspection") return introspection
      const value = Reflect.get(target, property, target)
      return typeof value === "function" ? value.bind(target) : value
    }
  })
  return new Migrator({
    db: scoped,
    provider: { getMigrations: async () => Object.fromEntries(names.map((n) => [n, migrations[n]!])) },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: "paycore_migrations_lock",
    migrationTableSchema: schema
  })
}

const names = Object.keys(migrations).sort()
const applied = async (k: Kysely<any>) =>
  (await sql<{ name: string }>`SELECT name FROM ${sql.table(MIGRATION_TABLE)} ORDER BY name`.execute(k)).rows.map(
    (row) => row.name
  )

/** `db` migrated by the earlier runner up to the migration before `name`, to put rows in that `name` then changes. */
const migratedBefore = async (db: Kysely<any>, name: string) => {
  const schema = (await sql<{ s: string }>`SELECT current_schema() AS s`.execute(db)).rows[0]?.s as string
  const earlier = earlierMigrator(db, schema, names.slice(0, names.indexOf(name)))
  assert.strictEqual((await earlier.migrateToLatest()).error, undefined)
}

describe(`the migration runner (${db.kind})`, () => {
  it("instances migrating one fresh database together: one applies every migration, the others none", () =>
    onFreshDatabase(4, async (ks) => {
      const results = await Promise.all(ks.map((k) => migrate(k)))
      assert.deepStrictEqual(results.map((r) => r.length).sort(), [0, 0, 0, names.length])
      assert.deepStrictEqual(await applied(ks[0] as Kysely<any>), names)
      assert.deepStrictEqual(await differences(ks[0] as Kysely<any>, tables), [])
    }))

  it("a database the earlier runner (Kysely's Migrator, same table) half migrated carries on from where it stopped", () =>
    onFreshDatabase(1, async ([k]) => {
      const db = k as Kysely<any>
      const schema = (await sql<{ s: string }>`SELECT current_schema() AS s`.execute(db)).rows[0]?.s as string
      const earlier = earlierMigrator(db, schema, names.slice(0, 5))
      assert.strictEqual((await earlier.migrateToLatest()).error, undefined)
      assert.deepStrictEqual(await migrate(db), names.slice(5))
      assert.deepStrictEqual(await applied(db), names)
    }))

  it("L-19: 0025 turns a stored list of currency codes into PlatformCurrencyConfig objects, in order, with the defaults", () =>
    onFreshDatabase(1, async ([k]) => {
      const db = k as Kysely<any>
      await migratedBefore(db, "0025_currency_configs")
      await sql`INSERT INTO platform_config (singleton, id, uma_domain, supported_currencies,
        is_regulated_financial_institution, skip_verification_paperwork, fee_configs, transaction_limits,
        created_at, updated_at)
        VALUES (true, 'PlatformConfig:old', 'old.example', ARRAY['MXN', 'USD'], false, false, '[]', '[]',
        now(), now())`.execute(db)
      await migrate(db)
      const row = (await sql<{ c: unknown }>`SELECT supported_currencies AS c FROM platform_config`.execute(db)).rows[0]
      const settings = (code: string) => ({
        currencyCode: code,
        minAmount: 1,
        maxAmount: 9_000_000_000_000_000,
        requiredCounterpartyFields: [],
        enabledTransactionTypes: ["OUTGOING", "INCOMING"]
      })
      assert.deepStrictEqual(row?.c, [settings("MXN"), settings("USD")])
    }))

  it("issue 34: 0031 copies every transaction's status and due instant into transaction_lookups", () =>
    onFreshDatabase(1, async ([k]) => {
      const db = k as Kysely<any>
      await migratedBefore(db, "0031_transaction_lookups")
      const codec = rowCodecOf(described.transactions)
      const rows = [transaction(1), transaction(2, { dueAt: undefined })]
      for (const row of rows) await db.executeQuery(CompiledQuery.raw(insertSql(codec), codec.params(row)))
      await migrate(db)
      const copied = await sql<{ id: string; status: string; due_at: string | null }>`
        SELECT id, status, due_at FROM transaction_lookups ORDER BY id`.execute(db)
      assert.deepStrictEqual(
        copied.rows,
        rows.map((r) => ({ id: r.id, status: r.transaction.status, due_at: r.dueAt ?? null }))
      )
    }))

  it("a database migrated by a newer version is refused, and nothing is applied", () =>
    onFreshDatabase(1, async ([k]) => {
      const db = k as Kysely<any>
      await migrate(db)
      await sql`INSERT INTO ${sql.table(MIGRATION_TABLE)} (name, timestamp) VALUES ('9999_future', '2030-01-01')`.execute(
        db
      )
      await sql`DELETE FROM ${sql.table(MIGRATION_TABLE)} WHERE name = ${names.at(-1)}`.execute(db)
      const refused = await migrate(db).then(
        () => "migrated",
        (error: Error) => error.message
      )
      assert.match(refused, /has migrations this version does not know \(9999_future\)/)
      assert.deepStrictEqual(await applied(db), [...names.slice(0, -1), "9999_future"])
    }))

  // The earlier runner listed every table of every schema, so a schema dropped meanwhile by another tenant of the
  // server failed it ("schema … does not exist"): test files dropping theirs failed others' starts in CI.
  it.skipIf(db.kind !== "pg")(
    "schemas created and dropped meanwhile on the same server do not disturb it",
    async () => {
      const url = process.env.DATABASE_URL as string
      const churn = new pg.Client({ connectionString: url })
      await churn.connect()
      let stop = false
      const churning = (async () => {
        for (let i = 0; !stop; i++) {
          const name = `${db.schema}_churn_${i}`
          await churn.query(`CREATE SCHEMA ${name}; CREATE TABLE ${name}.t (id serial primary key)`)
          await churn.query(`DROP SCHEMA ${name} CASCADE`)
        }
      })()
      try {
        for (let i = 0; i < 5; i++) {
          await onFreshDatabase(1, async ([k]) =>
            assert.strictEqual((await migrate(k as Kysely<any>)).length, names.length)
          )
        }
      } finally {
        stop = true
        await churning
        await churn.end()
      }
    }
  )
})
