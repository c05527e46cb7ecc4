/**
 * The token buckets behind the request rate limits and the failed-authentication throttle (C-43, issue 33 item 6),
 * on a clock the test moves.
 */
import { describe, expect, it } from "vitest"
import { makeTokenBuckets, parseLimitPair } from "../src/rate-limits.ts"

const clock = () => {
  let t = 1_000_000
  return { now: () => t, advance: (ms: number) => (t += ms) }
}

describe("token buckets (C-43)", () => {
  it("C-43: a burst, then the seconds until the next token (rounded up); refilled at the rate, never past the burst", () => {
    const time = clock()
    const buckets = makeTokenBuckets({ perSecond: 2, burst: 3 }, time.now)
    expect([buckets.take("a"), buckets.take("a"), buckets.take("a")]).toEqual([undefined, undefined, undefined])
    expect(buckets.take("a")).toBe(1)
    expect(buckets.check("a")).toBe(1)
    time.advance(500)
    expect(buckets.check("a")).toBeUndefined()
    expect(buckets.take("a")).toBeUndefined()
    expect(buckets.take("a")).toBe(1)
    // An hour idle refills to the burst only.
    time.advance(3_600_000)
    expect([buckets.take("a"), buckets.take("a"), buckets.take("a"), buckets.take("a")]).toEqual([
      undefined,
      undefined,
      undefined,
      1
    ])
  })

  it("C-43: a slow rate says how long to wait: 3 per minute is a token every 20 s", () => {
    const time = clock()
    const buckets = makeTokenBuckets({ perSecond: 3 / 60, burst: 3 }, time.now)
    for (let i = 0; i < 3; i++) expect(buckets.take("x")).toBeUndefined()
    expect(buckets.take("x")).toBe(20)
    time.advance(19_500)
    expect(buckets.check("x")).toBe(1)
    time.advance(500)
    expect(buckets.check("x")).toBeUndefined()
  })

  it("C-43: one key's bucket is its own", () => {
    const buckets = makeTokenBuckets({ perSecond: 1, burst: 1 }, clock().now)
    expect(buckets.take("a")).toBeUndefined()
    expect(buckets.take("a")).toBe(1)
    expect(buckets.take("b")).toBeUndefined()
    expect(buckets.check("c")).toBeUndefined()
  })

  it("memory is bounded: idle buckets (full again) are dropped, and past the cap the least recently used goes", () => {
    const time = clock()
    const buckets = makeTokenBuckets({ perSecond: 1, burst: 2 }, time.now, 3)
    buckets.take("a")
    time.advance(5_000) // a is full again: as good as no bucket
    buckets.take("b")
    expect(buckets.size()).toBe(1)
    for (const key of ["c", "d", "e", "f"]) buckets.take(key)
    expect(buckets.size()).toBe(3)
    // The most recent callers are kept: f is still spent.
    buckets.take("f")
    expect(buckets.take("f")).toBe(1)
    for (let i = 0; i < 50_000; i++) buckets.take(`k${i}`)
    expect(buckets.size()).toBe(3)
  })

  it("PAYCORE_RATE_LIMIT and PAYCORE_AUTH_FAILURE_LIMIT read as two positive numbers, or off", () => {
    expect(parseLimitPair("PAYCORE_RATE_LIMIT", "1000:2000")).toEqual([1000, 2000])
    expect(parseLimitPair("PAYCORE_RATE_LIMIT", " 0.5:1 ")).toEqual([0.5, 1])
    expect(parseLimitPair("PAYCORE_RATE_LIMIT", "off")).toBeUndefined()
    for (const bad of ["", "10", "0:5", "5:0", "-1:5", "a:b", "5:5:5"]) {
      expect(() => parseLimitPair("PAYCORE_RATE_LIMIT", bad)).toThrow(/PAYCORE_RATE_LIMIT/)
    }
  })
})
