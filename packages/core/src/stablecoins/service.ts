import { Context, Effect, Layer } from "effect"
import type { IdempotentResponse } from "../idempotency/model.ts"
import type { IdempotentRequest } from "../idempotency/run.ts"
import type { Environment } from "../platform/model.ts"
import { Ids } from "../ports/ids.ts"
import { KeyVault } from "../ports/key-vault.ts"
import { StablecoinProvider } from "../ports/stablecoin-provider.ts"
import { Store } from "../ports/store.ts"
import type { StoreError } from "../shared/errors.ts"
import type { Page } from "../shared/paging.ts"
import { operation } from "../shared/tracing.ts"
import { stablecoinsNotImplemented } from "./errors.ts"
import type {
  BurnRequest,
  LinkProviderAccountRequest,
  ListOperationsQuery,
  ListProviderAccountsQuery,
  ListStablecoinsQuery,
  MintRequest,
  RegisterStablecoinRequest,
  Stablecoin,
  StablecoinOperation,
  StablecoinProviderAccount
} from "./model.ts"
import { createBurn, createMint } from "./operations.ts"
import type { StablecoinPorts, StablecoinsError } from "./ports.ts"
import { getProviderAccount, linkProviderAccount, listProviderAccounts } from "./provider-accounts.ts"
import { getOperation, getStablecoin, listOperations, listStablecoins } from "./reads.ts"
import { registerStablecoin } from "./register.ts"
import { processDueStablecoins, type StablecoinsWorkerReport } from "./worker.ts"

// The stablecoins context (issue 17 slice B; docs/design/invitations-stablecoins.md, docs/stablecoins.md).

export type { StablecoinsError } from "./ports.ts"
export type { StablecoinsWorkerReport } from "./worker.ts"

/**
 * Stablecoin issuance (P-08 … P-18). The four POSTs are prepared commands (`Idempotency.runPrepared`): they take the
 * request's idempotency identity and answer the stored response (`replayed` on a retry). Without a provider every
 * operation is 501 `NOT_IMPLEMENTED`.
 */
export class Stablecoins extends Context.Service<
  Stablecoins,
  {
    readonly linkProviderAccount: (
      request: LinkProviderAccountRequest,
      environment: Environment,
      idempotency: IdempotentRequest
    ) => Effect.Effect<IdempotentResponse, StablecoinsError>
    readonly listProviderAccounts: (
      query: ListProviderAccountsQuery
    ) => Effect.Effect<Page<StablecoinProviderAccount>, StablecoinsError>
    readonly getProviderAccount: (id: string) => Effect.Effect<StablecoinProviderAccount, StablecoinsError>
    readonly register: (
      request: RegisterStablecoinRequest,
      environment: Environment,
      idempotency: IdempotentRequest
    ) => Effect.Effect<IdempotentResponse, StablecoinsError>
    readonly list: (query: ListStablecoinsQuery) => Effect.Effect<Page<Stablecoin>, StablecoinsError>
    readonly get: (id: string) => Effect.Effect<Stablecoin, StablecoinsError>
    readonly mint: (
      stablecoinId: string,
      request: MintRequest,
      environment: Environment,
      idempotency: IdempotentRequest
    ) => Effect.Effect<IdempotentResponse, StablecoinsError>
    readonly burn: (
      stablecoinId: string,
      request: BurnRequest,
      environment: Environment,
      idempotency: IdempotentRequest
    ) => Effect.Effect<IdempotentResponse, StablecoinsError>
    readonly listOperations: (
      stablecoinId: string,
      query: ListOperationsQuery
    ) => Effect.Effect<Page<StablecoinOperation>, StablecoinsError>
    readonly getOperation: (id: string) => Effect.Effect<StablecoinOperation, StablecoinsError>
  }
>()("paycore/stablecoins/Stablecoins") {
  static readonly layer: Layer.Layer<Stablecoins, never, Store | Ids> = Layer.effect(
    Stablecoins,
    Effect.gen(function* () {
      const store = yield* Store
      const ids = yield* Ids
      const provider = yield* StablecoinProvider
      const vault = yield* KeyVault
      // Without a provider every stablecoin route is 501, before anything else is looked at.
      const ports: Effect.Effect<StablecoinPorts, StablecoinsError> =
        provider === undefined
          ? Effect.fail(stablecoinsNotImplemented())
          : Effect.succeed({ store, ids, provider, vault })
      return Stablecoins.of({
        linkProviderAccount: operation("Stablecoins.linkProviderAccount")(
          function* (request, environment, idempotency) {
            return yield* linkProviderAccount(yield* ports, request, environment, idempotency)
          }
        ),
        listProviderAccounts: operation("Stablecoins.listProviderAccounts")(function* (query) {
          return yield* listProviderAccounts(yield* ports, query)
        }),
        getProviderAccount: operation("Stablecoins.getProviderAccount")(function* (id) {
          return yield* getProviderAccount(yield* ports, id)
        }),
        register: operation("Stablecoins.register")(function* (request, environment, idempotency) {
          return yield* registerStablecoin(yield* ports, request, environment, idempotency)
        }),
        list: operation("Stablecoins.list")(function* (query) {
          return yield* listStablecoins(yield* ports, query)
        }),
        get: operation("Stablecoins.get")(function* (id) {
          return yield* getStablecoin(yield* ports, id)
        }),
        mint: operation("Stablecoins.mint")(function* (stablecoinId, request, environment, idempotency) {
          return yield* createMint(yield* ports, stablecoinId, request, environment, idempotency)
        }),
        burn: operation("Stablecoins.burn")(function* (stablecoinId, request, environment, idempotency) {
          return yield* createBurn(yield* ports, stablecoinId, request, environment, idempotency)
        }),
        listOperations: operation("Stablecoins.listOperations")(function* (stablecoinId, query) {
          return yield* listOperations(yield* ports, stablecoinId, query)
        }),
        getOperation: operation("Stablecoins.getOperation")(function* (id) {
          return yield* getOperation(yield* ports, id)
        })
      })
    })
  )
}

/**
 * The stablecoin operations' time-based work, one pass per call (the worker pass runs it after settlement; tests call
 * `server.processDue()`). Nothing without a provider.
 */
export class StablecoinsWorker extends Context.Service<
  StablecoinsWorker,
  { readonly processDue: () => Effect.Effect<StablecoinsWorkerReport, StoreError> }
>()("paycore/stablecoins/StablecoinsWorker") {
  static readonly layer: Layer.Layer<StablecoinsWorker, never, Store | Ids> = Layer.effect(
    StablecoinsWorker,
    Effect.gen(function* () {
      const store = yield* Store
      const ids = yield* Ids
      const provider = yield* StablecoinProvider
      const vault = yield* KeyVault
      const ports: StablecoinPorts | undefined = provider === undefined ? undefined : { store, ids, provider, vault }
      return StablecoinsWorker.of({
        processDue: operation("StablecoinsWorker.processDue")(function* () {
          return yield* processDueStablecoins(ports)
        })
      })
    })
  )
}
