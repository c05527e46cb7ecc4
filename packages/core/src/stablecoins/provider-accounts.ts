import { Effect, Redacted, Result } from "effect"
import type { IdempotentResponse } from "../idempotency/model.ts"
import { type IdempotentRequest, runPrepared } from "../idempotency/run.ts"
import { invalidCursor } from "../platform/errors.ts"
import type { Environment } from "../platform/model.ts"
import type { StablecoinProviderCredentials, StablecoinProviderError } from "../ports/stablecoin-provider.ts"
import { Store } from "../ports/store.ts"
import type { StoreError } from "../shared/errors.ts"
import { transition } from "../shared/machine.ts"
import { type Page, pageRequest } from "../shared/paging.ts"
import { nowIso } from "../shared/time.ts"
import {
  providerAccountAlreadyLinked,
  providerAccountInvalid,
  providerAccountNotFound,
  providerAccountRevoked,
  providerRejected,
  stablecoinProviderUnavailable
} from "./errors.ts"
import { type ProviderAccountEvent, providerAccountMachine } from "./machine.ts"
import type {
  LinkProviderAccountRequest,
  ListProviderAccountsQuery,
  ProviderAccountRecord,
  StablecoinProviderAccount
} from "./model.ts"
import type { StablecoinPorts, StablecoinsError } from "./ports.ts"
import { toProviderAccount } from "./views.ts"

// Provider account links (P-08, P-09; design section 3 "Link", Q11, Q14). The API client secret is sealed by the
// KeyVault before it is stored, opened only to call the provider, and in no response, record, idempotency row, log
// line or span.

/** The KeyVault context of a link's sealed secret: it opens for that link only. */
export const providerSecretContext = (linkId: string): string => `stablecoin-provider:${linkId}`

/** The slot an `ACTIVE` link holds: one per provider account and environment. */
const liveSlotOf = (provider: string, providerAccountId: string, environment: string): string =>
  `${provider}:${providerAccountId}:${environment}`

/** A provider error as the API answers it (`Unauthorized` / `Revoked` are applied to the link by `linkRefusal`). */
export const providerFailure = (e: StablecoinProviderError) => {
  switch (e._tag) {
    case "Unavailable":
      return stablecoinProviderUnavailable(e.message)
    case "Unauthorized":
      return providerAccountInvalid("the provider refused the credentials")
    case "Revoked":
      return providerAccountRevoked()
    case "Rejected":
      return providerRejected(e.message)
  }
}

/** Moves a link by the machine in its own transaction (a refusal found while using it), unless it moved already. */
export const moveLink = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  linkId: string,
  event: ProviderAccountEvent
): Effect.fn.Return<void, StoreError> {
  const { store } = ports
  yield* store.transaction(
    Effect.gen(function* () {
      const link = yield* store.stablecoinProviderAccounts.getForUpdate(linkId)
      if (link === undefined) return
      const move = transition(providerAccountMachine, link.status, event)
      if (Result.isFailure(move)) return
      const now = yield* nowIso
      const { liveSlot: _, ...rest } = link
      yield* store.stablecoinProviderAccounts
        .update({ ...rest, status: move.success.to, updatedAt: now })
        .pipe(Effect.catchTag("UniqueViolation", (e) => Effect.die(e)))
    })
  )
})

/**
 * A provider call made with a link's credentials: `Unauthorized` moves the link `INVALID`, `Revoked` `REVOKED` (each
 * in its own transaction), then the call's refusal is answered.
 */
export const withLink = <A>(
  ports: StablecoinPorts,
  link: ProviderAccountRecord,
  call: (credentials: StablecoinProviderCredentials) => Effect.Effect<A, StablecoinProviderError>
): Effect.Effect<A, StablecoinsError> =>
  Effect.gen(function* () {
    const credentials = yield* credentialsOf(ports, link)
    return yield* call(credentials).pipe(
      Effect.catch((e: StablecoinProviderError) =>
        Effect.andThen(
          e._tag === "Unauthorized"
            ? moveLink(ports, link.id, "INVALIDATE")
            : e._tag === "Revoked"
              ? moveLink(ports, link.id, "REVOKE")
              : Effect.void,
          Effect.fail(providerFailure(e))
        )
      )
    )
  })

/** The credentials of a link, its secret opened (Q14: a secret that no longer opens moves it `INVALID`). */
export const credentialsOf = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  link: ProviderAccountRecord
): Effect.fn.Return<StablecoinProviderCredentials, StablecoinsError> {
  const opened = yield* ports.vault.open(link.sealedSecret, providerSecretContext(link.id))
  if (opened === undefined) {
    yield* Effect.logWarning(`paycore stablecoins: the secret of ${link.id} does not open here; link it again`)
    yield* moveLink(ports, link.id, "INVALIDATE")
    return yield* providerAccountInvalid("its secret does not open on this server")
  }
  const apiClientSecret = Redacted.make(new TextDecoder().decode(opened))
  opened.fill(0)
  return { apiClientId: link.apiClientId, apiClientSecret, providerAccountId: link.providerAccountId }
})

/** A link usable for a new registration or operation: `ACTIVE`, else its 400. */
export const usableLink = (link: ProviderAccountRecord) =>
  link.status === "ACTIVE"
    ? Effect.succeed(link)
    : Effect.fail(
        link.status === "REVOKED" ? providerAccountRevoked() : providerAccountInvalid(`its status is ${link.status}`)
      )

/**
 * `POST /stablecoin-provider-accounts` (P-08): prepare = `provider.verify` outside any transaction (refused → 400
 * `…_INVALID`, unreachable → 503, nothing stored); commit = seal the secret and insert `ACTIVE` holding the live slot
 * (taken → 409 `CONFLICT`), or `RELINK` an `INVALID` / `REVOKED` link of the same account (same id, Q11).
 */
export const linkProviderAccount = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  request: LinkProviderAccountRequest,
  environment: Environment,
  idempotency: IdempotentRequest
): Effect.fn.Return<IdempotentResponse, StablecoinsError> {
  const { store, provider, vault } = ports
  const credentials: StablecoinProviderCredentials = {
    apiClientId: request.apiClientId,
    apiClientSecret: request.apiClientSecret,
    providerAccountId: request.providerAccountId
  }
  const prepare = provider
    .verify(credentials, environment)
    .pipe(
      Effect.mapError((e) =>
        e._tag === "Unavailable"
          ? stablecoinProviderUnavailable(e.message)
          : providerAccountInvalid("the provider refused the credentials")
      )
    )
  const secret = new TextEncoder().encode(Redacted.value(request.apiClientSecret))
  const commit = (verified: { readonly providerAccountId: string }) =>
    store.transaction(
      Effect.gen(function* () {
        const now = yield* nowIso
        const liveSlot = liveSlotOf(request.provider, verified.providerAccountId, environment)
        const taken = yield* store.stablecoinProviderAccounts.findUnique("liveSlot", liveSlot)
        if (taken !== undefined) return yield* providerAccountAlreadyLinked(taken.id)
        const earlier = yield* store.stablecoinProviderAccounts.list(
          { provider: request.provider, providerAccountId: verified.providerAccountId, environment },
          { limit: 1, sortOrder: "desc" }
        )
        const previous = earlier.data[0]
        const id = previous?.id ?? (yield* ports.ids.make("StablecoinProviderAccount"))
        const sealedSecret = yield* vault.seal(secret, providerSecretContext(id))
        const record: ProviderAccountRecord = {
          id,
          provider: request.provider,
          providerAccountId: verified.providerAccountId,
          environment,
          status: "ACTIVE",
          apiClientId: request.apiClientId,
          sealedSecret,
          liveSlot,
          lastVerifiedAt: now,
          createdAt: previous?.createdAt ?? now,
          updatedAt: now
        }
        const write =
          previous === undefined
            ? store.stablecoinProviderAccounts.insert(record)
            : store.stablecoinProviderAccounts.update(record)
        yield* write.pipe(Effect.catchTag("UniqueViolation", () => Effect.fail(providerAccountAlreadyLinked(id))))
        return toProviderAccount(record)
      })
    )
  return yield* runPrepared(idempotency, prepare, commit, (account) => ({ status: 201, body: account })).pipe(
    Effect.provideService(Store, store)
  )
})

/** `GET /stablecoin-provider-accounts/{id}` (P-09). */
export const getProviderAccount = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  id: string
): Effect.fn.Return<StablecoinProviderAccount, StablecoinsError> {
  const link = yield* ports.store.stablecoinProviderAccounts.get(id)
  if (link === undefined) return yield* providerAccountNotFound(id)
  return toProviderAccount(link)
})

/** `GET /stablecoin-provider-accounts` (P-09): newest first. */
export const listProviderAccounts = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  query: ListProviderAccountsQuery
): Effect.fn.Return<Page<StablecoinProviderAccount>, StablecoinsError> {
  const page = pageRequest(query)
  if (page === undefined) return yield* invalidCursor()
  const rows = yield* ports.store.stablecoinProviderAccounts.list(
    { provider: query.provider, status: query.status },
    page
  )
  return { ...rows, data: rows.data.map(toProviderAccount) }
})
