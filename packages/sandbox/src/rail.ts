import {
  type CancelOutcome,
  type FailureReason,
  isOnChainNetwork,
  type PaymentRail,
  type Payout,
  type PayoutStatus,
  Rail,
  type RailError,
  type Submitted,
  sandboxTransactionHash
} from "@paycore/core"
import { Clock, Effect, Layer } from "effect"

/** The domain of the sandbox UMA counterparty. */
export const SANDBOX_UMA_DOMAIN = "sandbox.uma.money"

const SECOND = 1
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** "A few seconds" in the spec's timing table. */
export const INSTANT_SECONDS = 5

/** Typical payout timing per rail from execution (the spec's timing table), in seconds. */
export const SETTLEMENT_SECONDS: Readonly<Record<PaymentRail, number>> = {
  RTP: INSTANT_SECONDS,
  FEDNOW: INSTANT_SECONDS,
  SEPA_INSTANT: INSTANT_SECONDS,
  UPI: INSTANT_SECONDS,
  SPEI: INSTANT_SECONDS,
  PIX: INSTANT_SECONDS,
  FASTER_PAYMENTS: INSTANT_SECONDS,
  PAYNOW: INSTANT_SECONDS,
  FAST: INSTANT_SECONDS,
  INSTAPAY: INSTANT_SECONDS,
  BRE_B: INSTANT_SECONDS,
  MOBILE_MONEY: INSTANT_SECONDS,
  UNIONPAY: INSTANT_SECONDS,
  INTERNAL: INSTANT_SECONDS,
  LIGHTNING: INSTANT_SECONDS,
  SPARK: INSTANT_SECONDS,
  SOLANA: INSTANT_SECONDS,
  BASE: INSTANT_SECONDS,
  POLYGON: INSTANT_SECONDS,
  PLASMA: INSTANT_SECONDS,
  TRON: INSTANT_SECONDS,
  RTGS: 30 * MINUTE,
  ETHEREUM: 15 * MINUTE,
  BITCOIN: HOUR,
  SEPA: DAY,
  WIRE: DAY,
  NEFT: DAY,
  PESONET: DAY,
  CIPS: DAY,
  ACH: 2 * DAY,
  BANK_TRANSFER: 2 * DAY,
  ACH_COLOMBIA: 2 * DAY,
  SWIFT: 3 * DAY
}

/** The undivided table value for a rail. */
export const settlementSeconds = (rail: PaymentRail): number => SETTLEMENT_SECONDS[rail]

/** Suffix `003` (and `$pending.long.*`) completes after this long instead of the rail time. */
export const LONG_PAYMENT_SECONDS = 6 * MINUTE

/** Suffix `005`: how long after settling the receiving bank returns the payment. */
export const RETURN_DELAY_SECONDS = 5 * MINUTE

/** Suffix `005` of a transfer (SB-07): how long it stays pending before it fails. */
export const TRANSFER_TIMEOUT_SECONDS = 30

/**
 * The magic outcome of a sandbox payout; `"000"` is plain success. `"T05"` is a transfer's `005` (SB-07: pending
 * `TRANSFER_TIMEOUT_SECONDS`, then failed), which no payout suffix gives.
 */
export type MagicOutcome = "000" | "002" | "003" | "004" | "005" | "006" | "007" | "008" | "009" | "T05"

export interface FailedOutcome {
  readonly reason: FailureReason
  readonly refundSucceeds: boolean
}

const failures: Partial<Record<MagicOutcome, FailedOutcome>> = {
  "002": { reason: "QUOTE_EXECUTION_FAILED", refundSucceeds: true },
  "004": { reason: "ACCOUNT_CANNOT_RECEIVE", refundSucceeds: true },
  // Upstream: user cancellation. The spec has no cancellation failure reason; ACCOUNT_INVALID is the closest.
  "006": { reason: "ACCOUNT_INVALID", refundSucceeds: true },
  "007": { reason: "QUOTE_EXECUTION_FAILED", refundSucceeds: false },
  "008": { reason: "LIMIT_EXCEEDED", refundSucceeds: true },
  "009": { reason: "COMPLIANCE_REJECTED", refundSucceeds: true },
  // The bank never answered: delivery failed (an incoming pull reports COLLECTION_FAILED).
  T05: { reason: "ACCOUNT_CANNOT_RECEIVE", refundSucceeds: true }
}

/** How a payout with this outcome fails (`undefined`: it does not). */
export const payoutFailure = (outcome: MagicOutcome): FailedOutcome | undefined => failures[outcome]

/**
 * A deprecated transfer's outcome by the same suffix, from the transfer table (SB-07), not the payout one: `002`
 * (insufficient funds) and `003` (account closed or invalid) fail at once, at submission; `004` the bank rejects
 * (failed at the rail time, as a payout's `004`); `005` stays pending 30 s, then fails; anything else succeeds.
 */
export const transferOutcome = (
  payout: Pick<Payout, "destination" | "rail" | "transfer">
): MagicOutcome | { readonly refused: FailureReason; readonly why: string } => {
  const identifier = primaryIdentifier(payout.destination, payout.rail)
  const last3 = identifier?.replace(/\s+/g, "").slice(-3)
  switch (last3) {
    case "002":
      // A pull from an empty account is a collection that failed; a push the service could not fund, an execution.
      return {
        refused: payout.transfer === "IN" ? "ACCOUNT_CANNOT_RECEIVE" : "QUOTE_EXECUTION_FAILED",
        why: "insufficient funds (sandbox transfer 002)"
      }
    case "003":
      return { refused: "ACCOUNT_INVALID", why: "the account is closed or invalid (sandbox transfer 003)" }
    case "004":
      return "004"
    case "005":
      return "T05"
    default:
      return "000"
  }
}

const isMagic = (code: string): code is MagicOutcome =>
  code === "000" || code === "003" || code === "005" || Object.hasOwn(failures, code)

/** Named receivers at the sandbox UMA domain (user part, lower case, without `$`). */
const sandboxUmaOutcomes: Readonly<Record<string, MagicOutcome>> = {
  "success.usd": "000",
  "success.eur": "000",
  "success.mxn": "000",
  "pending.long.usd": "003",
  "fail.compliance.usd": "009"
}

/** The part before `@` (the whole string when there is none). */
const localPart = (s: string): string => {
  const at = s.lastIndexOf("@")
  return at < 0 ? s : s.slice(0, at)
}

const suffixOutcome = (identifier: string): MagicOutcome => {
  const last3 = identifier.replace(/\s+/g, "").slice(-3)
  return /^\d{3}$/.test(last3) && isMagic(last3) ? last3 : "000"
}

/**
 * The fields of an account that can be its primary identifier, in the order they are looked for; an e-mail-like one
 * counts by its local part. A payout on MOBILE_MONEY looks for the phone number first, on UPI for the UPI address.
 */
export const IDENTIFIER_FIELDS = [
  "accountNumber",
  "clabeNumber",
  "iban",
  "pixKey",
  "phoneNumber",
  "vpa",
  "address",
  "lightningAddress",
  "invoice",
  "bolt12"
] as const

const EMAIL_LIKE: ReadonlySet<string> = new Set(["pixKey", "vpa", "lightningAddress"])
const RAIL_IDENTIFIER: Partial<Record<PaymentRail, (typeof IDENTIFIER_FIELDS)[number]>> = {
  MOBILE_MONEY: "phoneNumber",
  UPI: "vpa"
}

/** The field whose value is an account's primary identifier, paid on `rail`; `undefined` when it has none. */
export const identifierField = (
  accountInfo: Readonly<Record<string, unknown>>,
  rail?: PaymentRail
): (typeof IDENTIFIER_FIELDS)[number] | undefined => {
  const preferred = rail === undefined ? undefined : RAIL_IDENTIFIER[rail]
  if (preferred !== undefined && typeof accountInfo[preferred] === "string") return preferred
  return IDENTIFIER_FIELDS.find((field) => typeof accountInfo[field] === "string")
}

/** The primary identifier of an account (paid on `rail`) whose last 3 digits pick the sandbox outcome. */
export const primaryIdentifier = (destination: Payout["destination"], rail?: PaymentRail): string | undefined => {
  switch (destination.kind) {
    case "INTERNAL":
      return undefined
    case "UMA":
      return localPart(destination.umaAddress).replace(/^\$/, "")
    case "ACCOUNT": {
      const info: Readonly<Record<string, unknown>> = destination.accountInfo
      const field = identifierField(info, rail)
      if (field === undefined) return undefined
      const value = info[field] as string
      return EMAIL_LIKE.has(field) ? localPart(value) : value
    }
  }
}

/**
 * The magic outcome of a payout (on `rail`): the last 3 digits of the destination's primary identifier
 * (local part for e-mail-like keys); named receivers at the sandbox UMA domain; internal transfers always succeed.
 */
export const magicOutcome = (destination: Payout["destination"], rail?: PaymentRail): MagicOutcome => {
  if (destination.kind === "UMA") {
    const address = destination.umaAddress.trim().toLowerCase()
    const at = address.lastIndexOf("@")
    if (at >= 0 && address.slice(at + 1) === SANDBOX_UMA_DOMAIN) {
      const named = sandboxUmaOutcomes[address.slice(0, at).replace(/^\$/, "")]
      if (named !== undefined) return named
    }
  }
  const identifier = primaryIdentifier(destination, rail)
  return identifier === undefined ? "000" : suffixOutcome(identifier)
}

/** Everything `status` needs, all of it recoverable from the reference string. */
export interface Submission {
  readonly rail: PaymentRail
  readonly submittedAtMs: number
  readonly outcome: MagicOutcome
  readonly speedUp: number
  readonly transactionId: string
  /** What the payout went to (an UMA payout's settlement has an inter-VASP leg; an account's may be on chain). */
  readonly destination: Payout["destination"]["kind"]
}

const PREFIX = "sbx"

/**
 * `sbx:<rail>:<submitted epoch ms>:<outcome>:<speedUp>:<destination kind>:<transactionId>` (references issued
 * before the kind was added have none: an account).
 */
export const encodeReference = (s: Submission): string =>
  `${PREFIX}:${s.rail}:${s.submittedAtMs}:${s.outcome}:${s.speedUp}:${s.destination}:${s.transactionId}`

const referencePattern = /^sbx:([A-Z_]+):(\d+):(\d{3}|T\d{2}):([0-9.e+-]+):(?:(ACCOUNT|UMA|INTERNAL):)?(.+)$/

export const decodeReference = (reference: string): Submission | undefined => {
  const m = referencePattern.exec(reference)
  if (m === null) return undefined
  const [, rail, submitted, outcome, speedUp, kind, transactionId] = m
  if (rail === undefined || !Object.hasOwn(SETTLEMENT_SECONDS, rail)) return undefined
  if (outcome === undefined || !isMagic(outcome)) return undefined
  const submittedAtMs = Number(submitted)
  const factor = Number(speedUp)
  if (!Number.isSafeInteger(submittedAtMs) || !(factor > 0) || !Number.isFinite(factor)) return undefined
  return {
    rail: rail as PaymentRail,
    submittedAtMs,
    outcome,
    speedUp: factor,
    transactionId: transactionId ?? "",
    destination: (kind ?? "ACCOUNT") as Submission["destination"]
  }
}

const scaledMs = (seconds: number, speedUp: number): number => Math.max(0, Math.round((seconds * 1000) / speedUp))

/** When the outcome of a submission is known (epoch ms). */
const dueAtMs = (s: Submission): number =>
  s.submittedAtMs +
  scaledMs(
    s.outcome === "003"
      ? LONG_PAYMENT_SECONDS
      : s.outcome === "T05"
        ? TRANSFER_TIMEOUT_SECONDS
        : SETTLEMENT_SECONDS[s.rail],
    s.speedUp
  )

// The instant last formatted (a settlement pass asks about many payouts due at the same instant).
let lastIsoMs = Number.NaN
let lastIso = ""
const iso = (ms: number): string => {
  if (ms !== lastIsoMs) {
    lastIso = new Date(ms).toISOString()
    lastIsoMs = ms
  }
  return lastIso
}

/** The status of a submission at `nowMs`: a pure function of the submission and the clock. */
export const statusAt = (s: Submission, nowMs: number): PayoutStatus => {
  const due = dueAtMs(s)
  if (nowMs < due) return { _tag: "Pending", checkAgainAt: iso(due) }
  const failed = failures[s.outcome]
  if (failed !== undefined) return { _tag: "Failed", reason: failed.reason, refundSucceeds: failed.refundSucceeds }
  if (s.outcome === "005" && nowMs >= due + scaledMs(RETURN_DELAY_SECONDS, s.speedUp)) {
    return { _tag: "Returned", reason: "PAYOUT_RETURNED" }
  }
  return settled(s, iso(due))
}

/**
 * A settled payout as the sandbox reports it: a payout to an account on a chain (not Lightning) with its transfer,
 * hashed from the transaction id in the network's format; an UMA payout with its inter-VASP leg's hash
 * (a Lightning payment hash, Q-42); anything else bare.
 */
const settled = (s: Submission, settledAt: string): PayoutStatus => {
  if (s.destination === "UMA") {
    return { _tag: "Settled", settledAt, settlementHash: sandboxTransactionHash("LIGHTNING", s.transactionId) }
  }
  if (s.destination === "ACCOUNT" && isOnChainNetwork(s.rail)) {
    const onChain = { transactionHash: sandboxTransactionHash(s.rail, s.transactionId), network: s.rail }
    return { _tag: "Settled", settledAt, onChain }
  }
  return { _tag: "Settled", settledAt }
}

/**
 * A cancellation at `nowMs` (WH-07): a payout the rail has not decided yet (its status still `Pending`) is
 * cancelled; one that settled, failed or was returned is too late. Stateless like `status`: after a cancellation
 * the engine no longer asks about the payout (its refund is the holds voided).
 */
const cancelAt = (s: Submission, nowMs: number): CancelOutcome =>
  statusAt(s, nowMs)._tag === "Pending" ? { _tag: "Cancelled" } : { _tag: "TooLate" }

export interface SandboxRailOptions {
  /** Divides every delay (default 1 = real spec timing; e.g. 3600 turns an hour into a second). */
  readonly speedUp?: number | undefined
}

/**
 * How long a sandbox rail remembers a submission (by transaction id) so that a repeated `submit` answers the first
 * reference: a week. The engine re-submits on its schedule (`SUBMIT_GRACE_SECONDS`, then `MAX_SUBMIT_ATTEMPTS` with
 * backoff: about 22 minutes) only while its worker runs: after an outage of the engine the re-submission comes when
 * the worker is back, hours later. An hour was too short: the fault simulation (docs/reliability.md) paid a payout
 * twice when the rail's answer was lost and the worker came back after a day. Not across a restart of the sandbox: it
 * keeps nothing outside the process.
 */
export const SUBMIT_MEMORY_SECONDS = 7 * 24 * HOUR

/**
 * The submissions of the last `SUBMIT_MEMORY_SECONDS`, by transaction id, oldest first: an expired entry is
 * dropped from the front on the next `set`, so the map holds one window of submissions, not the rail's life.
 */
const recentSubmissions = () => {
  const entries = new Map<string, { readonly submitted: Submitted; readonly atMs: number }>()
  const windowMs = SUBMIT_MEMORY_SECONDS * 1000
  return {
    get: (transactionId: string, nowMs: number): Submitted | undefined => {
      const entry = entries.get(transactionId)
      return entry !== undefined && nowMs - entry.atMs < windowMs ? entry.submitted : undefined
    },
    set: (transactionId: string, submitted: Submitted, nowMs: number): void => {
      for (const [id, entry] of entries) {
        if (nowMs - entry.atMs < windowMs) break
        entries.delete(id)
      }
      entries.delete(transactionId)
      entries.set(transactionId, { submitted, atMs: nowMs })
    }
  }
}

const unknownReference = (reference: string): RailError => ({
  _tag: "RailError",
  retryable: false,
  reason: "QUOTE_EXECUTION_FAILED",
  message: `unknown sandbox payout reference ${reference}`
})

/**
 * A simulated payment rail: delays from the spec's timing table (divided by `speedUp`) on effect's Clock,
 * outcomes chosen by magic values on the destination (see README).
 */
export const SandboxRail = (options: SandboxRailOptions = {}): Layer.Layer<Rail> => {
  const speedUp = options.speedUp ?? 1
  if (!(speedUp > 0) || !Number.isFinite(speedUp)) {
    throw new RangeError(`SandboxRail: speedUp must be a positive finite number, got ${speedUp}`)
  }
  return Layer.sync(Rail, () => {
    const recent = recentSubmissions()
    return Rail.of({
      submit: (payout) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const known = recent.get(payout.transactionId, now)
          if (known !== undefined) return Effect.succeed(known)
          const outcome =
            payout.transfer === undefined ? magicOutcome(payout.destination, payout.rail) : transferOutcome(payout)
          if (typeof outcome !== "string") {
            return Effect.fail<RailError>({
              _tag: "RailError",
              retryable: false,
              reason: outcome.refused,
              message: `The bank refused the transfer: ${outcome.why}`
            })
          }
          const submission: Submission = {
            rail: payout.rail,
            submittedAtMs: now,
            outcome,
            speedUp,
            transactionId: payout.transactionId,
            destination: payout.destination.kind
          }
          // The reference carries everything `status` needs: only the idempotency of `submit` keeps anything.
          const reference = encodeReference(submission)
          const submitted = { reference, expectedSettlementAt: iso(dueAtMs(submission)) }
          recent.set(payout.transactionId, submitted, now)
          return Effect.succeed(submitted)
        }),
      status: (reference) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const submission = decodeReference(reference)
          return submission === undefined
            ? Effect.fail(unknownReference(reference))
            : Effect.succeed(statusAt(submission, now))
        }),
      cancel: (reference) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const submission = decodeReference(reference)
          return submission === undefined
            ? Effect.fail(unknownReference(reference))
            : Effect.succeed(cancelAt(submission, now))
        }),
      settlementSeconds
    })
  })
}
