import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js"
import { Clock, Context, Effect, Layer } from "effect"
import { Directory } from "../ports/directory.ts"
import { Ids } from "../ports/ids.ts"
import { Store, type TokenFilter } from "../ports/store.ts"
import { constantTimeEqual } from "../shared/constant-time.ts"
import { EngineConfig } from "../shared/engine-config.ts"
import { type FieldError, type InvalidInput, type NotFound, StoreError } from "../shared/errors.ts"
import {
  DEFAULT_PAGE_SIZE,
  encodeCursor,
  type Page,
  type PageRequest,
  pageRequest,
  type SortOrder,
  toPage
} from "../shared/paging.ts"
import { nowIso } from "../shared/time.ts"
import { invalidInput } from "../shared/validation.ts"
import { emit } from "../webhooks/service.ts"
import { invalidCursor, tokenNotFound } from "./errors.ts"
import type {
  ApiToken,
  ApiTokenWithSecret,
  CreateTokenRequest,
  DiscoveriesQuery,
  EndUserTerms,
  Environment,
  Institution,
  ListTokensQuery,
  Permission,
  PlatformConfig,
  PlatformPrincipal,
  TokenRecord,
  UmaProvider,
  UmaProvidersQuery,
  UpdateConfigRequest,
  Vasp,
  VaspsQuery
} from "./model.ts"

// ---- helpers shared by the services of this package ----

/** Reads every row of a store list (pages of 100, oldest first). For small sets only. */
export const scanAll = Effect.fnUntraced(function* <T extends { readonly id: string }, E>(
  list: (page: PageRequest) => Effect.Effect<Page<T>, E>
): Effect.fn.Return<Array<T>, E> {
  const out: Array<T> = []
  let after: string | undefined
  while (true) {
    const page = yield* list({ limit: 100, after, sortOrder: "asc" })
    out.push(...page.data)
    const last = page.data[page.data.length - 1]
    if (!page.hasMore || last === undefined) return out
    after = last.id
  }
})

/** Pages rows held in memory (sorted by ascending id) exactly like a store list would. */
export const pageInMemory = <T extends { readonly id: string }>(
  rowsAscending: ReadonlyArray<T>,
  page: PageRequest
): Page<T> => {
  const asc = page.sortOrder === "asc"
  const ordered = asc ? rowsAscending : [...rowsAscending].reverse()
  const after = page.after
  const rest = after === undefined ? ordered : ordered.filter((r) => (asc ? r.id > after : r.id < after))
  return toPage(rest.slice(0, page.limit + 1), page.limit, rowsAscending.length)
}

const hashSecret = (secret: string): Uint8Array => sha256(utf8ToBytes(secret))

// ---- API tokens ----

/** How long a verified credential is trusted before the store is read again (other processes may delete it). */
export const CREDENTIAL_CACHE_TTL_MS = 30_000

/** Start-up credentials (`PAYCORE_SANDBOX_CREDENTIALS=<clientId>:<secret>`) and what the token may do. */
export interface GivenCredentials {
  readonly clientId: string
  readonly clientSecret: string
  readonly name: string
  readonly permissions: ReadonlyArray<Permission>
  readonly environment?: Environment | undefined
}

const CLIENT_ID_PATTERN = /^[A-Za-z0-9._~-]{1,128}$/
const MIN_SECRET_LENGTH = 8

const toApiToken = (r: TokenRecord): ApiToken => ({
  id: r.id,
  name: r.name,
  permissions: r.permissions,
  environment: r.environment,
  clientId: r.clientId,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt
})

/** Every problem of start-up credentials, all at once. */
const credentialErrors = (given: GivenCredentials): Array<FieldError> => {
  const errors: Array<FieldError> = []
  if (!CLIENT_ID_PATTERN.test(given.clientId)) {
    errors.push({
      field: "clientId",
      constraint: { pattern: CLIENT_ID_PATTERN.source },
      message: "Expected 1-128 characters from A-Z a-z 0-9 . _ ~ - (no colon)"
    })
  }
  if (given.clientSecret.length < MIN_SECRET_LENGTH) {
    errors.push({
      field: "clientSecret",
      constraint: { minLength: MIN_SECRET_LENGTH },
      message: `Expected a secret of at least ${MIN_SECRET_LENGTH} characters`
    })
  }
  if (given.permissions.length === 0) {
    errors.push({ field: "permissions", constraint: { minItems: 1 }, message: "Expected at least one permission" })
  }
  return errors
}

const uniquePermissions = (permissions: ReadonlyArray<Permission>): Array<Permission> => [...new Set(permissions)]

interface CachedCredential {
  readonly tokenId: string
  readonly clientId: string
  readonly secretHash: Uint8Array
  readonly principal: PlatformPrincipal
  readonly loadedAt: number
}

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
      const store = yield* Store
      const ids = yield* Ids
      // Keyed by clientId and by token id; only tokens found in the store get an entry.
      const cache = new Map<string, CachedCredential>()

      const remember = (record: TokenRecord, now: number): CachedCredential => {
        const entry: CachedCredential = {
          tokenId: record.id,
          clientId: record.clientId,
          secretHash: hexToBytes(record.secretHash),
          principal: {
            kind: "PLATFORM",
            tokenId: record.id,
            permissions: record.permissions,
            environment: record.environment
          },
          loadedAt: now
        }
        cache.set(record.clientId, entry)
        cache.set(record.id, entry)
        return entry
      }
      const forget = (tokenId: string, clientId: string) => {
        cache.delete(tokenId)
        cache.delete(clientId)
      }

      const findActive = (id: string) =>
        Effect.map(store.tokens.get(id), (r) => (r === undefined || r.deletedAt !== undefined ? undefined : r))

      const create = Effect.fn("Tokens.create")(function* (req: CreateTokenRequest) {
        const id = yield* ids.make("Token")
        const clientId = yield* ids.randomHex(16)
        const clientSecret = yield* ids.randomHex(32)
        const now = yield* nowIso
        const record: TokenRecord = {
          id,
          name: req.name,
          permissions: uniquePermissions(req.permissions),
          environment: req.environment ?? "SANDBOX",
          clientId,
          secretHash: bytesToHex(hashSecret(clientSecret)),
          createdAt: now,
          updatedAt: now
        }
        yield* store
          .transaction(store.tokens.insert(record))
          .pipe(
            Effect.catchTag("UniqueViolation", () =>
              Effect.fail(new StoreError({ message: "Generated token client id collided; retry", retryable: true }))
            )
          )
        const token: ApiTokenWithSecret = { ...toApiToken(record), clientSecret }
        return token
      })

      const createWithCredentials = Effect.fn("Tokens.createWithCredentials")(function* (given: GivenCredentials) {
        const errors = credentialErrors(given)
        if (errors.length > 0) return yield* invalidInput(errors)
        const secretHash = bytesToHex(hashSecret(given.clientSecret))
        const token = yield* store
          .transaction(
            Effect.gen(function* () {
              const existing = yield* store.tokens.findUnique("clientId", given.clientId)
              if (existing !== undefined && existing.deletedAt === undefined && existing.secretHash === secretHash) {
                return existing
              }
              const now = yield* nowIso
              const base = existing ?? { id: yield* ids.make("Token"), createdAt: now }
              const record: TokenRecord = {
                id: base.id,
                name: given.name,
                permissions: uniquePermissions(given.permissions),
                environment: given.environment ?? "SANDBOX",
                clientId: given.clientId,
                secretHash,
                createdAt: base.createdAt,
                updatedAt: now
              }
              if (existing === undefined) yield* store.tokens.insert(record)
              else yield* store.tokens.update(record)
              return record
            })
          )
          .pipe(
            Effect.catchTag("UniqueViolation", () =>
              Effect.fail(new StoreError({ message: "Token client id is already taken", retryable: true }))
            )
          )
        forget(token.id, token.clientId)
        return toApiToken(token)
      })

      const list = Effect.fn("Tokens.list")(function* (query: ListTokensQuery) {
        const page = pageRequest(query)
        if (page === undefined) return yield* invalidCursor()
        const filter: TokenFilter = {
          name: query.name,
          createdAfter: query.createdAfter,
          createdBefore: query.createdBefore,
          includeDeleted: false
        }
        const rows = yield* store.tokens.list(filter, page)
        return { ...rows, data: rows.data.map(toApiToken) } satisfies Page<ApiToken>
      })

      const get = Effect.fn("Tokens.get")(function* (id: string) {
        const record = yield* findActive(id)
        if (record === undefined) return yield* tokenNotFound(id)
        return toApiToken(record)
      })

      const remove = Effect.fn("Tokens.delete")(function* (id: string) {
        const record = yield* store.transaction(
          Effect.gen(function* () {
            const current = yield* store.tokens.getForUpdate(id)
            if (current === undefined || current.deletedAt !== undefined) return yield* tokenNotFound(id)
            const now = yield* nowIso
            yield* Effect.orDie(store.tokens.update({ ...current, deletedAt: now, updatedAt: now }))
            return current
          })
        )
        forget(record.id, record.clientId)
      })

      // Untraced: it answers HTTP Basic on a miss of the server's credential cache, where a span would cost more
      // than the lookup it wraps.
      const authenticate = Effect.fnUntraced(function* (username: string, secret: string) {
        const now = yield* Clock.currentTimeMillis
        let entry = cache.get(username)
        if (entry === undefined || now - entry.loadedAt > CREDENTIAL_CACHE_TTL_MS) {
          if (entry !== undefined) forget(entry.tokenId, entry.clientId)
          const record = username.startsWith("Token:")
            ? yield* store.tokens.get(username)
            : yield* store.tokens.findUnique("clientId", username)
          if (record === undefined || record.deletedAt !== undefined) return undefined
          entry = remember(record, now)
        }
        return constantTimeEqual(hashSecret(secret), entry.secretHash) ? entry.principal : undefined
      })

      return Tokens.of({ create, createWithCredentials, list, get, delete: remove, authenticate })
    })
  )
}

// ---- platform configuration ----

export const DEFAULT_SUPPORTED_CURRENCIES: ReadonlyArray<string> = [
  "USD",
  "EUR",
  "MXN",
  "BRL",
  "GBP",
  "INR",
  "PHP",
  "NGN",
  "CAD",
  "USDC",
  "USDT",
  "BTC"
]
export const DEFAULT_UMA_DOMAIN = "sandbox.paycore.dev"

/** Platform fees are only charged on USD-sourced transactions (spec: "requires USD source currency"). */
const FEE_CURRENCY = "USD"

/** Every broken rule of a config update, all at once. */
export const configUpdateErrors = (req: UpdateConfigRequest): Array<FieldError> => {
  const errors: Array<FieldError> = []
  const seenFees = new Set<string>()
  req.feeConfigs?.forEach((fee, i) => {
    if (fee.sourceCurrency !== FEE_CURRENCY) {
      errors.push({
        field: `feeConfigs.${i}.sourceCurrency`,
        constraint: { enum: [FEE_CURRENCY] },
        message: "Platform fees apply to USD source currency only"
      })
    }
    if (fee.variableFeeBps === undefined && fee.fixedFee === undefined) {
      errors.push({
        field: `feeConfigs.${i}`,
        constraint: { anyOf: ["variableFeeBps", "fixedFee"] },
        message: "A fee config needs variableFeeBps, fixedFee or both"
      })
    }
    if (fee.fixedFee !== undefined && fee.fixedFee.currency !== FEE_CURRENCY) {
      errors.push({
        field: `feeConfigs.${i}.fixedFee.currency`,
        constraint: { enum: [FEE_CURRENCY] },
        message: "The fixed fee is charged in the USD source currency"
      })
    }
    const key = `${fee.feeType}/${fee.sourceCurrency}`
    if (seenFees.has(key)) {
      errors.push({
        field: `feeConfigs.${i}`,
        constraint: { unique: ["feeType", "sourceCurrency"] },
        message: "At most one fee config per fee type and source currency"
      })
    }
    seenFees.add(key)
  })
  const seenLimits = new Set<string>()
  req.transactionLimits?.forEach((limit, i) => {
    if (seenLimits.has(limit.currency)) {
      errors.push({
        field: `transactionLimits.${i}.currency`,
        constraint: { unique: true },
        message: "At most one limit entry per currency"
      })
    }
    seenLimits.add(limit.currency)
  })
  return errors
}

const uuidFromHex = (hex: string): string =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((Number.parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`

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
      const store = yield* Store
      const ids = yield* Ids

      const loadOrCreate: Effect.Effect<PlatformConfig, StoreError> = Effect.gen(function* () {
        const existing = yield* store.config.get()
        if (existing !== undefined) return existing
        return yield* store.transaction(
          Effect.gen(function* () {
            const again = yield* store.config.get()
            if (again !== undefined) return again
            const now = yield* nowIso
            const config: PlatformConfig = {
              id: `PlatformConfig:${uuidFromHex(yield* ids.randomHex(16))}`,
              umaDomain: DEFAULT_UMA_DOMAIN,
              supportedCurrencies: DEFAULT_SUPPORTED_CURRENCIES,
              isRegulatedFinancialInstitution: false,
              skipVerificationPaperwork: false,
              feeConfigs: [],
              transactionLimits: [],
              createdAt: now,
              updatedAt: now
            }
            yield* store.config.put(config)
            return config
          })
        )
      })

      const get = Effect.fn("PlatformConfigService.get")(function* () {
        return yield* loadOrCreate
      })

      const update = Effect.fn("PlatformConfigService.update")(function* (req: UpdateConfigRequest) {
        const errors = configUpdateErrors(req)
        if (errors.length > 0) return yield* invalidInput(errors)
        return yield* store.transaction(
          Effect.gen(function* () {
            const current = yield* loadOrCreate
            const now = yield* nowIso
            const next: PlatformConfig = {
              ...current,
              ...(req.umaDomain === undefined ? {} : { umaDomain: req.umaDomain }),
              ...(req.webhookEndpoint === undefined ? {} : { webhookEndpoint: req.webhookEndpoint }),
              ...(req.supportedCurrencies === undefined
                ? {}
                : { supportedCurrencies: [...new Set(req.supportedCurrencies)] }),
              ...(req.feeConfigs === undefined ? {} : { feeConfigs: req.feeConfigs }),
              // Card caps merge key by key (null clears one cap); the 2FA branding is replaced whole.
              ...(req.cardConfigs === undefined ? {} : { cardConfigs: { ...current.cardConfigs, ...req.cardConfigs } }),
              ...(req.cardTokenization2faConfig === undefined
                ? {}
                : { cardTokenization2faConfig: req.cardTokenization2faConfig }),
              // Fields left out are left unchanged (upstream EmbeddedWalletConfig).
              ...(req.embeddedWalletConfig === undefined
                ? {}
                : { embeddedWalletConfig: { ...current.embeddedWalletConfig, ...req.embeddedWalletConfig } }),
              ...(req.transactionLimits === undefined ? {} : { transactionLimits: req.transactionLimits }),
              ...(req.skipVerificationPaperwork === undefined
                ? {}
                : { skipVerificationPaperwork: req.skipVerificationPaperwork }),
              updatedAt: now
            }
            yield* store.config.put(next)
            if (req.webhookEndpoint !== undefined && req.webhookEndpoint !== current.webhookEndpoint) {
              yield* emit("TEST", "webhook-endpoint", {}).pipe(
                Effect.provideService(Store, store),
                Effect.provideService(Ids, ids)
              )
            }
            return next
          })
        )
      })

      const endUserTerms = Effect.fn("PlatformConfigService.endUserTerms")(function* () {
        const settings = yield* Effect.service(EngineConfig)
        const terms: EndUserTerms = { version: settings.endUserTerms.version, url: settings.endUserTerms.url }
        return terms
      })

      return PlatformConfigService.of({ get, update, endUserTerms })
    })
  )
}

// ---- discoveries and UMA providers ----

/**
 * A page of a directory list by `id` (default ascending). The cursor is the last `id` of the previous page and must be
 * one of `known` (the whole list, so a filter that changes between pages still finds it).
 */
const pageOfDirectory = Effect.fnUntraced(function* <T extends { readonly id: string }>(
  rows: ReadonlyArray<T>,
  known: ReadonlyArray<{ readonly id: string }>,
  query: { readonly limit?: number | undefined; readonly cursor?: string | undefined; readonly sortOrder?: SortOrder }
): Effect.fn.Return<Page<T>, InvalidInput> {
  const cursor = query.cursor
  const after = cursor === undefined ? undefined : known.find((r) => encodeCursor(r.id) === cursor)?.id
  if (cursor !== undefined && after === undefined) return yield* invalidCursor()
  const sorted = [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  return pageInMemory(sorted, { limit: query.limit ?? DEFAULT_PAGE_SIZE, after, sortOrder: query.sortOrder ?? "asc" })
})

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
      const directory = yield* Directory

      const institutions = Effect.fn("Discoveries.institutions")(function* (query: DiscoveriesQuery) {
        const all = yield* directory.institutions()
        return all.filter(
          (i) =>
            (query.country === undefined || i.country === query.country) &&
            (query.currency === undefined || i.currency === query.currency)
        )
      })

      const umaProviders = Effect.fn("Discoveries.umaProviders")(function* (query: UmaProvidersQuery) {
        const all = yield* directory.umaProviders()
        const matching = all.filter(
          (p) =>
            (query.countryCode === undefined || p.supportedRegions.includes(query.countryCode)) &&
            (query.currencyCode === undefined || p.supportedCurrencies.some((c) => c.code === query.currencyCode))
        )
        return yield* pageOfDirectory(matching, all, query)
      })

      const vasps = Effect.fn("Discoveries.vasps")(function* (query: VaspsQuery) {
        // Names may hold any character; the cursor encodes them URI-escaped (cursors are ASCII).
        const keyed = (yield* directory.vasps()).map((vasp) => ({ id: encodeURIComponent(vasp.vaspName), vasp }))
        const page = yield* pageOfDirectory(keyed, keyed, query)
        return { ...page, data: page.data.map((k) => k.vasp) }
      })

      return Discoveries.of({ institutions, umaProviders, vasps })
    })
  )
}
