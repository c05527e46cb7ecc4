/**
 * Ownership verification of self-custody wallets (Travel Rule; AC-24 … AC-30, docs/ownership-verification.md):
 * `challenge` opens a WALLET_SIGNATURE or LIVENESS challenge (replacing the open one), `verify` checks a wallet's
 * signature of the message synchronously, `settleLiveness` applies the liveness provider's verdict. Each moves the
 * account by `externalAccountMachine` and writes the move's `EXTERNAL_ACCOUNT.STATUS_UPDATED` in the same store
 * transaction.
 */
import { Context, Effect, Layer, Result } from "effect"
import { Ids } from "../ports/ids.ts"
import { LivenessProvider } from "../ports/liveness.ts"
import { Store } from "../ports/store.ts"
import { EngineConfig } from "../shared/engine-config.ts"
import type { Conflict, InvalidInput, NotFound, StoreError } from "../shared/errors.ts"
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
import { answered } from "./service.ts"
import { verifyWalletSignature } from "./wallet-signatures.ts"

type Rejection = "SIGNATURE_INVALID" | "CHALLENGE_EXPIRED"

export class OwnershipVerification extends Context.Service<
  OwnershipVerification,
  {
    /**
     * `POST /customers/external-accounts/{id}/challenge` (201; AC-25, AC-26), or with `owner` `PLATFORM`
     * `POST /platform/external-accounts/{id}/challenge`: each route 404s on the other side's accounts.
     */
    readonly challenge: (
      id: string,
      req: OwnershipChallengeRequest,
      owner?: AccountOwner
    ) => Effect.Effect<OwnershipChallenge, NotFound | Conflict | StoreError>
    /**
     * `POST /customers/external-accounts/{id}/verify` (200 `ACTIVE`; 400 and `UNVERIFIED`; AC-27, AC-29, AC-30), or
     * the platform's (`owner` `PLATFORM`), as `challenge`.
     */
    readonly verify: (
      id: string,
      req: OwnershipVerifyRequest,
      owner?: AccountOwner
    ) => Effect.Effect<ExternalAccount, NotFound | Conflict | InvalidInput | StoreError>
    /** The liveness provider's verdict on the open LIVENESS challenge (AC-28; the sandbox endpoint calls it). */
    readonly settleLiveness: (
      id: string,
      req: SandboxLivenessRequest
    ) => Effect.Effect<ExternalAccount, NotFound | Conflict | StoreError>
  }
>()("paycore/accounts/OwnershipVerification") {
  static readonly layer = Layer.effect(
    OwnershipVerification,
    Effect.gen(function* () {
      const store = yield* Store
      const ids = yield* Ids

      /** The account (not deleted, held by `owner` when given), locked for the transaction. */
      const lockedAccount = Effect.fnUntraced(function* (id: string, owner?: AccountOwner) {
        const account = yield* store.externalAccounts.getForUpdate(id)
        if (
          account === undefined ||
          account.status === "INACTIVE" ||
          (owner !== undefined && !heldBy(account, owner))
        ) {
          return yield* externalAccountNotFound(id)
        }
        return account
      })

      /** Moves the account by `event` (the caller checked it is legal) and writes the move's events. */
      const move = Effect.fnUntraced(function* (account: ExternalAccount, event: ExternalAccountEvent, now: string) {
        const step = transition(externalAccountMachine, account.status as ExternalAccountState, event)
        if (Result.isFailure(step)) return yield* Effect.die(step.failure)
        const moved: ExternalAccount =
          step.success.to === account.status ? account : { ...account, status: step.success.to, updatedAt: now }
        if (moved !== account) yield* Effect.orDie(store.externalAccounts.update(moved))
        const shown = answered(moved)
        yield* emitSteps(store, ids, step.success.emits, moved.id, shown, now)
        return shown
      })

      const challenge = Effect.fn("OwnershipVerification.challenge")(function* (
        id: string,
        req: OwnershipChallengeRequest,
        owner: AccountOwner = "CUSTOMER"
      ) {
        const liveness = yield* LivenessProvider
        const { travelRule } = yield* EngineConfig
        return yield* store.transaction(
          Effect.gen(function* () {
            const account = yield* lockedAccount(id, owner)
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
              previous === undefined
                ? store.ownershipChallenges.insert(record)
                : store.ownershipChallenges.update(record)
            )
            yield* move(account, "CHALLENGE", now)
            return answer
          })
        )
      })

      /** The account's open challenge of `method`, or 409. */
      const openChallenge = Effect.fnUntraced(function* (
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

      const verify = Effect.fn("OwnershipVerification.verify")(function* (
        id: string,
        req: OwnershipVerifyRequest,
        owner: AccountOwner = "CUSTOMER"
      ) {
        const outcome = yield* store.transaction(
          Effect.gen(function* () {
            const account = yield* lockedAccount(id, owner)
            const record = yield* openChallenge(account, "WALLET_SIGNATURE")
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

      const settleLiveness = Effect.fn("OwnershipVerification.settleLiveness")(function* (
        id: string,
        req: SandboxLivenessRequest
      ) {
        return yield* store.transaction(
          Effect.gen(function* () {
            const account = yield* lockedAccount(id)
            const record = yield* openChallenge(account, "LIVENESS")
            const nowMs = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
            // An expired session has no verdict to give: the platform starts a new challenge.
            if (nowMs >= Date.parse(record.expiresAt)) return yield* noOpenChallenge(account.id, "LIVENESS")
            const now = isoOf(nowMs)
            yield* Effect.orDie(store.ownershipChallenges.update({ ...record, status: req.result, updatedAt: now }))
            return yield* move(account, req.result === "PASSED" ? "VERIFICATION_PASSED" : "VERIFICATION_FAILED", now)
          })
        )
      })

      return OwnershipVerification.of({ challenge, verify, settleLiveness })
    })
  )
}
