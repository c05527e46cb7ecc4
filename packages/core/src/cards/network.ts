import { Context, Effect, Layer } from "effect"
import type { Ids } from "../ports/ids.ts"
import type { Store } from "../ports/store.ts"
import type { NotFound, StoreError } from "../shared/errors.ts"
import type { AuthorizationDecision, AuthorizationRequest, NetworkEvent, ReconcileOutcome } from "./model.ts"

/** An unknown card (404 `REFERENCE_NOT_FOUND`), or the store failed. */
export type CardNetworkError = NotFound | StoreError

/**
 * The inbound side of the card network (design section 0): what an issuer processor's webhook adapter calls, as the
 * sandbox simulator does. Nothing here knows the sandbox. Slice B builds it (authorize.ts, reconcile.ts, inbox.ts).
 */
export class CardNetwork extends Context.Service<
  CardNetwork,
  {
    /**
     * A real-time authorization decision (design section 3, "Authorization"), in one store transaction: the card's
     * state, the effective caps (`min(card, cardConfigs)`), the first funding source covering the whole amount, the
     * hold and the daily counters, the row and its `CARD_TRANSACTION.AUTHORIZED` / `.DECLINED` event. The same
     * `issuerTransactionToken` again answers the first decision. A balance inquiry is decided and stored nowhere.
     */
    readonly authorize: (request: AuthorizationRequest) => Effect.Effect<AuthorizationDecision, CardNetworkError>
    /**
     * A later network event (advice, clearing, return, return reversal, pull result) through the inbox: stored
     * under its `issuerEventId` (a duplicate does nothing) and applied now, or by a worker pass at `dueAt` when
     * given and later than now. A refusal (the machine or an amount rule) is stored as the event's outcome.
     */
    readonly reconcile: (
      event: NetworkEvent,
      options?: { readonly dueAt?: string | undefined }
    ) => Effect.Effect<ReconcileOutcome, CardNetworkError>
  }
>()("paycore/cards/CardNetwork") {
  static readonly layer: Layer.Layer<CardNetwork, never, Store | Ids> = Layer.effect(
    CardNetwork,
    // Slice B builds it over `CardPorts` (Store, Ids, CardIssuer). Until then no route reaches it: CardSimulations
    // answers 404 or 501 first.
    Effect.sync(() =>
      CardNetwork.of({
        authorize: () => Effect.die(new Error("CardNetwork.authorize is not built yet")),
        reconcile: () => Effect.die(new Error("CardNetwork.reconcile is not built yet"))
      })
    )
  )
}
