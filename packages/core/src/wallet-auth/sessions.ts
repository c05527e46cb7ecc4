import { p256 } from "@noble/curves/nist.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Clock, Effect } from "effect"
import { scanAll } from "../platform/paging.ts"
import { Ids } from "../ports/ids.ts"
import { Store } from "../ports/store.ts"
import { EngineConfig } from "../shared/engine-config.ts"
import { encryptedSessionSigningKey } from "../shared/hpke.ts"
import { parseP256PublicKey } from "../shared/p256.ts"
import { isoAfter, isoOf } from "../shared/time.ts"
import { keyInUse, sessionNotFound, walletUnauthorized } from "./errors.ts"
import type {
  AuthSession,
  RefreshSessionRequest,
  SessionStatus,
  SignedRetryInput,
  WalletCredentialRecord,
  WalletSessionRecord
} from "./model.ts"
import type { WalletAuthPorts } from "./ports.ts"
import { refuseSpentRequest, signedRetry } from "./signed-retry.ts"

/**
 * A P-256 public key (compressed or uncompressed hex, checked on the curve at the edge or by `openOtpBundle`) in the
 * compressed lowercase form stamps carry.
 */
export const compressedKey = (hex: string): string => {
  // A compressed key is already in that form (its point was checked where it came in).
  if (!isLegacyKey(hex)) return hex.toLowerCase()
  const key = parseP256PublicKey(hex)
  if (key === undefined) throw new Error("compressedKey: not a P-256 point (the caller checks its keys)")
  return key.compressed
}

const isLegacyKey = (hex: string): boolean => hex.startsWith("04")

/** The API view of a session; `encryptedSessionSigningKey` only on the answer that created it. */
export const toAuthSession = (s: WalletSessionRecord, encryptedKey?: string): AuthSession => ({
  id: s.id,
  accountId: s.accountId,
  type: s.type,
  credentialId: s.credentialId,
  nickname: s.nickname,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
  expiresAt: s.expiresAt,
  ...(encryptedKey === undefined ? {} : { encryptedSessionSigningKey: encryptedKey })
})

/** A live session: `ACTIVE` and before `expiresAt` (`EXPIRED` is read, not written). */
export const isLive = (s: WalletSessionRecord, nowMs: number): boolean =>
  s.status === "ACTIVE" && nowMs < Date.parse(s.expiresAt)

/**
 * The key a new session will accept stamps from, and what the client receives (W-16): a compressed
 * `clientPublicKey` is the session key itself (the client holds its private key); for a legacy uncompressed one the
 * service makes the session key pair and seals its private key to the client's key with HPKE, once.
 */
export const sessionKeyFor = Effect.fnUntraced(function* (clientPublicKey: string) {
  if (!isLegacyKey(clientPublicKey)) return { publicKey: compressedKey(clientPublicKey), encryptedKey: undefined }
  const secret = p256.utils.randomSecretKey()
  const publicKey = bytesToHex(p256.getPublicKey(secret, true))
  const encryptedKey = yield* encryptedSessionSigningKey(clientPublicKey.toLowerCase(), secret)
  secret.fill(0)
  return { publicKey, encryptedKey }
})

/** A new session of `credential` stamping with `publicKey`; written by the caller's transaction. */
export const newSession = Effect.fnUntraced(function* (credential: WalletCredentialRecord, publicKey: string) {
  const ids = yield* Ids
  const nowMs = yield* Clock.currentTimeMillis
  const { walletSessionSeconds } = yield* Effect.service(EngineConfig)
  const session: WalletSessionRecord = {
    id: yield* ids.make("Session"),
    accountId: credential.accountId,
    credentialId: credential.id,
    type: credential.type,
    nickname: credential.nickname,
    publicKey,
    liveKey: publicKey,
    status: "ACTIVE",
    createdAt: isoOf(nowMs),
    updatedAt: isoOf(nowMs),
    expiresAt: isoAfter(nowMs, walletSessionSeconds)
  }
  return session
})

/** `s` ended (`REVOKED`, `REFRESHED`, `EXPIRED`): it no longer holds its key. */
export const endSession = (s: WalletSessionRecord, status: Exclude<SessionStatus, "ACTIVE">, now: string) => {
  const { liveKey: _liveKey, ...rest } = s
  const ended: WalletSessionRecord = { ...rest, status, updatedAt: now }
  return ended
}

/**
 * Writes a new session (in the caller's transaction). Its key stamps for one live session at a time: a live
 * session of the same wallet holding it is replaced (revoked), an expired one ends; a live session of another
 * wallet holding it is a 400 (`keyInUse`).
 */
export const storeSession = Effect.fnUntraced(function* (session: WalletSessionRecord) {
  const store = yield* Store
  // Only a taken key is handled here; a store failure stays one.
  const taken = yield* store.walletSessions.insert(session).pipe(
    Effect.as(false),
    Effect.catchTag("UniqueViolation", () => Effect.succeed(true))
  )
  if (!taken) return
  const holder = yield* store.walletSessions.findUnique("liveKey", session.publicKey)
  if (holder === undefined) return yield* Effect.orDie(store.walletSessions.insert(session))
  const live = isLive(holder, Date.parse(session.createdAt))
  if (live && holder.accountId !== session.accountId) return yield* keyInUse()
  yield* Effect.orDie(store.walletSessions.update(endSession(holder, live ? "REVOKED" : "EXPIRED", session.createdAt)))
  yield* Effect.orDie(store.walletSessions.insert(session))
})

// Session use cases of `WalletAuth` (W-30 … W-32), over its ports.

/** W-30: the account's live sessions, oldest first (unknown account: none). */
export const listSessions = Effect.fnUntraced(function* (ports: WalletAuthPorts, accountId: string) {
  const { store } = ports
  const nowMs = yield* Clock.currentTimeMillis
  const rows = yield* scanAll((page) => store.walletSessions.list({ accountId, status: "ACTIVE" }, page))
  return { data: rows.filter((s) => isLive(s, nowMs)).map((s) => toAuthSession(s)) }
})

const liveSession = Effect.fnUntraced(function* (ports: WalletAuthPorts, id: string) {
  const session = yield* ports.store.walletSessions.get(id)
  const nowMs = yield* Clock.currentTimeMillis
  if (session === undefined || session.status !== "ACTIVE") return yield* sessionNotFound(id)
  return { session, nowMs }
})

/** W-31: a new session for the same credential, signed by the session being refreshed; expired → 401. */
export const refreshSession = Effect.fnUntraced(function* (
  ports: WalletAuthPorts,
  id: string,
  req: RefreshSessionRequest,
  input: SignedRetryInput
) {
  const { store, provide } = ports
  yield* provide(refuseSpentRequest({ operation: "REFRESH_SESSION", subjectId: id }, input))
  const { session, nowMs } = yield* liveSession(ports, id)
  if (!isLive(session, nowMs)) return yield* walletUnauthorized("The session expired: sign in again")
  return yield* provide(
    signedRetry(
      {
        operation: "REFRESH_SESSION",
        accountId: session.accountId,
        subjectId: session.id,
        begin: Effect.succeed({ signer: { kind: "SESSION", sessionId: session.id } as const }),
        credentialSet: Effect.succeed([session.credentialId]),
        apply: () =>
          Effect.gen(function* () {
            const current = yield* store.walletSessions.getForUpdate(id)
            const credential = yield* store.walletCredentials.get(session.credentialId)
            const now = yield* Clock.currentTimeMillis
            if (current === undefined || !isLive(current, now) || credential === undefined) {
              return yield* walletUnauthorized("The session expired: sign in again")
            }
            const key = yield* sessionKeyFor(req.clientPublicKey)
            const next = yield* newSession(credential, key.publicKey)
            yield* Effect.orDie(store.walletSessions.update(endSession(current, "REFRESHED", isoOf(now))))
            yield* storeSession(next)
            return toAuthSession(next, key.encryptedKey)
          })
      },
      input
    )
  )
})

/** W-32: revokes a live session; any live session of the wallet may sign, itself included. */
export const revokeSession = Effect.fnUntraced(function* (ports: WalletAuthPorts, id: string, input: SignedRetryInput) {
  const { store, provide } = ports
  yield* provide(refuseSpentRequest({ operation: "REVOKE_SESSION", subjectId: id }, input))
  const { session, nowMs } = yield* liveSession(ports, id)
  if (!isLive(session, nowMs)) return yield* sessionNotFound(id)
  return yield* provide(
    signedRetry(
      {
        operation: "REVOKE_SESSION",
        accountId: session.accountId,
        subjectId: session.id,
        credentialType: session.type,
        credentialSet: Effect.succeed([session.credentialId]),
        apply: () =>
          Effect.gen(function* () {
            const current = yield* store.walletSessions.getForUpdate(id)
            if (current === undefined || current.status !== "ACTIVE") return yield* sessionNotFound(id)
            const now = isoOf(yield* Clock.currentTimeMillis)
            yield* Effect.orDie(store.walletSessions.update(endSession(current, "REVOKED", now)))
            return undefined
          })
      },
      input
    )
  )
})
