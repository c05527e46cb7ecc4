import type { Collection, DueCursor, DuePage, DueQueue, Page, PageRequest, UniqueViolation } from "@paycore/core"
import { toPage } from "@paycore/core"
import type { Table } from "@paycore/store-tables"
import { Effect } from "effect"
import { ChunkedMap } from "./chunked-map.ts"
import { type DueKey, dueIndexOf, uniqueIndexesOf, uniqueViolation } from "./indexes.ts"
import { matcherOf } from "./tables.ts"
import type { UndoJournal, UndoLog } from "./transaction.ts"

export interface CollectionSpec<T, F, U extends string> {
  /** The rows' description: its unique keys and its list's filters. */
  readonly table: Table<T, F, U>
  /** The due index of a worker's "due by" lists (see `DueKey`). */
  readonly due?: DueKey<T, F>
}

/** A collection, and the steps store methods that read and write several rows in one step use. */
export type MemoryCollection<T extends { readonly id: string }, F, U extends string = never> = Collection<T, F, U> &
  // Described tables with a queue only (the others throw).
  DueQueue<T, F> & {
    readonly rows: () => ReadonlyArray<T>
    /** Rows whose due key is at or before `bound`, by id (collections with a `due` index only). */
    readonly dueBy: (bound: string) => ReadonlyArray<T>
    /** `insert`, `get` and `update`, run now (for store methods that read and write several rows in one step). */
    readonly insertNow: (row: T) => UniqueViolation | undefined
    readonly getNow: (id: string) => T | undefined
    readonly updateNow: (row: T) => UniqueViolation | undefined
  }

/** A page of the due walk of `table` (see the port's `DueQueue`) among `candidates` (rows in any order). */
const duePageOf = <T extends { readonly id: string }>(
  table: Table<T, any, any>,
  candidates: ReadonlyArray<T>,
  matches: (row: T) => boolean,
  limit: number,
  after: DueCursor | undefined
): DuePage<T> => {
  const queue = table.queue
  if (queue === undefined) throw new Error(`memory store: ${table.name} has no queue`)
  const found: Array<{ readonly at: string; readonly row: T }> = []
  for (const row of candidates) {
    const at = queue.read(row) as string | undefined
    if (at === undefined || !matches(row)) continue
    if (after !== undefined && (at < after.dueAt || (at === after.dueAt && row.id <= after.id))) continue
    found.push({ at, row })
  }
  found.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.row.id < b.row.id ? -1 : 1))
  const last = found.length > limit ? found[limit - 1] : undefined
  return {
    data: found.slice(0, limit).map((f) => f.row),
    next: last === undefined ? undefined : { dueAt: last.at, id: last.row.id }
  }
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
    const uniques = uniqueIndexesOf(spec.table)

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

    const due = spec.due === undefined ? undefined : dueIndexOf(spec.due, byId.get, () => ids.length)

    /** Writes a row now (inside the running transaction's undo log); the violation, if any, writes nothing. */
    const writeNow = (row: T, existing: { row: T } | undefined): UniqueViolation | undefined => {
      const before = existing?.row
      const violation = uniques.check(row, before)
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
          uniques.reindex(row, undefined)
          due?.index(undefined, row)
        })
      } else {
        const previous = before!
        existing.row = row
        journal.remember(() => {
          existing.row = previous
          uniques.reindex(row, previous)
          due?.index(previous, row)
        })
      }
      uniques.reindex(before, row)
      due?.index(row, before)
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
        if (due === undefined) throw new Error("memory store: this collection has no due index")
        return (
          due.rows(bound) ??
          ids.flatMap((id) => {
            const row = byId.get(id)!
            const k = due.key(row)
            return k !== undefined && k <= bound ? [row] : []
          })
        )
      },
      get,
      getForUpdate: get,
      getForShare: get,
      findUnique: (index, value) =>
        Effect.sync(() => {
          const id = uniques.find(index, value)
          return id === undefined ? undefined : byId.get(id)
        }),
      insertNow,
      getNow: byId.get,
      updateNow: (row) => writeNow(row, slotOf(row.id)),
      insert: (row) => Effect.suspend(() => written(insertNow(row))),
      insertMany: (rows) => Effect.suspend(() => written(insertAllNow(rows))),
      // Without unique keys an update cannot be refused: one plain step.
      update: uniques.none
        ? (row) =>
            Effect.sync(() => {
              writeNow(row, slotOf(row.id))
            })
        : (row) => Effect.suspend(() => written(writeNow(row, slotOf(row.id)))),
      due: (filter, limit, after) =>
        Effect.sync(() => {
          const bound = due?.bound(filter)
          const candidates = (bound === undefined ? undefined : due!.rows(bound)) ?? ids.map((id) => byId.get(id)!)
          return duePageOf(spec.table, candidates, matcher(filter), limit, after)
        }),
      list: (filter: F, page: PageRequest) =>
        Effect.sync((): Page<T> => {
          const out: Array<T> = []
          const matches = matcher(filter)
          let total = 0
          const asc = page.sortOrder === "asc"
          const bound = due?.bound(filter)
          // A due-by filter walks the due index instead of every row (same rows, same order).
          const candidates = bound === undefined ? undefined : due!.rows(bound)
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
