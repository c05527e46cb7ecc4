import { Clock, Effect, Result } from "effect"
import { externalAccountNotFound } from "../accounts/errors.ts"
import type { ExternalAccount, TrustedBeneficiaryRecord } from "../accounts/model.ts"
import { selfCustodyWallet } from "../accounts/ownership-rules.ts"
import { type Repositories, Store } from "../ports/store.ts"
import type { InvalidInput, LimitExceeded, Refused } from "../shared/errors.ts"
import type { ExternalAccountId } from "../shared/ids.ts"
import { allows, transition } from "../shared/machine.ts"
import { isoOf } from "../shared/time.ts"
import { issueChallenge, proveChallenge, sendCode, usableFactors, viewChallenge } from "./challenges.ts"
import { noOpenTrustChallenge, notUsdcAddress, noUsableFactor, trustNotApplicable } from "./errors.ts"
import { trustedBeneficiaryMachine } from "./machine.ts"
import type { BeneficiaryTrustConfirm, BeneficiaryTrustConfirmRequest, BeneficiaryTrustStart } from "./model.ts"
import type { ScaPorts } from "./ports.ts"
import { refuseWhileLocked } from "./proofs.ts"
import { requireScaSession, subjectCustomer } from "./sessions.ts"

// Trusted beneficiaries (AC-22, AC-23, AC-31 … AC-39): a subject customer trusts one of its USDC wallets with an SCA
// challenge, so its payouts there skip the per-transaction challenge; untrust takes a challenge too, and every send
// is challenged again afterwards (AC-38). Start and confirm, for either move, run the plan's checks in order: 404
// account, 404/410 customer, 409 `CONFLICT` not subject (AC-35), 423 locked, 409 `SCA_SESSION_REQUIRED`.

/** A trust move, named as the challenge kind that guards it and the machine's event it makes. */
export type TrustMove = "TRUST" | "UNTRUST"

type Outcome<A> = { readonly ok: A } | { readonly error: InvalidInput | Refused | LimitExceeded }

/** The `openSlot` of an account's trust or untrust challenge: one open per move and account. */
const trustSlot = (move: TrustMove, externalAccountId: string) => `${move}|${externalAccountId}`

/** AC-39: only a USDC address can be trusted (a wallet, not a bank account or a Lightning invoice). */
const isUsdcAddress = (account: ExternalAccount) =>
  account.currency === "USDC" && selfCustodyWallet(account.accountInfo) !== undefined

/**
 * Whether the customer trusts this external account now (AC-38): the quote execute path asks it to skip the
 * per-transaction challenge. Read inside the caller's store transaction.
 */
export const isTrustedBeneficiary = (
  store: Pick<Repositories, "trustedBeneficiaries">,
  customerId: string,
  externalAccountId: string
) =>
  Effect.map(
    store.trustedBeneficiaries.get(externalAccountId),
    (row) => row !== undefined && row.status === "TRUSTED" && row.customerId === customerId
  )

/**
 * The checks every trust route runs first, in the plan's order, inside the caller's transaction. The customer's
 * row is locked first (the lock of its proofs, as the login does), then the account's (the delete locks it too, so
 * a delete and a confirm are one after the other).
 */
const admitted = Effect.fnUntraced(function* (ports: ScaPorts, externalAccountId: string, nowMs: number) {
  const { store } = ports
  const seen = yield* store.externalAccounts.get(externalAccountId)
  // A platform-owned account (no customer) is no customer's beneficiary: 404 like every customer route.
  if (seen === undefined || seen.status === "INACTIVE" || seen.customerId === undefined) {
    return yield* externalAccountNotFound(externalAccountId)
  }
  const customer = yield* subjectCustomer(yield* store.customers.getForUpdate(seen.customerId), seen.customerId)
  const account = yield* store.externalAccounts.getForUpdate(externalAccountId)
  if (account === undefined || account.status === "INACTIVE") {
    return yield* externalAccountNotFound(externalAccountId)
  }
  const security = yield* store.scaSecurity.get(customer.id)
  yield* refuseWhileLocked(security, nowMs)
  yield* Effect.provideService(requireScaSession(customer.id), Store, store)
  const trust = yield* store.trustedBeneficiaries.get(externalAccountId)
  return { customer, account, security, trust }
})

/** 409 `CONFLICT` unless the machine allows the move from the account's trust status. */
const refuseIllegalMove = (externalAccountId: string, trust: TrustedBeneficiaryRecord | undefined, move: TrustMove) => {
  const status = trust?.status ?? trustedBeneficiaryMachine.initial
  if (allows(trustedBeneficiaryMachine, status, move)) return Effect.void
  return Effect.fail(
    trustNotApplicable(externalAccountId, status === "TRUSTED" ? "it is already trusted" : "it is not trusted")
  )
}

/**
 * A trust or untrust start (AC-31, AC-33): a challenge of the first usable factor (SMS_OTP, PASSKEY, TOTP: no
 * dynamic linking needed, so TOTP is allowed), every usable factor available. A new start supersedes the open one,
 * or is 429 within 60 s of its SMS code (L-14). The code goes after the commit.
 */
export const startTrustMove = Effect.fnUntraced(function* (
  ports: ScaPorts,
  move: TrustMove,
  externalAccountId: string
) {
  const { store } = ports
  const issued = yield* store.transaction(
    Effect.gen(function* () {
      const nowMs = yield* Clock.currentTimeMillis
      const { customer, account, trust } = yield* admitted(ports, externalAccountId, nowMs)
      if (move === "TRUST") {
        if (!isUsdcAddress(account)) return yield* notUsdcAddress(externalAccountId, account.currency)
        // Q6: a wallet still under ownership verification (or failed it) is not trusted.
        if (account.status !== "ACTIVE") {
          return yield* trustNotApplicable(
            externalAccountId,
            `it is ${account.status}; only ACTIVE accounts can be trusted`
          )
        }
      }
      yield* refuseIllegalMove(externalAccountId, trust, move)
      const usable = yield* usableFactors(ports, customer)
      const factor = usable.factors[0]
      if (factor === undefined) return yield* noUsableFactor()
      return yield* issueChallenge(
        ports,
        {
          customerId: customer.id,
          kind: move,
          subjectId: externalAccountId,
          step: 1,
          factor,
          availableFactors: usable.factors,
          openSlot: trustSlot(move, externalAccountId),
          smsTo: usable.smsTo
        },
        nowMs
      )
    })
  )
  yield* sendCode(ports, issued.code)
  const started: BeneficiaryTrustStart = { scaChallenge: yield* viewChallenge(ports, issued.challenge) }
  return started
})

/**
 * A trust or untrust confirm (AC-32, AC-34, AC-36, AC-37): the proof of the open challenge of the move, of its
 * factor only; `challengeId`, when given, must be that challenge. A wrong or late proof is 400 and counted into the
 * lock ladder (423 once it locks), so the transaction commits and answers the failure as a value.
 */
export const confirmTrustMove = Effect.fnUntraced(function* (
  ports: ScaPorts,
  move: TrustMove,
  externalAccountId: string,
  req: BeneficiaryTrustConfirmRequest
) {
  const { store } = ports
  const outcome: Outcome<BeneficiaryTrustConfirm> = yield* store.transaction(
    Effect.gen(function* () {
      const nowMs = yield* Clock.currentTimeMillis
      const { customer, security, trust } = yield* admitted(ports, externalAccountId, nowMs)
      yield* refuseIllegalMove(externalAccountId, trust, move)
      const open = yield* store.scaChallenges.findUnique("openSlot", trustSlot(move, externalAccountId))
      const challenge = open === undefined ? undefined : yield* store.scaChallenges.getForUpdate(open.id)
      if (challenge === undefined || challenge.status !== "OPEN" || challenge.customerId !== customer.id) {
        return { error: noOpenTrustChallenge(move, req.challengeId) }
      }
      if (req.challengeId !== undefined && req.challengeId !== challenge.id) {
        return { error: noOpenTrustChallenge(move, req.challengeId) }
      }
      const { challengeId: _, ...proof } = req
      const proved = yield* proveChallenge(ports, challenge, proof, security, nowMs)
      if (proved._tag !== "Passed") return { error: proved.error }
      const step = transition(trustedBeneficiaryMachine, trust?.status ?? trustedBeneficiaryMachine.initial, move)
      // refuseIllegalMove allowed it above, in this transaction.
      if (Result.isFailure(step)) return yield* Effect.die(step.failure)
      const now = isoOf(nowMs)
      const next: TrustedBeneficiaryRecord = {
        id: externalAccountId as ExternalAccountId,
        customerId: customer.id,
        status: step.success.to,
        challengeId: challenge.id,
        createdAt: trust?.createdAt ?? now,
        updatedAt: now
      }
      yield* Effect.orDie(
        trust === undefined ? store.trustedBeneficiaries.insert(next) : store.trustedBeneficiaries.update(next)
      )
      return { ok: { trusted: next.status === "TRUSTED" } }
    })
  )
  if ("error" in outcome) return yield* outcome.error
  return outcome.ok
})
