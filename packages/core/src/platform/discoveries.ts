import { Effect } from "effect"
import type { InvalidInput } from "../shared/errors.ts"
import { DEFAULT_PAGE_SIZE, encodeCursor, type Page, type SortOrder } from "../shared/paging.ts"
import { invalidCursor } from "./errors.ts"
import type { DiscoveriesQuery, UmaProvidersQuery, VaspsQuery } from "./model.ts"
import { pageInMemory } from "./paging.ts"
import type { DiscoveryPorts } from "./ports.ts"

// Discoveries and UMA providers (`Discoveries`): the directory's lists, filtered and paged in memory.

/**
 * A page of a directory list by `id` (default ascending). The cursor is the last `id` of the previous page and must be
 * one of `known` (the whole list, so a filter that changes between pages still finds it).
 */
const pageOfDirectory = Effect.fnUntraced(function* <T extends { readonly id: string }>(
  rows: ReadonlyArray<T>,
  known: ReadonlyArray<{ readonly id: string }>,
  query: { readonly limit?: number | undefined; readonly cursor?: string | undefined; readonly sortOrder?: SortOrder }
): Effect.fn.Return<Page<T>, InvalidInput> {
  const cursor = query.cursor
  const after = cursor === undefined ? undefined : known.find((r) => encodeCursor(r.id) === cursor)?.id
  if (cursor !== undefined && after === undefined) return yield* invalidCursor()
  const sorted = [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  return pageInMemory(sorted, { limit: query.limit ?? DEFAULT_PAGE_SIZE, after, sortOrder: query.sortOrder ?? "asc" })
})

/** `GET /discoveries`: institutions per `country` / `currency`; no filter = all. Not paged. */
export const institutions = Effect.fnUntraced(function* (ports: DiscoveryPorts, query: DiscoveriesQuery) {
  const all = yield* ports.directory.institutions()
  return all.filter(
    (i) =>
      (query.country === undefined || i.country === query.country) &&
      (query.currency === undefined || i.currency === query.currency)
  )
})

/** `GET /uma-providers`: filters `countryCode`, `currencyCode`; paged (default oldest id first). */
export const umaProviders = Effect.fnUntraced(function* (ports: DiscoveryPorts, query: UmaProvidersQuery) {
  const all = yield* ports.directory.umaProviders()
  const matching = all.filter(
    (p) =>
      (query.countryCode === undefined || p.supportedRegions.includes(query.countryCode)) &&
      (query.currencyCode === undefined || p.supportedCurrencies.some((c) => c.code === query.currencyCode))
  )
  return yield* pageOfDirectory(matching, all, query)
})

/** `GET /vasps`: the directory's VASPs by name; paged. */
export const vasps = Effect.fnUntraced(function* (ports: DiscoveryPorts, query: VaspsQuery) {
  // Names may hold any character; the cursor encodes them URI-escaped (cursors are ASCII).
  const keyed = (yield* ports.directory.vasps()).map((vasp) => ({ id: encodeURIComponent(vasp.vaspName), vasp }))
  const page = yield* pageOfDirectory(keyed, keyed, query)
  return { ...page, data: page.data.map((k) => k.vasp) }
})
