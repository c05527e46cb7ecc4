import { Cards } from "@paycore/core"
import { Effect } from "effect"
import type { GroupHandlers } from "./shared.ts"

/** The `cards` group: issuing, listing, updating and revealing cards. */
export const cardsHandlers = Effect.fnUntraced(function* () {
  const cards = yield* Cards
  const handlers: GroupHandlers<"cards"> = {
    createCard: ({ payload }) => cards.create(payload),
    listCards: ({ query }) => cards.list(query),
    getCard: ({ params }) => cards.get(params.id),
    updateCard: ({ params, payload }) => cards.update(params.id, payload),
    // CD-33: the reveal is audited with the asking token (only platform tokens reach a platform route).
    revealCard: ({ params, principal }) =>
      cards.reveal(params.id, principal.kind === "PLATFORM" ? principal.tokenId : principal.agentId)
  }
  return handlers
})
