import type { StoreError } from "../shared/errors.ts"
import type { Steps } from "../shared/tracing.ts"
import type { CardPorts } from "./card-ports.ts"
import type { CardRecord } from "./model.ts"

/**
 * What closing a card does to its open transactions (CD-24; design section 3, "Update and close", step 4): each
 * `AUTHORIZED` / `PARTIALLY_SETTLED` transaction of `card` `EXPIRE`s (its hold voided, `CARD_TRANSACTION.SETTLED`
 * emitted). Steps inside the caller's store transaction, which has moved the card to `CLOSED` (`Cards.update` and
 * `Cards.closeByService` call it). Slice B writes it; until then it does nothing.
 */
export function* closeOutSteps(_ports: CardPorts, _card: CardRecord, _now: string): Steps<void, StoreError> {}
