/**
 * Quill, a made-up instant-payments scheme for euros, as its participants see it: an API that takes a credit
 * transfer (idempotent by the sender's end-to-end id) and answers its status with the scheme's own codes. In
 * production `QuillApi` is an HTTP client of the scheme; here `simulatedQuill` plays the scheme in memory, on
 * effect's Clock, so tests move its time with the TestClock.
 */
import { Clock, Effect } from "effect"

/** A credit transfer as the scheme takes it. */
export interface QuillTransfer {
  /** The sender's end-to-end id: the scheme accepts one transfer per id and answers a repeat with the first. */
  readonly endToEndId: string
  readonly creditorIban: string
  readonly creditorName: string
  /** Euro cents. */
  readonly amountCents: number
  readonly remittance?: string | undefined
}

/**
 * The scheme's status of a transfer: `ACCP` accepted (being processed), `ACSC` settled on the creditor's account,
 * `RJCT` rejected with a reason code, `RTND` settled and then returned by the creditor's bank.
 */
export type QuillStatus =
  | { readonly code: "ACCP" }
  | { readonly code: "ACSC"; readonly settledAt: string }
  | { readonly code: "RJCT"; readonly reasonCode: QuillReasonCode }
  | { readonly code: "RTND"; readonly settledAt: string; readonly reasonCode: "MD06" | "AC04" }

/**
 * The scheme's reason codes: AC01 wrong IBAN, AC04 closed account, AG01 transfer forbidden on the account, AM02
 * amount above the creditor bank's limit, RR04 regulatory (sanctions screening), AB05 timed out at the creditor's
 * bank (the money is held there: returning it takes an investigation), MD06 refund requested by the debtor.
 */
export type QuillReasonCode = "AC01" | "AC04" | "AG01" | "AM02" | "RR04" | "AB05" | "MD06"

/** The scheme could not be reached, or answered 5xx: the request may or may not have arrived. */
export interface QuillUnavailable {
  readonly _tag: "QuillUnavailable"
  readonly message: string
}

/** What a participant calls. */
export interface QuillApi {
  /** Sends a transfer; answers the scheme's id for it (the first one's when the end-to-end id was seen). */
  readonly send: (transfer: QuillTransfer) => Effect.Effect<{ readonly paymentId: string }, QuillUnavailable>
  /** The transfer's status; `undefined` when the scheme has no transfer with that id. */
  readonly status: (paymentId: string) => Effect.Effect<QuillStatus | undefined, QuillUnavailable>
}

export interface SimulatedQuillOptions {
  /** How long after acceptance the scheme settles or rejects (default 3 s: an instant scheme). */
  readonly decidesAfterSeconds?: number | undefined
  /** How long after its settlement a returned transfer comes back (default 1 hour). */
  readonly returnsAfterSeconds?: number | undefined
}

/**
 * The simulated scheme's outcome of a transfer, by the creditor IBAN's last two digits: `04` AC04 (closed), `22`
 * RR04 (regulatory), `05` AB05 (stuck at the creditor's bank), `06` settled then returned (MD06), `98` AM02; `99`
 * accepts the transfer but its first answer never comes back (a timeout: the next send of the same end-to-end id
 * answers). Anything else settles.
 */
const outcomeOf = (iban: string): QuillReasonCode | "SETTLE" | "RETURN" => {
  switch (iban.slice(-2)) {
    case "04":
      return "AC04"
    case "22":
      return "RR04"
    case "05":
      return "AB05"
    case "06":
      return "RETURN"
    case "98":
      return "AM02"
    default:
      return "SETTLE"
  }
}

interface Accepted {
  readonly paymentId: string
  readonly acceptedAtMs: number
  readonly outcome: QuillReasonCode | "SETTLE" | "RETURN"
}

/** The scheme in memory: one per test (or per server), shared by every instance of the adapter that talks to it. */
export const simulatedQuill = (options: SimulatedQuillOptions = {}): QuillApi => {
  const decideMs = (options.decidesAfterSeconds ?? 3) * 1000
  const returnMs = (options.returnsAfterSeconds ?? 3600) * 1000
  const byEndToEnd = new Map<string, Accepted>()
  const byId = new Map<string, Accepted>()
  const answered = new Set<string>()
  let sequence = 0
  return {
    send: (transfer) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        let accepted = byEndToEnd.get(transfer.endToEndId)
        if (accepted === undefined) {
          sequence++
          accepted = {
            paymentId: `QUILL${String(sequence).padStart(10, "0")}`,
            acceptedAtMs: now,
            outcome: outcomeOf(transfer.creditorIban)
          }
          byEndToEnd.set(transfer.endToEndId, accepted)
          byId.set(accepted.paymentId, accepted)
        }
        // `99`: the scheme took the first request, but its answer is lost on the way back.
        if (transfer.creditorIban.endsWith("99") && !answered.has(transfer.endToEndId)) {
          answered.add(transfer.endToEndId)
          return Effect.never
        }
        return Effect.succeed({ paymentId: accepted.paymentId })
      }),
    status: (paymentId) =>
      Effect.map(Clock.currentTimeMillis, (now): QuillStatus | undefined => {
        const accepted = byId.get(paymentId)
        if (accepted === undefined) return undefined
        const decidedAt = accepted.acceptedAtMs + decideMs
        if (now < decidedAt) return { code: "ACCP" }
        const settledAt = new Date(decidedAt).toISOString()
        switch (accepted.outcome) {
          case "SETTLE":
            return { code: "ACSC", settledAt }
          case "RETURN":
            return now < decidedAt + returnMs
              ? { code: "ACSC", settledAt }
              : { code: "RTND", settledAt, reasonCode: "MD06" }
          default:
            return { code: "RJCT", reasonCode: accepted.outcome }
        }
      })
  }
}
