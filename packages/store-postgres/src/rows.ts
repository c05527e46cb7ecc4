import type { ColumnKind, DescribedColumn, DescribedCondition, Table } from "@paycore/store-tables"
import type { Row } from "./sql.ts"

/*
 * What store-postgres derives from a table's description (@paycore/store-tables): the row codec, the WHERE of a
 * list, and the fixed statements every table of its kind shares.
 */

/** The PostgreSQL type of each kind of column (what the migrations declare; see test/migrations.test.ts). */
export const sqlTypes: Readonly<Record<ColumnKind, { readonly type: string; readonly collation?: "C" }>> = {
  // Ids and instants compare by code point, as the memory store compares strings, whatever the database's collation.
  key: { type: "text", collation: "C" },
  instant: { type: "text", collation: "C" },
  text: { type: "text" },
  integer: { type: "integer" },
  smallint: { type: "smallint" },
  // Read back as JS numbers: see the int8 parsers in connection.ts.
  bigint: { type: "bigint" },
  double: { type: "double precision" },
  boolean: { type: "boolean" },
  json: { type: "jsonb" },
  textArray: { type: "text[]" }
}

/**
 * Records to rows and back. A decoder builds exactly the keys the record had, in the description's order: an
 * optional field is set only when its column is not NULL (never an `undefined` or `null` key), so a record
 * round-trips with `deepStrictEqual`. Rows are trusted (the store wrote them): no schema decoding per row.
 */
export interface RowCodec<T> {
  readonly table: string
  /** The columns a write sets, in the order of `params`. */
  readonly columns: ReadonlyArray<string>
  /** The values of `columns` in a record: the parameters of a prepared INSERT. */
  readonly params: (record: T) => Array<unknown>
  readonly decode: (row: Row) => T
}

/** A column's parameter: NULL for an absent field, JSON text for a JSONB column, the value itself otherwise. */
const encoderOf = (column: DescribedColumn): ((record: unknown) => unknown) => {
  const read = column.read
  if (column.kind === "json") {
    return (record) => {
      const value = read(record)
      return value === undefined ? null : JSON.stringify(value)
    }
  }
  return (record) => {
    const value = read(record)
    return value === undefined ? null : value
  }
}

/** Sets `value` at `path` in `target`, making the objects on the way (in the order they are first needed). */
const setterOf = (path: ReadonlyArray<string>): ((target: Record<string, any>, value: unknown) => void) => {
  const [a, b, c] = path as [string, string, string]
  switch (path.length) {
    case 1:
      return (t, v) => {
        t[a] = v
      }
    case 2:
      return (t, v) => {
        t[a] ??= {}
        t[a][b] = v
      }
    case 3:
      return (t, v) => {
        t[a] ??= {}
        t[a][b] ??= {}
        t[a][b][c] = v
      }
    default:
      return (t, v) => {
        let at = t
        for (const step of path.slice(0, -1)) at = at[step] ??= {}
        at[path[path.length - 1]!] = v
      }
  }
}

/** The codec of a described table: its fields' columns written, and read back into their places. */
export const rowCodecOf = <T>(table: Table<T, any, any>): RowCodec<T> => {
  const written = table.columns.filter((c) => c.role !== "generated")
  const encoders = written.map(encoderOf)
  const readBack = table.columns
    .filter((c) => c.role === "field")
    .map((c) => ({ name: c.name, optional: c.optional, setters: [c.path, ...c.alsoPaths].map(setterOf) }))
  return {
    table: table.name,
    columns: written.map((c) => c.name),
    params: (record) => {
      const values = new Array<unknown>(encoders.length)
      for (let i = 0; i < encoders.length; i++) values[i] = encoders[i]!(record)
      return values
    },
    decode: (row) => {
      const record: Record<string, unknown> = {}
      for (const column of readBack) {
        const value = row[column.name]
        if (value === null && column.optional) continue
        for (const set of column.setters) set(record, value)
      }
      // The description was checked against `T` (store-tables' `table`): every field has its column.
      return record as T
    }
  }
}

// ---- statements ----

/** `INSERT` of a row that writes nothing when a unique key (the primary key too) is taken. */
export const insertSql = (codec: Pick<RowCodec<unknown>, "table" | "columns">): string =>
  `INSERT INTO ${codec.table} (${codec.columns.join(", ")}) VALUES (${codec.columns.map((_, i) => `$${i + 1}`).join(", ")}) ON CONFLICT DO NOTHING`

/** `INSERT` of a row, or when one with the same `key` exists, every other column overwritten. */
export const upsertSql = (codec: Pick<RowCodec<unknown>, "table" | "columns">, key: ReadonlyArray<string>): string =>
  `INSERT INTO ${codec.table} (${codec.columns.join(", ")}) VALUES (${codec.columns.map((_, i) => `$${i + 1}`).join(", ")}) ` +
  `ON CONFLICT (${key.join(", ")}) DO UPDATE SET ${codec.columns
    .filter((c) => !key.includes(c))
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(", ")}`

// ---- lists ----

/** The WHERE clause of a list and its parameters (`$1`, `$2`, ... in the order they are added). */
export class Filter {
  readonly conditions: Array<string> = []
  readonly params: Array<unknown> = []

  param(value: unknown): string {
    this.params.push(value)
    return `$${this.params.length}`
  }
  where(condition: string): void {
    this.conditions.push(condition)
  }
}

/** Rows that are not deleted: the column (an optional instant, or a boolean) unset or false. */
export const notDeleted = (column: DescribedColumn, alias?: string): string => {
  const name = alias === undefined ? column.name : `${alias}.${column.name}`
  return column.kind === "boolean" ? `NOT ${name}` : `${name} IS NULL`
}

/** A condition with the filter's `value` (defined; `includesDeleted`: false), its parameters added to `w`. */
const conditionSql = (w: Filter, condition: DescribedCondition, value: unknown): string => {
  switch (condition.op) {
    case "eq":
      return `${condition.column.name} = ${w.param(value)}`
    case "in":
      return `${condition.column.name} = ANY(${w.param(value)}::text[])`
    // Strictly after / before, as the memory store (instants compare as strings).
    case "after":
      return `${condition.column.name} > ${w.param(value)}`
    case "before":
    case "below":
      return `${condition.column.name} < ${w.param(value)}`
    case "atOrBefore":
      return `${condition.column.name} <= ${w.param(value)}`
    case "contains":
      return `${condition.column.name} @> ARRAY[${w.param(value)}]::text[]`
    case "eqAny": {
      const p = w.param(value)
      return `(${condition.columns.map((c) => `${c.name} = ${p}`).join(" OR ")})`
    }
    case "includesDeleted":
      return notDeleted(condition.column)
    case "notEq":
      return `${condition.column.name} <> ${w.param(condition.value)}`
  }
}

/** Writes the WHERE of a list of `table` filtered by `filter`. */
export const whereOf =
  <F>(table: Table<any, F, any>) =>
  (filter: F, w: Filter): void => {
    for (const condition of table.always) w.where(conditionSql(w, condition, undefined))
    for (const { name, condition } of table.filters) {
      const value = filter[name]
      if (condition.op === "includesDeleted") {
        if (value !== true) w.where(conditionSql(w, condition, undefined))
      } else if (value !== undefined) w.where(conditionSql(w, condition, value))
    }
  }
