import { describe, expect, it } from "vitest"
import { addSeconds, isoAfter, isoOf } from "../src/shared/time.ts"

describe("isoOf", () => {
  it("is new Date(ms).toISOString(), across days, years, before 1970 and at the limits", () => {
    const instants = [
      0,
      -1,
      1.9,
      -1.9,
      86_399_999,
      86_400_000,
      Date.parse("2026-03-02T12:00:00.000Z"),
      Date.parse("2028-02-29T23:59:59.999Z"),
      253_402_300_799_999,
      253_402_300_800_000,
      -62_167_219_200_001,
      8.64e15,
      -8.64e15
    ]
    let seed = 7
    for (let i = 0; i < 5_000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      instants.push(Math.round((seed / 2 ** 31 - 0.5) * 2 * 8.64e15))
      instants.push(1.7e12 + (seed % 10_000_000))
    }
    for (const ms of instants) expect(isoOf(ms)).toBe(new Date(ms).toISOString())
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 8.64e15 + 1]) expect(() => isoOf(bad)).toThrow(RangeError)
  })

  it("gives the same text when an instant is formatted again (the last one is remembered)", () => {
    const instants = [0, 0, -0, 1.9, 1, 1, 86_400_000, 0, Date.parse("2026-03-02T12:00:00.000Z"), 86_400_000]
    for (const ms of instants) {
      expect(isoOf(ms)).toBe(new Date(ms).toISOString())
      expect(isoOf(ms)).toBe(new Date(ms).toISOString())
    }
    expect(() => isoOf(Number.NaN)).toThrow(RangeError)
    expect(() => isoOf(Number.NaN)).toThrow(RangeError)
  })

  it("adds seconds to ISO instants and epoch milliseconds", () => {
    expect(addSeconds("2026-03-02T23:59:30.000Z", 45)).toBe("2026-03-03T00:00:15.000Z")
    expect(isoAfter(Date.parse("2026-03-02T12:00:00.000Z"), 0.0004)).toBe("2026-03-02T12:00:00.000Z")
    expect(isoAfter(Date.parse("2026-03-02T12:00:00.000Z"), 300)).toBe("2026-03-02T12:05:00.000Z")
  })
})
