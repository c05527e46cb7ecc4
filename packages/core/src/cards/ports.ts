import type { Effect } from "effect"
import type { CardIssuerService } from "../ports/card-issuer.ts"
import type { CardNetworkSimulatorService } from "../ports/card-network-simulator.ts"
import type { Ids } from "../ports/ids.ts"
import type { KeyVaultService } from "../ports/key-vault.ts"
import type { Store } from "../ports/store.ts"
import type { Conflict, Forbidden, InvalidInput, NotFound, Refused, StoreError } from "../shared/errors.ts"
import type { AuthorizationDecision, AuthorizationRequest, NetworkEvent, ReconcileOutcome } from "./model.ts"

/**
 * The ports the cards' use cases run on, resolved once when a service's layer is built (as `PaymentPorts`).
 * `issuer` is `undefined` when no card issuer is configured: every card route then answers 501 (CD-42).
 */
export interface CardPorts {
  readonly store: Store["Service"]
  readonly ids: Ids["Service"]
  readonly issuer: CardIssuerService | undefined
}

/** The ports of the issuing use cases: an issuer is configured, and the KeyVault seals the 3-D Secure password. */
export interface IssuerPorts extends CardPorts {
  readonly issuer: CardIssuerService
  readonly vault: KeyVaultService
}

/** The card network's ports: the cards' own, and the vault that opens delegated keys to sign wallet pulls. */
export interface CardNetworkPorts extends CardPorts {
  readonly vault: KeyVaultService
}

/**
 * What the sandbox simulations run on: the simulator (`undefined`: none, every simulation is 404) and the network
 * they deliver to (`CardNetwork` in service.ts, named here by its operations so that the use cases need not import
 * the services).
 */
export interface CardSimulationPorts {
  readonly store: Store["Service"]
  readonly simulator: CardNetworkSimulatorService | undefined
  readonly network: {
    readonly authorize: (request: AuthorizationRequest) => Effect.Effect<AuthorizationDecision, CardNetworkError>
    readonly reconcile: (
      event: NetworkEvent,
      options?: { readonly dueAt?: string | undefined }
    ) => Effect.Effect<ReconcileOutcome, CardNetworkError>
  }
}

export type CardsError = InvalidInput | NotFound | Refused | Forbidden | Conflict | StoreError

/** An unknown card (404 `REFERENCE_NOT_FOUND`), or the store failed. */
export type CardNetworkError = NotFound | StoreError

/**
 * 404 unknown card or transaction (or no simulator), 400 a body the card cannot take (`InvalidInput`: another
 * currency) or a parent in the wrong state (`Refused` `INVALID_INPUT` with `details.status`, design Q17).
 */
export type CardSimulationError = NotFound | Refused | InvalidInput | StoreError
