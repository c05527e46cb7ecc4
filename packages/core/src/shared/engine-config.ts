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
  /** Webhook deliveries stop after this many attempts (then DEAD, replayable). */
  readonly webhookMaxAttempts: number
  /** First retry delay; doubles each attempt, with jitter, capped at `webhookMaxBackoffSeconds`. */
  readonly webhookBaseBackoffSeconds: number
  readonly webhookMaxBackoffSeconds: number
  /** Idempotency records are kept at least this long. */
  readonly idempotencyRetentionHours: number
  /** The current end-user terms. */
  readonly endUserTerms: { readonly version: string; readonly url: string }
  /** How long an embedded-wallet session signs before the customer signs in again (the sessions guide: 15 min). */
  readonly walletSessionSeconds: number
  /**
   * The customer regions (ISO 3166-1 alpha-2) subject to Strong Customer Authentication (S-01): default the EEA,
   * where PSD2 applies; `[]` switches SCA off. A customer without a region is never subject.
   */
  readonly scaRegions: ReadonlyArray<string>
}

export const defaultEngineSettings: EngineSettings = {
  quoteLifetimeSeconds: 300,
  fxCacheSeconds: 300,
  serviceFeeBps: 50,
  webhookMaxAttempts: 12,
  webhookBaseBackoffSeconds: 5,
  webhookMaxBackoffSeconds: 1800,
  idempotencyRetentionHours: 24,
  endUserTerms: { version: "2025-10-13", url: "https://paycore.dev/terms/2025-10-13" },
  walletSessionSeconds: 900,
  scaRegions: EEA_REGIONS
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
