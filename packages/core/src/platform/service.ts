import { Context, Effect, Layer } from "effect"
import { Directory } from "../ports/directory.ts"
import { Ids } from "../ports/ids.ts"
import { Store } from "../ports/store.ts"
import type { InvalidInput, NotFound, StoreError } from "../shared/errors.ts"
import type { Page } from "../shared/paging.ts"
import { operation } from "../shared/tracing.ts"
import { endUserTerms, loadOrCreateConfig, updateConfig } from "./config.ts"
import { institutions, umaProviders, vasps } from "./discoveries.ts"
import type {
  ApiToken,
  ApiTokenWithSecret,
  CreateTokenRequest,
  DiscoveriesQuery,
  EndUserTerms,
  Institution,
  ListTokensQuery,
  PlatformConfig,
  PlatformPrincipal,
  UmaProvider,
  UmaProvidersQuery,
  UpdateConfigRequest,
  Vasp,
  VaspsQuery
} from "./model.ts"
import type { DiscoveryPorts, PlatformPorts, TokenPorts } from "./ports.ts"
import {
  authenticate,
  createToken,
  createTokenWithCredentials,
  deleteToken,
  type GivenCredentials,
  getToken,
  listTokens
} from "./tokens.ts"

export class Tokens extends Context.Service<
  Tokens,
  {
    /** `POST /tokens`: the only response that ever carries `clientSecret`. */
    readonly create: (req: CreateTokenRequest) => Effect.Effect<ApiTokenWithSecret, StoreError>
    /** The server's start-up token: creates it, or re-keys / revives it; a no-op when it already matches. */
    readonly createWithCredentials: (given: GivenCredentials) => Effect.Effect<ApiToken, InvalidInput | StoreError>
    /** `GET /tokens`: filters `name`, `createdAfter`, `createdBefore`; paged; a foreign cursor is 400. */
    readonly list: (query: ListTokensQuery) => Effect.Effect<Page<ApiToken>, InvalidInput | StoreError>
    /** `GET /tokens/{tokenId}`: 404 `TOKEN_NOT_FOUND`. */
    readonly get: (id: string) => Effect.Effect<ApiToken, NotFound | StoreError>
    /** `DELETE /tokens/{tokenId}`: the token stops authenticating at once; 404 `TOKEN_NOT_FOUND`. */
    readonly delete: (id: string) => Effect.Effect<void, NotFound | StoreError>
    /**
     * HTTP Basic check: `username` is the token's `clientId`, `secret` its client secret. (The `Token:<uuid>` id is
     * also accepted in-process; HTTP Basic cannot carry it, as a username may not contain a colon.)
     * `undefined` for unknown, deleted or wrong credentials. Verified credentials are cached in memory.
     */
    readonly authenticate: (
      username: string,
      secret: string
    ) => Effect.Effect<PlatformPrincipal | undefined, StoreError>
  }
>()("paycore/platform/Tokens") {
  static readonly layer = Layer.effect(
    Tokens,
    Effect.gen(function* () {
      const ports: TokenPorts = { store: yield* Store, ids: yield* Ids, cache: new Map() }
      return Tokens.of({
        create: operation("Tokens.create")(function* (req: CreateTokenRequest) {
          return yield* createToken(ports, req)
        }),
        createWithCredentials: operation("Tokens.createWithCredentials")(function* (given: GivenCredentials) {
          return yield* createTokenWithCredentials(ports, given)
        }),
        list: operation("Tokens.list")(function* (query: ListTokensQuery) {
          return yield* listTokens(ports, query)
        }),
        get: operation("Tokens.get")(function* (id: string) {
          return yield* getToken(ports, id)
        }),
        delete: operation("Tokens.delete")(function* (id: string) {
          return yield* deleteToken(ports, id)
        }),
        // Untraced (`authenticate` in tokens.ts): it answers HTTP Basic on a miss of the server's credential cache,
        // where a span would cost more than the lookup it wraps; bound without a step of its own.
        authenticate: (username: string, secret: string) => authenticate(ports, username, secret)
      })
    })
  )
}

export class PlatformConfigService extends Context.Service<
  PlatformConfigService,
  {
    /** `GET /config`: the configuration, created with defaults on first use. */
    readonly get: () => Effect.Effect<PlatformConfig, StoreError>
    /** `PATCH /config`: omitted fields keep their values; a new `webhookEndpoint` sends a `TEST` event. */
    readonly update: (req: UpdateConfigRequest) => Effect.Effect<PlatformConfig, InvalidInput | StoreError>
    /** `GET /customers/end-user-terms`: the current terms version and URL (EngineConfig). */
    readonly endUserTerms: () => Effect.Effect<EndUserTerms>
  }
>()("paycore/platform/PlatformConfigService") {
  static readonly layer = Layer.effect(
    PlatformConfigService,
    Effect.gen(function* () {
      const ports: PlatformPorts = { store: yield* Store, ids: yield* Ids }
      return PlatformConfigService.of({
        get: operation("PlatformConfigService.get")(function* () {
          return yield* loadOrCreateConfig(ports)
        }),
        update: operation("PlatformConfigService.update")(function* (req: UpdateConfigRequest) {
          return yield* updateConfig(ports, req)
        }),
        endUserTerms: operation("PlatformConfigService.endUserTerms")(function* () {
          return yield* endUserTerms()
        })
      })
    })
  )
}

export class Discoveries extends Context.Service<
  Discoveries,
  {
    /** `GET /discoveries`: institutions per `country` / `currency`; no filter = all. Not paged. */
    readonly institutions: (query: DiscoveriesQuery) => Effect.Effect<ReadonlyArray<Institution>>
    /** `GET /uma-providers`: filters `countryCode`, `currencyCode`; paged (default oldest id first). */
    readonly umaProviders: (query: UmaProvidersQuery) => Effect.Effect<Page<UmaProvider>, InvalidInput>
    /** `GET /vasps`: the directory's VASPs by name; paged. */
    readonly vasps: (query: VaspsQuery) => Effect.Effect<Page<Vasp>, InvalidInput>
  }
>()("paycore/platform/Discoveries") {
  static readonly layer = Layer.effect(
    Discoveries,
    Effect.gen(function* () {
      const ports: DiscoveryPorts = { directory: yield* Directory }
      return Discoveries.of({
        institutions: operation("Discoveries.institutions")(function* (query: DiscoveriesQuery) {
          return yield* institutions(ports, query)
        }),
        umaProviders: operation("Discoveries.umaProviders")(function* (query: UmaProvidersQuery) {
          return yield* umaProviders(ports, query)
        }),
        vasps: operation("Discoveries.vasps")(function* (query: VaspsQuery) {
          return yield* vasps(ports, query)
        })
      })
    })
  )
}
