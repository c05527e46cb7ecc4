import {
  type CardFundingBinding,
  CardIssuer,
  type CardIssuerError,
  type CardIssuerService,
  type CardIssuerUpdate,
  type CardProgram,
  type CardProvisioning,
  type CardProvisionRequest,
  type CardRecord,
  type CardTransactionRecord,
  cardCounters,
  Ids,
  type InternalAccountId,
  type InternalAccountType,
  isoOf,
  Store
} from "@paycore/core"
import { Clock, Effect, Layer } from "effect"

// ---- an issuer a test scripts ----

/** What the scripted issuer answers to one `provision` or `status` call (`Fail`: a `CardIssuerError`). */
export type ScriptedProvisioning =
  | "ACTIVE"
  | "PENDING"
  | "REJECTED"
  | { readonly fail: { readonly retryable: boolean } }

/** One call the issuer received, in order (the 3-D Secure password is recorded as given, for the tests of Q19). */
export type CardIssuerCall =
  | { readonly op: "fundingEligibility"; readonly accountIds: ReadonlyArray<string> }
  | { readonly op: "provision"; readonly request: CardProvisionRequest }
  | { readonly op: "status"; readonly processorRef: string }
  | { readonly op: "update"; readonly processorRef: string; readonly change: CardIssuerUpdate }
  | { readonly op: "reveal"; readonly processorRef: string }

export interface ScriptedCardIssuer {
  readonly service: CardIssuerService
  /** `service` as the `CardIssuer` port, to provide beside the other ports (`startTestServer({ extraLayer })`). */
  readonly layer: Layer.Layer<never>
  /** Every call so far, oldest first. */
  readonly calls: ReadonlyArray<CardIssuerCall>
  /**
   * The answers to the card's `provision` and then `status` calls, one per call in order; the last one repeats.
   * Unscripted cards are `ACTIVE` at once.
   */
  readonly provisionAs: (cardId: string, ...answers: ReadonlyArray<ScriptedProvisioning>) => void
  /** `fundingEligibility` refuses this account (the first such account of a call is named). */
  readonly ineligible: (accountId: string, reason?: string) => void
  /** The next `update` (`reveal`) call fails with a `CardIssuerError`. */
  readonly failNext: (op: "update" | "reveal", retryable: boolean) => void
}

/** The processor's reference of a card in the scripted issuer. */
export const scriptedProcessorRef = (cardId: string): string => `proc_${cardId.slice(cardId.indexOf(":") + 1)}`

/**
 * A `CardIssuer` whose answers a test scripts (design section 0): `provision` and `status` by card, funding
 * eligibility by account, failures on cue, every call recorded. Its program is a service-decisioning VISA program in
 * the engine's default card currencies with PAN reveal and 3-D Secure passwords (`program` overrides any of it).
 */
export const scriptedCardIssuer = (program: Partial<CardProgram> = {}): ScriptedCardIssuer => {
  const calls: Array<CardIssuerCall> = []
  const scripts = new Map<string, Array<ScriptedProvisioning>>()
  const cardOfRef = new Map<string, string>()
  const refused = new Map<string, string>()
  const failing = new Map<"update" | "reveal", boolean>()
  const fullProgram: CardProgram = {
    decisioning: "SERVICE",
    supportsPanReveal: true,
    supportsThreeDSecurePassword: true,
    currencies: ["USD", "USDB"],
    brand: "VISA",
    ...program
  }
  const issuerError = (retryable: boolean, message: string): CardIssuerError => ({
    _tag: "CardIssuerError",
    retryable,
    message
  })
  const answer = (cardId: string): Effect.Effect<CardProvisioning, CardIssuerError> => {
    const queue = scripts.get(cardId)
    const next: ScriptedProvisioning = queue === undefined ? "ACTIVE" : queue.length > 1 ? queue.shift()! : queue[0]!
    const processorRef = scriptedProcessorRef(cardId)
    if (typeof next === "object") return Effect.fail(issuerError(next.fail.retryable, "scripted issuer failure"))
    switch (next) {
      case "ACTIVE":
        return Effect.succeed({
          _tag: "Active",
          processorRef,
          issuerRef: `iss_${processorRef.slice(5)}`,
          brand: fullProgram.brand,
          last4: "4242",
          expMonth: 12,
          expYear: 2030
        })
      case "PENDING":
        return Effect.succeed({ _tag: "Pending", processorRef })
      case "REJECTED":
        return Effect.succeed({ _tag: "Rejected", processorRef })
    }
  }
  const failIfArmed = (op: "update" | "reveal"): Effect.Effect<void, CardIssuerError> => {
    const retryable = failing.get(op)
    if (retryable === undefined) return Effect.void
    failing.delete(op)
    return Effect.fail(issuerError(retryable, `scripted ${op} failure`))
  }
  const service: CardIssuerService = {
    program: fullProgram,
    fundingEligibility: (accounts) =>
      Effect.sync(() => {
        calls.push({ op: "fundingEligibility", accountIds: accounts.map((a) => a.id) })
        const bad = accounts.find((a) => refused.has(a.id))
        return bad === undefined
          ? { _tag: "Eligible" as const }
          : { _tag: "Ineligible" as const, accountId: bad.id, reason: refused.get(bad.id)! }
      }),
    provision: (request) =>
      Effect.suspend(() => {
        calls.push({ op: "provision", request })
        cardOfRef.set(scriptedProcessorRef(request.cardId), request.cardId)
        return answer(request.cardId)
      }),
    status: (processorRef) =>
      Effect.suspend(() => {
        calls.push({ op: "status", processorRef })
        const cardId = cardOfRef.get(processorRef)
        return cardId === undefined ? Effect.fail(issuerError(false, "unknown card")) : answer(cardId)
      }),
    update: (processorRef, change) =>
      Effect.suspend(() => {
        calls.push({ op: "update", processorRef, change })
        return failIfArmed("update")
      }),
    reveal: (processorRef) =>
      Effect.suspend(() => {
        calls.push({ op: "reveal", processorRef })
        if (!fullProgram.supportsPanReveal) {
          return Effect.fail(issuerError(false, "the scripted program does not reveal card details"))
        }
        return Effect.andThen(failIfArmed("reveal"), () =>
          Effect.map(Clock.currentTimeMillis, (now) => ({
            panEmbedUrl: `https://issuer.paycore.invalid/pan/${processorRef}/${calls.length}`,
            expiresAt: isoOf(now + 300_000)
          }))
        )
      })
  }
  return {
    service,
    layer: Layer.succeed(CardIssuer, service),
    calls,
    provisionAs: (cardId, ...answers) => {
      scripts.set(cardId, [...answers])
    },
    ineligible: (accountId, reason = "refused by the issuer") => {
      refused.set(accountId, reason)
    },
    failNext: (op, retryable) => {
      failing.set(op, retryable)
    }
  }
}

// ---- records written straight to the store ----

/** A funding account of a seeded card: its id, and its type (default `INTERNAL_FIAT`). */
export type SeedFundingSource = InternalAccountId | { readonly accountId: string; readonly type: InternalAccountType }

/**
 * Writes a card straight to the store (no issuer, no check, no event), for tests that need one before slice A's issue
 * exists or without going through it: `ACTIVE` by default, USD, bound to `fundingSources` in order with fresh
 * `CardFundingSource` ids, every capability, the scripted issuer's `processorRef`. A card that is not `CLOSED` counts
 * toward the live-card counter (`cardCounters.live`), as an issued one does. `overrides` replace any field.
 */
export const seedCard = Effect.fnUntraced(function* (
  cardholderId: string,
  fundingSources: ReadonlyArray<SeedFundingSource>,
  overrides: Partial<CardRecord> = {}
) {
  const store = yield* Store
  const ids = yield* Ids
  const id = overrides.id ?? (yield* ids.make("Card"))
  const now = isoOf(yield* Clock.currentTimeMillis)
  const bindings: Array<CardFundingBinding> = []
  for (const source of fundingSources) {
    const { accountId, type } = typeof source === "string" ? { accountId: source, type: "INTERNAL_FIAT" } : source
    bindings.push({
      id: yield* ids.make("CardFundingSource"),
      accountId: accountId as InternalAccountId,
      accountType: type as InternalAccountType
    })
  }
  const card: CardRecord = {
    id,
    cardholderId: cardholderId as CardRecord["cardholderId"],
    platformCardId: `card-${id.slice(-12)}`,
    platformCardIdGiven: false,
    state: "ACTIVE",
    form: "VIRTUAL",
    fundingSources: bindings.map((b) => b.accountId),
    bindings,
    currency: "USD",
    cardCapabilities: { supportsPanReveal: true, supportsSpendLimits: true, supportsTransactionCountLimit: true },
    processorRef: scriptedProcessorRef(id),
    issuerRef: `iss_${id.slice(id.indexOf(":") + 1)}`,
    brand: "VISA",
    last4: "4242",
    expMonth: 12,
    expYear: 2030,
    createdAt: now,
    updatedAt: now,
    ...overrides
  }
  yield* Effect.orDie(store.cards.insert(card))
  if (card.state !== "CLOSED") yield* store.counters.add(cardCounters.live, 1)
  return card
})

/**
 * Writes a card transaction straight to the store: the row only (no ledger transfer, counter or event), for reads,
 * listings and the simulations' 400/404 rules before slice B's authorization exists. An `AUTHORIZED` USD debit of
 * 1 000 at a merchant by default, on the card's first funding source; `heldAmount` follows `state` (the authorized
 * amount while `AUTHORIZED`, else 0) unless overridden. `overrides` replace any field.
 */
export const seedCardTransaction = Effect.fnUntraced(function* (
  card: CardRecord,
  overrides: Partial<CardTransactionRecord> = {}
) {
  const store = yield* Store
  const ids = yield* Ids
  const customer = yield* Effect.orDie(store.customers.get(card.cardholderId))
  const id = overrides.id ?? (yield* ids.make("CardTransaction"))
  const now = isoOf(yield* Clock.currentTimeMillis)
  const amount = overrides.authorizedAmount ?? 1000
  const state = overrides.state ?? "AUTHORIZED"
  const binding = card.bindings[0]
  const settled = state === "SETTLED" || state === "PARTIALLY_SETTLED" ? (overrides.settledAmount ?? amount) : 0
  const record: CardTransactionRecord = {
    id,
    cardId: card.id,
    customerId: card.cardholderId,
    platformCustomerId: customer?.platformCustomerId ?? `p-${card.cardholderId.slice(-6)}`,
    issuerTransactionToken: `itt_${id.slice(id.indexOf(":") + 1)}`,
    kind: "AUTHORIZATION",
    direction: "DEBIT",
    state,
    merchant: { descriptor: "PAYCORE TEST MERCHANT", mcc: "5814", country: "US" },
    currency: card.currency,
    authorizedAmount: amount,
    settledAmount: settled,
    refundedAmount: 0,
    heldAmount: state === "AUTHORIZED" ? amount : 0,
    accountId: card.fundingSources[0]!,
    ...(binding === undefined ? {} : { fundingSourceId: binding.id }),
    pullSummary: { count: 1, totalAmount: amount, pendingCount: 0 },
    settlementSummary: settled > 0 ? { count: 1, totalAmount: settled } : { count: 0, totalAmount: 0 },
    refundSummary: { count: 0, totalAmount: 0 },
    returns: [],
    day: now.slice(0, 10),
    authorizedAt: now,
    createdAt: now,
    updatedAt: now,
    ...overrides
  }
  yield* Effect.orDie(store.cardTransactions.insert(record))
  return record
})
