import { Effect } from "effect"
import type { Store } from "../ports/store.ts"
import { quoteNotFound } from "./errors.ts"

/** `GET /quotes/{quoteId}`: the stored quote (404 `QUOTE_NOT_FOUND`). */
export const getQuote = Effect.fnUntraced(function* (store: Store["Service"], id: string) {
  const record = yield* store.quotes.get(id)
  if (record === undefined) return yield* Effect.fail(quoteNotFound(id))
  return record.quote
})
