import { Effect } from "effect"
import { type Page, type PageRequest, toPage } from "../shared/paging.ts"

// Reading small sets whole and paging them in memory: helpers of the platform's reads, shared with the contexts
// above it (`scanAll`).

/** Reads every row of a store list (pages of 100, oldest first). For small sets only. */
export const scanAll = Effect.fnUntraced(function* <T extends { readonly id: string }, E>(
  list: (page: PageRequest) => Effect.Effect<Page<T>, E>
): Effect.fn.Return<Array<T>, E> {
  const out: Array<T> = []
  let after: string | undefined
  while (true) {
    const page = yield* list({ limit: 100, after, sortOrder: "asc" })
    out.push(...page.data)
    const last = page.data[page.data.length - 1]
    if (!page.hasMore || last === undefined) return out
    after = last.id
  }
})

/** Pages rows held in memory (sorted by ascending id) exactly like a store list would. */
export const pageInMemory = <T extends { readonly id: string }>(
  rowsAscending: ReadonlyArray<T>,
  page: PageRequest
): Page<T> => {
  const asc = page.sortOrder === "asc"
  const ordered = asc ? rowsAscending : [...rowsAscending].reverse()
  const after = page.after
  const rest = after === undefined ? ordered : ordered.filter((r) => (asc ? r.id > after : r.id < after))
  return toPage(rest.slice(0, page.limit + 1), page.limit, rowsAscending.length)
}
