/**
 * What the sandbox rail reports with a settlement (issue 17 slice C): a payout to an external account on a chain
 * carries its transfer in the network's hash format, an UMA payout the hash of its inter-VASP leg,
 * nothing else a hash; references issued before the destination kind was encoded still decode.
 */
import { assert, describe, it } from "@effect/vitest"
import { type AccountInfo, type PaymentRail, type Payout, Rail, sandboxTransactionHash } from "@paycore/core"
import { decodeReference, encodeReference, SandboxRail } from "@paycore/sandbox"
import { Effect } from "effect"
import { TestClock } from "effect/testing"

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const TX = "Transaction:019542f5-b3e7-1d02-0000-0000000000c1"
const EVM_ADDRESS = "0x742d35Cc6634C0532925a3b844Bc454e4438f44e"

const payout = (rail: PaymentRail, destination: Payout["destination"]): Payout => ({
  transactionId: TX,
  rail,
  amount: 1_000_000,
  currency: "USDC",
  destination
})
const wallet = (accountInfo: AccountInfo): Payout["destination"] => ({ kind: "ACCOUNT", accountInfo })

/** Submits at T0 and reads the status an hour later (every rail here settles by then). */
const settle = (p: Payout) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(T0)
    const rail = yield* Rail
    const { reference } = yield* rail.submit(p)
    yield* TestClock.setTime(T0 + 3_600_000)
    return yield* rail.status(reference)
  }).pipe(Effect.provide(SandboxRail()))

const FORMATS: ReadonlyArray<readonly [string, RegExp]> = [
  ["ETHEREUM", /^0x[0-9a-f]{64}$/],
  ["BASE", /^0x[0-9a-f]{64}$/],
  ["POLYGON", /^0x[0-9a-f]{64}$/],
  ["PLASMA", /^0x[0-9a-f]{64}$/],
  ["SOLANA", /^[1-9A-HJ-NP-Za-km-z]{86,88}$/],
  ["TRON", /^[0-9a-f]{64}$/],
  ["BITCOIN", /^[0-9a-f]{64}$/],
  ["SPARK", /^[0-9a-f]{64}$/]
]

describe("sandbox transaction hashes (Q-41)", () => {
  it("each network's format, the same for the same seed, another for another seed", () => {
    for (const [network, format] of FORMATS) {
      const hash = sandboxTransactionHash(network, TX)
      assert.match(hash, format, network)
      assert.strictEqual(sandboxTransactionHash(network, TX), hash)
      assert.notStrictEqual(sandboxTransactionHash(network, `${TX}:deposit`), hash)
    }
  })
})

describe("SandboxRail settlement hashes", () => {
  it.effect("Q-41 a payout to a wallet on a chain settles with its transfer on that network", () =>
    Effect.gen(function* () {
      const status = yield* settle(payout("SOLANA", wallet({ accountType: "SOLANA_WALLET", address: "7EcDhS" })))
      assert.deepStrictEqual(status, {
        _tag: "Settled",
        settledAt: new Date(T0 + 5_000).toISOString(),
        onChain: { transactionHash: sandboxTransactionHash("SOLANA", TX), network: "SOLANA" }
      })
      const base = yield* settle(payout("BASE", wallet({ accountType: "BASE_WALLET", address: EVM_ADDRESS })))
      assert.strictEqual(base._tag === "Settled" ? base.onChain?.network : undefined, "BASE")
    })
  )

  it.effect("Q-42 an UMA payout settles with its inter-VASP leg's hash and no on-chain transfer", () =>
    Effect.gen(function* () {
      const status = yield* settle(payout("LIGHTNING", { kind: "UMA", umaAddress: "$success.usd@sandbox.uma.money" }))
      assert.deepStrictEqual(status, {
        _tag: "Settled",
        settledAt: new Date(T0 + 5_000).toISOString(),
        settlementHash: sandboxTransactionHash("LIGHTNING", TX)
      })
      assert.match(status._tag === "Settled" ? (status.settlementHash ?? "") : "", /^[0-9a-f]{64}$/)
    })
  )

  it.effect("Lightning to an account, a bank rail and an internal transfer settle without a hash", () =>
    Effect.gen(function* () {
      const lightning = wallet({ accountType: "LIGHTNING", lightningAddress: "ada@wallet.example" })
      const bank = wallet({
        accountType: "US_ACCOUNT",
        accountNumber: "123456789",
        routingNumber: "021000021",
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Test User" }
      })
      for (const p of [
        payout("LIGHTNING", lightning),
        payout("RTP", bank),
        payout("INTERNAL", { kind: "INTERNAL", accountId: "InternalAccount:x" })
      ]) {
        const status = yield* settle(p)
        assert.deepStrictEqual(Object.keys(status).sort(), ["_tag", "settledAt"], p.rail)
      }
    })
  )

  it("a reference without the destination kind (issued before it was encoded) decodes as an account's", () => {
    const old = `sbx:SOLANA:${T0}:000:1:${TX}`
    assert.deepStrictEqual(decodeReference(old), {
      rail: "SOLANA",
      submittedAtMs: T0,
      outcome: "000",
      speedUp: 1,
      transactionId: TX,
      destination: "ACCOUNT"
    })
    const uma = { rail: "LIGHTNING", submittedAtMs: T0, outcome: "000", speedUp: 1, transactionId: TX } as const
    assert.deepStrictEqual(decodeReference(encodeReference({ ...uma, destination: "UMA" })), {
      ...uma,
      destination: "UMA"
    })
  })
})
