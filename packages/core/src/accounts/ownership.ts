/**
 * Ownership verification of self-custody wallets (Travel Rule; AC-24 … AC-30, docs/ownership-verification.md):
 * `challenge` opens a WALLET_SIGNATURE or LIVENESS challenge (replacing the open one), `verify` checks a wallet's
 * signature of the message synchronously, `settleLiveness` applies the liveness provider's verdict. Each moves the
 * account by `externalAccountMachine` and writes the move's `EXTERNAL_ACCOUNT.STATUS_UPDATED` in the same store
 * transaction.
 */
import { Effect, Result } from "effect"
import { LivenessProvider } from "../ports/liveness.ts"
import { EngineConfig } from "../shared/engine-config.ts"
import type { ExternalAccountId } from "../shared/ids.ts"
import { allows, transition } from "../shared/machine.ts"
import { isoOf } from "../shared/time.ts"
import { emitSteps } from "../webhooks/emit.ts"
import {
  externalAccountNotFound,
  noOpenChallenge,
  ownershipNotApplicable,
  ownershipSignatureRejected
} from "./errors.ts"
import { answered } from "./external-accounts.ts"
import { type ExternalAccountEvent, type ExternalAccountState, externalAccountMachine } from "./machine.ts"
import {
  type AccountOwner,
  type ExternalAccount,
  heldBy,
  type OwnershipChallenge,
  type OwnershipChallengeRecord,
  type OwnershipChallengeRequest,
  type OwnershipVerifyRequest,
  type SandboxLivenessRequest
} from "./model.ts"
import { notVerifiable, ownershipMessage, selfCustodyWallet } from "./ownership-rules.ts"
import type { OwnershipPorts } from "./ports.ts"
import { verifyWalletSignature } from "./wallet-signatures.ts"

type Rejection = "SIGNATURE_INVALID" | "CHALLENGE_EXPIRED"

/** The account (not deleted, held by `owner` when given), locked for the transaction. */
const lockedAccount = Effect.fnUntraced(function* (store: OwnershipPorts["store"], id: string, owner?: AccountOwner) {
  const account = yield* store.externalAccounts.getForUpdate(id)
  if (account === undefined || account.status === "INACTIVE" || (owner !== undefined && !heldBy(account, owner))) {
    return yield* externalAccountNotFound(id)
  }
  return account
})

/** Moves the account by `event` (the caller checked it is legal) and writes the move's events. */
const move = Effect.fnUntraced(function* (
  ports: OwnershipPorts,
  account: ExternalAccount,
  event: ExternalAccountEvent,
  now: string
) {
  const { store, ids } = ports
  const step = transition(externalAccountMachine, account.status as ExternalAccountState, event)
  if (Result.isFailure(step)) return yield* Effect.die(step.failure)
  const moved: ExternalAccount =
    step.success.to === account.status ? account : { ...account, status: step.success.to, updatedAt: now }
  if (moved !== account) yield* Effect.orDie(store.externalAccounts.update(moved))
  const shown = answered(moved)
  yield* emitSteps(store, ids, step.success.emits, moved.id, shown, now)
  return shown
})

/**
 * A new WALLET_SIGNATURE or LIVENESS challenge of the account (AC-25, AC-26), replacing the open one; 404 on the
 * other side's accounts.
 */
export const challengeOwnership = Effect.fnUntraced(function* (
  ports: OwnershipPorts,
  id: string,
  req: OwnershipChallengeRequest,
  owner: AccountOwner = "CUSTOMER"
) {
  const { store, ids } = ports
  const liveness = yield* LivenessProvider
  const { travelRule } = yield* EngineConfig
  return yield* store.transaction(
    Effect.gen(function* () {
      const account = yield* lockedAccount(store, id, owner)
      const why = notVerifiable(account, req.method)
      if (why !== undefined) return yield* ownershipNotApplicable(id, why)
      if (!allows(externalAccountMachine, account.status, "CHALLENGE")) {
        return yield* ownershipNotApplicable(id, `it is ${account.status}: its ownership needs no verification`)
      }
      const nowMs = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
      const now = isoOf(nowMs)
      const expiresAt = isoOf(nowMs + travelRule.challengeSeconds * 1000)
      const nonce = yield* ids.randomHex(16)
      const base = {
        id: account.id as ExternalAccountId,
        ...(account.customerId === undefined ? {} : { customerId: account.customerId }),
        status: "OPEN" as const,
        nonce,
        expiresAt,
        createdAt: now,
        updatedAt: now
      }
      let record: OwnershipChallengeRecord
      let answer: OwnershipChallenge
      if (req.method === "WALLET_SIGNATURE") {
        const address = selfCustodyWallet(account.accountInfo)!.address
        const messageToSign = ownershipMessage(account, address, nonce, expiresAt)
        record = { ...base, method: "WALLET_SIGNATURE", messageToSign }
        answer = { method: "WALLET_SIGNATURE", messageToSign, expiresAt }
      } else {
        // The sandbox provider is pure; a provider that calls out opens one session per attempt of a
        // retried transaction, and only the committed one is kept.
        const session = yield* liveness.startSession({
          subjectId: account.id,
          // notVerifiable refused LIVENESS for a platform-owned account (no customer).
          customerId: account.customerId ?? "",
          nonce,
          expiresAt
        })
        const token = session.token === undefined ? {} : { token: session.token }
        record = { ...base, method: "LIVENESS", verificationLink: session.verificationLink, ...token }
        answer = { method: "LIVENESS", verificationLink: session.verificationLink, ...token, expiresAt }
      }
      // One challenge per account: the new one replaces (abandons) the previous one (AC-26).
      const previous = yield* store.ownershipChallenges.getForUpdate(account.id)
      yield* Effect.orDie(
        previous === undefined ? store.ownershipChallenges.insert(record) : store.ownershipChallenges.update(record)
      )
      yield* move(ports, account, "CHALLENGE", now)
      return answer
    })
  )
})

/** The account's open challenge of `method`, or 409. */
const openChallenge = Effect.fnUntraced(function* (
  store: OwnershipPorts["store"],
  account: ExternalAccount,
  method: OwnershipChallengeRecord["method"]
) {
  const record = yield* store.ownershipChallenges.getForUpdate(account.id)
  if (
    record === undefined ||
    record.status !== "OPEN" ||
    record.method !== method ||
    account.status !== "PENDING_OWNERSHIP_VERIFICATION"
  ) {
    return yield* noOpenChallenge(account.id, method)
  }
  return record
})

/** A wallet's signature of the challenge's message, checked now (AC-27, AC-29, AC-30): `ACTIVE`, or 400 and `UNVERIFIED`. */
export const verifyOwnership = Effect.fnUntraced(function* (
  ports: OwnershipPorts,
  id: string,
  req: OwnershipVerifyRequest,
  owner: AccountOwner = "CUSTOMER"
) {
  const { store } = ports
  const outcome = yield* store.transaction(
    Effect.gen(function* () {
      const account = yield* lockedAccount(store, id, owner)
      const record = yield* openChallenge(store, account, "WALLET_SIGNATURE")
      const nowMs = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
      const now = isoOf(nowMs)
      const wallet = selfCustodyWallet(account.accountInfo)
      const rejection: Rejection | undefined =
        nowMs >= Date.parse(record.expiresAt)
          ? "CHALLENGE_EXPIRED"
          : wallet !== undefined &&
              verifyWalletSignature(wallet, record.messageToSign ?? "", req.signature, req.signatureScheme)
            ? undefined
            : "SIGNATURE_INVALID"
      // Used either way: a message is good for one attempt.
      yield* Effect.orDie(
        store.ownershipChallenges.update({
          ...record,
          status: rejection === undefined ? "PASSED" : "FAILED",
          updatedAt: now
        })
      )
      const shown = yield* move(
        ports,
        account,
        rejection === undefined ? "VERIFICATION_PASSED" : "VERIFICATION_FAILED",
        now
      )
      return { shown, rejection }
    })
  )
  // The failed attempt is committed (UNVERIFIED, with its event) before the 400 is answered (AC-30).
  if (outcome.rejection !== undefined) return yield* ownershipSignatureRejected(id, outcome.rejection)
  return outcome.shown
})

/** The liveness provider's verdict on the open LIVENESS challenge (AC-28). */
export const settleLivenessVerdict = Effect.fnUntraced(function* (
  ports: OwnershipPorts,
  id: string,
  req: SandboxLivenessRequest
) {
  const { store } = ports
  return yield* store.transaction(
    Effect.gen(function* () {
      const account = yield* lockedAccount(store, id)
      const record = yield* openChallenge(store, account, "LIVENESS")
      const nowMs = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
      // An expired session has no verdict to give: the platform starts a new challenge.
      if (nowMs >= Date.parse(record.expiresAt)) return yield* noOpenChallenge(account.id, "LIVENESS")
      const now = isoOf(nowMs)
      yield* Effect.orDie(store.ownershipChallenges.update({ ...record, status: req.result, updatedAt: now }))
      return yield* move(ports, account, req.result === "PASSED" ? "VERIFICATION_PASSED" : "VERIFICATION_FAILED", now)
    })
  )
})
