import { assert } from "@effect/vitest"
import { type DueQueue, decodeCursor, type Page } from "@paycore/core"
import { Effect } from "effect"
import type { ListFn } from "./ids.ts"

// ---------------------------------------------------------------------------------------------
// Assertions
// ---------------------------------------------------------------------------------------------

export const ids = (rows: ReadonlyArray<{ readonly id: string }>) => rows.map((r) => r.id)

/** `{ _tag: "UniqueViolation", index }` (other fields allowed); `index` unchecked when not given. */
export const assertUniqueViolation = (error: unknown, index?: string) => {
  const e = error as { readonly _tag?: unknown; readonly index?: unknown }
  assert.strictEqual(e._tag, "UniqueViolation", `expected a UniqueViolation, got ${JSON.stringify(error)}`)
  if (index !== undefined) assert.strictEqual(e.index, index, "the UniqueViolation names the unique key")
}

/** A page is consistent: at most `limit` rows; a full page with a cursor to its last row iff more follow. */
export const assertPageShape = <T extends { readonly id: string }>(page: Page<T>, limit: number) => {
  assert.isAtMost(page.data.length, limit, "no more rows than the limit")
  if (page.hasMore) {
    assert.strictEqual(page.data.length, limit, "a page followed by more rows is full")
    assert.isDefined(page.nextCursor, "a page followed by more rows has a cursor")
    assert.strictEqual(decodeCursor(page.nextCursor!), page.data[page.data.length - 1]!.id, "cursor of the last row")
  } else {
    assert.isUndefined(page.nextCursor, "the last page has no cursor")
  }
}

/** Every row of a page comes after the cursor (so paging makes progress and ends). */
export const assertAfterCursor = <T extends { readonly id: string }>(
  page: Page<T>,
  after: string,
  order: "asc" | "desc"
) => {
  for (const row of page.data) {
    const ok = order === "asc" ? row.id > after : row.id < after
    assert.isTrue(ok, `a page after ${after} (${order}) holds ${row.id}`)
  }
}

export const assertStrictlyOrdered = (list: ReadonlyArray<string>, order: "asc" | "desc") => {
  for (let i = 1; i < list.length; i++) {
    const ok = order === "asc" ? list[i - 1]! < list[i]! : list[i - 1]! > list[i]!
    assert.isTrue(ok, `rows ordered by id ${order} without repeats: ${list[i - 1]} then ${list[i]}`)
  }
}

/** The list gives exactly `expected`, in id order, with its total count; each row deep-equals its record. */
export const expectList = Effect.fnUntraced(function* <T extends { readonly id: string }, F>(
  list: ListFn<T, F>,
  filter: F,
  expected: ReadonlyArray<T>,
  message?: string
) {
  const note = message ?? JSON.stringify(filter)
  const asc = yield* list(filter, { limit: 100, sortOrder: "asc" })
  assert.deepStrictEqual(ids(asc.data), ids(expected), `ids of ${note}`)
  assert.deepStrictEqual(asc.data, expected, `rows of ${note}`)
  assert.strictEqual(asc.totalCount, expected.length, `totalCount of ${note}`)
  assert.isFalse(asc.hasMore, `hasMore of ${note}`)
})

/** Every row of the list, paging ascending; `totalCount` as the first page gave it. */
export const listAll = Effect.fnUntraced(function* <T extends { readonly id: string }, F>(
  list: ListFn<T, F>,
  filter: F
) {
  const rows: Array<T> = []
  let after: string | undefined
  let totalCount: number | undefined
  for (;;) {
    const page = yield* list(filter, { limit: 100, sortOrder: "asc", after })
    assertPageShape(page, 100)
    if (after !== undefined) assertAfterCursor(page, after, "asc")
    totalCount ??= page.totalCount
    rows.push(...page.data)
    const last = page.data[page.data.length - 1]
    if (!page.hasMore || last === undefined) break
    after = last.id
  }
  return { rows, totalCount: totalCount ?? 0 }
})

/**
 * A filter on a store that other tests share: every row it lists satisfies `predicate`, it lists the
 * `included` rows and not the `excluded` ones, in id order, and `totalCount` counts them all.
 */
export const expectFiltered = Effect.fnUntraced(function* <T extends { readonly id: string }, F>(
  list: ListFn<T, F>,
  filter: F,
  predicate: (row: T) => boolean,
  rows: { readonly included: ReadonlyArray<T>; readonly excluded: ReadonlyArray<T> }
) {
  const note = JSON.stringify(filter)
  const all = yield* listAll(list, filter)
  for (const row of all.rows) assert.isTrue(predicate(row), `${row.id} does not satisfy ${note}`)
  const listed = new Set(ids(all.rows))
  for (const row of rows.included) assert.isTrue(listed.has(row.id), `${note} lists ${row.id}`)
  for (const row of rows.excluded) assert.isFalse(listed.has(row.id), `${note} leaves out ${row.id}`)
  assertStrictlyOrdered(ids(all.rows), "asc")
  assert.strictEqual(all.totalCount, all.rows.length, `totalCount of ${note}`)
})

/**
 * A worker's walk of a due queue, `limit` rows a page: pages of at most `limit` rows, a full one with the cursor of
 * its last row iff more follow, rows earliest due first then by id and none twice. The rows walked are exactly
 * `expected`, in that order (each deep-equals its record); with `among`, other tests' rows may come between them,
 * and `excluded` must not come.
 */
export const expectDue = Effect.fnUntraced(function* <T extends { readonly id: string }, F>(
  queue: DueQueue<T, F>,
  filter: F,
  dueAt: (row: T) => string | undefined,
  expected: ReadonlyArray<T>,
  options: { readonly among?: boolean; readonly excluded?: ReadonlyArray<T>; readonly limit?: number } = {}
) {
  const note = JSON.stringify(filter)
  const limit = options.limit ?? 2
  const walked: Array<T> = []
  let after: { readonly dueAt: string; readonly id: string } | undefined
  for (;;) {
    const page = yield* queue.due(filter, limit, after)
    assert.isAtMost(page.data.length, limit, `no more rows than the limit (${note})`)
    walked.push(...page.data)
    if (page.next === undefined) break
    assert.strictEqual(page.data.length, limit, `a page followed by more rows is full (${note})`)
    const last = page.data[page.data.length - 1]!
    assert.deepStrictEqual(page.next, { dueAt: dueAt(last), id: last.id }, `the cursor of the last row (${note})`)
    after = page.next
  }
  for (let i = 1; i < walked.length; i++) {
    const [a, b] = [walked[i - 1]!, walked[i]!]
    const [x, y] = [dueAt(a)!, dueAt(b)!]
    assert.isTrue(x < y || (x === y && a.id < b.id), `earliest due first, then by id, none twice (${note})`)
  }
  const wanted = new Set(ids(expected))
  const mine = options.among === true ? walked.filter((row) => wanted.has(row.id)) : walked
  assert.deepStrictEqual(ids(mine), ids(expected), `ids of the due walk of ${note}`)
  assert.deepStrictEqual(mine, expected, `rows of the due walk of ${note}`)
  const walkedIds = new Set(ids(walked))
  for (const row of options.excluded ?? []) assert.isFalse(walkedIds.has(row.id), `${row.id} is not due (${note})`)
})
