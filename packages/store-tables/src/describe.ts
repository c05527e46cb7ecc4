/**
 * A stored resource described once, as a table: each field's column (name, kind, whether the field may be absent),
 * the unique keys the port reports, and what each of its list's filters compares. store-postgres derives its row
 * codec and its statements from a description, store-memory its unique indexes and filter predicates. The
 * PostgreSQL migrations stay explicit; a test of store-postgres checks them against the descriptions.
 *
 * `table<Record, Filter, UniqueKeys>()({...})` checks the description against the record's type: every column's
 * field exists, its kind can hold the field's values, and the column is optional exactly when the field may be
 * absent; every filter of `Filter` and every unique key of `UniqueKeys` is described. A column's key in
 * `columns` is the field's path in the record (`"quote.status"`, `"contactVerification.email"`).
 */

/** How a column holds its field (each kind is one PostgreSQL type: see store-postgres's `sqlTypes`). */
export type ColumnKind =
  /** Ids and other keys: text compared and ordered by code point (as JavaScript compares strings). */
  | "key"
  /** An ISO-8601 instant, as written (compared as a string, by code point). */
  | "instant"
  | "text"
  | "integer"
  | "smallint"
  | "bigint"
  | "double"
  | "boolean"
  /** Free-form nested parts (addresses, account details, ...): JSON. */
  | "json"
  | "textArray"

/** What a column is to its record. */
export type ColumnRole =
  /** Written from the record, read back into it. */
  | "field"
  /** A copy of part of another column, kept for a filter or an index: written, not read back. */
  | "copy"
  /** Computed by the database from other columns: never written, not read back. */
  | "generated"

export interface Column<K extends ColumnKind = ColumnKind, O extends boolean = boolean> {
  readonly name: string
  readonly kind: K
  /** The field may be absent: the column is nullable, and NULL reads back as an absent field. */
  readonly optional: O
  readonly role: ColumnRole
  /** Further fields the value is read back into (a record's id repeated in the resource it holds). */
  readonly also: ReadonlyArray<string>
}

const column =
  <K extends ColumnKind>(kind: K) =>
  (name: string): Column<K, false> => ({ name, kind, optional: false, role: "field", also: [] })

export const key = column("key")
export const instant = column("instant")
export const text = column("text")
export const integer = column("integer")
export const smallint = column("smallint")
export const bigint = column("bigint")
export const double = column("double")
export const boolean = column("boolean")
export const json = column("json")
export const textArray = column("textArray")

/** The field may be absent (the column is nullable). */
export const optional = <K extends ColumnKind>(c: Column<K, false>): Column<K, true> => ({ ...c, optional: true })
/** A copy of part of another column (see `ColumnRole`). */
export const copy = <C extends Column>(c: C): C => ({ ...c, role: "copy" })
/** Computed by the database (see `ColumnRole`). */
export const generated = <C extends Column>(c: C): C => ({ ...c, role: "generated" })
/** Also read back into `fields` (paths in the record). */
export const alsoAt = <C extends Column, const P extends ReadonlyArray<string>>(
  c: C,
  ...fields: P
): C & { readonly also: P } => ({ ...c, also: fields })

// ---- filters ----

/** What a list filter compares; `C` names columns by their key in the description. */
export type Condition<C extends string = string> =
  /** The column equals the filter's value. */
  | { readonly op: "eq"; readonly column: C }
  /** The column equals one of the filter's values (an array). */
  | { readonly op: "in"; readonly column: C }
  /** Strictly after / before the filter's value (instants compare as strings). */
  | { readonly op: "after" | "before"; readonly column: C }
  /** Present, and at or before the filter's value. */
  | { readonly op: "atOrBefore"; readonly column: C }
  /** Below the filter's value (a number). */
  | { readonly op: "below"; readonly column: C }
  /** The column (an array) holds the filter's value. */
  | { readonly op: "contains"; readonly column: C }
  /** One of the columns equals the filter's value. */
  | { readonly op: "eqAny"; readonly columns: ReadonlyArray<C> }
  /**
   * A flag: false leaves out deleted rows, those whose column is set (an optional instant such as `deletedAt`)
   * or true (a boolean such as `isDeleted`); true keeps every row.
   */
  | { readonly op: "includesDeleted"; readonly column: C }
  /** The column differs from a fixed value (a condition of every list, not a filter). */
  | { readonly op: "notEq"; readonly column: C; readonly value: string }
  /** A flag on an optional column: true keeps the rows where it is set, false those where it is not. */
  | { readonly op: "present"; readonly column: C }

export const eq = <const C extends string>(column: C) => ({ op: "eq", column }) as const
export const oneOf = <const C extends string>(column: C) => ({ op: "in", column }) as const
export const after = <const C extends string>(column: C) => ({ op: "after", column }) as const
export const before = <const C extends string>(column: C) => ({ op: "before", column }) as const
export const atOrBefore = <const C extends string>(column: C) => ({ op: "atOrBefore", column }) as const
export const below = <const C extends string>(column: C) => ({ op: "below", column }) as const
export const contains = <const C extends string>(column: C) => ({ op: "contains", column }) as const
export const eqAny = <const C extends string>(...columns: ReadonlyArray<C>) => ({ op: "eqAny", columns }) as const
export const includesDeleted = <const C extends string>(column: C) => ({ op: "includesDeleted", column }) as const
export const notEq = <const C extends string>(column: C, value: string) => ({ op: "notEq", column, value }) as const
export const present = <const C extends string>(column: C) => ({ op: "present", column }) as const

/** A unique key (`C`: a column's key in the description). */
export interface UniqueKey<C extends string = string> {
  readonly column: C
  /** Rows whose boolean column `unless` is true do not hold the key (a deleted customer frees its keys). */
  readonly unless?: C
  /** The unique index (default `<table>_<column>_key`). */
  readonly index?: string
}

// ---- the description ----

export interface TableSpec {
  readonly name: string
  /** The record's fields, by path, in the order a record read back lists its keys. */
  readonly columns: Readonly<Record<string, Column>>
  /** Columns that are no field of the record (an identity, a shard, ...): only the store's own statements use them. */
  readonly storeColumns?: Readonly<Record<string, Column>>
  readonly primaryKey: ReadonlyArray<string>
  readonly unique?: Readonly<Record<string, UniqueKey>>
  readonly filters?: Readonly<Record<string, Condition>>
  /** Conditions of every list. */
  readonly always?: ReadonlyArray<Condition>
  /** The instant a worker's walk of the rows goes by (the port's `DueQueue`: by it, then by id). */
  readonly queue?: string
  /**
   * Columns that change through a row's life and that lists or the queue look up by, copied by a store on a server
   * into the narrow table `name` (the row's id and these columns), where they are indexed: updates of the row itself
   * then change none of its own indexes. The queue's column, if any, is one of them.
   */
  readonly lookups?: { readonly name: string; readonly columns: ReadonlyArray<string> }
}

/** A described column, resolved. */
export interface DescribedColumn<T = any> extends Column {
  /** The field's path in the record (none for a store column). */
  readonly path: ReadonlyArray<string>
  /** The paths of `also`. */
  readonly alsoPaths: ReadonlyArray<ReadonlyArray<string>>
  /** The field's value in a record (`undefined` when absent; always for a store column). */
  readonly read: (record: T) => unknown
}

export type DescribedCondition<T = any> =
  | {
      readonly op:
        | "eq"
        | "in"
        | "after"
        | "before"
        | "atOrBefore"
        | "below"
        | "contains"
        | "includesDeleted"
        | "present"
      readonly column: DescribedColumn<T>
    }
  | { readonly op: "eqAny"; readonly columns: ReadonlyArray<DescribedColumn<T>> }
  | { readonly op: "notEq"; readonly column: DescribedColumn<T>; readonly value: string }

export interface DescribedUnique<T = any, U extends string = string> {
  /** The port's name of the key (a `UniqueViolation`'s `index`). */
  readonly name: U
  readonly column: DescribedColumn<T>
  readonly unless: DescribedColumn<T> | undefined
  readonly index: string
}

/** A stored resource `T` as table `name` (see the module's comment); `F` its list's filter, `U` its unique keys. */
export interface Table<T, F = {}, U extends string = never> {
  readonly name: string
  /** The fields' columns, in the description's order. */
  readonly columns: ReadonlyArray<DescribedColumn<T>>
  readonly storeColumns: ReadonlyArray<DescribedColumn<T>>
  readonly primaryKey: ReadonlyArray<DescribedColumn<T>>
  readonly unique: ReadonlyArray<DescribedUnique<T, U>>
  readonly filters: ReadonlyArray<{ readonly name: keyof F & string; readonly condition: DescribedCondition<T> }>
  readonly always: ReadonlyArray<DescribedCondition<T>>
  /** The column of the rows' due walk (see `TableSpec.queue`), if they have one. */
  readonly queue: DescribedColumn<T> | undefined
  /** The narrow table of the columns looked up by (see `TableSpec.lookups`), if the rows have one. */
  readonly lookups: { readonly name: string; readonly columns: ReadonlyArray<DescribedColumn<T>> } | undefined
}

/** Reads the value at `path` (`undefined` when a step is absent). */
export const readerOf = (path: ReadonlyArray<string>): ((record: any) => unknown) => {
  const [a, b, c] = path
  switch (path.length) {
    case 1:
      return (r) => r[a!]
    case 2:
      return (r) => r[a!]?.[b!]
    case 3:
      return (r) => r[a!]?.[b!]?.[c!]
    default:
      return (r) => path.reduce((value, step) => value?.[step], r)
  }
}

/** The column of `spec`'s due walk: an instant. */
const queueOf = (spec: TableSpec, columnOf: (key: string) => DescribedColumn): DescribedColumn | undefined => {
  if (spec.queue === undefined) return undefined
  const c = columnOf(spec.queue)
  if (c.kind !== "instant") throw new Error(`store-tables: ${spec.name}.${c.name}: a queue goes by an instant`)
  return c
}

/** The description of `spec`, resolved; throws when a condition or key does not fit its column. */
const build = (spec: TableSpec): Table<any, any, any> => {
  const byKey = new Map<string, DescribedColumn>()
  const describe = (field: string, c: Column, isField: boolean): DescribedColumn => {
    const path = isField ? field.split(".") : []
    const described: DescribedColumn = {
      ...c,
      path,
      alsoPaths: c.also.map((p) => p.split(".")),
      read: isField ? readerOf(path) : () => undefined
    }
    byKey.set(field, described)
    return described
  }
  const columns = Object.entries(spec.columns).map(([field, c]) => describe(field, c, true))
  const storeColumns = Object.entries(spec.storeColumns ?? {}).map(([name, c]) => describe(name, c, false))
  const columnOf = (key: string): DescribedColumn => {
    const found = byKey.get(key)
    if (found === undefined) throw new Error(`store-tables: ${spec.name} has no column ${key}`)
    return found
  }
  const resolve = (condition: Condition): DescribedCondition => {
    if (condition.op === "eqAny") return { op: "eqAny", columns: condition.columns.map(columnOf) }
    const c = columnOf(condition.column)
    const fits =
      condition.op === "contains"
        ? c.kind === "textArray"
        : condition.op === "includesDeleted"
          ? c.kind === "boolean" || c.optional
          : condition.op === "present"
            ? c.optional
            : c.kind !== "json" && c.kind !== "textArray"
    if (!fits) throw new Error(`store-tables: ${spec.name}.${c.name}: a ${c.kind} column cannot serve ${condition.op}`)
    return condition.op === "notEq"
      ? { op: "notEq", column: c, value: condition.value }
      : { op: condition.op, column: c }
  }
  const lookups =
    spec.lookups === undefined ? undefined : { name: spec.lookups.name, columns: spec.lookups.columns.map(columnOf) }
  // A condition reads its row's columns or its narrow table's, never both.
  const looked = new Set(lookups?.columns ?? [])
  const filters = Object.entries(spec.filters ?? {}).map(([name, condition]) => ({
    name,
    condition: resolve(condition)
  }))
  for (const { condition } of filters) {
    if (condition.op === "eqAny" && new Set(condition.columns.map((c) => looked.has(c))).size > 1) {
      throw new Error(`store-tables: ${spec.name}: a condition mixes looked-up columns with others`)
    }
  }
  const queue = queueOf(spec, columnOf)
  if (lookups !== undefined && queue !== undefined && !lookups.columns.includes(queue)) {
    throw new Error(`store-tables: ${spec.name}: the queue's column must be looked up with the others`)
  }
  return {
    name: spec.name,
    columns,
    storeColumns,
    primaryKey: spec.primaryKey.map(columnOf),
    unique: Object.entries(spec.unique ?? {}).map(([name, u]) => {
      const c = columnOf(u.column)
      const unless = u.unless === undefined ? undefined : columnOf(u.unless)
      if (unless !== undefined && unless.kind !== "boolean")
        throw new Error(`store-tables: ${spec.name}.${unless.name} is no boolean`)
      return { name, column: c, unless, index: u.index ?? `${spec.name}_${c.name}_key` }
    }),
    filters,
    always: (spec.always ?? []).map(resolve),
    queue,
    lookups
  }
}

// ---- checks of a description against its record's type ----

type Split<K extends string> = K extends `${infer H}.${infer R}` ? [H, ...Split<R>] : [K]

/** The type at `P` in `T`, over every member of a union (`undefined` where a member lacks the field). */
type At<T, P extends ReadonlyArray<string>> = P extends readonly [
  infer H extends string,
  ...infer R extends ReadonlyArray<string>
]
  ? T extends unknown
    ? H extends keyof T
      ? At<T[H], R>
      : undefined
    : never
  : T

/** The values a column of kind `K` holds. */
type ValueOf<K extends ColumnKind> = K extends "key" | "instant" | "text"
  ? string
  : K extends "integer" | "smallint" | "bigint" | "double"
    ? number
    : K extends "boolean"
      ? boolean
      : K extends "textArray"
        ? ReadonlyArray<string>
        : unknown

/** `true`, or why a column of kind `K` (optional: `O`) cannot hold field `F` of type `V`. */
type Fit<V, K extends ColumnKind, O extends boolean, F extends string> = [V] extends [undefined]
  ? `${F}: the record has no such field`
  : [NonNullable<V>] extends [ValueOf<K>]
    ? undefined extends V
      ? O extends true
        ? true
        : `${F}: the field may be absent, so its column must be optional`
      : O extends true
        ? `${F}: the field is always there, so its column must not be optional`
        : true
    : `${F}: a ${K} column cannot hold this field`

type CheckColumn<T, F extends string, C> =
  C extends Column<infer K, infer O>
    ? Fit<At<T, Split<F>>, K, O, F> extends infer Verdict
      ? Verdict extends true
        ? C
        : Verdict
      : never
    : never

/** Every key of any member of union `T`. */
type AllKeys<T> = T extends unknown ? keyof T & string : never

/** What follows `${K}.` in the keys `Keys`. */
type Below<Keys extends string, K extends string> = Keys extends `${K}.${infer R}` ? R : never

/** The fields of `T` (dotted paths) that no key of `Keys` covers: neither the field nor all of its own fields. */
type Missing<T, Keys extends string, Prefix extends string = ""> = {
  [K in AllKeys<T>]: K extends Keys
    ? never
    : [Below<Keys, K>] extends [never]
      ? `${Prefix}${K}`
      : Missing<NonNullable<At<T, [K]>>, Below<Keys, K>, `${Prefix}${K}.`>
}[AllKeys<T>]

/** The fields a description reads back: its columns' keys, and the fields they are also read into. */
type FieldKeys<S extends TableSpec> =
  | (keyof S["columns"] & string)
  | {
      [K in keyof S["columns"]]: S["columns"][K]["also"][number] extends infer P extends string
        ? string extends P
          ? never
          : P
        : never
    }[keyof S["columns"]]

type ColumnKeys<S extends TableSpec> = (keyof S["columns"] | keyof NonNullable<S["storeColumns"]>) & string

/** The conditions a filter field of type `V` can have. */
type ConditionFor<V, C extends string> = [V] extends [boolean]
  ? { readonly op: "includesDeleted" | "present" | "eq"; readonly column: C }
  : [V] extends [ReadonlyArray<string>]
    ? { readonly op: "in"; readonly column: C }
    : [V] extends [number]
      ? { readonly op: "below" | "eq"; readonly column: C }
      : Exclude<Condition<C>, { readonly op: "includesDeleted" | "in" | "below" | "notEq" | "present" }>

type Checked<T, F, U extends string, S extends TableSpec> = ([Missing<T, FieldKeys<S>>] extends [never]
  ? {}
  : { readonly "every field needs a column": `no column for ${Missing<T, FieldKeys<S>>}` }) & {
  readonly columns: { readonly [K in keyof S["columns"]]: CheckColumn<T, K & string, S["columns"][K]> }
  readonly primaryKey: ReadonlyArray<ColumnKeys<S>>
  readonly always?: ReadonlyArray<Condition<ColumnKeys<S>>>
  readonly queue?: ColumnKeys<S>
  readonly lookups?: { readonly name: string; readonly columns: ReadonlyArray<ColumnKeys<S>> }
} & ([U] extends [never]
    ? { readonly unique?: { readonly [key: string]: never } }
    : { readonly unique: { readonly [I in U]: UniqueKey<ColumnKeys<S>> } }) &
  ([keyof F] extends [never]
    ? { readonly filters?: { readonly [key: string]: never } }
    : { readonly filters: { readonly [K in keyof F]-?: ConditionFor<NonNullable<F[K]>, ColumnKeys<S>> } })

/**
 * Describes record `T` as a table (see the module's comment): `F` is its list's filter, `U` the port's names of its
 * unique keys. A description that does not fit `T`, `F` or `U` does not compile.
 */
export const table =
  <T, F = {}, U extends string = never>() =>
  <const S extends TableSpec>(spec: S & Checked<T, F, U, S>): Table<T, F, U> =>
    // `Checked` tied every column, filter and key to `T`, `F` and `U`; the resolved form is generic.
    build(spec)
