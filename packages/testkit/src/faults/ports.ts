import {
  isoOf,
  type KycProvider,
  type KycProviderError,
  type PayoutStatus,
  type Rail,
  type RailError,
  type TransportResponse,
  type WebhookTransport
} from "@paycore/core"
import { Clock, Effect } from "effect"
import type { FaultLog, FaultSwitch } from "./log.ts"
import type { SimRandom } from "./random.ts"

/** What every port fault adapter takes: the random source of its decisions, the log, the shared switch. */
export interface PortFaultOptions<Rates> {
  readonly random: SimRandom
  readonly rates: Rates
  readonly log: FaultLog
  readonly faults?: FaultSwitch | undefined
}

const on = (options: { readonly faults?: FaultSwitch | undefined }) => options.faults?.healed !== true

// ---- the payment rail ----

/**
 * The rail's faults, each a probability per call:
 * - `submitTimeout`: the rail is not reached (retryable `RailError`);
 * - `submitLostAnswer`: the rail takes the payout, and its answer is lost (retryable `RailError`): the engine
 *   submits again, and only the rail's idempotency on `transactionId` keeps the money from moving twice;
 * - `statusTimeout`: a status poll is not answered (retryable `RailError`);
 * - `lateReport`: a status poll answers `Pending` although the rail has an outcome (a late settlement report);
 * - `staleReport`: a payout the rail already reported settled or failed is reported `Pending` again, an earlier
 *   report arriving after the later one (out of order). A report is repeated (duplicated) whenever it is asked again.
 */
export interface RailFaultRates {
  readonly submitTimeout?: number | undefined
  readonly submitLostAnswer?: number | undefined
  readonly statusTimeout?: number | undefined
  readonly lateReport?: number | undefined
  readonly staleReport?: number | undefined
}

export interface FaultyRail {
  readonly rail: Rail["Service"]
  /** Every reference the rail gave per `transactionId` (more than one: the rail moved the money twice). */
  readonly submissions: ReadonlyMap<string, ReadonlySet<string>>
}

const railError = (message: string): RailError => ({
  _tag: "RailError",
  retryable: true,
  reason: "QUOTE_EXECUTION_FAILED",
  message
})

/** `inner` with the faults of `RailFaultRates`; it records every reference `inner` gave. */
export const faultyRail = (inner: Rail["Service"], options: PortFaultOptions<RailFaultRates>): FaultyRail => {
  const { random, rates, log } = options
  const submissions = new Map<string, Set<string>>()
  const reported = new Set<string>()
  const later = (seconds: number) => Effect.map(Clock.currentTimeMillis, (now) => isoOf(now + seconds * 1000))
  const rail: Rail["Service"] = {
    ...inner,
    submit: (payout) =>
      Effect.suspend(() => {
        if (on(options) && random.chance(rates.submitTimeout ?? 0)) {
          log.record("rail.submitTimeout", payout.transactionId)
          return Effect.fail(railError("injected: the rail did not answer"))
        }
        return Effect.flatMap(inner.submit(payout), (submitted) => {
          const refs = submissions.get(payout.transactionId) ?? new Set<string>()
          refs.add(submitted.reference)
          submissions.set(payout.transactionId, refs)
          if (on(options) && random.chance(rates.submitLostAnswer ?? 0)) {
            log.record("rail.submitLostAnswer", payout.transactionId)
            return Effect.fail(railError("injected: the rail's answer was lost"))
          }
          return Effect.succeed(submitted)
        })
      }),
    status: (reference) =>
      Effect.suspend(() => {
        if (on(options) && random.chance(rates.statusTimeout ?? 0)) {
          log.record("rail.statusTimeout", reference.slice(0, 24))
          return Effect.fail(railError("injected: the status poll timed out"))
        }
        return Effect.flatMap(inner.status(reference), (status): Effect.Effect<PayoutStatus, RailError> => {
          if (status._tag === "Pending") return Effect.succeed(status)
          const stale = reported.has(reference)
          reported.add(reference)
          if (on(options) && stale && random.chance(rates.staleReport ?? 0)) {
            log.record("rail.staleReport", reference.slice(0, 24))
            return Effect.map(later(60), (checkAgainAt) => ({ _tag: "Pending" as const, checkAgainAt }))
          }
          if (on(options) && random.chance(rates.lateReport ?? 0)) {
            log.record("rail.lateReport", reference.slice(0, 24))
            return Effect.map(later(random.between(1, 600)), (checkAgainAt) => ({
              _tag: "Pending" as const,
              checkAgainAt
            }))
          }
          return Effect.succeed(status)
        })
      })
  }
  return { rail, submissions }
}

// ---- the KYC provider ----

/**
 * The KYC provider's faults, each a probability per call: `unavailable` (a 5xx or a closed connection: a retryable
 * `KycProviderError` before the provider did anything) and `slow` (the provider reviewed the packet and the answer
 * came after the caller's timeout: a retryable `KycProviderError`, the review done).
 */
export interface KycFaultRates {
  readonly unavailable?: number | undefined
  readonly slow?: number | undefined
}

const kycError = (message: string): KycProviderError => ({ _tag: "KycProviderError", message, retryable: true })

/** `inner` with the faults of `KycFaultRates` on `createLink` and `review`. */
export const faultyKycProvider = (
  inner: KycProvider["Service"],
  options: PortFaultOptions<KycFaultRates>
): KycProvider["Service"] => {
  const { random, rates, log } = options
  const faulty =
    <A, B>(name: string, call: (a: A) => Effect.Effect<B, KycProviderError>) =>
    (a: A): Effect.Effect<B, KycProviderError> =>
      Effect.suspend(() => {
        if (on(options) && random.chance(rates.unavailable ?? 0)) {
          log.record("kyc.unavailable", name)
          return Effect.fail(kycError("injected: the KYC provider answered 503"))
        }
        if (on(options) && random.chance(rates.slow ?? 0)) {
          log.record("kyc.slow", name)
          return Effect.flatMap(call(a), () => Effect.fail(kycError("injected: the KYC provider timed out")))
        }
        return call(a)
      })
  return { ...inner, createLink: faulty("createLink", inner.createLink), review: faulty("review", inner.review) }
}

// ---- the webhook receiver ----

/**
 * The webhook receiver's faults, each a probability per POST: `closed` (the connection is closed before the
 * request reaches the receiver), `serverError` (the receiver answers 500 or 503 without taking the event) and
 * `slow` (the receiver takes the event, and its answer comes after the sender's timeout: a transport error, so the
 * event is sent again).
 */
export interface WebhookFaultRates {
  readonly closed?: number | undefined
  readonly serverError?: number | undefined
  readonly slow?: number | undefined
}

export interface FaultyWebhookReceiver {
  readonly transport: WebhookTransport["Service"]
  /** How many times the receiver took each event (by its `id`): at least once is what delivery promises. */
  readonly taken: ReadonlyMap<string, number>
}

/** `inner` (the receiver) behind the faults of `WebhookFaultRates`; it counts what the receiver took (a 2xx). */
export const faultyWebhookReceiver = (
  inner: WebhookTransport["Service"],
  options: PortFaultOptions<WebhookFaultRates>
): FaultyWebhookReceiver => {
  const { random, rates, log } = options
  const taken = new Map<string, number>()
  const idOf = (body: string): string => {
    try {
      return String((JSON.parse(body) as { id?: unknown }).id)
    } catch {
      return "?"
    }
  }
  const transport: WebhookTransport["Service"] = {
    post: (url, headers, body) =>
      Effect.suspend(() => {
        const id = idOf(body)
        if (on(options) && random.chance(rates.closed ?? 0)) {
          log.record("webhook.closed", id)
          return Effect.fail({ _tag: "TransportError" as const, message: "injected: connection closed" })
        }
        if (on(options) && random.chance(rates.serverError ?? 0)) {
          log.record("webhook.serverError", id)
          return Effect.succeed<TransportResponse>({ status: random.chance(0.5) ? 500 : 503, body: "" })
        }
        const slow = on(options) && random.chance(rates.slow ?? 0)
        return Effect.flatMap(inner.post(url, headers, body), (response) => {
          if (response.status >= 200 && response.status < 300) taken.set(id, (taken.get(id) ?? 0) + 1)
          if (!slow) return Effect.succeed(response)
          log.record("webhook.slow", id)
          return Effect.fail({ _tag: "TransportError" as const, message: "injected: the receiver timed out" })
        })
      })
  }
  return { transport, taken }
}

// ---- at-least-once delivery (a card network's events) ----

/**
 * How an unreliable network delivers messages: each may be `duplicated` (sent twice), `delayed` (held back to a
 * later delivery) and the batch `reordered` (shuffled), each a probability.
 */
export interface DeliveryFaultRates {
  readonly duplicated?: number | undefined
  readonly delayed?: number | undefined
  readonly reordered?: number | undefined
}

/**
 * The order an at-least-once network (a card network's processor webhooks) delivers `messages` in, with what it
 * held back from before (`held`): duplicates, reordering and delays by `rates`. Returns what it delivers now; the
 * delayed ones are pushed onto `held` for a later call.
 */
export const unreliableDelivery = <A>(
  messages: ReadonlyArray<A>,
  held: Array<A>,
  options: PortFaultOptions<DeliveryFaultRates> & { readonly describe: (message: A) => string }
): ReadonlyArray<A> => {
  const { random, rates, log, describe } = options
  const now: Array<A> = held.splice(0, held.length)
  for (const message of messages) {
    if (on(options) && random.chance(rates.delayed ?? 0)) {
      log.record("network.delayed", describe(message))
      held.push(message)
      continue
    }
    now.push(message)
    if (on(options) && random.chance(rates.duplicated ?? 0)) {
      log.record("network.duplicated", describe(message))
      now.push(message)
    }
  }
  if (now.length > 1 && on(options) && random.chance(rates.reordered ?? 0)) {
    log.record("network.reordered", `${now.length} messages`)
    for (let i = now.length - 1; i > 0; i--) {
      const j = random.int(i + 1)
      const t = now[i]!
      now[i] = now[j]!
      now[j] = t
    }
  }
  return now
}
