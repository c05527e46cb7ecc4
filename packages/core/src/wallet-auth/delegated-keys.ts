import { p256 } from "@noble/curves/nist.js"
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js"
import { Clock, Effect, Result } from "effect"
import { scanAll } from "../platform/paging.ts"
import { KeyVault } from "../ports/key-vault.ts"
import { Store } from "../ports/store.ts"
import type { Conflict, NotFound, StoreError } from "../shared/errors.ts"
import { transition } from "../shared/machine.ts"
import { isoOf } from "../shared/time.ts"
import { operation } from "../shared/tracing.ts"
import { walletAccount } from "./credentials.ts"
import {
  activeKeyExists,
  delegatedKeyFilterMissing,
  delegatedKeyNotActive,
  delegatedKeyNotFound,
  fundingSourceNotFound
} from "./errors.ts"
import { delegatedKeyMachine } from "./machine.ts"
import type {
  CreateDelegatedKeyRequest,
  DelegatedKey,
  DelegatedKeyRecord,
  DelegatedKeyStatus,
  ListDelegatedKeysQuery,
  SignedRetryChallenge,
  SignedRetryInput
} from "./model.ts"
import type { WalletAuthPorts } from "./ports.ts"
import { issueChallenge, refuseSpentRequest, signedRetry, type WalletAction } from "./signed-retry.ts"

/** The API view of a delegated key (W-43): never its sealed private key. */
export const toDelegatedKey = (k: DelegatedKeyRecord): DelegatedKey => ({
  id: k.id,
  cardId: k.cardId,
  fundingSourceId: k.fundingSourceId,
  accountId: k.accountId,
  publicKey: k.publicKey,
  nickname: k.nickname,
  status: k.status,
  createdAt: k.createdAt,
  updatedAt: k.updatedAt
})

/**
 * W-47: signs `payload` (a string is signed as its UTF-8 bytes) with the delegated key `keyId`: ECDSA P-256 over
 * SHA-256, the signature in DER (hex), as a session key stamps. Only an `ACTIVE` key signs (W-44: a `PENDING` one
 * never did, W-46: a `REVOKED` one no more); the key is opened from the `KeyVault` for this call only. Not an HTTP
 * route: the cards context calls it to authorize a card payment from the embedded wallet.
 */
export const signWithKey = Effect.fnUntraced(function* (
  ports: Pick<WalletAuthPorts, "store" | "vault">,
  keyId: string,
  payload: string | Uint8Array
) {
  const { store, vault } = ports
  const key = yield* store.delegatedKeys.get(keyId)
  if (key === undefined) return yield* delegatedKeyNotFound(keyId)
  if (key.status !== "ACTIVE") return yield* delegatedKeyNotActive(key.id, key.status)
  const secret = yield* vault.open(key.privateKeySealed, key.id)
  // Sealed under another key-encryption key (a process without the KEK it was created with): it cannot sign.
  if (secret === undefined) return yield* delegatedKeyNotActive(key.id, "sealed under another key-encryption key")
  try {
    const bytes = typeof payload === "string" ? utf8ToBytes(payload) : payload
    return bytesToHex(p256.sign(bytes, secret, { format: "der" }))
  } finally {
    secret.fill(0)
  }
})

/** `signWithKey` for a caller whose context holds `Store` and `KeyVault` (the cards context, W-47). */
export const signWithDelegatedKey = operation("WalletAuth.signWithDelegatedKey")(function* (
  keyId: string,
  payload: string | Uint8Array
) {
  return yield* signWithKey({ store: yield* Store, vault: yield* KeyVault }, keyId, payload)
})

/**
 * The key after its `REVOKE` move (W-46): `REVOKED`, its funding source's slot freed; `undefined` unless the machine
 * allows the move (only an `ACTIVE` key). `DELETE /auth/delegated-keys/{id}` makes it, and so does the cards context
 * when the key's funding source leaves its card (a new `fundingSources`, a close).
 */
export const revokedKey = (current: DelegatedKeyRecord, now: string): DelegatedKeyRecord | undefined => {
  const move = transition(delegatedKeyMachine, current.status, "REVOKE")
  if (Result.isFailure(move)) return undefined
  const { activeSlot: _slot, ...rest } = current
  return { ...rest, status: move.success.to as DelegatedKeyStatus, updatedAt: now }
}

/** The bound parameter that tells a third leg from a second: the second leg's challenge binds the key it made. */
const DELEGATED_KEY = "delegatedKeyId"

// Delegated keys of `WalletAuth` (W-42 … W-47, L-11), over its ports. Creation is a signed retry with three legs and
// the same body on each: the first answers 202; the second (stamped by a session of the wallet) makes the key pair,
// stores the key `PENDING` and answers a second 202 that binds the key; the third activates it (201). The store holds
// at most one `ACTIVE` key per funding source (the unique `activeSlot`): a racing activation is a 409.

/** The request's wallet and funding source (W-45): 404 unknown card, funding source or wallet; 400 not a wallet. */
const target = Effect.fnUntraced(function* (ports: WalletAuthPorts, req: CreateDelegatedKeyRequest) {
  const account = yield* ports.provide(walletAccount(req.internalAccountId, "internalAccountId"))
  const source = yield* ports.fundingSources.find(req.cardId, account.id)
  if (source === undefined) return yield* fundingSourceNotFound(req.cardId, account.id)
  return { accountId: account.id, fundingSourceId: source.fundingSourceId }
})

/** W-45, L-11: 409 while the funding source has an `ACTIVE` key. */
const noActiveKey = Effect.fnUntraced(function* (ports: WalletAuthPorts, fundingSourceId: string) {
  const active = yield* ports.store.delegatedKeys.findUnique("activeSlot", fundingSourceId)
  if (active !== undefined) return yield* activeKeyExists(fundingSourceId)
})

/** The second leg's effect: a new key pair, its private key sealed, stored `PENDING` (W-44: it signs nothing). */
const newPendingKey = Effect.fnUntraced(function* (
  ports: WalletAuthPorts,
  req: CreateDelegatedKeyRequest,
  accountId: DelegatedKeyRecord["accountId"],
  fundingSourceId: string
) {
  const { store, ids, vault } = ports
  yield* noActiveKey(ports, fundingSourceId)
  const id = yield* ids.make("DelegatedKey")
  const now = isoOf(yield* Clock.currentTimeMillis)
  const secret = p256.utils.randomSecretKey()
  const publicKey = bytesToHex(p256.getPublicKey(secret, true))
  const privateKeySealed = yield* vault.seal(secret, id)
  secret.fill(0)
  const record: DelegatedKeyRecord = {
    id,
    cardId: req.cardId,
    fundingSourceId,
    accountId,
    publicKey,
    privateKeySealed,
    nickname: req.nickname,
    status: delegatedKeyMachine.initial as DelegatedKeyStatus,
    createdAt: now,
    updatedAt: now
  }
  // A fresh id and no slot: no unique key to be taken.
  yield* Effect.orDie(store.delegatedKeys.insert(record))
  return record
})

/** The third leg's effect (W-42, W-45): the key `ACTIVE`, holding its funding source's slot. */
const activate = Effect.fnUntraced(function* (ports: WalletAuthPorts, keyId: string, fundingSourceId: string) {
  const { store } = ports
  const current = yield* store.delegatedKeys.getForUpdate(keyId)
  if (current === undefined || current.fundingSourceId !== fundingSourceId) return yield* delegatedKeyNotFound(keyId)
  const move = transition(delegatedKeyMachine, current.status, "ACTIVATE")
  // Only a PENDING key activates; the requestId binding it is consumed once, so this is another key's doing.
  if (Result.isFailure(move)) return yield* activeKeyExists(fundingSourceId)
  yield* noActiveKey(ports, fundingSourceId)
  const active: DelegatedKeyRecord = {
    ...current,
    status: move.success.to as DelegatedKeyStatus,
    activeSlot: fundingSourceId,
    updatedAt: isoOf(yield* Clock.currentTimeMillis)
  }
  // Two activations racing for one funding source: the store lets one hold the slot.
  yield* store.delegatedKeys
    .update(active)
    .pipe(Effect.catchTag("UniqueViolation", () => activeKeyExists(fundingSourceId)))
  return toDelegatedKey(active)
})

/** `POST /auth/delegated-keys` (W-42 … W-45): 202, 202, then 201 `ACTIVE`. */
export const createDelegatedKey = Effect.fnUntraced(function* (
  ports: WalletAuthPorts,
  req: CreateDelegatedKeyRequest,
  input: SignedRetryInput
) {
  const { provide } = ports
  const retried = { operation: "CREATE_DELEGATED_KEY", accountId: req.internalAccountId } as const
  yield* provide(refuseSpentRequest(retried, input))
  const { accountId, fundingSourceId } = yield* target(ports, req)
  const parameters = { cardId: req.cardId, fundingSourceId }
  const action: WalletAction<
    DelegatedKey | SignedRetryChallenge,
    NotFound | Conflict | StoreError,
    never,
    Conflict | StoreError
  > = {
    operation: "CREATE_DELEGATED_KEY",
    accountId,
    subjectId: fundingSourceId,
    // The 409 is checked before the first 202 (never a challenge for a request that would fail), and again in the
    // transaction of each later leg: another key may have become ACTIVE meanwhile.
    begin: Effect.as(noActiveKey(ports, fundingSourceId), { signer: { kind: "ANY_SESSION" } as const, parameters }),
    // It changes no credential.
    credentialSet: Effect.succeed([]),
    apply: (request) => {
      const keyId = request.bound?.[DELEGATED_KEY]
      if (keyId !== undefined) return activate(ports, keyId, fundingSourceId)
      return Effect.gen(function* () {
        const key = yield* newPendingKey(ports, req, accountId, fundingSourceId)
        // The third leg's challenge, in the transaction that consumes the second: it binds the key it activates.
        const next = {
          ...action,
          begin: Effect.succeed({
            signer: { kind: "ANY_SESSION" } as const,
            parameters: { ...parameters, [DELEGATED_KEY]: key.id, publicKey: key.publicKey }
          })
        }
        return yield* provide(issueChallenge(next, input))
      })
    }
  }
  return yield* provide(signedRetry(action, input))
})

/** `GET /auth/delegated-keys` (FEATURES, upstream list): every status, oldest first; at least one filter. */
export const listDelegatedKeys = Effect.fnUntraced(function* (ports: WalletAuthPorts, query: ListDelegatedKeysQuery) {
  if (query.accountId === undefined && query.fundingSourceId === undefined) {
    return yield* delegatedKeyFilterMissing()
  }
  const filter = { accountId: query.accountId, fundingSourceId: query.fundingSourceId }
  const rows = yield* scanAll((page) => ports.store.delegatedKeys.list(filter, page))
  return { data: rows.map(toDelegatedKey) }
})

/** `GET /auth/delegated-keys/{id}`. */
export const getDelegatedKey = Effect.fnUntraced(function* (ports: WalletAuthPorts, id: string) {
  const key = yield* ports.store.delegatedKeys.get(id)
  if (key === undefined) return yield* delegatedKeyNotFound(id)
  return toDelegatedKey(key)
})

/** `DELETE /auth/delegated-keys/{id}` (W-46): Basic auth only, no signed retry; only an `ACTIVE` key. */
export const revokeDelegatedKey = Effect.fnUntraced(function* (ports: WalletAuthPorts, id: string) {
  const { store } = ports
  return yield* store.transaction(
    Effect.gen(function* () {
      const current = yield* store.delegatedKeys.getForUpdate(id)
      if (current === undefined) return yield* delegatedKeyNotFound(id)
      const revoked = revokedKey(current, isoOf(yield* Clock.currentTimeMillis))
      if (revoked === undefined) return yield* delegatedKeyNotActive(id, current.status)
      // Leaving the slot frees it: no unique key to be taken.
      yield* Effect.orDie(store.delegatedKeys.update(revoked))
      return undefined
    })
  )
})
