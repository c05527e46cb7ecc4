import type { UniqueViolation } from "@paycore/core"
import type { Table } from "@paycore/store-tables"
import { ChunkedMap } from "./chunked-map.ts"
import { uniqueKeysOf } from "./tables.ts"

/*
 * The indexes of a memory collection beside its rows: unique keys (value → id), and the due index of the workers.
 */

export const uniqueViolation = (index: string): UniqueViolation => ({ _tag: "UniqueViolation", index })

/** The unique keys of a collection of `table`'s rows: each key's value → the id of the row holding it. */
export const uniqueIndexesOf = <T extends { readonly id: string }, U extends string>(table: Table<T, any, U>) => {
  const byName = new Map<string, ChunkedMap<string>>()
  // Each unique key once: its name, how a row gives its value, and the value → id map.
  const uniques = uniqueKeysOf(table).map(([name, key]) => {
    const index = new ChunkedMap<string>()
    byName.set(name, index)
    return { name, key, index }
  })
  return {
    /** No key but the id. */
    none: uniques.length === 0,
    /** A unique key `row` would take from another row (a key it already holds is not looked up again). */
    check: (row: T, before: T | undefined): UniqueViolation | undefined => {
      for (const { name, key, index } of uniques) {
        const value = key(row)
        if (value === undefined || (before !== undefined && key(before) === value)) continue
        const owner = index.get(value)
        if (owner !== undefined && owner !== row.id) return uniqueViolation(name)
      }
      return undefined
    },
    /** Moves the keys of a row from `before` (none: a new row) to `after` (none: a row taken back). */
    reindex: (before: T | undefined, after: T | undefined): void => {
      for (const { key, index } of uniques) {
        const old = before === undefined ? undefined : key(before)
        const next = after === undefined ? undefined : key(after)
        if (old !== undefined && old !== next) index.delete(old)
        if (next !== undefined && after !== undefined && old !== next) index.set(next, after.id)
      }
    },
    /** The id of the row holding `value` of key `name`. */
    find: (name: string, value: string): string | undefined => byName.get(name)?.get(value)
  }
}

/**
 * The memory twin of a database index on a due date, for the worker's "due by" lists: without it every
 * `processDue` pass scanned every row ever written (O(all rows) per pass, quadratic over a run).
 * `key` is a row's due instant (undefined: never due); `bound` is a filter's "due at or before" instant
 * (undefined: the filter cannot use the index). Every row matching a filter with a bound must have a
 * key at or before it; the filter still decides, so results are exactly those of a full scan.
 */
export interface DueKey<T, F> {
  readonly key: (row: T) => string | undefined
  readonly bound: (filter: F) => string | undefined
}

/** A binary min-heap of strings (due instants), earliest first. */
const makeKeyHeap = () => {
  const heap: Array<string> = []
  const push = (key: string) => {
    let i = heap.push(key) - 1
    while (i > 0) {
      const parent = (i - 1) >>> 1
      if (heap[parent]! <= key) break
      heap[i] = heap[parent]!
      i = parent
    }
    heap[i] = key
  }
  /** Takes out every key at or before `bound`. */
  const popUntil = (bound: string): Array<string> => {
    const out: Array<string> = []
    while (heap.length > 0 && heap[0]! <= bound) {
      out.push(heap[0]!)
      const last = heap.pop()!
      if (heap.length === 0) break
      let i = 0
      for (;;) {
        const left = 2 * i + 1
        if (left >= heap.length) break
        const right = left + 1
        const child = right < heap.length && heap[right]! < heap[left]! ? right : left
        if (heap[child]! >= last) break
        heap[i] = heap[child]!
        i = child
      }
      heap[i] = last
    }
    return out
  }
  return { push, popUntil }
}

/**
 * The due index: the ids of the rows due at each instant (exact: a row leaves its bucket when its key changes), and a
 * heap of the instants. Invariant: the key of every non-empty bucket is in the heap (a key whose bucket emptied stays
 * there until it comes up, then is dropped). Rows written in one command share instants, so the heap holds far fewer
 * keys than there are due rows. `rowOf` finds a row by id; `size` is how many rows the collection holds.
 */
export const dueIndexOf = <T extends { readonly id: string }, F>(
  due: DueKey<T, F>,
  rowOf: (id: string) => T | undefined,
  size: () => number
) => {
  const buckets = new Map<string, Set<string>>()
  const keys = makeKeyHeap()
  return {
    key: due.key,
    bound: due.bound,
    /** Moves a row from its bucket as `before` (none: a new row) to its bucket as `row` (none: a row taken back). */
    index: (row: T | undefined, before: T | undefined): void => {
      const key = row === undefined ? undefined : due.key(row)
      const old = before === undefined ? undefined : due.key(before)
      if (key === old) return
      const id = (row ?? before)!.id
      if (old !== undefined) {
        const bucket = buckets.get(old)
        if (bucket !== undefined) {
          bucket.delete(id)
          if (bucket.size === 0) buckets.delete(old)
        }
      }
      if (key !== undefined) {
        const bucket = buckets.get(key)
        if (bucket !== undefined) bucket.add(id)
        else {
          buckets.set(key, new Set([id]))
          keys.push(key)
        }
      }
    },
    /**
     * Rows whose due key is at or before `bound`, by id; `undefined` when that is a large part of all
     * rows (a plain scan in id order is then cheaper than sorting them). The instants with rows go back
     * into the heap: their rows stay due until they change.
     */
    rows: (bound: string): Array<T> | undefined => {
      const rows: Array<T> = []
      const kept = new Set<string>()
      for (const key of keys.popUntil(bound)) {
        const bucket = buckets.get(key)
        if (bucket === undefined || kept.has(key)) continue
        kept.add(key)
        for (const id of bucket) rows.push(rowOf(id)!)
      }
      for (const key of kept) keys.push(key)
      if (rows.length > size() / 4) return undefined
      return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    }
  }
}
