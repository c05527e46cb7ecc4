import { Clock, Effect } from "effect"
import { Ids } from "../ports/ids.ts"
import { Store } from "../ports/store.ts"
import { sha256Hex } from "../shared/digests.ts"
import type { Conflict, Refused, StoreError } from "../shared/errors.ts"
import { isoAfter, isoOf } from "../shared/time.ts"
import {
  bodyMismatch,
  credentialSetChanged,
  requestIdMissing,
  requestIdRefused,
  signatureInvalid,
  signatureMalformed,
  signatureMissing
} from "./errors.ts"
import { signedRequestMachine } from "./machine.ts"
import type {
  CredentialType,
  SignedRequestRecord,
  SignedRetryChallenge,
  SignedRetryInput,
  WalletOperation,
  WalletOperationProcessing,
  WalletSessionRecord
} from "./model.ts"
import { parseStamp, verifyStamp } from "./stamp.ts"

/** L-08: a first leg's `requestId` can be used for five minutes. */
export const SIGNED_RETRY_SECONDS = 300

/** Who may stamp a retry (FEATURES "Signed-retry stamp": the key must belong to an active session of the wallet). */
export type SignerRule =
  /** A session of a verified, active credential of the wallet (W-08, W-33, W-34, W-42, CU-16). */
  | { readonly kind: "ANY_SESSION" }
  /** As `ANY_SESSION`, by a session of another credential than this one (W-28). */
  | { readonly kind: "OTHER_CREDENTIAL"; readonly credentialId: string }
  /** That session only, while it lasts (W-31). */
  | { readonly kind: "SESSION"; readonly sessionId: string }
  /** The key the client proved it holds in the first leg (W-17: the key sealed with the OTP). */
  | { readonly kind: "KEY"; readonly publicKey: string }

const ANY_SESSION: SignerRule = { kind: "ANY_SESSION" }

const encodeSigner = (rule: SignerRule): string => {
  switch (rule.kind) {
    case "ANY_SESSION":
      return "ANY_SESSION"
    case "OTHER_CREDENTIAL":
      return `OTHER_CREDENTIAL:${rule.credentialId}`
    case "SESSION":
      return `SESSION:${rule.sessionId}`
    case "KEY":
      return `KEY:${rule.publicKey}`
  }
}

const decodeSigner = (text: string): SignerRule => {
  const at = text.indexOf(":")
  const kind = at < 0 ? text : text.slice(0, at)
  const value = text.slice(at + 1)
  switch (kind) {
    case "OTHER_CREDENTIAL":
      return { kind, credentialId: value }
    case "SESSION":
      return { kind, sessionId: value }
    case "KEY":
      return { kind, publicKey: value }
    default:
      return ANY_SESSION
  }
}

/** An action's effect that waits on a port (W-39): the retry answers `PROCESSING`; the identical resend settles it. */
export class Pending {
  readonly _tag = "Pending"
  readonly message: string
  constructor(message: string) {
    this.message = message
  }
}

/** Who stamped an accepted retry. */
export interface Signer {
  readonly publicKey: string
  /** The stamping session (none for a `KEY` rule). */
  readonly session: WalletSessionRecord | undefined
}

/**
 * One wallet-authorized action (W-36), as the signed retry needs it. The caller checks the request (404, 400)
 * before: a 202 is never issued for a request that would fail.
 */
export interface WalletAction<A, E, R, EB = never, RB = never> {
  readonly operation: WalletOperation
  readonly accountId: string
  /** The resource acted on (credential, session, customer, account): a `requestId` issued for another is foreign. */
  readonly subjectId: string
  /** Echoed as the 202's `type` on the `/auth/credentials` routes. */
  readonly credentialType?: CredentialType | undefined
  /**
   * Runs at the first leg only, before the 202: checks that need the body's secrets (an OTP) and the signer
   * rule and operation data to bind. Defaults: `ANY_SESSION`, no parameters.
   */
  readonly begin?: Effect.Effect<
    { readonly signer: SignerRule; readonly parameters?: Readonly<Record<string, string>> },
    EB,
    RB
  >
  /** The ids of the credentials the action changes: hashed at the first leg, compared again at the retry. */
  readonly credentialSet: Effect.Effect<ReadonlyArray<string>, StoreError, Store>
  /** The refusal when `credentialSet` changed between the legs (default: 409 `CONFLICT`; CU-18 names its own). */
  readonly setChanged?: Conflict | undefined
  /**
   * The effect, run inside the store transaction that consumes the `requestId` (it may run again when the store
   * retries a transaction: nothing in it may happen only once, such as a message or a port call with effects).
   */
  readonly apply: (request: SignedRequestRecord, signer: Signer) => Effect.Effect<A | Pending, E, R>
}

export type SignedRetryResult<A> = SignedRetryChallenge | WalletOperationProcessing | A

/** What a signed-retry action answers: its first leg's 202, a 200 `PROCESSING`, or its result. */
export type Signed<A> = SignedRetryChallenge | WalletOperationProcessing | A

/** The hash binding a set of credential ids, whatever their order. */
const credentialSetHash = (ids: ReadonlyArray<string>): string => sha256Hex([...ids].sort().join("\n"))

/**
 * W-38: a spent `requestId` is refused before anything else of its action is checked. A request whose `Request-Id`
 * names a request issued for this operation (and account and `subjectId`, when given) that is used, refused or expired is 401
 * `UNAUTHORIZED` here: the replay of a done action meets its spent `requestId`, not the state the action left (a
 * passkey added twice, a session already refreshed). Every use case of a signed-retry action calls it first. Any
 * other `Request-Id` passes: `signedRetry` checks the headers in full where the action needs a signature.
 */
export const refuseSpentRequest = Effect.fnUntraced(function* (
  expected: {
    readonly operation: WalletOperation
    readonly accountId?: string | undefined
    readonly subjectId?: string | undefined
  },
  input: SignedRetryInput
): Effect.fn.Return<void, Refused | StoreError, Store> {
  if (input.requestId === undefined) return
  const row = yield* (yield* Store).signedRequests.get(input.requestId)
  if (
    row === undefined ||
    row.operation !== expected.operation ||
    (expected.accountId !== undefined && row.accountId !== expected.accountId) ||
    (expected.subjectId !== undefined && row.subjectId !== expected.subjectId)
  ) {
    return
  }
  const live = row.status === "PENDING" || row.status === "PROCESSING"
  if (!live || (yield* Clock.currentTimeMillis) > Date.parse(row.expiresAt)) return yield* requestIdRefused()
})

/**
 * The one signed-retry mechanism (W-35 … W-41) every wallet-authorized action goes through; handlers never read
 * the two headers themselves.
 *
 * - No headers: the first leg. Stores the `requestId` with the exact `payloadToSign`, the body's hash, the signer
 *   rule and the hash of the credential set, and answers 202.
 * - A retry is checked in this order, and a refusal writes nothing: `Request-Id` without a stamp
 *   (`WALLET_SIGNATURE_MISSING`), a stamp without `Request-Id` (`REQUEST_ID_MISSING`), a stamp that does not parse
 *   (`_MALFORMED`), an unknown / used / expired / foreign `requestId` (`UNAUTHORIZED`), another body
 *   (`_BODY_MISMATCH`), a signature that does not verify or a key the rule does not allow (`_INVALID`), a credential
 *   set that changed (409, `setChanged`). The ECDSA check runs before the store transaction (no lock is held meanwhile); the
 *   transaction locks the row, checks it again, runs the effect and consumes the row, so two racing retries with
 *   one `requestId` give one effect. The use case has called `refuseSpentRequest` before its own checks.
 */
export const signedRetry = Effect.fnUntraced(function* <A, E, R, EB = never, RB = never>(
  action: WalletAction<A, E, R, EB, RB>,
  input: SignedRetryInput
): Effect.fn.Return<SignedRetryResult<A>, E | EB | StoreError | Refused | Conflict, R | RB | Store | Ids> {
  if (input.signature === undefined && input.requestId === undefined) return yield* issueChallenge(action, input)
  if (input.signature === undefined) return yield* signatureMissing()
  if (input.requestId === undefined) return yield* requestIdMissing()
  const stamp = parseStamp(input.signature)
  if (stamp === undefined) return yield* signatureMalformed()
  const store = yield* Store
  const nowMs = yield* Clock.currentTimeMillis
  // Only a PROCESSING row compares it (W-39): hashed on demand.
  const signature = input.signature
  let stampHash: string | undefined
  const stampSha256 = () => (stampHash ??= sha256Hex(signature))
  const usable = (row: SignedRequestRecord | undefined): row is SignedRequestRecord =>
    row !== undefined &&
    row.accountId === action.accountId &&
    row.operation === action.operation &&
    row.subjectId === action.subjectId &&
    nowMs <= Date.parse(row.expiresAt) &&
    (row.status === "PENDING" || (row.status === "PROCESSING" && row.stampSha256 === stampSha256()))
  const row = yield* store.signedRequests.get(input.requestId)
  if (!usable(row)) return yield* requestIdRefused()
  if (sha256Hex(input.rawBody) !== row.bodySha256) return yield* bodyMismatch()
  if (!(yield* verifyStamp(stamp, row.payloadToSign))) return yield* signatureInvalid()

  return yield* store.transaction(
    Effect.gen(function* () {
      const locked = yield* store.signedRequests.getForUpdate(row.id)
      if (!usable(locked)) return yield* requestIdRefused()
      const signer = yield* allowedSigner(decodeSigner(locked.signer), locked.accountId, stamp.publicKey, nowMs)
      if (signer === undefined) return yield* signatureInvalid()
      if (credentialSetHash(yield* action.credentialSet) !== locked.credentialSetSha256) {
        return yield* action.setChanged ?? credentialSetChanged()
      }
      const result = yield* action.apply(locked, signer)
      const pending = result instanceof Pending
      // A PROCESSING row resent identically and still pending stays as it is.
      const event =
        locked.status === "PENDING" ? (pending ? "ACCEPT_PENDING" : "ACCEPT") : pending ? undefined : "SETTLE"
      if (event !== undefined) {
        const move = signedRequestMachine.transitions[locked.status][event]
        if (move === undefined) return yield* requestIdRefused()
        yield* Effect.orDie(
          store.signedRequests.update({
            ...locked,
            status: move.to as SignedRequestRecord["status"],
            ...(pending ? { stampSha256: stampSha256() } : {}),
            updatedAt: isoOf(nowMs)
          })
        )
      }
      if (pending) {
        const processing: WalletOperationProcessing = { status: "PROCESSING", message: result.message }
        return processing
      }
      return result as A
    })
  )
})

/**
 * The first leg: the `requestId` and what it binds, stored; the 202's body. An action with several signed legs
 * (W-42: a delegated key) calls it from `apply` to issue the next leg's challenge in the transaction that consumes
 * the current one.
 */
export const issueChallenge = Effect.fnUntraced(function* <A, E, R, EB, RB>(
  action: WalletAction<A, E, R, EB, RB>,
  input: SignedRetryInput
) {
  const store = yield* Store
  const ids = yield* Ids
  const begun = action.begin === undefined ? { signer: ANY_SESSION } : yield* action.begin
  const requestId = yield* ids.make("Request")
  const nowMs = yield* Clock.currentTimeMillis
  const expiresAt = isoAfter(nowMs, SIGNED_RETRY_SECONDS)
  const bodySha256 = sha256Hex(input.rawBody)
  const credentialSetSha256 = credentialSetHash(yield* action.credentialSet)
  const parameters = begun.parameters ?? {}
  // Keys in a fixed order, no whitespace: the client signs these bytes as they are.
  const payloadToSign = JSON.stringify({
    type: `WALLET_${action.operation}`,
    requestId,
    accountId: action.accountId,
    subjectId: action.subjectId,
    parameters,
    bodySha256,
    credentialSetSha256,
    expiresAt
  })
  const now = isoOf(nowMs)
  const record: SignedRequestRecord = {
    id: requestId,
    accountId: action.accountId,
    operation: action.operation,
    subjectId: action.subjectId,
    status: signedRequestMachine.initial as SignedRequestRecord["status"],
    payloadToSign,
    bodySha256,
    credentialSetSha256,
    signer: encodeSigner(begun.signer),
    ...(begun.parameters === undefined ? {} : { bound: begun.parameters }),
    expiresAt,
    createdAt: now,
    updatedAt: now
  }
  // A fresh id: no key to be taken.
  yield* Effect.orDie(store.signedRequests.insert(record))
  const challenge: SignedRetryChallenge = {
    ...(action.credentialType === undefined ? {} : { type: action.credentialType }),
    payloadToSign,
    requestId,
    expiresAt
  }
  return challenge
})

/**
 * The signer a stamp's key stands for under `rule`, or `undefined`: for session rules, an `ACTIVE`, unexpired
 * session of the wallet with that key, whose credential is active and verified.
 */
export const allowedSigner = Effect.fnUntraced(function* (
  rule: SignerRule,
  accountId: string,
  publicKey: string,
  nowMs: number
): Effect.fn.Return<Signer | undefined, StoreError, Store> {
  if (rule.kind === "KEY") return rule.publicKey === publicKey ? { publicKey, session: undefined } : undefined
  const store = yield* Store
  // The key's one live session (see `WalletSessionRecord.liveKey`).
  const session = yield* store.walletSessions.findUnique("liveKey", publicKey)
  if (
    session === undefined ||
    session.accountId !== accountId ||
    session.status !== "ACTIVE" ||
    nowMs >= Date.parse(session.expiresAt) ||
    (rule.kind === "SESSION" && session.id !== rule.sessionId) ||
    (rule.kind === "OTHER_CREDENTIAL" && session.credentialId === rule.credentialId)
  ) {
    return undefined
  }
  const credential = yield* store.walletCredentials.get(session.credentialId)
  if (credential === undefined || credential.status !== "ACTIVE" || !credential.verified) return undefined
  return { publicKey, session }
})

/**
 * A wallet authorization in one request (Q-24: a quote's execution): `header` must be a stamp over the exact
 * `payload` by the key of an `ACTIVE`, unexpired session of an active, verified credential of the wallet
 * `accountId` (the `ANY_SESSION` rule of the signed retry). No `Request-Id` and no stored request: the caller's own
 * state machine makes the authorization single-use (a quote executes once). Refusals, each 401: no header
 * (`WALLET_SIGNATURE_MISSING`), a header that does not parse (`_MALFORMED`), a signature that does not verify over
 * `payload` or a key that is not such a session's (`_INVALID`). Reads the store (inside the caller's transaction);
 * writes nothing.
 */
export const verifyWalletStamp = Effect.fnUntraced(function* (
  accountId: string,
  header: string | undefined,
  payload: string
): Effect.fn.Return<Signer, Refused | StoreError, Store> {
  if (header === undefined) {
    return yield* signatureMissing("This action needs a Service-Wallet-Signature over its payloadToSign")
  }
  const stamp = parseStamp(header)
  if (stamp === undefined) return yield* signatureMalformed()
  if (!(yield* verifyStamp(stamp, payload))) return yield* signatureInvalid()
  const nowMs = yield* Clock.currentTimeMillis
  const signer = yield* allowedSigner(ANY_SESSION, accountId, stamp.publicKey, nowMs)
  if (signer === undefined) return yield* signatureInvalid()
  return signer
})

/**
 * A use case's runner for the steps that read `Store` and `Ids` from their context (the signed retry, the session
 * helpers): the services its layer resolved, provided once.
 */
export const providing =
  (store: Store["Service"], ids: Ids["Service"]) =>
  <A, E>(effect: Effect.Effect<A, E, Store | Ids>): Effect.Effect<A, E> =>
    effect.pipe(Effect.provideService(Store, store), Effect.provideService(Ids, ids))
