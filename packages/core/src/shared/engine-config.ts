import { Clock, Context, Effect } from "effect"
import { EEA_REGIONS } from "./regions.ts"

/** Knobs an embedding application sets once; defaults suit the sandbox server. */
export interface EngineSettings {
  /** How long a quote can be executed after creation (the expiry rule itself is quotes/expiry.ts). */
  readonly quoteLifetimeSeconds: number
  /** How long a fetched exchange rate is reused. */
  readonly fxCacheSeconds: number
  /** The service's own fee on cross-currency quotes, in basis points of the sending amount. */
  readonly serviceFeeBps: number
  /**
   * How long a webhook delivery is retried, from its first attempt (WH-19: 7 days): the last try is at this instant,
   * then the event is DEAD (replayable). The schedule: `webhookRetrySchedule` (webhooks/dispatch.ts).
   */
  readonly webhookRetryWindowSeconds: number
  /** First retry delay; doubles each attempt, with jitter, capped at `webhookMaxBackoffSeconds`. */
  readonly webhookBaseBackoffSeconds: number
  /** The longest wait between two tries (WH-19: 30 min). */
  readonly webhookMaxBackoffSeconds: number
  /** Idempotency records are kept at least this long. */
  readonly idempotencyRetentionHours: number
  /** The current end-user terms. */
  readonly endUserTerms: { readonly version: string; readonly url: string }
  /** How long an embedded-wallet session signs before the customer signs in again (the sessions guide: 15 min). */
  readonly walletSessionSeconds: number
  /**
   * Ownership verification of self-custody wallets (Travel Rule; AC-24, AC-25, docs/ownership-verification.md).
   * The upstream names no setting for it, so it is the engine's.
   */
  readonly travelRule: TravelRuleSettings
  /**
   * The customer regions (ISO 3166-1 alpha-2) subject to Strong Customer Authentication (S-01): default the EEA,
   * where PSD2 applies; `[]` switches SCA off. A customer without a region is never subject.
   */
  readonly scaRegions: ReadonlyArray<string>
  /**
   * Cards that are not `CLOSED` a platform may hold at once (L-12, CD-14): one more issue is 400
   * `CARD_LIMIT_REACHED`. The spec shows no number; `null` is no limit.
   */
  readonly liveCardLimit: number | null
  /**
   * The currencies a card may be funded in (CD-15): every funding source of a card shares one of them, and it is the
   * card's currency (docs/design/cards.md, Q9). No FX on cards.
   */
  readonly cardCurrencies: ReadonlyArray<string>
  /** How long an agent's device code can be redeemed after it is issued (AG-01, AG-13; the upstream example: 24 h). */
  readonly agentDeviceCodeSeconds: number
  /**
   * Redemptions of unknown device codes allowed per UTC minute, platform-wide (RFC 8628 §5.1): the next is 429
   * `RATE_LIMITED` until the minute ends, so codes cannot be guessed at speed.
   */
  readonly agentRedeemMissesPerMinute: number
  /**
   * The life of the same-currency quote an agent's transfer creates (design Q5): long enough for the platform to
   * approve it (no rate to protect).
   */
  readonly agentTransferApprovalSeconds: number
  /** Invitations one inviter may create per UTC hour (IN-11): the next is 429 `RATE_LIMITED` until the hour ends. */
  readonly invitationsPerInviterPerHour: number
  /**
   * Unknown invitation codes asked for per UTC minute, platform-wide (IN-11, design Q3): the next read, claim or
   * cancel is 429 `RATE_LIMITED` until the minute ends, so 8-hex codes cannot be guessed at speed.
   */
  readonly invitationCodeMissesPerMinute: number
  /** How far ahead an invitation's `expiresAt` may be (IN-10). */
  readonly invitationMaxLifetimeDays: number
  /**
   * Incoming approvals (WH-21, design Q4): an UMA payment received waits for the platform's decision (its reply to
   * `INCOMING_PAYMENT.PENDING`, or `POST /transactions/{id}/approve|reject`) before it credits. `null` (the
   * default): UMA payments credit at once.
   */
  readonly incomingApproval: IncomingApprovalSettings | null
}

/** How long the platform has to decide on an incoming payment (docs/transactions.md, "Incoming approvals"). */
export interface IncomingApprovalSettings {
  /** After a 202 reply ("decision to follow"): the platform then has this long from the reply to decide. */
  readonly replySeconds: number
  /** From the payment's arrival: no decision by then fails it `PAYMENT_APPROVAL_TIMED_OUT`. */
  readonly decisionSeconds: number
}

/** The approval timings the sandbox example server runs with (design section 2, "Numbers"). */
export const sandboxIncomingApproval: IncomingApprovalSettings = { replySeconds: 5, decisionSeconds: 60 }

/** Where the Travel Rule asks for proof that a customer owns the self-custody wallet it pays, and from what amount. */
export interface TravelRuleSettings {
  /**
   * Customer regions (ISO 3166-1 alpha-2) where it applies: a `FIRST_PARTY` self-custody wallet of such a customer
   * starts `PENDING_OWNERSHIP_VERIFICATION`. Empty: never.
   */
  readonly regions: ReadonlyArray<string>
  /**
   * Per currency, in its smallest unit: a payment of at least this amount to an account whose ownership is not
   * verified is refused (400 `EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED`); below it the account is usable. A currency
   * not listed has no threshold: every amount is allowed.
   */
  readonly thresholds: Readonly<Record<string, number>>
  /** How long an ownership challenge (message to sign, or liveness link) stays open. */
  readonly challengeSeconds: number
}

export const defaultEngineSettings: EngineSettings = {
  quoteLifetimeSeconds: 300,
  fxCacheSeconds: 300,
  serviceFeeBps: 50,
  webhookRetryWindowSeconds: 7 * 86_400,
  webhookBaseBackoffSeconds: 5,
  webhookMaxBackoffSeconds: 1800,
  idempotencyRetentionHours: 24,
  endUserTerms: { version: "2025-10-13", url: "https://paycore.dev/terms/2025-10-13" },
  walletSessionSeconds: 900,
  // EUR 1 000 is the regulation's figure for transfers with self-hosted wallets; 1 000 dollar stablecoins (6
  // decimals) are worth a little less, so the threshold errs on the strict side.
  travelRule: {
    regions: EEA_REGIONS,
    thresholds: { USDC: 1_000_000_000, USDT: 1_000_000_000 },
    challengeSeconds: 900
  },
  scaRegions: EEA_REGIONS,
  liveCardLimit: 10_000,
  cardCurrencies: ["USD", "USDB"],
  agentDeviceCodeSeconds: 86_400,
  agentRedeemMissesPerMinute: 60,
  agentTransferApprovalSeconds: 86_400,
  invitationsPerInviterPerHour: 100,
  invitationCodeMissesPerMinute: 60,
  invitationMaxLifetimeDays: 365,
  incomingApproval: null
}

export const EngineConfig = Context.Reference<EngineSettings>("paycore/EngineConfig", {
  defaultValue: () => defaultEngineSettings
})

/** What a command reads from its fiber once: the clock's instant and the engine settings. */
export interface CommandEnv {
  /** The fiber's clock: later readings in the command cost no run-loop step. */
  readonly clock: Clock.Clock
  /** The clock's reading at the start of the command. */
  readonly nowMs: number
  readonly settings: EngineSettings
}

/** The fiber's clock, its reading and `EngineConfig` in one run-loop step (instead of one each). */
export const commandEnv: Effect.Effect<CommandEnv> = Effect.withFiber((fiber) => {
  const clock = fiber.getRef(Clock.Clock)
  return Effect.succeed({ clock, nowMs: clock.currentTimeMillisUnsafe(), settings: fiber.getRef(EngineConfig) })
})
