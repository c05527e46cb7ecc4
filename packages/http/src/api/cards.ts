import {
  Card,
  CardCreateRequest,
  CardId,
  CardRevealResponse,
  CardUpdateRequest,
  IdempotencyKeyHeader,
  ListCardsQuery,
  PageOf
} from "@paycore/core"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { SecretAnswer } from "../annotations.ts"
import { created } from "./shared.ts"

export const CardsGroup = HttpApiGroup.make("cards")
  .add(
    HttpApiEndpoint.post("createCard", "/cards", {
      // CD-01, CD-02: required; a retry carries the same key and gets the same card.
      headers: { "idempotency-key": IdempotencyKeyHeader },
      payload: CardCreateRequest,
      success: Card.pipe(created)
    })
  )
  .add(HttpApiEndpoint.get("listCards", "/cards", { query: ListCardsQuery, success: PageOf(Card) }))
  .add(HttpApiEndpoint.get("getCard", "/cards/:id", { params: { id: CardId }, success: Card }))
  .add(
    HttpApiEndpoint.patch("updateCard", "/cards/:id", {
      params: { id: CardId },
      // the platform credential alone; wallet signature headers are not read.
      payload: CardUpdateRequest,
      success: Card
    })
  )
  .add(
    HttpApiEndpoint.post("revealCard", "/cards/:id/reveal", {
      params: { id: CardId },
      success: CardRevealResponse
    }).annotate(SecretAnswer, true)
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Cards",
      description:
        "Virtual debit cards funded by internal accounts: issue, list, freeze, unfreeze, close, funding sources, " +
        "limits and PAN reveal (501 NOT_IMPLEMENTED where no card issuer is configured)"
    })
  )
