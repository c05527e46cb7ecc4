import { Context, Effect, Layer } from "effect"
import { CardIssuer } from "../ports/card-issuer.ts"
import { Ids } from "../ports/ids.ts"
import { KeyVault } from "../ports/key-vault.ts"
import { Store } from "../ports/store.ts"
import type { NotFound, StoreError } from "../shared/errors.ts"
import { isoOf, nowIso } from "../shared/time.ts"
import { command } from "../shared/tracing.ts"
import { authorizeSteps, type CardNetworkPorts } from "./authorize.ts"
import { reconcileSteps } from "./inbox.ts"
import type { AuthorizationDecision, AuthorizationRequest, NetworkEvent, ReconcileOutcome } from "./model.ts"
import { dieOnUniqueViolation } from "./reconcile.ts"

/** An unknown card (404 `REFERENCE_NOT_FOUND`), or the store failed. */
export type CardNetworkError = NotFound | StoreError

/**
 * The inbound side of the card network (design section 0): what an issuer processor's webhook adapter calls, as the
 * sandbox simulator does. Nothing here knows the sandbox. authorize.ts decides, inbox.ts and reconcile.ts apply the
 * later events.
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
    Effect.gen(function* () {
      const ports: CardNetworkPorts = {
        store: yield* Store,
        ids: yield* Ids,
        issuer: yield* CardIssuer,
        vault: yield* KeyVault
      }
      const { store } = ports
      return CardNetwork.of({
        // The hot path of cards: a `command` (a span only when a tracing backend is installed), as Quotes.execute.
        authorize: (request) =>
          command("CardNetwork.authorize", (env) =>
            dieOnUniqueViolation(store.transaction(Effect.gen(() => authorizeSteps(ports, request, isoOf(env.nowMs)))))
          ),
        reconcile: Effect.fn("CardNetwork.reconcile")(function* (
          event: NetworkEvent,
          options?: { readonly dueAt?: string | undefined }
        ) {
          const now = yield* nowIso
          return yield* dieOnUniqueViolation(
            store.transaction(Effect.gen(() => reconcileSteps(ports, event, options?.dueAt, now)))
          )
        })
      })
    })
  )
}
