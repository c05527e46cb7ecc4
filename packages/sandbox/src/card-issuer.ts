import {
  CardIssuer,
  type CardIssuerError,
  type CardIssuerService,
  type CardProgram,
  type CardProvisioning
} from "@paycore/core"
import { Clock, Effect, Layer } from "effect"

/**
 * The sandbox card issuer's program (docs/design/cards.md, section 0): by default the service decides
 * authorizations, cards can be revealed, and no static 3-D Secure password is taken.
 */
export interface SandboxCardIssuerOptions {
  readonly decisioning?: CardProgram["decisioning"] | undefined
  readonly supportsPanReveal?: boolean | undefined
  readonly supportsThreeDSecurePassword?: boolean | undefined
}

/**
 * The issuance outcomes by the last three characters of `platformCardId`, when the platform gave one (CD-43). A card
 * without one is `ACTIVE` at once: the `card-<hex>` the service makes up, like the cardholder's random id, never
 * steers.
 */
export const CARD_ISSUANCE_SUFFIX = {
  /** Stays `PROCESSING`: the issuer never answers (asked again every hour). */
  PENDING_FOREVER: "001",
  /** `CLOSED` with `stateReason` `ISSUER_REJECTED`. */
  REJECTED: "002",
  /** `ACTIVE` 30 seconds after issue (sandbox clock). */
  DELAYED: "005"
} as const

/**
 * The funding accounts the sandbox issuer refuses (CD-44): all of a cardholder whose `platformCustomerId`, set by the
 * platform, ends in one of these. Account ids are random, so they never steer.
 */
export const INELIGIBLE_FUNDING_SUFFIXES: ReadonlyArray<string> = ["002", "003"]

/** How long a `005` card takes to provision. */
export const DELAYED_ISSUANCE_SECONDS = 30
/** How often a `001` card is asked about again. */
export const PENDING_RECHECK_SECONDS = 3600
/** How long a reveal URL works (CD-33: minutes). */
export const REVEAL_SECONDS = 300
/** The host of the sandbox's (simulated) card-details iframe. */
export const SANDBOX_PAN_HOST = "https://sandbox.paycore.invalid"

const last3 = (value: string): string => value.trim().slice(-3)

/**
 * Everything `status` needs, recoverable from the processor reference: `sbxcard:<issued epoch ms>:<suffix>:<uuid>`
 * (the suffix empty without a `platformCardId` of the platform's).
 */
interface Issuance {
  readonly issuedAtMs: number
  readonly suffix: string
  readonly uuid: string
}

const encodeRef = (i: Issuance): string => `sbxcard:${i.issuedAtMs}:${i.suffix}:${i.uuid}`
const refPattern = /^sbxcard:(\d+):(.{0,3}):([0-9a-f-]{36})$/

const decodeRef = (ref: string): Issuance | undefined => {
  const m = refPattern.exec(ref)
  if (m === null) return undefined
  return { issuedAtMs: Number(m[1]), suffix: m[2]!, uuid: m[3]! }
}

const unknownCard = (ref: string): CardIssuerError => ({
  _tag: "CardIssuerError",
  retryable: false,
  message: `The sandbox issuer knows no card ${ref}`
})

const noReveal: CardIssuerError = {
  _tag: "CardIssuerError",
  retryable: false,
  message: "The sandbox issuer's program does not reveal card details (supportsPanReveal false)"
}

const iso = (ms: number) => new Date(ms).toISOString()

/** The issuer's answer about a card at `nowMs`: a pure function of the issuance and the clock. */
const provisioningAt = (issuance: Issuance, nowMs: number, program: CardProgram): CardProvisioning => {
  const processorRef = encodeRef(issuance)
  switch (issuance.suffix) {
    case CARD_ISSUANCE_SUFFIX.PENDING_FOREVER:
      return { _tag: "Pending", processorRef, checkAgainAt: iso(nowMs + PENDING_RECHECK_SECONDS * 1000) }
    case CARD_ISSUANCE_SUFFIX.REJECTED:
      return { _tag: "Rejected", processorRef }
  }
  const readyAtMs =
    issuance.issuedAtMs + (issuance.suffix === CARD_ISSUANCE_SUFFIX.DELAYED ? DELAYED_ISSUANCE_SECONDS * 1000 : 0)
  if (nowMs < readyAtMs) return { _tag: "Pending", processorRef, checkAgainAt: iso(readyAtMs) }
  // Valid three years from issue, to the end of the issue month; the last four digits follow the suffix.
  const issued = new Date(issuance.issuedAtMs)
  return {
    _tag: "Active",
    processorRef,
    issuerRef: `sbxiss_${issuance.uuid.replace(/-/g, "").slice(-16)}`,
    brand: program.brand,
    last4: /^\d{3}$/.test(issuance.suffix) ? `4${issuance.suffix}` : "4242",
    expMonth: issued.getUTCMonth() + 1,
    expYear: issued.getUTCFullYear() + 3
  }
}

const randomHex = (bytes: number): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("")

/**
 * The sandbox card issuer (CD-43, CD-44): provisioning by the suffix table above on the sandbox clock (idempotent by
 * card id: a retry answers the first call's card), funding accounts refused by their cardholder's suffix, every state
 * and binding change accepted, reveal URLs on a host that does not resolve (valid five minutes; refused when the
 * program does not reveal). `status` is stateless: the processor reference carries what it needs, as the sandbox
 * rail's reference does, so a restarted server answers the same.
 */
export const sandboxCardIssuer = (options: SandboxCardIssuerOptions = {}): CardIssuerService => {
  const program: CardProgram = {
    decisioning: options.decisioning ?? "SERVICE",
    supportsPanReveal: options.supportsPanReveal ?? true,
    supportsThreeDSecurePassword: options.supportsThreeDSecurePassword ?? false,
    currencies: ["USD", "USDB"],
    brand: "VISA"
  }
  // The first issuance of each card id this issuer was asked for (a restarted sandbox issues anew: it has no processor
  // behind it). `status` needs none of it: the reference carries it.
  const issued = new Map<string, Issuance>()
  return {
    program,
    fundingEligibility: (accounts, cardholder) =>
      Effect.sync(() => {
        const suffix = cardholder.platformCustomerId === undefined ? "" : last3(cardholder.platformCustomerId)
        const refused = INELIGIBLE_FUNDING_SUFFIXES.includes(suffix) ? accounts[0] : undefined
        return refused === undefined
          ? { _tag: "Eligible" as const }
          : {
              _tag: "Ineligible" as const,
              accountId: refused.id,
              reason: `the sandbox issuer refuses the accounts of a cardholder whose platformCustomerId ends ${suffix}`
            }
      }),
    provision: (request) =>
      Effect.map(Clock.currentTimeMillis, (nowMs) => {
        // Idempotent by card id: a retry answers the card of the first call (its reference and its clock).
        let issuance = issued.get(request.cardId)
        if (issuance === undefined) {
          issuance = {
            issuedAtMs: nowMs,
            suffix: request.platformCardIdGiven ? last3(request.platformCardId) : "",
            uuid: request.cardId.slice(request.cardId.indexOf(":") + 1)
          }
          issued.set(request.cardId, issuance)
        }
        return provisioningAt(issuance, nowMs, program)
      }),
    status: (processorRef) => {
      const issuance = decodeRef(processorRef)
      if (issuance === undefined) return Effect.fail(unknownCard(processorRef))
      return Effect.map(Clock.currentTimeMillis, (nowMs) => provisioningAt(issuance, nowMs, program))
    },
    update: (processorRef) =>
      decodeRef(processorRef) === undefined ? Effect.fail(unknownCard(processorRef)) : Effect.void,
    reveal: (processorRef) => {
      if (decodeRef(processorRef) === undefined) return Effect.fail(unknownCard(processorRef))
      if (!program.supportsPanReveal) return Effect.fail(noReveal)
      return Effect.map(Clock.currentTimeMillis, (nowMs) => ({
        panEmbedUrl: `${SANDBOX_PAN_HOST}/pan/${randomHex(16)}`,
        expiresAt: iso(nowMs + REVEAL_SECONDS * 1000)
      }))
    }
  }
}

/** The sandbox issuer as the `CardIssuer` port. */
export const SandboxCardIssuer = (options: SandboxCardIssuerOptions = {}): Layer.Layer<never> =>
  Layer.succeed(CardIssuer, sandboxCardIssuer(options))
