/**
 * Q5 (issue 17 plan, section 5) as properties: a quote to a wallet is charged exactly what the withdrawal-fee
 * estimate of its total says, and a receiving-locked one takes the smallest total that nets the locked amount.
 * Fees: a fixed network fee plus basis points of the amount (rounded down), as the sandbox's table.
 */
import { Effect, Exit } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { NetworkFeesService } from "../src/ports/network-fees.ts"
import type { Pricing } from "../src/quotes/pricing.ts"
import { priceWithdrawal } from "../src/quotes/withdrawal-fees.ts"

const feesOf = (fixed: number, bps: number): NetworkFeesService => ({
  estimate: ({ currency, amount }) =>
    Effect.succeed({
      networkFee: fixed,
      networkFeeAsset: currency,
      networkFeeInCurrency: fixed,
      applicationFee: Math.floor((amount * bps) / 10_000)
    })
})
const totalFee = (fixed: number, bps: number, amount: number) => fixed + Math.floor((amount * bps) / 10_000)

/** A same-currency price before the withdrawal's fees (what `priceQuote` gives: no fees, rate 1). */
const free = (amount: number): Pricing => ({
  totalSendingAmount: amount,
  totalReceivingAmount: amount,
  netSendingAmount: amount,
  serviceFee: 0,
  platformFee: 0,
  platformVariableFee: 0,
  serviceVariableFee: 0,
  feesIncluded: 0,
  platformFeesIncluded: 0,
  exchangeRate: 1,
  minorRate: "1"
})

const price = (fixed: number, bps: number, side: "SENDING" | "RECEIVING", locked: number) =>
  Effect.runSyncExit(priceWithdrawal(feesOf(fixed, bps), "SOLANA", side, locked, free(locked), "USDC"))

const PARAMS = { numRuns: 300, seed: 17 }
const fixedFee = fc.integer({ min: 0, max: 2_000_000 })
const bpsFee = fc.integer({ min: 0, max: 500 })
const amount = fc.integer({ min: 1, max: 1_000_000_000_000 })

describe("withdrawal pricing (Q5, property)", () => {
  it("SENDING: the fees are the estimate of the locked total; what arrives is its netAmount", () => {
    fc.assert(
      fc.property(fixedFee, bpsFee, amount, (fixed, bps, locked) => {
        const exit = price(fixed, bps, "SENDING", locked)
        const total = totalFee(fixed, bps, locked)
        if (locked <= total) {
          expect(Exit.isFailure(exit)).toBe(true)
          return
        }
        if (!Exit.isSuccess(exit)) throw new Error("expected a price")
        const p = exit.value
        expect(p.totalSendingAmount).toBe(locked)
        expect(p.feesIncluded).toBe(total)
        expect(p.totalReceivingAmount).toBe(locked - total)
        expect(p.netSendingAmount).toBe(p.totalReceivingAmount)
        expect(p.serviceFee + p.platformFee).toBe(p.feesIncluded)
        expect(p.platformFeesIncluded).toBe(p.platformFee)
      }),
      PARAMS
    )
  })

  it("RECEIVING: the smallest total whose estimate nets the locked amount exactly", () => {
    fc.assert(
      fc.property(fixedFee, bpsFee, amount, (fixed, bps, locked) => {
        const exit = price(fixed, bps, "RECEIVING", locked)
        if (!Exit.isSuccess(exit)) throw new Error("expected a price")
        const p = exit.value
        const total = p.totalSendingAmount
        expect(p.totalReceivingAmount).toBe(locked)
        expect(p.feesIncluded).toBe(totalFee(fixed, bps, total))
        expect(total - totalFee(fixed, bps, total)).toBe(locked)
        // One less would not cover the locked amount.
        expect(total - 1 - totalFee(fixed, bps, total - 1)).toBeLessThan(locked)
      }),
      PARAMS
    )
  })
})
