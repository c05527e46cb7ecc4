import { Effect } from "effect"
import { invalidCursor } from "../platform/errors.ts"
import type { Store } from "../ports/store.ts"
import { type Page, pageRequest } from "../shared/paging.ts"
import { cardNotFound } from "./errors.ts"
import type { Card, ListCardsQuery } from "./model.ts"
import { toCard } from "./views.ts"

/** `GET /cards/{id}` (CD-17): the card, or 404 `REFERENCE_NOT_FOUND`. */
export const getCard = Effect.fnUntraced(function* (store: Store["Service"], id: string) {
  const card = yield* store.cards.get(id)
  if (card === undefined) return yield* cardNotFound(id)
  return toCard(card)
})

/**
 * `GET /cards` (CD-16): by cardholder, by an account among the card's `fundingSources`, by `platformCardId`, by
 * state; newest first unless `sortOrder=asc`; 400 on a cursor this engine did not issue.
 */
export const listCards = Effect.fnUntraced(function* (store: Store["Service"], query: ListCardsQuery) {
  const page = pageRequest(query)
  if (page === undefined) return yield* invalidCursor()
  const found = yield* store.cards.list(
    {
      cardholderId: query.cardholderId,
      accountId: query.accountId,
      platformCardId: query.platformCardId,
      state: query.state
    },
    page
  )
  const cards: Page<Card> = { ...found, data: found.data.map(toCard) }
  return cards
})
