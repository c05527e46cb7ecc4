/**
 * Request rate limits of the HTTP layer (issue 33 item 6; C-43): a token bucket per credential, and a throttle on
 * failed authentication per caller address and per client id. Both answer 429 `RATE_LIMITED` with `Retry-After`.
 * Buckets live in this process: N instances behind a load balancer allow N times the rate.
 */
import type { IncomingMessage } from "node:http"
import type { Principal } from "@paycore/core"
import { RequestRefused } from "./credentials.ts"
import type { MissBudgetKey } from "./handlers/shared.ts"

/** A token bucket: `burst` requests at once, refilled at `perSecond`. */
export interface RateLimit {
  /** Tokens added back per second (a fraction is fine: 0.5 is one every two seconds). */
  readonly perSecond: number
  /** The bucket's size: requests at once after a quiet spell. */
  readonly burst: number
}

/**
 * The throttle on failed authentication: `failures` failed credentials per `windowSeconds` per caller address and per
 * client id (a bucket of `failures`, refilled over the window); past it the caller is answered 429 before its
 * credential is checked.
 */
export interface AuthFailureLimit {
  /** Failed credentials allowed at once, and per window. */
  readonly failures: number
  /** The window they are counted over, in seconds. */
  readonly windowSeconds: number
}

/** How many callers' buckets are kept at most; past it the least recently used go first. */
export const RATE_LIMIT_MAX_KEYS = 10_000

interface Bucket {
  tokens: number
  /** When `tokens` was last computed (epoch milliseconds). */
  at: number
}

/** Token buckets keyed by caller, over a clock in milliseconds (the engine's `Clock`, a `TestClock` in tests). */
export interface TokenBuckets {
  /** Takes one token of `key`'s bucket: `undefined` when there was one, else the seconds until one is (rounded up). */
  readonly take: (key: string) => number | undefined
  /** Like `take` without taking: `undefined` when `key` has a token, else the seconds until it has. */
  readonly check: (key: string) => number | undefined
  /** Buckets held now (a full bucket is as good as none, so idle callers' buckets are dropped). */
  readonly size: () => number
}

export const makeTokenBuckets = (
  limit: RateLimit,
  now: () => number,
  maxKeys: number = RATE_LIMIT_MAX_KEYS
): TokenBuckets => {
  if (!(limit.perSecond > 0) || !(limit.burst >= 1)) {
    throw new Error(
      `A rate limit needs a rate above 0 and a burst of at least 1 (got ${limit.perSecond}:${limit.burst})`
    )
  }
  // Insertion order is recency: a bucket is moved to the end whenever it is used, so the first is the idlest.
  const buckets = new Map<string, Bucket>()
  const refilled = (bucket: Bucket, t: number): number =>
    Math.min(limit.burst, bucket.tokens + (Math.max(0, t - bucket.at) * limit.perSecond) / 1000)
  const waitSeconds = (tokens: number): number => Math.max(1, Math.ceil((1 - tokens) / limit.perSecond))
  const dropIdle = (t: number) => {
    // The idlest bucket, once full again, holds nothing worth keeping; at the cap the idlest goes anyway (room is
    // made for the bucket being used, which is out of the map meanwhile).
    for (const [key, bucket] of buckets) {
      if (buckets.size < maxKeys && refilled(bucket, t) < limit.burst) return
      buckets.delete(key)
    }
  }
  const current = (key: string, t: number): Bucket => {
    const bucket = buckets.get(key)
    if (bucket === undefined) return { tokens: limit.burst, at: t }
    buckets.delete(key)
    bucket.tokens = refilled(bucket, t)
    bucket.at = t
    return bucket
  }
  return {
    take: (key) => {
      const t = now()
      const bucket = current(key, t)
      dropIdle(t)
      buckets.set(key, bucket)
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1
        return undefined
      }
      return waitSeconds(bucket.tokens)
    },
    check: (key) => {
      const bucket = buckets.get(key)
      if (bucket === undefined) return undefined
      const tokens = refilled(bucket, now())
      return tokens >= 1 ? undefined : waitSeconds(tokens)
    },
    size: () => buckets.size
  }
}

/**
 * `"<per second>:<burst>"` (`PAYCORE_RATE_LIMIT`) or `"<failures>:<window seconds>"` (`PAYCORE_AUTH_FAILURE_LIMIT`):
 * the two positive numbers, or `undefined` for `off`. Anything else throws, naming the variable.
 */
export const parseLimitPair = (name: string, text: string): readonly [number, number] | undefined => {
  const value = text.trim()
  if (value === "off") return undefined
  const match = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(value)
  const first = Number(match?.[1])
  const second = Number(match?.[2])
  if (match === null || !(first > 0) || !(second > 0)) {
    throw new Error(`${name} must be "<number>:<number>" (both above 0) or "off", got "${text}"`)
  }
  return [first, second]
}

/** A 429 `RATE_LIMITED` answer with its `Retry-After` (seconds). */
const rateLimited = (message: string, retryAfterSeconds: number) =>
  new RequestRefused({
    status: 429,
    code: "RATE_LIMITED",
    message: `${message}: retry in ${retryAfterSeconds} s`,
    headers: { "retry-after": String(retryAfterSeconds) }
  })

/** The limits `authenticate` applies (app.ts); each is a no-op when its limit is not set. */
export interface RequestLimits {
  /**
   * Before a credential is checked: 429 when the caller's address failed authentication too often, or (`clientId`
   * given) its client id did.
   */
  readonly throttled: (request: IncomingMessage, clientId: string | undefined) => RequestRefused | undefined
  /** A credential that failed: spends a token of its address's bucket and (given) its client id's. */
  readonly failed: (request: IncomingMessage, clientId: string | undefined) => void
  /** An authenticated request: spends a token of its credential's bucket; 429 when it is empty. */
  readonly spend: (principal: Principal, request: IncomingMessage) => RequestRefused | undefined
}

export interface RequestLimitOptions {
  readonly rateLimit: RateLimit | undefined
  readonly authFailureLimit: AuthFailureLimit | undefined
  /** Who a request is (the miss budgets' caller): a credential's token or agent, else the address. */
  readonly callerKey: MissBudgetKey
  /** The time in epoch milliseconds. */
  readonly now: () => number
}

export const makeRequestLimits = (options: RequestLimitOptions): RequestLimits => {
  const { rateLimit, authFailureLimit, callerKey, now } = options
  const requests = rateLimit === undefined ? undefined : makeTokenBuckets(rateLimit, now)
  const failureRate =
    authFailureLimit === undefined
      ? undefined
      : { perSecond: authFailureLimit.failures / authFailureLimit.windowSeconds, burst: authFailureLimit.failures }
  const addressFailures = failureRate === undefined ? undefined : makeTokenBuckets(failureRate, now)
  const clientFailures = failureRate === undefined ? undefined : makeTokenBuckets(failureRate, now)
  // The caller's address as the miss budgets name it (behind a proxy, a host's `missBudgetKey` reads the header).
  const addressOf = (request: IncomingMessage) =>
    callerKey({ principal: undefined, remoteAddress: request.socket.remoteAddress, headers: request.headers })
  return {
    throttled: (request, clientId) => {
      if (addressFailures === undefined || clientFailures === undefined) return undefined
      const wait =
        addressFailures.check(addressOf(request)) ??
        (clientId === undefined ? undefined : clientFailures.check(clientId))
      return wait === undefined ? undefined : rateLimited("Too many failed authentications", wait)
    },
    failed: (request, clientId) => {
      if (addressFailures === undefined || clientFailures === undefined) return
      addressFailures.take(addressOf(request))
      if (clientId !== undefined) clientFailures.take(clientId)
    },
    spend: (principal, request) => {
      if (requests === undefined) return undefined
      const wait = requests.take(
        callerKey({ principal, remoteAddress: request.socket.remoteAddress, headers: request.headers })
      )
      return wait === undefined ? undefined : rateLimited("Too many requests for this credential", wait)
    }
  }
}
