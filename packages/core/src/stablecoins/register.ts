import { Effect } from "effect"
import type { IdempotentResponse } from "../idempotency/model.ts"
import { type IdempotentRequest, runPrepared } from "../idempotency/run.ts"
import type { Environment } from "../platform/model.ts"
import type { ProviderToken, StablecoinProviderError } from "../ports/stablecoin-provider.ts"
import { Store } from "../ports/store.ts"
import { isKnownCurrency } from "../shared/currency.ts"
import { nowIso } from "../shared/time.ts"
import {
  providerAccountNotFound,
  providerAccountSelectionRequired,
  stablecoinAlreadyRegistered,
  unknownProviderToken
} from "./errors.ts"
import type { ProviderAccountRecord, RegisterStablecoinRequest, StablecoinRecord } from "./model.ts"
import type { StablecoinPorts, StablecoinsError } from "./ports.ts"
import { usableLink, withLink } from "./provider-accounts.ts"
import { toStablecoin } from "./views.ts"

// Registering a provider-created token (P-10 … P-12; design section 3 "Register", Q15).

/** `provider:network:token:environment`: one registration per token, network, provider and environment. */
const registrationOf = (provider: string, network: string, token: string, environment: string): string =>
  `${provider}:${network}:${token}:${environment}`

/**
 * The link a registration uses (P-11): the given one (unknown or of another environment → 404; `INVALID` / `REVOKED`
 * → 400), or the single `ACTIVE` link of this environment (none → 404, several → 400 `…_SELECTION_REQUIRED`).
 */
export const chooseLink = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  linkId: string | undefined,
  environment: Environment
): Effect.fn.Return<ProviderAccountRecord, StablecoinsError> {
  const { store, provider } = ports
  if (linkId !== undefined) {
    const link = yield* store.stablecoinProviderAccounts.get(linkId)
    if (link === undefined || link.environment !== environment) return yield* providerAccountNotFound(linkId)
    return yield* usableLink(link)
  }
  const active = yield* store.stablecoinProviderAccounts.list(
    { provider: provider.provider, status: "ACTIVE", environment },
    { limit: 2, sortOrder: "desc" }
  )
  const [only] = active.data
  if (only === undefined) return yield* providerAccountNotFound()
  if (active.totalCount > 1) return yield* providerAccountSelectionRequired(active.totalCount)
  return only
})

/**
 * `POST /stablecoins` (P-10): choose the link; prepare = `provider.token` (no such token → 400); commit = insert, with
 * `currency` = the symbol when it is an engine currency (`ENABLED`), else none (`NOT_ENABLED`, Q15); the symbol is
 * the coin's ledger currency either way. Registered twice → 409 `CONFLICT`.
 */
export const registerStablecoin = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  request: RegisterStablecoinRequest,
  environment: Environment,
  idempotency: IdempotentRequest
): Effect.fn.Return<IdempotentResponse, StablecoinsError> {
  const { store, provider } = ports
  const registration = registrationOf(provider.provider, request.network, request.providerTokenIdentifier, environment)
  const prepare = Effect.gen(function* () {
    const link = yield* chooseLink(ports, request.stablecoinProviderAccountId, environment)
    const existing = yield* store.stablecoins.findUnique("registration", registration)
    if (existing !== undefined) return yield* stablecoinAlreadyRegistered(existing.id)
    const { token, known } = yield* withLink(ports, link, (credentials) =>
      Effect.flatMap(
        provider.token(credentials, {
          providerTokenIdentifier: request.providerTokenIdentifier,
          networkTokenIdentifier: request.networkTokenIdentifier,
          network: request.network
        }),
        (
          token
        ): Effect.Effect<
          { readonly token: ProviderToken | undefined; readonly known: ReadonlyArray<string> | undefined },
          StablecoinProviderError
        > =>
          token !== undefined || provider.tokenIdentifiers === undefined
            ? Effect.succeed({ token, known: undefined })
            : Effect.map(provider.tokenIdentifiers(credentials, request.network), (known) => ({ token, known }))
      )
    )
    if (token === undefined) {
      return yield* unknownProviderToken(request.providerTokenIdentifier, request.network, known)
    }
    return { link, token }
  })
  const commit = ({ link, token }: Effect.Success<typeof prepare>) =>
    store.transaction(
      Effect.gen(function* () {
        const now = yield* nowIso
        const enabled = isKnownCurrency(token.symbol)
        const record: StablecoinRecord = {
          id: yield* ports.ids.make("Stablecoin"),
          name: token.name,
          symbol: token.symbol,
          baseCurrency: token.baseCurrency,
          network: request.network,
          decimals: token.decimals,
          issuanceStatus: token.issuanceStatus,
          serviceOperationsStatus: enabled ? "ENABLED" : "NOT_ENABLED",
          networkTokenIdentifier: request.networkTokenIdentifier,
          ...(enabled ? { currency: token.symbol } : {}),
          provider: provider.provider,
          providerAccountLinkId: link.id,
          environment,
          providerTokenIdentifier: request.providerTokenIdentifier,
          registration,
          ledgerCurrency: token.symbol,
          createdAt: now,
          updatedAt: now
        }
        yield* store.stablecoins
          .insert(record)
          .pipe(
            Effect.catchTag("UniqueViolation", () =>
              Effect.flatMap(store.stablecoins.findUnique("registration", registration), (taken) =>
                Effect.fail(stablecoinAlreadyRegistered(taken?.id ?? "another stablecoin"))
              )
            )
          )
        return toStablecoin(record)
      })
    )
  return yield* runPrepared(idempotency, prepare, commit, (coin) => ({ status: 201, body: coin })).pipe(
    Effect.provideService(Store, store)
  )
})
