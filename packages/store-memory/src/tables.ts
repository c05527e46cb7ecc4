import type { DescribedColumn, DescribedCondition, Table } from "@paycore/store-tables"

/*
 * What store-memory derives from a table's description (@paycore/store-tables): the unique keys of a collection and
 * the predicates of its list's filters, the twins of store-postgres's unique indexes and WHERE clauses.
 */

/** A unique key's value in a row (`undefined`: the row does not hold the key, as a deleted customer). */
export type KeyOf<T> = (row: T) => string | undefined

/** The unique keys of `table`, by the port's name. */
export const uniqueKeysOf = <T, U extends string>(table: Table<T, any, U>): ReadonlyArray<readonly [U, KeyOf<T>]> =>
  table.unique.map((u) => {
    const read = u.column.read
    const unless = u.unless?.read
    const key = (row: T): string | undefined => {
      if (unless !== undefined && unless(row) === true) return undefined
      const value = read(row)
      return typeof value === "string" ? value : undefined
    }
    return [u.name, key] as const
  })

/** Whether a row is deleted: its column (an optional instant, or a boolean) set or true. */
const isDeleted = (column: DescribedColumn): ((row: unknown) => boolean) => {
  const read = column.read
  return column.kind === "boolean" ? (row) => read(row) === true : (row) => read(row) !== undefined
}

/** The predicate of one condition with the filter's `value` (defined; `includesDeleted`: false). */
const predicateOf = (condition: DescribedCondition, value: any): ((row: unknown) => boolean) => {
  if (condition.op === "eqAny") {
    const reads = condition.columns.map((c) => c.read)
    return (row) => reads.some((read) => read(row) === value)
  }
  const read = condition.column.read
  switch (condition.op) {
    case "eq":
      return (row) => read(row) === value
    case "in": {
      const values: ReadonlyArray<unknown> = value
      return (row) => values.includes(read(row))
    }
    // Strictly after / before (instants compare as strings, by code point), as PostgreSQL's COLLATE "C".
    case "after":
      return (row) => {
        const field = read(row)
        return typeof field === "string" && field > value
      }
    case "before":
      return (row) => {
        const field = read(row)
        return typeof field === "string" && field < value
      }
    case "below":
      return (row) => {
        const field = read(row)
        return typeof field === "number" && field < value
      }
    case "atOrBefore":
      return (row) => {
        const field = read(row)
        return typeof field === "string" && field <= value
      }
    case "contains":
      return (row) => {
        const field = read(row)
        return Array.isArray(field) && field.includes(value)
      }
    case "includesDeleted": {
      const deleted = isDeleted(condition.column)
      return (row) => !deleted(row)
    }
    case "notEq": {
      const fixed = condition.value
      return (row) => read(row) !== fixed
    }
    case "present":
      return value === true ? (row) => read(row) !== undefined : (row) => read(row) === undefined
  }
}

/** For a list's filter, the predicate of the rows it keeps (built once per list, applied to every row). */
export const matcherOf =
  <T, F>(table: Table<T, F, any>) =>
  (filter: F): ((row: T) => boolean) => {
    const checks: Array<(row: unknown) => boolean> = table.always.map((c) => predicateOf(c, undefined))
    for (const { name, condition } of table.filters) {
      const value = filter[name]
      if (condition.op === "includesDeleted") {
        if (value !== true) checks.push(predicateOf(condition, undefined))
      } else if (value !== undefined) checks.push(predicateOf(condition, value))
    }
    if (checks.length === 0) return () => true
    if (checks.length === 1) return checks[0]!
    return (row) => {
      for (const check of checks) if (!check(row)) return false
      return true
    }
  }
