import { Effect } from "effect"
import type { StoreError } from "./errors.ts"
import type { DueCursor, DuePage } from "./paging.ts"

/**
 * A background worker's walk of `queue` (the store port's `DueQueue`): every row matching `filter` (its due bound
 * included), earliest due first, `limit` at a time, each page handed to `stepPage`; it yields between pages, so
 * requests waiting on the event loop are answered meanwhile (an in-process store's pass waits on no I/O). A row that
 * a step makes due again later but still within the bound comes round again further on; the walk ends, as the bound
 * is fixed and each row's due instant only moves on.
 */
export const walkDue = <T, F, E, R>(
  queue: { readonly due: (filter: F, limit: number, after?: DueCursor) => Effect.Effect<DuePage<T>, StoreError> },
  filter: F,
  limit: number,
  stepPage: (rows: ReadonlyArray<T>) => Effect.Effect<void, E, R>
): Effect.Effect<void, E | StoreError, R> =>
  Effect.gen(function* () {
    let after: DueCursor | undefined
    for (;;) {
      const page = yield* queue.due(filter, limit, after)
      if (page.data.length > 0) yield* stepPage(page.data)
      if (page.next === undefined) return
      after = page.next
      yield* Effect.yieldNow
    }
  })
