import { Clock, Effect } from "effect"

/** The Clock's current instant as an ISO 8601 string (tests move it with TestClock). */
export const nowIso: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

export const addSeconds = (iso: string, seconds: number): string =>
  new Date(Date.parse(iso) + Math.round(seconds * 1000)).toISOString()

/** The UTC calendar day `YYYY-MM-DD` of an instant (daily limits reset then). */
export const utcDay = (iso: string): string => iso.slice(0, 10)
