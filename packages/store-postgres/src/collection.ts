import type { Collection, DueCursor, DuePage, DueQueue, Page, PageRequest, UniqueViolation } from "@paycore/core"
import { StoreError, toPage } from "@paycore/core"
import type { Table } from "@paycore/store-tables"
import { Effect } from "effect"
import { type RowCodec, rowCodecOf } from "./codec.ts"
import { uniqueViolation } from "./driver-errors.ts"
import { Filter, insertSql, notDeleted, upsertSql, whereOf } from "./queries.ts"
import type { Row } from "./sql.ts"
import { affected, type Executor } from "./statements.ts"

/** The most parameters PostgreSQL takes in one statement (the protocol counts them in 16 bits). */
const MAX_PARAMS = 65_535

export interface UniqueKey<T, U extends string> {
  /** The port's name of the key. */
  readonly index: U
  readonly column: string
  /** The unique index (a violation of it is a `UniqueViolation` of `index`). */
  readonly constraint: string
  /** The key's value in a row; `undefined` when the row does not hold it (a deleted customer). */
  readonly value: (row: T) => string | undefined
  /** Only rows meeting this condition hold the key (`alias` names the row). */
  readonly holds?: (alias: string) => string
}

/** The unique keys of a described table. */
const uniqueKeysOf = <T, U extends string>(table: Table<T, any, U>): ReadonlyArray<UniqueKey<T, U>> =>
  table.unique.map((u) => {
    const read = u.column.read
    const unless = u.unless
    const value = (row: T): string | undefined => {
      if (unless !== undefined && unless.read(row) === true) return undefined
      const v = read(row)
      return typeof v === "string" ? v : undefined
    }
    return {
      index: u.name,
      column: u.column.name,
      constraint: u.index,
      value,
      ...(unless === undefined ? {} : { holds: (alias: string) => notDeleted(unless, alias) })
    }
  })

/** The condition that a row's copy in the narrow table `lookups` meets `conditions`. */
const looksUp = (lookups: string, conditions: ReadonlyArray<string>): string =>
  `id IN (SELECT id FROM ${lookups} WHERE ${conditions.join(" AND ")})`

/**
 * Rows of a list page: the filter's count and up to `limit + 1` rows after the cursor, in one statement. Conditions
 * on looked-up columns read `lookups` (the cursor too, so that its index is read from the cursor on).
 */
export const pageOf = <T extends { readonly id: string }>(
  x: Executor,
  table: string,
  lookups: string | undefined,
  decode: (row: Row) => T,
  filter: Filter,
  page: PageRequest
): Effect.Effect<Page<T>, StoreError> => {
  // Conditions on looked-up columns exist only for a table with lookups (see `whereOf`).
  const looked = filter.lookupConditions
  const narrow = looked.length > 0 ? lookups : undefined
  const conditions = narrow === undefined ? filter.conditions : [...filter.conditions, looksUp(narrow, looked)]
  const where = conditions.length === 0 ? "true" : conditions.join(" AND ")
  const asc = page.sortOrder === "asc"
  const after = page.after === undefined ? undefined : `id ${asc ? ">" : "<"} ${filter.param(page.after)}`
  const cursor =
    after === undefined
      ? ""
      : ` AND ${after}${narrow === undefined ? "" : ` AND ${looksUp(narrow, [...looked, after])}`}`
  const limit = filter.param(page.limit + 1)
  // Filtered by looked-up columns only: counted in the narrow table, which has a row for each of the table's.
  const counted =
    narrow !== undefined && filter.conditions.length === 0
      ? `${narrow} WHERE ${looked.join(" AND ")}`
      : `${table} WHERE ${where}`
  const text =
    `SELECT c.total, p.* FROM (SELECT count(*) AS total FROM ${counted}) AS c ` +
    `LEFT JOIN LATERAL (SELECT * FROM ${table} WHERE ${where}${cursor} ` +
    `ORDER BY id ${asc ? "ASC" : "DESC"} LIMIT ${limit}) AS p ON true`
  return Effect.map(x.queryAdHoc(text, filter.params), (rows) => {
    const first = rows[0]
    const total = first === undefined ? 0 : Number(first.total)
    const data = first === undefined || first.id === null ? [] : rows.map(decode)
    return toPage(data, page.limit, total)
  })
}

/**
 * A page of a due walk: rows of the filter with a due instant in `column`, after the cursor in the order of
 * `(column, id)`, which the table's due index holds, so that the page reads its own rows only (no count). A table
 * with `lookups` (which then hold the column) is walked by that table's due index, each row read by its id.
 */
const duePageOf = <T>(
  x: Executor,
  table: string,
  lookups: string | undefined,
  column: string,
  decode: (row: Row) => T,
  filter: Filter,
  limit: number,
  after: DueCursor | undefined
): Effect.Effect<DuePage<T>, StoreError> => {
  const due = lookups === undefined ? filter.conditions : filter.lookupConditions
  due.push(`${column} IS NOT NULL`)
  if (after !== undefined) due.push(`(${column}, id) > (${filter.param(after.dueAt)}, ${filter.param(after.id)})`)
  const text =
    lookups === undefined
      ? `SELECT * FROM ${table} WHERE ${due.join(" AND ")} ORDER BY ${column}, id LIMIT ${filter.param(limit + 1)}`
      : `SELECT r.* FROM (SELECT id, ${column} FROM ${lookups} WHERE ${due.join(" AND ")}) AS l ` +
        `CROSS JOIN LATERAL (SELECT * FROM ${table} WHERE ${["id = l.id", ...filter.conditions].join(" AND ")}) AS r ` +
        `ORDER BY l.${column}, l.id LIMIT ${filter.param(limit + 1)}`
  return Effect.map(x.queryAdHoc(text, filter.params), (rows) => {
    const last = rows.length > limit ? rows[limit - 1] : undefined
    return {
      data: (rows.length > limit ? rows.slice(0, limit) : rows).map(decode),
      next: last === undefined ? undefined : { dueAt: last[column] as string, id: last.id as string }
    }
  })
}

/** The fixed statements of a collection (built once per store). */
const statementsOf = <T, U extends string>(codec: RowCodec<T>, uniques: ReadonlyArray<UniqueKey<T, U>>) => {
  const { table, columns } = codec
  const keyTaken = (alias: string, other: string) =>
    uniques
      .map((u) =>
        [`${alias}.${u.column} = ${other}.${u.column}`, ...(u.holds ? [u.holds(alias), u.holds(other)] : [])].join(
          " AND "
        )
      )
      .join(" OR ")
  const insertManyTexts = new Map<number, string>()
  return {
    // A new row: any unique key taken (the id too) writes nothing, and the transaction goes on (as in memory).
    insert: insertSql(codec),
    // `update` writes the row whether or not it exists (as the memory store does); a unique key that
    // another row holds leaves the row as it was.
    update:
      upsertSql(codec, ["id"]) +
      (uniques.length === 0
        ? ""
        : ` WHERE NOT EXISTS (SELECT 1 FROM ${table} AS other WHERE other.id <> EXCLUDED.id AND (${keyTaken("other", "EXCLUDED")}))`),
    get: `SELECT * FROM ${table} WHERE id = $1`,
    lock: `SELECT * FROM ${table} WHERE id = $1 FOR UPDATE`,
    share: `SELECT * FROM ${table} WHERE id = $1 FOR SHARE`,
    idTaken: `SELECT 1 FROM ${table} WHERE id = $1`,
    byIndex: new Map(
      uniques.map((u) => {
        const holds = u.holds ? ` AND ${u.holds("r")}` : ""
        return [
          u.index,
          {
            key: u,
            find: `SELECT * FROM ${table} AS r WHERE r.${u.column} = $1${holds}`,
            taken: `SELECT 1 FROM ${table} AS r WHERE r.${u.column} = $1 AND r.id <> $2${holds} LIMIT 1`
          }
        ] as const
      })
    ),
    constraints: new Map<string, string>([
      [`${table}_pkey`, "id"],
      ...uniques.map((u) => [u.constraint, u.index] as const)
    ]),
    // `insertMany`: rows in multi-row INSERTs of up to MAX_PARAMS parameters (one text, so one prepared statement,
    // per row count); a row whose key is taken writes nothing, and RETURNING says which rows were written.
    rowsPerStatement: Math.floor(MAX_PARAMS / columns.length),
    insertMany: (rows: number): string => {
      let text = insertManyTexts.get(rows)
      if (text === undefined) {
        const tuples = Array.from(
          { length: rows },
          (_, r) => `(${columns.map((_, i) => `$${r * columns.length + i + 1}`).join(", ")})`
        )
        text = `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${tuples.join(", ")} ON CONFLICT DO NOTHING RETURNING id`
        insertManyTexts.set(rows, text)
      }
      return text
    },
    deleteMany: `DELETE FROM ${table} WHERE id = ANY($1::text[])`
  }
}

/** A key that two of `rows` hold (checked before anything is sent: the database would refuse it too). */
const repeatedKey = <T extends { readonly id: string }, U extends string>(
  rows: ReadonlyArray<T>,
  uniques: ReadonlyArray<UniqueKey<T, U>>
): UniqueViolation | undefined => {
  const keys = [{ index: "id", value: (row: T): string | undefined => row.id }, ...uniques]
  for (const key of keys) {
    const seen = new Set<string>()
    for (const row of rows) {
      const value = key.value(row)
      if (value === undefined) continue
      if (seen.has(value)) return uniqueViolation(key.index)
      seen.add(value)
    }
  }
  return undefined
}

/** A collection (see the port's `Collection`) of `codec`'s rows; `where` writes a list's WHERE. */
const collectionOf = <T extends { readonly id: string }, F, U extends string>(
  x: Executor,
  codec: RowCodec<T>,
  where: (filter: F, w: Filter) => void,
  uniques: ReadonlyArray<UniqueKey<T, U>>,
  lookups: string | undefined
): Collection<T, F, U> => {
  const { table, decode } = codec
  const sql = statementsOf(codec, uniques)
  const first = (rows: Array<Row>): T | undefined => (rows.length === 0 ? undefined : decode(rows[0]!))

  /** Which key another row holds, after a write that wrote nothing. */
  const violation = (row: T, idToo: boolean): Effect.Effect<UniqueViolation | undefined, StoreError> =>
    Effect.gen(function* () {
      if (idToo && (yield* x.query(sql.idTaken, [row.id])).length > 0) return uniqueViolation("id")
      for (const { key, taken } of sql.byIndex.values()) {
        const value = key.value(row)
        if (value !== undefined && (yield* x.query(taken, [value, row.id])).length > 0) {
          return uniqueViolation(key.index)
        }
      }
      return undefined
    })

  const write = (
    text: string,
    row: T,
    idToo: boolean,
    attempt: number
  ): Effect.Effect<void, StoreError | UniqueViolation> =>
    Effect.flatMap(x.execute(text, codec.params(row), sql.constraints), (result) => {
      if (affected(result) > 0) return Effect.void
      return Effect.flatMap(violation(row, idToo), (found) => {
        if (found !== undefined) return Effect.fail(found)
        // The row holding the key changed meanwhile (a customer deleted): write again.
        if (attempt < 3) return write(text, row, idToo, attempt + 1)
        return Effect.fail(new StoreError({ message: `${table} ${row.id}: write refused`, retryable: true }))
      })
    })

  /** In a transaction: the rows all written, or, when a key is taken, the rows written taken back. */
  const insertAll = (rows: ReadonlyArray<T>, attempt: number): Effect.Effect<void, StoreError | UniqueViolation> =>
    Effect.gen(function* () {
      const written = new Set<string>()
      for (let start = 0; start < rows.length; start += sql.rowsPerStatement) {
        const chunk = rows.slice(start, start + sql.rowsPerStatement)
        const params = chunk.flatMap(codec.params)
        for (const row of (yield* x.execute(sql.insertMany(chunk.length), params, sql.constraints)).rows) {
          written.add(row.id)
        }
      }
      if (written.size === rows.length) return
      yield* x.write(sql.deleteMany, [[...written]])
      for (const row of rows) {
        if (written.has(row.id)) continue
        const found = yield* violation(row, true)
        if (found !== undefined) return yield* Effect.fail(found)
      }
      // The row holding the key changed meanwhile (a customer deleted): write again.
      if (attempt < 3) return yield* insertAll(rows, attempt + 1)
      return yield* new StoreError({ message: `${table}: write of ${rows.length} rows refused`, retryable: true })
    })

  return {
    get: (id) => Effect.map(x.query(sql.get, [id]), first),
    getForUpdate: (id) => x.locking([`${table}:${id}`], Effect.map(x.query(sql.lock, [id]), first)),
    // Members of a group that only read the row share it (a shared lock, see `locking`); one that locks it to change
    // it fails the group.
    getForShare: (id) => x.locking([`${table}:${id}`], Effect.map(x.query(sql.share, [id]), first), false, true),
    findUnique: (index, value) => {
      const found = sql.byIndex.get(index)
      return found === undefined ? Effect.succeed(undefined) : Effect.map(x.query(found.find, [value]), first)
    },
    insert: (row) => write(sql.insert, row, true, 1),
    insertMany: (rows) => {
      if (rows.length === 0) return Effect.void
      const repeated = repeatedKey(rows, uniques)
      // Its own transaction outside one: the rows written before a taken key must be taken back unseen.
      return repeated === undefined ? x.transaction(insertAll(rows, 1)) : Effect.fail(repeated)
    },
    // Without a unique key but the id, which it writes over, nothing can refuse an update: no answer to wait for.
    update:
      uniques.length === 0 ? (row) => x.run(sql.update, codec.params(row)) : (row) => write(sql.update, row, false, 1),
    list: (filter, page) => {
      const w = new Filter()
      where(filter, w)
      return pageOf(x, table, lookups, decode, w, page)
    }
  }
}

/** The collection of a described table: its codec, list filters and unique keys derived from the description. */
export const makeCollection = <T extends { readonly id: string }, F, U extends string>(
  x: Executor,
  table: Table<T, F, U>
): Collection<T, F, U> => collectionOf(x, rowCodecOf(table), whereOf(table), uniqueKeysOf(table), table.lookups?.name)

/** `makeCollection`, and the due walk of a table described with a queue. */
export const makeQueue = <T extends { readonly id: string }, F, U extends string>(
  x: Executor,
  table: Table<T, F, U>
): Collection<T, F, U> & DueQueue<T, F> => {
  const queue = table.queue
  if (queue === undefined) throw new Error(`store-postgres: ${table.name} has no queue`)
  const codec = rowCodecOf(table)
  const where = whereOf(table)
  return {
    ...collectionOf(x, codec, where, uniqueKeysOf(table), table.lookups?.name),
    due: (filter, limit, after) => {
      const w = new Filter()
      where(filter, w)
      return duePageOf(x, table.name, table.lookups?.name, queue.name, codec.decode, w, limit, after)
    }
  }
}
