/**
 * Q5 (issue 17 plan, section 5) and Q-45 as properties: a quote to a wallet is charged exactly what the
 * withdrawal-fee estimate of its total says, a receiving-locked one takes the smallest total that nets the locked
 * amount, and the estimate's `details.min` is the least amount whose fees it covers, the same as the quote path's
 * `minimum`. Fees: a fixed network fee plus basis points of the amount (rounded down, as the sandbox's table; or up).
 */
import { SANDBOX_NETWORK_FEES, sandboxWithdrawalFees } from "@paycore/sandbox"
import { Cause, Effect, Exit } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { NetworkFeesService } from "../src/ports/network-fees.ts"
import type { CryptoNetwork } from "../src/quotes/model.ts"
import { NETWORKS_BY_CURRENCY } from "../src/quotes/networks.ts"
import type { Pricing } from "../src/quotes/pricing.ts"
import { priceWithdrawal, withdrawalFees } from "../src/quotes/withdrawal-fees.ts"
import { InvalidInput, Refused } from "../src/shared/errors.ts"

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

// ---- the estimate's details.min (issue 31 item 6) ----

/** The sandbox's table, or a fixed fee plus basis points rounded down or up (any rounding the adapter charges). */
const anyFees: fc.Arbitrary<{ readonly fees: NetworkFeesService; readonly label: string }> = fc.oneof(
  fc.constant({
    fees: {
      estimate: ({ network, currency, amount }) => Effect.succeed(sandboxWithdrawalFees(network, currency, amount))
    } satisfies NetworkFeesService,
    label: "sandbox"
  }),
  fc
    .record({ fixed: fixedFee, bps: fc.integer({ min: 0, max: 9_999 }), up: fc.boolean() })
    .map(({ fixed, bps, up }) => ({
      fees: {
        estimate: ({ currency, amount }) =>
          Effect.succeed({
            networkFee: fixed,
            networkFeeAsset: currency,
            networkFeeInCurrency: fixed,
            applicationFee: Number(
              up ? (BigInt(amount) * BigInt(bps) + 9_999n) / 10_000n : (BigInt(amount) * BigInt(bps)) / 10_000n
            )
          })
      } satisfies NetworkFeesService,
      label: `${fixed} + ${bps} bps ${up ? "up" : "down"}`
    }))
)
/** Amounts near the fees as often as large ones, so both sides of `min` are drawn. */
const nearFees = fc.oneof(fc.integer({ min: 1, max: 3_000_000 }), amount)
const networkAndAsset = fc.constantFrom(
  ...Object.entries(NETWORKS_BY_CURRENCY).flatMap(([currency, networks]) =>
    networks.map((network) => ({ currency, network }))
  )
)

const estimateExit = (fees: NetworkFeesService, network: CryptoNetwork, currency: string, amount: number) =>
  Effect.runSyncExit(withdrawalFees(fees, network, currency, amount))
const refusal = (exit: Exit.Exit<unknown, unknown>): Refused => {
  if (Exit.isSuccess(exit)) throw new Error("expected a refusal")
  const error = Cause.squash(exit.cause)
  if (!(error instanceof Refused)) throw error
  return error
}

describe("withdrawal fee estimate: details.min (Q-45, property)", () => {
  it("min is accepted and nets at least 1, min - 1 is refused with the same min and its own fees' breakdown", () => {
    fc.assert(
      fc.property(anyFees, networkAndAsset, nearFees, ({ fees }, { network, currency }, asked) => {
        const exit = estimateExit(fees, network, currency, asked)
        if (Exit.isSuccess(exit)) {
          expect(exit.value.netAmount).toBe(asked - exit.value.totalFee)
          expect(exit.value.netAmount).toBeGreaterThanOrEqual(1)
          return
        }
        const refused = refusal(exit)
        expect(refused.code).toBe("AMOUNT_OUT_OF_RANGE")
        const details = refused.details as Record<string, unknown>
        const own = Effect.runSync(fees.estimate({ network, currency, amount: asked }))
        expect(details).toMatchObject({
          amount: asked,
          currency,
          networkFee: own.networkFee,
          networkFeeAsset: own.networkFeeAsset,
          applicationFee: own.applicationFee,
          totalFee: own.networkFeeInCurrency + own.applicationFee
        })
        const min = details.min as number
        const atMin = estimateExit(fees, network, currency, min)
        if (!Exit.isSuccess(atMin)) throw new Error(`min ${min} refused`)
        expect(atMin.value.netAmount).toBeGreaterThanOrEqual(1)
        const below = refusal(estimateExit(fees, network, currency, min - 1))
        expect((below.details as Record<string, unknown>).min).toBe(min)
      }),
      PARAMS
    )
  })

  it("the estimate agrees with the quote path: the same min, and the same fees on every amount", () => {
    fc.assert(
      fc.property(anyFees, networkAndAsset, nearFees, ({ fees }, { network, currency }, asked) => {
        const quoted = Effect.runSyncExit(priceWithdrawal(fees, network, "SENDING", asked, free(asked), currency))
        const estimated = estimateExit(fees, network, currency, asked)
        if (Exit.isSuccess(estimated)) {
          if (!Exit.isSuccess(quoted)) throw new Error("the quote refused what the estimate accepts")
          expect(quoted.value.feesIncluded).toBe(estimated.value.totalFee)
          expect(quoted.value.totalReceivingAmount).toBe(estimated.value.netAmount)
          expect(quoted.value.platformFeesIncluded).toBe(estimated.value.applicationFee)
          return
        }
        const min = (refusal(estimated).details as Record<string, unknown>).min
        if (Exit.isSuccess(quoted)) throw new Error("the quote accepted what the estimate refuses")
        const invalid = Cause.squash(quoted.cause)
        if (!(invalid instanceof InvalidInput)) throw invalid
        expect(invalid.errors[0]?.constraint).toEqual({ minimum: min })
      }),
      PARAMS
    )
  })

  it("the issue's case: 1 501 001 USDC on ETHEREUM is refused with min 1 501 502, which nets 1", () => {
    const sandbox: NetworkFeesService = {
      estimate: ({ network, currency, amount }) => Effect.succeed(sandboxWithdrawalFees(network, currency, amount))
    }
    expect(SANDBOX_NETWORK_FEES.ETHEREUM.inCurrency).toBe("1.50")
    const refused = refusal(estimateExit(sandbox, "ETHEREUM", "USDC", 1_501_001))
    expect(refused.details).toMatchObject({ min: 1_501_502, totalFee: 1_501_501, applicationFee: 1_501 })
    const atMin = estimateExit(sandbox, "ETHEREUM", "USDC", 1_501_502)
    expect(Exit.isSuccess(atMin) && atMin.value.netAmount).toBe(1)
  })
})
