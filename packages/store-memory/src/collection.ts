import type { Collection, Page, PageRequest, UniqueViolation } from "@paycore/core"
import { toPage } from "@paycore/core"
import type { Table } from "@paycore/store-tables"
import { Effect } from "effect"
import { ChunkedMap } from "./chunked-map.ts"
import { matcherOf, uniqueKeysOf } from "./tables.ts"
import type { UndoJournal, UndoLog } from "./transaction.ts"

export interface CollectionSpec<T, F, U extends string> {
  /** The rows' description: its unique keys and its list's filters. */
  readonly table: Table<T, F, U>
  /**
   * The memory twin of a database index on a due date, for the worker's "due by" lists: without it every
   * `processDue` pass scanned every row ever written (O(all rows) per pass, quadratic over a run).
   * `key` is a row's due instant (undefined: never due); `bound` is a filter's "due at or before" instant
   * (undefined: the filter cannot use the index). Every row matching a filter with a bound must have a
   * key at or before it; the filter still decides, so results are exactly those of a full scan.
   */
  readonly due?: {
    readonly key: (row: T) => string | undefined
    readonly bound: (filter: F) => string | undefined
  }
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

export const uniqueViolation = (index: string): UniqueViolation => ({ _tag: "UniqueViolation", index })

/** A collection, and the steps store methods that read and write several rows in one step use. */
export type MemoryCollection<T extends { readonly id: string }, F, U extends string = never> = Collection<T, F, U> & {
  readonly rows: () => ReadonlyArray<T>
  /** Rows whose due key is at or before `bound`, by id (collections with a `due` index only). */
  readonly dueBy: (bound: string) => ReadonlyArray<T>
  /** `insert`, `get` and `update`, run now (for store methods that read and write several rows in one step). */
  readonly insertNow: (row: T) => UniqueViolation | undefined
  readonly getNow: (id: string) => T | undefined
  readonly updateNow: (row: T) => UniqueViolation | undefined
}

/** Makes the collections of one store: their writes are remembered in its `journal`. */
export const collectionsOf =
  (journal: UndoJournal) =>
  <T extends { readonly id: string }, F, U extends string>(
    spec: CollectionSpec<T, F, U>
  ): MemoryCollection<T, F, U> => {
    const matcher = matcherOf(spec.table)
    // Rows sorted by id; ids are time-ordered so inserts almost always append.
    const ids: Array<string> = []
    // Each row lives in a slot: an update replaces the slot's row without touching the (large) map, and
    // the slot last looked up is remembered, so a read-then-update (getForUpdate, then update) finds it
    // without a second map lookup.
    const slots = new ChunkedMap<{ row: T }>()
    // (Two variables rather than an `{ id, slot }` pair: no allocation per lookup.)
    let recentId: string | undefined
    let recentSlot: { row: T } | undefined
    const slotOf = (id: string): { row: T } | undefined => {
      if (recentId === id) return recentSlot
      const slot = slots.get(id)
      if (slot !== undefined) {
        recentId = id
        recentSlot = slot
      }
      return slot
    }
    const byId = { get: (id: string): T | undefined => slotOf(id)?.row }
    const indexes = new Map<string, ChunkedMap<string>>()
    // Each unique key once: its name, how a row gives its value, and the value → id map.
    const uniques = uniqueKeysOf(spec.table).map(([name, key]) => {
      const index = new ChunkedMap<string>()
      indexes.set(name, index)
      return { name, key, index }
    })

    const position = (id: string): number => {
      let lo = 0
      let hi = ids.length
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (ids[mid]! < id) lo = mid + 1
        else hi = mid
      }
      return lo
    }

    /** A unique key `row` would take from another row (a key it already holds is not looked up again). */
    const checkUnique = (row: T, before: T | undefined): UniqueViolation | undefined => {
      for (const { name, key, index } of uniques) {
        const value = key(row)
        if (value === undefined || (before !== undefined && key(before) === value)) continue
        const owner = index.get(value)
        if (owner !== undefined && owner !== row.id) return uniqueViolation(name)
      }
      return undefined
    }

    const reindex = (before: T | undefined, after: T | undefined) => {
      for (const { key, index } of uniques) {
        const old = before === undefined ? undefined : key(before)
        const next = after === undefined ? undefined : key(after)
        if (old !== undefined && old !== next) index.delete(old)
        if (next !== undefined && after !== undefined && old !== next) index.set(next, after.id)
      }
    }

    // The due index: the ids of the rows due at each instant (exact: a row leaves its bucket when its key
    // changes), and a heap of the instants. Invariant: the key of every non-empty bucket is in the heap
    // (a key whose bucket emptied stays there until it comes up, then is dropped). Rows written in one
    // command share instants, so the heap holds far fewer keys than there are due rows.
    const dueBuckets = spec.due === undefined ? undefined : new Map<string, Set<string>>()
    const dueKeys = makeKeyHeap()
    const indexDue = (row: T | undefined, before: T | undefined) => {
      if (dueBuckets === undefined) return
      const key = row === undefined ? undefined : spec.due!.key(row)
      const old = before === undefined ? undefined : spec.due!.key(before)
      if (key === old) return
      const id = (row ?? before)!.id
      if (old !== undefined) {
        const bucket = dueBuckets.get(old)
        if (bucket !== undefined) {
          bucket.delete(id)
          if (bucket.size === 0) dueBuckets.delete(old)
        }
      }
      if (key !== undefined) {
        const bucket = dueBuckets.get(key)
        if (bucket !== undefined) bucket.add(id)
        else {
          dueBuckets.set(key, new Set([id]))
          dueKeys.push(key)
        }
      }
    }

    /**
     * Rows whose due key is at or before `bound`, by id; `undefined` when that is a large part of all
     * rows (a plain scan in id order is then cheaper than sorting them). The instants with rows go back
     * into the heap: their rows stay due until they change.
     */
    const dueRows = (bound: string): Array<T> | undefined => {
      const rows: Array<T> = []
      const kept = new Set<string>()
      for (const key of dueKeys.popUntil(bound)) {
        const bucket = dueBuckets!.get(key)
        if (bucket === undefined || kept.has(key)) continue
        kept.add(key)
        for (const id of bucket) rows.push(byId.get(id)!)
      }
      for (const key of kept) dueKeys.push(key)
      if (rows.length > ids.length / 4) return undefined
      return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    }

    /** Writes a row now (inside the running transaction's undo log); the violation, if any, writes nothing. */
    const writeNow = (row: T, existing: { row: T } | undefined): UniqueViolation | undefined => {
      const before = existing?.row
      const violation = checkUnique(row, before)
      if (violation !== undefined) return violation
      if (existing === undefined) {
        // Ids are time-ordered: a new row almost always sorts last (no binary search, no splice).
        const last = ids[ids.length - 1]
        if (last === undefined || last < row.id) ids.push(row.id)
        else ids.splice(position(row.id), 0, row.id)
        const slot = { row }
        slots.set(row.id, slot)
        recentId = row.id
        recentSlot = slot
        journal.remember(() => {
          if (ids[ids.length - 1] === row.id) ids.pop()
          else ids.splice(position(row.id), 1)
          slots.delete(row.id)
          if (recentSlot === slot) {
            recentId = undefined
            recentSlot = undefined
          }
          reindex(row, undefined)
          indexDue(undefined, row)
        })
      } else {
        const previous = before!
        existing.row = row
        journal.remember(() => {
          existing.row = previous
          reindex(row, previous)
          indexDue(previous, row)
        })
      }
      reindex(before, row)
      indexDue(row, before)
      return undefined
    }
    const insertNow = (row: T): UniqueViolation | undefined => {
      // Ids are time-ordered: one after the last id cannot be taken (no lookup in a large map).
      const last = ids[ids.length - 1]
      if (last !== undefined && !(last < row.id) && slots.has(row.id)) return uniqueViolation("id")
      return writeNow(row, undefined)
    }
    /** Every row of `rows`, or none: a violation undoes the rows written before it (in or outside a transaction). */
    const insertAllNow = (rows: ReadonlyArray<T>): UniqueViolation | undefined => {
      const outer = journal.log
      const log: UndoLog = []
      journal.log = log
      try {
        for (const row of rows) {
          const violation = insertNow(row)
          if (violation !== undefined) {
            for (let i = log.length - 1; i >= 0; i--) log[i]!()
            return violation
          }
        }
      } finally {
        journal.log = outer
      }
      if (outer !== undefined) for (const action of log) outer.push(action)
      return undefined
    }
    const written = (violation: UniqueViolation | undefined): Effect.Effect<void, UniqueViolation> =>
      violation === undefined ? Effect.void : Effect.fail(violation)

    const get = (id: string) => Effect.sync(() => byId.get(id))
    return {
      rows: () => ids.map((id) => byId.get(id)!),
      dueBy: (bound: string): ReadonlyArray<T> => {
        if (dueBuckets === undefined) throw new Error("memory store: this collection has no due index")
        const key = spec.due!.key
        return (
          dueRows(bound) ??
          ids.flatMap((id) => {
            const row = byId.get(id)!
            const k = key(row)
            return k !== undefined && k <= bound ? [row] : []
          })
        )
      },
      get,
      getForUpdate: get,
      findUnique: (index, value) =>
        Effect.sync(() => {
          const id = indexes.get(index)?.get(value)
          return id === undefined ? undefined : byId.get(id)
        }),
      insertNow,
      getNow: byId.get,
      updateNow: (row) => writeNow(row, slotOf(row.id)),
      insert: (row) => Effect.suspend(() => written(insertNow(row))),
      insertMany: (rows) => Effect.suspend(() => written(insertAllNow(rows))),
      // Without unique keys an update cannot be refused: one plain step.
      update:
        uniques.length === 0
          ? (row) =>
              Effect.sync(() => {
                writeNow(row, slotOf(row.id))
              })
          : (row) => Effect.suspend(() => written(writeNow(row, slotOf(row.id)))),
      list: (filter: F, page: PageRequest) =>
        Effect.sync((): Page<T> => {
          const out: Array<T> = []
          const matches = matcher(filter)
          let total = 0
          const asc = page.sortOrder === "asc"
          const bound = spec.due?.bound(filter)
          // A due-by filter walks the due index instead of every row (same rows, same order).
          const candidates = bound === undefined ? undefined : dueRows(bound)
          const count = candidates === undefined ? ids.length : candidates.length
          for (let i = 0; i < count; i++) {
            const at = asc ? i : count - 1 - i
            const row = candidates === undefined ? byId.get(ids[at]!)! : candidates[at]!
            const id = row.id
            if (!matches(row)) continue
            total++
            const afterCursor = page.after === undefined || (asc ? id > page.after : id < page.after)
            if (afterCursor && out.length <= page.limit) out.push(row)
          }
          return toPage(out, page.limit, total)
        })
    }
  }

/** Every collection factory of one store (see `collectionsOf`). */
export type Collections = ReturnType<typeof collectionsOf>
