import { Effect } from "effect"
import { Store } from "../ports/store.ts"
import { isScaSubject } from "../sca/regions.ts"
import { requireScaSession } from "../sca/sessions.ts"
import { EngineConfig } from "../shared/engine-config.ts"
import { nowIso } from "../shared/time.ts"
import { cardIssuerUnavailable, cardNotFound, cardNotRevealable, panRevealUnsupported } from "./errors.ts"
import { dieOnUnique } from "./funding-sources.ts"
import type { CardRevealRecord, CardRevealResponse } from "./model.ts"
import type { IssuerPorts } from "./ports.ts"

/** The states a card can be revealed in (design Q20): it has details, and is not closed. */
const REVEALABLE: ReadonlyArray<string> = ["ACTIVE", "FROZEN"]

/**
 * `POST /cards/{id}/reveal` (CD-32, CD-33; design section 3, "Reveal"; spec Authentication 5): 404; 403 `FORBIDDEN`
 * when the card's program cannot reveal (`supportsPanReveal` false); 409 `CONFLICT` unless `ACTIVE` or `FROZEN`;
 * 409 `SCA_SESSION_REQUIRED` for a cardholder subject to SCA without a live session; then the issuer mints the URL
 * (503 when it cannot) and the reveal is audited (`card_reveals`: the card, `actor` = the asking API token, when,
 * until when). The URL is answered only: it is in no record, idempotency row (app.ts never stores this route),
 * log line or span.
 */
export const revealCard = Effect.fnUntraced(function* (ports: IssuerPorts, id: string, actor: string) {
  const { store, ids, issuer } = ports
  const card = yield* store.cards.get(id)
  if (card === undefined) return yield* cardNotFound(id)
  if (!card.cardCapabilities.supportsPanReveal) return yield* panRevealUnsupported(id)
  if (!REVEALABLE.includes(card.state) || card.processorRef === undefined) {
    return yield* cardNotRevealable(id, card.state)
  }
  const cardholder = yield* store.customers.get(card.cardholderId)
  if (cardholder !== undefined && isScaSubject(cardholder, yield* EngineConfig)) {
    yield* Effect.provideService(requireScaSession(cardholder.id), Store, store)
  }
  const reveal = yield* issuer.reveal(card.processorRef).pipe(Effect.mapError((e) => cardIssuerUnavailable(e.message)))
  const audit: CardRevealRecord = {
    id: yield* ids.make("CardReveal"),
    cardId: card.id,
    actor,
    requestedAt: yield* nowIso,
    expiresAt: reveal.expiresAt
  }
  // A fresh id: no unique key to be taken.
  yield* dieOnUnique(store.cardReveals.insert(audit))
  const answer: CardRevealResponse = { panEmbedUrl: reveal.panEmbedUrl, expiresAt: reveal.expiresAt }
  return answer
})
