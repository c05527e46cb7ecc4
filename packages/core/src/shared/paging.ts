import { Schema } from "effect"

export const DEFAULT_PAGE_SIZE = 20
export const MAX_PAGE_SIZE = 100

export const SortOrder = Schema.Literals(["asc", "desc"])
export type SortOrder = typeof SortOrder.Type

/** `limit` 1-100 (default 20), opaque `cursor` from the previous page, `sortOrder` (default newest first). */
export const PageQueryFields = {
  limit: Schema.optionalKey(
    Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: MAX_PAGE_SIZE }))
  ),
  cursor: Schema.optionalKey(Schema.String),
  sortOrder: Schema.optionalKey(SortOrder)
}

/** What the store needs to page a list: rows are ordered by id (time-ordered UUID v7). */
export interface PageRequest {
  readonly limit: number
  /** The id of the last row of the previous page. */
  readonly after?: string | undefined
  readonly sortOrder: SortOrder
}

/** Where a worker's walk of a due queue stands: the due instant and id of the last row it was given. */
export interface DueCursor {
  readonly dueAt: string
  readonly id: string
}

/** A page of a walk of a due queue (the store port's `DueQueue`). */
export interface DuePage<A> {
  readonly data: ReadonlyArray<A>
  /** Where the next page starts; `undefined` when no row is left. */
  readonly next: DueCursor | undefined
}

export interface Page<A> {
  readonly data: ReadonlyArray<A>
  readonly hasMore: boolean
  readonly totalCount: number
  readonly nextCursor?: string
}

export const PageOf = <S extends Schema.Top>(item: S) =>
  Schema.Struct({
    data: Schema.Array(item),
    hasMore: Schema.Boolean,
    totalCount: Schema.Int,
    nextCursor: Schema.optionalKey(Schema.String)
  })

// Ids are ASCII, so web `btoa`/`atob` suffice: the core stays free of Node modules.
export const encodeCursor = (lastId: string): string =>
  btoa(lastId).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")

/** `undefined` when the cursor is not one this engine issued. */
export const decodeCursor = (cursor: string): string | undefined => {
  if (!/^[A-Za-z0-9_-]*$/.test(cursor)) return undefined
  try {
    const id = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"))
    return /^[A-Za-z]+:[0-9a-f-]{36}$/.test(id) ? id : undefined
  } catch {
    return undefined // not base64 at all (e.g. a length that cannot be)
  }
}

export const pageRequest = (query: {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
  readonly sortOrder?: SortOrder | undefined
}): PageRequest | undefined => {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor)
  if (query.cursor !== undefined && after === undefined) return undefined
  return { limit: query.limit ?? DEFAULT_PAGE_SIZE, after, sortOrder: query.sortOrder ?? "desc" }
}

/** Turns the rows a store fetched (limit + 1 of them) into a page with a cursor. */
export const toPage = <A extends { readonly id: string }>(
  rows: ReadonlyArray<A>,
  limit: number,
  totalCount: number
): Page<A> => {
  const hasMore = rows.length > limit
  const data = hasMore ? rows.slice(0, limit) : rows
  const last = data[data.length - 1]
  return hasMore && last !== undefined
    ? { data, hasMore, totalCount, nextCursor: encodeCursor(last.id) }
    : { data, hasMore, totalCount }
}
