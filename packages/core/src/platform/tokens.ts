import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js"
import { Clock, Effect } from "effect"
import type { TokenFilter } from "../ports/store.ts"
import { constantTimeEqual } from "../shared/constant-time.ts"
import { type FieldError, StoreError } from "../shared/errors.ts"
import { type Page, pageRequest } from "../shared/paging.ts"
import { nowIso } from "../shared/time.ts"
import { invalidInput } from "../shared/validation.ts"
import { invalidCursor, tokenNotFound } from "./errors.ts"
import type {
  ApiToken,
  ApiTokenWithSecret,
  CreateTokenRequest,
  Environment,
  ListTokensQuery,
  Permission,
  TokenRecord
} from "./model.ts"
import type { CachedCredential, PlatformPorts, TokenPorts } from "./ports.ts"

// API tokens (`Tokens`): created, listed, deleted, and checked on every HTTP Basic request a cache miss brings.

const hashSecret = (secret: string): Uint8Array => sha256(utf8ToBytes(secret))

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

const remember = (ports: TokenPorts, record: TokenRecord, now: number): CachedCredential => {
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
  ports.cache.set(record.clientId, entry)
  ports.cache.set(record.id, entry)
  return entry
}

const forget = (ports: TokenPorts, tokenId: string, clientId: string) => {
  ports.cache.delete(tokenId)
  ports.cache.delete(clientId)
}

const findActive = (ports: PlatformPorts, id: string) =>
  Effect.map(ports.store.tokens.get(id), (r) => (r === undefined || r.deletedAt !== undefined ? undefined : r))

/** `POST /tokens`: a new token with a generated client id and secret. */
export const createToken = Effect.fnUntraced(function* (ports: PlatformPorts, req: CreateTokenRequest) {
  const { store, ids } = ports
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

/** The server's start-up token: creates it, or re-keys / revives it; a no-op when it already matches. */
export const createTokenWithCredentials = Effect.fnUntraced(function* (ports: TokenPorts, given: GivenCredentials) {
  const { store, ids } = ports
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
  forget(ports, token.id, token.clientId)
  return toApiToken(token)
})

/** `GET /tokens`: filters `name`, `createdAfter`, `createdBefore`; paged. */
export const listTokens = Effect.fnUntraced(function* (ports: PlatformPorts, query: ListTokensQuery) {
  const page = pageRequest(query)
  if (page === undefined) return yield* invalidCursor()
  const filter: TokenFilter = {
    name: query.name,
    createdAfter: query.createdAfter,
    createdBefore: query.createdBefore,
    includeDeleted: false
  }
  const rows = yield* ports.store.tokens.list(filter, page)
  return { ...rows, data: rows.data.map(toApiToken) } satisfies Page<ApiToken>
})

/** `GET /tokens/{tokenId}`: 404 `TOKEN_NOT_FOUND`. */
export const getToken = Effect.fnUntraced(function* (ports: PlatformPorts, id: string) {
  const record = yield* findActive(ports, id)
  if (record === undefined) return yield* tokenNotFound(id)
  return toApiToken(record)
})

/** `DELETE /tokens/{tokenId}`: the token stops authenticating at once. */
export const deleteToken = Effect.fnUntraced(function* (ports: TokenPorts, id: string) {
  const { store } = ports
  const record = yield* store.transaction(
    Effect.gen(function* () {
      const current = yield* store.tokens.getForUpdate(id)
      if (current === undefined || current.deletedAt !== undefined) return yield* tokenNotFound(id)
      const now = yield* nowIso
      yield* Effect.orDie(store.tokens.update({ ...current, deletedAt: now, updatedAt: now }))
      return current
    })
  )
  forget(ports, record.id, record.clientId)
})

// Untraced: it answers HTTP Basic on a miss of the server's credential cache, where a span would cost more
// than the lookup it wraps.
export const authenticate = Effect.fnUntraced(function* (ports: TokenPorts, username: string, secret: string) {
  const now = yield* Clock.currentTimeMillis
  let entry = ports.cache.get(username)
  if (entry === undefined || now - entry.loadedAt > CREDENTIAL_CACHE_TTL_MS) {
    if (entry !== undefined) forget(ports, entry.tokenId, entry.clientId)
    const record = username.startsWith("Token:")
      ? yield* ports.store.tokens.get(username)
      : yield* ports.store.tokens.findUnique("clientId", username)
    if (record === undefined || record.deletedAt !== undefined) return undefined
    entry = remember(ports, record, now)
  }
  return constantTimeEqual(hashSecret(secret), entry.secretHash) ? entry.principal : undefined
})
