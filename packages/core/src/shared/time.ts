import { Clock, Effect } from "effect"

const DAY_MS = 86_400_000
const pad2 = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, "0"))
const pad3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"))

// The `YYYY-MM-DDT` of the day last formatted: instants of one day share it, so formatting one is
// a few table lookups instead of `new Date(ms).toISOString()` (a command formats many instants).
let dayStart = Number.NaN
let dayPrefix = ""
let lastMs = Number.NaN
let lastIso = ""

/** `new Date(ms).toISOString()` (same text, same RangeError for an invalid instant), without the Date. */
export const isoOf = (ms: number): string => {
  const t = Math.trunc(ms)
  // The instant last formatted: a command (and a batch of them) formats the same instant many times.
  if (t === lastMs) return lastIso
  if (!(t >= dayStart && t < dayStart + DAY_MS && t <= 8.64e15)) {
    if (!(Math.abs(t) <= 8.64e15)) return new Date(t).toISOString()
    const start = t - (((t % DAY_MS) + DAY_MS) % DAY_MS)
    const iso = new Date(start).toISOString()
    dayStart = start
    dayPrefix = iso.slice(0, iso.indexOf("T") + 1)
  }
  let rest = t - dayStart
  const hours = Math.floor(rest / 3_600_000)
  rest -= hours * 3_600_000
  const minutes = Math.floor(rest / 60_000)
  rest -= minutes * 60_000
  const seconds = Math.floor(rest / 1000)
  lastMs = t
  lastIso = `${dayPrefix}${pad2[hours]}:${pad2[minutes]}:${pad2[seconds]}.${pad3[rest - seconds * 1000]}Z`
  return lastIso
}

/** The Clock's current instant as an ISO 8601 string (tests move it with TestClock). One run-loop step. */
export const nowIso: Effect.Effect<string> = Clock.clockWith((clock) =>
  Effect.succeed(isoOf(clock.currentTimeMillisUnsafe()))
)

/** `seconds` (rounded to the millisecond) after an ISO instant. */
export const addSeconds = (iso: string, seconds: number): string => isoOf(Date.parse(iso) + Math.round(seconds * 1000))

/** `seconds` (rounded to the millisecond) after an instant in epoch milliseconds, as ISO text. */
export const isoAfter = (ms: number, seconds: number): string => isoOf(ms + Math.round(seconds * 1000))

const MAX_BACKOFF_SECONDS = 3600

/**
 * The delay before retry number `attempts` after a retryable error of a port the worker polls (a rail, a card
 * issuer): 5 s doubling, capped at an hour.
 */
export const pollBackoffSeconds = (attempts: number): number =>
  Math.min(5 * 2 ** Math.max(0, attempts - 1), MAX_BACKOFF_SECONDS)

/** The UTC calendar day `YYYY-MM-DD` of an instant (daily limits reset then). */
export const utcDay = (iso: string): string => iso.slice(0, 10)
