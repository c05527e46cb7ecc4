import { Context, Effect, Layer } from "effect"
import { CardIssuer } from "../ports/card-issuer.ts"
import { CardNetworkSimulator } from "../ports/card-network-simulator.ts"
import { Ids } from "../ports/ids.ts"
import { KeyVault } from "../ports/key-vault.ts"
import { Store } from "../ports/store.ts"
import type { StoreError } from "../shared/errors.ts"
import type { Page } from "../shared/paging.ts"
import { command, operation } from "../shared/tracing.ts"
import { cardsNotImplemented } from "./errors.ts"
import { issueCard } from "./issue.ts"
import type {
  AuthorizationDecision,
  AuthorizationRequest,
  Card,
  CardCreateRequest,
  CardRevealResponse,
  CardUpdateRequest,
  ListCardsQuery,
  NetworkEvent,
  ReconcileOutcome,
  SandboxCardSimulationResponse,
  SimulationBodies,
  SimulationBody,
  SimulationKind
} from "./model.ts"
import { authorizeCard, reconcileNetworkEvent } from "./network.ts"
import type {
  CardNetworkError,
  CardNetworkPorts,
  CardPorts,
  CardSimulationError,
  CardSimulationPorts,
  CardsError,
  IssuerPorts
} from "./ports.ts"
import { getCard, listCards } from "./reads.ts"
import { revealCard } from "./reveal.ts"
import { simulateCard } from "./simulations.ts"
import { closeCardByService, updateCard } from "./update.ts"
import { type CardsWorkerReport, processDueCards } from "./worker.ts"

// The cards context (issue 15; docs/design/cards.md). S0 built the foundation; slices A (issue, manage, reveal,
// issuer), B (authorization and the ledger) and C (simulator, listing, bench) fill it in. The contracts S0 fixed, so
// the slices need not touch each other's files or S0's shared ones (api.ts, handlers.ts, auth.ts, engine.ts, app.ts,
// the migration, the store modules):
//
// - Shapes: model.ts (Schemas with the upstream's names, the spec's rules; records; `NetworkEvent`,
//   `AuthorizationRequest`, `AuthorizationDecision`, `ReconcileOutcome`, `ScriptedEvent`, `cardCounters`).
//   `toCard`, `toCardTransaction`, `cardTransactionStatus`, `cardTransactionStatesOf` in views.ts: every read and every
//   event's `data` goes through them. `fundingSources` is always `bindings`' account ids in order; a CLOSED card keeps
//   its last `fundingSources` with `bindings: []`. A card transaction's `accountId` is always set (the paying account,
//   or for a decline the card's first source).
// - Machines (machine.ts): `cardMachine` (PATCH target → event: `cardEventOf`; closing reasons: `closedReasonOf`) and
//   `cardTransactionMachine`; a move's `emits` are the events to write (`emitSteps`, subject = the resource's id,
//   data = its view). No other code lists states.
// - Errors (errors.ts): 501 `cardsNotImplemented` (no issuer: every card route, CD-42), 404 `cardNotFound`
//   (`REFERENCE_NOT_FOUND`) and `cardTransactionNotFound` (`TRANSACTION_NOT_FOUND`), 404 `noCardSimulator`, and the
//   rest of section 1's codes; their HTTP statuses are in packages/http/src/errors.ts already.
// - Ports: `CardIssuer` (`undefined` = no issuer) and `CardNetworkSimulator` (`undefined` = none: sandbox routes 404),
//   read once when a layer is built into `CardPorts` (ports.ts). Issuer calls never run in a store transaction;
//   `POST /cards` runs inside its idempotency transaction, so provisioning is the worker's (provisioning.ts).
// - Services (all in this file) and their fixed signatures: `Cards` (A), `CardNetwork.authorize / reconcile` (network.ts, B),
//   `CardSimulations.simulate(cardId, kind, body)` (simulations.ts, C), `closeOutSteps(ports, card, now)`
//   (close-out.ts, B writes it, A calls it on every move to CLOSED; a no-op until then), `CardsWorker.processDue`
//   (worker.ts) = `provisionDueCards` (provisioning.ts, A) + `applyDueNetworkEvents` (inbox.ts, B). The one S0 line
//   left to A: engine.ts giving funding-sources.ts's real `CardFundingSources` to `WalletAuth.layer`.
// - HTTP: `cards.createCard / listCards / getCard / updateCard / revealCard` and `sandbox.simulateCard*` call exactly
//   these operations; `revealCard` is never stored by an Idempotency-Key and answers `Cache-Control: no-store`.
// - Storage: cards, cardTransactions, cardNetworkEvents, cardReveals (ports/store.ts), the counters `cardCounters`.
//   The testkit's `seedCard` / `seedCardTransaction` write records straight to the store, `scriptedCardIssuer()` is
//   an issuer whose answers a test scripts.
// - Network events: the simulator's script is `Authorize` steps (to `CardNetwork.authorize`; a forced decline for the
//   descriptor suffixes 002/003, `awaitPullResult` for 005/006) and `Deliver` steps (to `CardNetwork.reconcile`,
//   `dueAt` = now + `afterSeconds`: a `PullResult` CONFIRMED after 30 s for 005, FAILED at once for 006; a `Clearing`
//   with `pullRefused` when the parent's descriptor ends 002). Events name their transaction by its
//   `issuerTransactionToken`; `issuerEventId` dedupes them.
// - Ledger: `systemAccount("card-network", ccy)` is what the service owes the network (legs.ts, B).
// - Settings: `EngineSettings.liveCardLimit` (null: none) and `cardCurrencies`.

export type { CardNetworkError, CardSimulationError, CardsError } from "./ports.ts"

export class Cards extends Context.Service<
  Cards,
  {
    /**
     * `POST /cards` (CD-01 … CD-15, CD-19, L-12): checks in section 1's order, then the card `PROCESSING` with its
     * bindings and `dueAt = now` (the worker provisions it), `live-cards` + 1. Runs in the request's idempotency
     * transaction: no issuer call but `fundingEligibility`, before it.
     */
    readonly create: (request: CardCreateRequest) => Effect.Effect<Card, CardsError>
    /** `GET /cards` (CD-16): filters, newest first by default; 400 on a cursor not issued here. */
    readonly list: (query: ListCardsQuery) => Effect.Effect<Page<Card>, CardsError>
    /** `GET /cards/{id}` (CD-17): 404 `REFERENCE_NOT_FOUND`. */
    readonly get: (id: string) => Effect.Effect<Card, CardsError>
    /**
     * `PATCH /cards/{id}` (CD-18, CD-20 … CD-31, A-10): the platform credential alone; events in order
     * `card.state_change`, `CARD.FUNDING_SOURCE_CHANGE`. A move to `CLOSED` runs `closeOutSteps`.
     */
    readonly update: (id: string, request: CardUpdateRequest) => Effect.Effect<Card, CardsError>
    /**
     * `POST /cards/{id}/reveal` (CD-32, CD-33): asks the issuer now, audits `actor` (the API token's id) in
     * `card_reveals`; the URL is answered only, never stored or logged.
     */
    readonly reveal: (id: string, actor: string) => Effect.Effect<CardRevealResponse, CardsError>
    /** The service's own close (compliance; in-process only): `CLOSE_BY_SERVICE`, as a platform close otherwise. */
    readonly closeByService: (id: string) => Effect.Effect<Card, CardsError>
  }
>()("paycore/cards/Cards") {
  static readonly layer: Layer.Layer<Cards, never, Store | Ids> = Layer.effect(
    Cards,
    Effect.gen(function* () {
      const ports: CardPorts = { store: yield* Store, ids: yield* Ids, issuer: yield* CardIssuer }
      const vault = yield* KeyVault
      // CD-42: without an issuer every card route is 501 NOT_IMPLEMENTED, before anything else is looked at.
      const issuing = Effect.suspend(() => {
        const issuer = ports.issuer
        return issuer === undefined
          ? Effect.fail(cardsNotImplemented())
          : Effect.succeed<IssuerPorts>({ ...ports, issuer, vault })
      })
      return Cards.of({
        create: operation("Cards.create")(function* (request: CardCreateRequest) {
          return yield* issueCard(yield* issuing, request)
        }),
        list: operation("Cards.list")(function* (query: ListCardsQuery) {
          yield* issuing
          return yield* listCards(ports.store, query)
        }),
        get: operation("Cards.get")(function* (id: string) {
          yield* issuing
          return yield* getCard(ports.store, id)
        }),
        update: operation("Cards.update")(function* (id: string, request: CardUpdateRequest) {
          return yield* updateCard(yield* issuing, id, request)
        }),
        reveal: operation("Cards.reveal")(function* (id: string, actor: string) {
          return yield* revealCard(yield* issuing, id, actor)
        }),
        closeByService: operation("Cards.closeByService")(function* (id: string) {
          return yield* closeCardByService(yield* issuing, id)
        })
      })
    })
  )
}

/**
 * The inbound side of the card network (design section 0): what an issuer processor's webhook adapter calls, as the
 * sandbox simulator does. Nothing here knows the sandbox. authorize.ts decides, inbox.ts and reconcile.ts apply the
 * later events (network.ts).
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
      return CardNetwork.of({
        // The hot path of cards: a `command` (a span only when a tracing backend is installed), as Quotes.execute.
        authorize: (request) => command("CardNetwork.authorize", (env) => authorizeCard(ports, request, env.nowMs)),
        reconcile: operation("CardNetwork.reconcile")(function* (
          event: NetworkEvent,
          options?: { readonly dueAt?: string | undefined }
        ) {
          return yield* reconcileNetworkEvent(ports, event, options)
        })
      })
    })
  )
}

/**
 * The ten `/sandbox/cards/{id}/simulate/*` routes (CD-45 … CD-52; slice C): the card (and the body's
 * `cardTransactionId`, which must be one of the card's) is looked up, the `CardNetworkSimulator` scripts the network
 * events, and they are delivered: an `Authorize` step to `CardNetwork.authorize`, a `Deliver` step to
 * `CardNetwork.reconcile` (due `afterSeconds` from now). Answers the script's `issuerTransactionToken` (202).
 * Without a simulator (production) every simulation is 404; a production token never gets here (403, auth.ts).
 */
export class CardSimulations extends Context.Service<
  CardSimulations,
  {
    readonly simulate: <K extends SimulationKind>(
      cardId: string,
      kind: K,
      body: SimulationBodies[K]
    ) => Effect.Effect<SandboxCardSimulationResponse, CardSimulationError>
  }
>()("paycore/cards/CardSimulations") {
  static readonly layer: Layer.Layer<CardSimulations, never, Store | Ids | CardNetwork> = Layer.effect(
    CardSimulations,
    Effect.gen(function* () {
      const ports: CardSimulationPorts = {
        simulator: yield* CardNetworkSimulator,
        store: yield* Store,
        network: yield* CardNetwork
      }
      return CardSimulations.of({
        simulate: operation("CardSimulations.simulate")(function* (
          cardId: string,
          kind: SimulationKind,
          body: SimulationBody
        ) {
          return yield* simulateCard(ports, cardId, kind, body)
        })
      })
    })
  )
}

/**
 * The cards' time-based work, one pass per call (the example server runs it every second beside
 * `Transactions.processDue`; tests call `server.processDue()`): issuer provisioning and syncs, then the network
 * events whose time has come. A pass run twice or concurrently does nothing twice (each step re-reads its row).
 */
export class CardsWorker extends Context.Service<
  CardsWorker,
  { readonly processDue: () => Effect.Effect<CardsWorkerReport, StoreError> }
>()("paycore/cards/CardsWorker") {
  static readonly layer: Layer.Layer<CardsWorker, never, Store | Ids> = Layer.effect(
    CardsWorker,
    Effect.gen(function* () {
      const ports: CardPorts = { store: yield* Store, ids: yield* Ids, issuer: yield* CardIssuer }
      const vault = yield* KeyVault
      return CardsWorker.of({
        processDue: operation("CardsWorker.processDue")(function* () {
          return yield* processDueCards(ports, vault)
        })
      })
    })
  )
}
