/**
 * The Quill rail: paycore's `Rail` port over the Quill instant-payments scheme (scheme.ts). What a third party writes
 * to plug a new rail into paycore, depending only on `@paycore/core` and `effect`:
 * - its timing: Quill decides within seconds (typically `QUILL_SETTLEMENT_SECONDS`), any day, any hour;
 * - its own limits: a per-payment limit (`perPaymentLimitCents`) refused before the scheme is called;
 * - its failure codes mapped to the port's outcomes (`failureOf`);
 * - idempotency by transaction id: the transaction id is Quill's end-to-end id, so a repeated submit reaches the
 *   same transfer, even from a new process;
 * - timeouts: a scheme that does not answer within `QUILL_TIMEOUT_SECONDS` is a retryable `RailError`, and the
 *   engine submits again.
 */
import {
  type FailureReason,
  type PaymentRail,
  type Payout,
  type PayoutStatus,
  Rail,
  type RailError,
  type Submitted
} from "@paycore/core"
import { Clock, Effect, Layer } from "effect"
import type { QuillApi, QuillReasonCode, QuillStatus, QuillUnavailable } from "./scheme.ts"

/** The payment rail Quill serves, in the API's words, and its currency. */
export const QUILL_RAIL: PaymentRail = "SEPA_INSTANT"
export const QUILL_CURRENCY = "EUR"

/** Quill settles or rejects a transfer typically 3 seconds after its acceptance (its service level: 10 s at most). */
export const QUILL_SETTLEMENT_SECONDS = 3

/** How long the adapter waits for the scheme's answer before giving up (the engine retries). */
export const QUILL_TIMEOUT_SECONDS = 5

/** How soon to ask again about a transfer Quill is still processing. */
const CHECK_AGAIN_SECONDS = 2

export interface QuillRailOptions {
  /** The scheme's API (an HTTP client in production, `simulatedQuill()` in tests and demos). */
  readonly api: QuillApi
  /** The largest transfer the participant agreement allows, in euro cents (default €100,000.00). */
  readonly perPaymentLimitCents?: number | undefined
}

const railError = (retryable: boolean, reason: FailureReason, message: string): RailError => ({
  _tag: "RailError",
  retryable,
  reason,
  message
})

/**
 * Quill's reason codes as the port's outcomes. The money comes back to the sender on every rejection but AB05 (held
 * at the creditor's bank: operations recover it, so `refundSucceeds` is false and the engine leaves it to them).
 */
export const failureOf = (
  code: QuillReasonCode
): { readonly reason: FailureReason; readonly refundSucceeds: boolean } => {
  switch (code) {
    case "AC01":
      return { reason: "ACCOUNT_INVALID", refundSucceeds: true }
    case "AC04":
    case "AG01":
      return { reason: "ACCOUNT_CANNOT_RECEIVE", refundSucceeds: true }
    case "AM02":
      return { reason: "LIMIT_EXCEEDED", refundSucceeds: true }
    case "RR04":
      return { reason: "COMPLIANCE_REJECTED", refundSucceeds: true }
    case "AB05":
      return { reason: "QUOTE_EXECUTION_FAILED", refundSucceeds: false }
    case "MD06":
      return { reason: "PAYOUT_RETURNED", refundSucceeds: true }
  }
}

const addSeconds = (ms: number, seconds: number): string => new Date(ms + seconds * 1000).toISOString()

/** Quill's status as the port's. */
const statusOf = (status: QuillStatus, nowMs: number): PayoutStatus => {
  switch (status.code) {
    case "ACCP":
      return { _tag: "Pending", checkAgainAt: addSeconds(nowMs, CHECK_AGAIN_SECONDS) }
    case "ACSC":
      return { _tag: "Settled", settledAt: status.settledAt }
    case "RJCT":
      return { _tag: "Failed", ...failureOf(status.reasonCode) }
    case "RTND":
      return { _tag: "Returned", reason: "PAYOUT_RETURNED" }
  }
}

/** A call to the scheme, bounded: no answer in time, or the scheme unreachable, is retryable. */
const callScheme = <A>(what: string, call: Effect.Effect<A, QuillUnavailable>): Effect.Effect<A, RailError> =>
  call.pipe(
    Effect.mapError((e) => railError(true, "QUOTE_EXECUTION_FAILED", `Quill ${what}: ${e.message}`)),
    Effect.timeoutOrElse({
      duration: `${QUILL_TIMEOUT_SECONDS} seconds`,
      orElse: () =>
        Effect.fail(railError(true, "QUOTE_EXECUTION_FAILED", `Quill ${what}: no answer in ${QUILL_TIMEOUT_SECONDS} s`))
    })
  )

/** What Quill can carry: a euro payout to an IBAN within the limit; anything else is refused before the call. */
const transferOf = (payout: Payout, limitCents: number) => {
  if (payout.rail !== QUILL_RAIL || payout.currency !== QUILL_CURRENCY)
    return railError(false, "ACCOUNT_INVALID", `Quill carries ${QUILL_CURRENCY} over ${QUILL_RAIL} only`)
  const info = payout.destination.kind === "ACCOUNT" ? payout.destination.accountInfo : undefined
  if (info === undefined || !("iban" in info) || info.iban === undefined)
    return railError(false, "ACCOUNT_INVALID", "Quill pays to an IBAN only")
  if (payout.amount > limitCents)
    return railError(false, "LIMIT_EXCEEDED", `Quill's per-payment limit is ${limitCents} cents`)
  const beneficiary = info.beneficiary
  return {
    endToEndId: payout.transactionId,
    creditorIban: info.iban,
    creditorName: beneficiary.beneficiaryType === "INDIVIDUAL" ? beneficiary.fullName : beneficiary.legalName,
    amountCents: payout.amount,
    remittance: payout.remittanceInformation
  }
}

/** The Quill rail as a layer: stateless (the scheme keeps the transfers), so a restart loses nothing. */
export const QuillRail = (options: QuillRailOptions): Layer.Layer<Rail> => {
  const limitCents = options.perPaymentLimitCents ?? 10_000_000
  const { api } = options
  return Layer.succeed(
    Rail,
    Rail.of({
      submit: (payout) =>
        Effect.gen(function* () {
          const transfer = transferOf(payout, limitCents)
          if ("_tag" in transfer) return yield* Effect.fail(transfer)
          const { paymentId } = yield* callScheme("send", api.send(transfer))
          const now = yield* Clock.currentTimeMillis
          return {
            reference: paymentId,
            expectedSettlementAt: addSeconds(now, QUILL_SETTLEMENT_SECONDS)
          } satisfies Submitted
        }),
      status: (reference) =>
        Effect.gen(function* () {
          const status = yield* callScheme("status", api.status(reference))
          if (status === undefined)
            return yield* Effect.fail(railError(false, "QUOTE_EXECUTION_FAILED", `Quill has no transfer ${reference}`))
          return statusOf(status, yield* Clock.currentTimeMillis)
        }),
      settlementSeconds: () => QUILL_SETTLEMENT_SECONDS
    })
  )
}
