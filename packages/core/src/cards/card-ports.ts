import type { CardIssuerService } from "../ports/card-issuer.ts"
import type { Ids } from "../ports/ids.ts"
import type { Store } from "../ports/store.ts"

/**
 * The ports the cards' use cases run on, resolved once when a service's layer is built (as `PaymentPorts`).
 * `issuer` is `undefined` when no card issuer is configured: every card route then answers 501 (CD-42).
 */
export interface CardPorts {
  readonly store: Store["Service"]
  readonly ids: Ids["Service"]
  readonly issuer: CardIssuerService | undefined
}
