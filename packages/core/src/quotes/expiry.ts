/**
 * Quote expiry, the one rule: a quote can be executed until `expiresAt` (`EngineConfig.quoteLifetimeSeconds`
 * after creation, or the lifetime its creator asked for: `CreateOptions.lifetimeSeconds`); from then on, while it
 * is in a state the quote machine lets expire, it is expired (by the execute call that finds it so, or by the
 * worker's pass). Transactions apply it; they do not restate it.
 */
import type { EngineSettings } from "../shared/engine-config.ts"
import { statesAllowing } from "../shared/machine.ts"
import { isoAfter } from "../shared/time.ts"
import { type QuoteState, quoteMachine } from "./machine.ts"
import type { Quote } from "./model.ts"

/** The states a quote can expire from: where the quote machine has an `EXPIRE` move. */
export const expirableQuoteStates: ReadonlyArray<QuoteState> = statesAllowing(quoteMachine, "EXPIRE")

/** The `expiresAt` of a quote created at `createdAtMs` (its creator may ask for another lifetime). */
export const quoteExpiresAt = (
  createdAtMs: number,
  settings: EngineSettings,
  lifetimeSeconds: number = settings.quoteLifetimeSeconds
): string => isoAfter(createdAtMs, lifetimeSeconds)

/** Whether `quote` must be expired at `now` (ISO): it can still expire and `now` is at or past `expiresAt`. */
export const isQuoteDueToExpire = (quote: Pick<Quote, "status" | "expiresAt">, now: string): boolean =>
  now >= quote.expiresAt && (expirableQuoteStates as ReadonlyArray<string>).includes(quote.status)
