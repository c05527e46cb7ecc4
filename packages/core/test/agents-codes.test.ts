/**
 * Device codes and access tokens (docs/design/agents.md, section 2 "Numbers"; AG-01, AG-13, AG-15, A-06, C-06): the
 * alphabet and format, normalization of what a person types, distinct draws from a seeded source, the token's round
 * trip and what parsing refuses.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import {
  ACCESS_TOKEN_RANDOM_BYTES,
  DEVICE_CODE_ALPHABET,
  DEVICE_CODE_RANDOM_BYTES,
  deviceCodeDigest,
  newAccessToken,
  newDeviceCode,
  normalizeDeviceCode,
  parseAccessToken,
  redeemMinute,
  secondsToNextMinute,
  verifierDigest,
  verifierMatches
} from "../src/agents/codes.ts"
import { Ids } from "../src/ports/ids.ts"
import { sha256Hex } from "../src/shared/digests.ts"

/** `n` draws of `bytes` random bytes as hex from the seeded `Ids` port (the same sequence every run). */
const draws = (n: number, bytes: number, seed = 16): ReadonlyArray<string> =>
  Effect.runSync(
    Effect.gen(function* () {
      const ids = yield* Ids
      const out: Array<string> = []
      for (let i = 0; i < n; i++) out.push(yield* ids.randomHex(bytes))
      return out
    }).pipe(Effect.provide(Ids.layerSeeded(seed)))
  )

const CODE = /^PAYCORE-AGENT-[23456789BCDFGHJKMNPQRSTVWXZ]{4}-[23456789BCDFGHJKMNPQRSTVWXZ]{4}$/

describe("device codes", () => {
  it("C-06: the alphabet has 27 symbols, no vowel and none of 0, O, 1, I, L", () => {
    expect(DEVICE_CODE_ALPHABET).toHaveLength(27)
    expect(new Set(DEVICE_CODE_ALPHABET).size).toBe(27)
    for (const banned of "AEIOUY01IL") expect(DEVICE_CODE_ALPHABET).not.toContain(banned)
  })

  it("AG-01, AG-13: 10^5 codes from a seeded source are well-formed, distinct, and use every symbol at every place", () => {
    const codes = draws(100_000, DEVICE_CODE_RANDOM_BYTES).map((hex) => newDeviceCode(hex).code)
    expect(codes.filter((code) => !CODE.test(code))).toEqual([])
    expect(new Set(codes).size).toBe(codes.length)
    const symbols = codes.map((code) => code.slice("PAYCORE-AGENT-".length).replace("-", ""))
    const expected = codes.length / 27
    for (let place = 0; place < 8; place++) {
      const counts = new Map<string, number>()
      for (const s of symbols) counts.set(s[place]!, (counts.get(s[place]!) ?? 0) + 1)
      expect(counts.size).toBe(27)
      for (const count of counts.values()) expect(Math.abs(count - expected)).toBeLessThan(expected * 0.1)
    }
  })

  it("a code is its normalized form; only the SHA-256 of that is stored", () => {
    const [hex] = draws(1, DEVICE_CODE_RANDOM_BYTES)
    const { code, codeSha256 } = newDeviceCode(hex!)
    expect(normalizeDeviceCode(code)).toBe(code)
    expect(codeSha256).toBe(sha256Hex(code))
    expect(deviceCodeDigest(code)).toBe(codeSha256)
    expect(codeSha256).not.toContain(code)
  })

  it.each([
    ["PAYCORE-AGENT-BCDF-2345", "PAYCORE-AGENT-BCDF-2345"],
    ["paycore-agent-bcdf-2345", "PAYCORE-AGENT-BCDF-2345"],
    ["BCDF-2345", "PAYCORE-AGENT-BCDF-2345"],
    ["bcdf2345", "PAYCORE-AGENT-BCDF-2345"],
    ["  bc df 23 45 ", "PAYCORE-AGENT-BCDF-2345"],
    ["PAYCOREAGENTBCDF2345", "PAYCORE-AGENT-BCDF-2345"],
    ["paycore agent bcdf 2345", "PAYCORE-AGENT-BCDF-2345"],
    ["PAYCORE--AGENT--ZZZZ--9999", "PAYCORE-AGENT-ZZZZ-9999"],
    ["Paycore-Agent-xwvt-8765", "PAYCORE-AGENT-XWVT-8765"]
  ])("C-06, AG-15: %j normalizes to %s", (input, canonical) => {
    expect(normalizeDeviceCode(input)).toBe(canonical)
  })

  it.each([
    [""],
    ["PAYCORE-AGENT-"],
    ["BCDF-234"], // 7 symbols
    ["BCDF-23456"], // 9 symbols
    ["BCDA-2345"], // a vowel
    ["BCD0-2345"], // zero
    ["BCDO-2345"], // the letter O
    ["BCD1-2345"], // one
    ["BCDI-2345"], // I
    ["BCDL-2345"], // L
    ["BCD_-2345"],
    ["AGENT-BCDF-2345"], // a partial prefix
    ["OTHER-AGENT-BCDF-2345"],
    ["PAYCORE-AGENT-BCDF-2345-2"],
    ["PAYCORE-AGENT-BCDF-2345\u0000"]
  ])("C-06: %j is no code (undefined: nothing to look up)", (input) => {
    expect(normalizeDeviceCode(input)).toBeUndefined()
  })

  it("redeem misses count per UTC minute; Retry-After is the seconds to the next one", () => {
    expect(redeemMinute("2026-03-02T12:34:56.789Z")).toBe("2026-03-02T12:34")
    const minute = Date.parse("2026-03-02T12:34:00.000Z")
    expect(secondsToNextMinute(minute)).toBe(60)
    expect(secondsToNextMinute(minute + 1)).toBe(60)
    expect(secondsToNextMinute(minute + 59_000)).toBe(1)
    expect(secondsToNextMinute(minute + 59_999)).toBe(1)
  })
})

describe("access tokens", () => {
  it("A-06, C-06: gat_ + 16 hex selector + 48 hex verifier; parsing gives the parts back; only the digest is stored", () => {
    for (const hex of draws(50, ACCESS_TOKEN_RANDOM_BYTES)) {
      const { token, selector, verifierSha256 } = newAccessToken(hex)
      expect(token).toMatch(/^gat_[0-9a-f]{64}$/)
      expect(token).toBe(`gat_${hex}`)
      const parts = parseAccessToken(token)
      expect(parts).toEqual({ selector, verifier: hex.slice(16) })
      expect(selector).toHaveLength(16)
      expect(verifierSha256).toBe(verifierDigest(parts!.verifier))
      expect(verifierSha256).toBe(sha256Hex(parts!.verifier))
      expect(verifierMatches(parts!.verifier, verifierSha256)).toBe(true)
    }
  })

  it("A-06: another verifier does not match, even one character off", () => {
    const { token, verifierSha256 } = newAccessToken(draws(1, ACCESS_TOKEN_RANDOM_BYTES)[0]!)
    const verifier = parseAccessToken(token)!.verifier
    const flipped = `${verifier.slice(0, -1)}${verifier.endsWith("0") ? "1" : "0"}`
    expect(verifierMatches(flipped, verifierSha256)).toBe(false)
    expect(verifierMatches("", verifierSha256)).toBe(false)
  })

  it("tokens from a seeded source are distinct", () => {
    const tokens = draws(10_000, ACCESS_TOKEN_RANDOM_BYTES).map((hex) => newAccessToken(hex))
    expect(new Set(tokens.map((t) => t.token)).size).toBe(tokens.length)
    expect(new Set(tokens.map((t) => t.selector)).size).toBe(tokens.length)
  })

  const hex64 = "0123456789abcdef".repeat(4)
  it.each([
    [""],
    ["gat_"],
    [hex64], // no prefix
    [`Gat_${hex64}`],
    [`gat_${hex64.toUpperCase()}`], // tokens are issued lowercase
    [`gat_${hex64.slice(1)}`], // 63 hex
    [`gat_${hex64}0`], // 65 hex
    [`gat_${hex64.slice(1)}g`],
    [` gat_${hex64}`],
    [`gat_${hex64} `],
    [`gat-${hex64}`],
    [`Bearer gat_${hex64}`]
  ])("A-06: %j does not parse (401 without a lookup)", (token) => {
    expect(parseAccessToken(token)).toBeUndefined()
  })
})
