import type { ColumnKind, DescribedColumn, DescribedCondition, Table } from "@paycore/store-tables"
import type { RowCodec } from "./codec.ts"

/*
 * The statements store-postgres derives from a table's description (@paycore/store-tables): the fixed ones every
 * table of its kind shares, and the WHERE of a list. The row codec is in codec.ts.
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

/**
 * The WHERE clause of a list and its parameters (`$1`, `$2`, ... in the order they are added); the conditions on a
 * table's looked-up columns (`Table.lookups`) apart, for its narrow table.
 */
export class Filter {
  readonly conditions: Array<string> = []
  readonly lookupConditions: Array<string> = []
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
    case "present":
      return `${condition.column.name} IS ${value === true ? "NOT " : ""}NULL`
  }
}

/** Writes the WHERE of a list of `table` filtered by `filter`. */
export const whereOf =
  <F>(table: Table<any, F, any>) =>
  (filter: F, w: Filter): void => {
    const looked = new Set(table.lookups?.columns.map((c) => c.name))
    const add = (condition: DescribedCondition, value: unknown) => {
      const text = conditionSql(w, condition, value)
      const column = condition.op === "eqAny" ? condition.columns[0]! : condition.column
      if (looked.has(column.name)) w.lookupConditions.push(text)
      else w.where(text)
    }
    for (const condition of table.always) add(condition, undefined)
    for (const { name, condition } of table.filters) {
      const value = filter[name]
      if (condition.op === "includesDeleted") {
        if (value !== true) add(condition, undefined)
      } else if (value !== undefined) add(condition, value)
    }
  }
