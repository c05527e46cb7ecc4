/**
 * Issue 32 item 2 (Q-04, L-17, SB-06): the sandbox pays over the payee's fastest rail when the quote names none, and
 * the words that describe each payout suffix (the dashboard's "Pay" screen) are computed from the timing table and
 * the speed-up in force.
 */
import { PAYEE_TYPES, type PaymentRail } from "@paycore/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  fastestRail,
  LONG_PAYMENT_SECONDS,
  outcomeLabels,
  paymentTiming,
  RETURN_DELAY_SECONDS,
  SETTLEMENT_SECONDS,
  scaledDuration,
  tableDuration
} from "../src/index.ts"

const rails = Object.keys(SETTLEMENT_SECONDS) as Array<PaymentRail>

describe("the sandbox's rail when none is named (Q-04)", () => {
  it("is the payee's instant rail where it has one: RTP for a US account, SEPA_INSTANT for an IBAN", () => {
    expect(fastestRail(PAYEE_TYPES.USD_ACCOUNT.rails)).toBe("RTP")
    expect(fastestRail(PAYEE_TYPES.EUR_ACCOUNT.rails)).toBe("SEPA_INSTANT")
  })

  it("is never slower than another of the payee's rails, and the first of equals", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom(...rails), { minLength: 1 }), (offered) => {
        const chosen = fastestRail(offered)
        expect(offered).toContain(chosen)
        for (const rail of offered) expect(SETTLEMENT_SECONDS[chosen]).toBeLessThanOrEqual(SETTLEMENT_SECONDS[rail])
        expect(offered.find((rail) => SETTLEMENT_SECONDS[rail] === SETTLEMENT_SECONDS[chosen])).toBe(chosen)
      })
    )
  })
})

describe("the labels of the payout suffixes (SB-06, L-17)", () => {
  it("at the real timing: the rail's time from the table, 003 after LONG_PAYMENT_SECONDS", () => {
    const labels = Object.fromEntries(outcomeLabels("ACH", 1).map(({ suffix, label }) => [suffix, label]))
    expect(labels["000"]).toBe("000: succeeds after 2 d on ACH")
    expect(labels["002"]).toBe("002: fails (QUOTE_EXECUTION_FAILED) after 2 d on ACH, refunded")
    expect(labels["003"]).toBe(`003: long payment, settles after ${tableDuration(LONG_PAYMENT_SECONDS)}`)
    expect(labels["005"]).toBe(
      `005: settles after 2 d on ACH, then returned after ${tableDuration(RETURN_DELAY_SECONDS)}`
    )
    expect(labels["007"]).toBe("007: fails (QUOTE_EXECUTION_FAILED) after 2 d on ACH, and its refund fails")
  })

  it("at the default speed-up of npm start (3600), on the rail a US payee gets: what the sandbox does, not 6 minutes", () => {
    const labels = Object.fromEntries(outcomeLabels("RTP", 3600).map(({ suffix, label }) => [suffix, label]))
    expect(labels["000"]).toBe("000: succeeds after 1 ms (5 s ÷ 3600) on RTP")
    expect(labels["003"]).toBe("003: long payment, settles after 100 ms (6 min ÷ 3600)")
    expect(labels["005"]).toBe("005: settles after 1 ms (5 s ÷ 3600) on RTP, then returned after 83 ms (5 min ÷ 3600)")
  })

  it("every label, on any rail at any speed-up, states the scaled delay of its table value", () => {
    fc.assert(
      fc.property(fc.constantFrom(...rails), fc.double({ min: 1, max: 1e7, noNaN: true }), (rail, speedUp) => {
        const labels = outcomeLabels(rail, speedUp)
        expect(labels.map((l) => l.suffix)).toEqual(["000", "002", "003", "004", "005", "006", "007", "008", "009"])
        const railDelay = scaledDuration(SETTLEMENT_SECONDS[rail], speedUp)
        for (const { suffix, label } of labels) {
          expect(label.startsWith(`${suffix}: `)).toBe(true)
          expect(label).toContain(suffix === "003" ? scaledDuration(LONG_PAYMENT_SECONDS, speedUp) : railDelay)
        }
      })
    )
  })
})

describe("what the dashboard's Pay screen shows (/dashboard/sandbox.json)", () => {
  it("a US payee's rails, each with its delay, the sandbox's own choice, and the suffixes on each rail", () => {
    const timing = paymentTiming(PAYEE_TYPES.USD_ACCOUNT.rails, 3600)
    expect(timing.defaultRail).toBe("RTP")
    expect(timing.rails).toEqual([
      { rail: "ACH", label: "ACH: settles after 48 s (2 d ÷ 3600)" },
      { rail: "WIRE", label: "WIRE: settles after 24 s (1 d ÷ 3600)" },
      { rail: "RTP", label: "RTP: settles after 1 ms (5 s ÷ 3600)" },
      { rail: "FEDNOW", label: "FEDNOW: settles after 1 ms (5 s ÷ 3600)" }
    ])
    expect(timing.outcomes.ACH).toEqual(outcomeLabels("ACH", 3600))
    expect(timing.outcomes.RTP).toEqual(outcomeLabels("RTP", 3600))
  })
})
