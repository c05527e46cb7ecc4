import { assert, describe, it } from "@effect/vitest"
import { Directory, FxRates, NetworkFees, Notifier, Rail } from "@paycore/core"
import {
  crossRate,
  layer,
  SANDBOX_RATES_PER_USD,
  SandboxDirectory,
  SandboxFxRates,
  SandboxNotifier,
  toPlainString
} from "@paycore/sandbox"
import { BigDecimal, Effect, Redacted } from "effect"

describe("SandboxFxRates", () => {
  it.effect("quotes every table currency against USD exactly", () =>
    Effect.gen(function* () {
      const fx = yield* FxRates
      for (const [code, perUsd] of Object.entries(SANDBOX_RATES_PER_USD)) {
        assert.strictEqual(yield* fx.rate("USD", code), perUsd)
      }
      for (const code of ["USD", "EUR", "GBP", "MXN", "BRL", "INR", "PHP", "NGN", "CAD", "COP", "KES", "JPY"]) {
        assert.isDefined(SANDBOX_RATES_PER_USD[code])
      }
      assert.strictEqual(yield* fx.rate("USD", "USDC"), "1")
      assert.strictEqual(yield* fx.rate("USDT", "USD"), "1")
      assert.strictEqual(yield* fx.rate("EUR", "EUR"), "1")
    }).pipe(Effect.provide(SandboxFxRates))
  )

  it.effect("computes exact cross rates", () =>
    Effect.gen(function* () {
      const fx = yield* FxRates
      // terminating quotients are exact
      assert.strictEqual(yield* fx.rate("BTC", "USD"), "100000")
      assert.strictEqual(yield* fx.rate("BTC", "MXN"), "1725000")
      assert.strictEqual(yield* fx.rate("EUR", "USD"), "1.08695652173913043478261")
      assert.strictEqual(yield* fx.rate("MXN", "BRL"), "0.292753623188405797101449")
      assert.strictEqual(yield* fx.rate("EUR", "BRL"), "5.48913043478260869565217")
      assert.strictEqual(yield* fx.rate("KES", "NGN"), "11.9691119691119691119691")
      // tiny rates keep their significant digits, in plain notation
      assert.strictEqual(yield* fx.rate("JPY", "BTC"), "0.0000000661157024793388429752066")
      // the cross rate times the reverse rate is 1 within the kept precision
      const there = BigDecimal.fromStringUnsafe(yield* fx.rate("GBP", "INR"))
      const back = BigDecimal.fromStringUnsafe(yield* fx.rate("INR", "GBP"))
      const product = BigDecimal.multiply(there, back)
      const error = BigDecimal.abs(BigDecimal.subtract(product, BigDecimal.fromBigInt(1n)))
      assert.isTrue(BigDecimal.isLessThan(error, BigDecimal.fromStringUnsafe("1e-20")))
    }).pipe(Effect.provide(SandboxFxRates))
  )

  it.effect("an unknown pair fails with FxUnavailable", () =>
    Effect.gen(function* () {
      const fx = yield* FxRates
      assert.deepStrictEqual(yield* Effect.flip(fx.rate("USD", "XYZ")), {
        _tag: "FxUnavailable",
        from: "USD",
        to: "XYZ"
      })
      assert.deepStrictEqual(yield* Effect.flip(fx.rate("ABC", "ABC")), {
        _tag: "FxUnavailable",
        from: "ABC",
        to: "ABC"
      })
      assert.isUndefined(crossRate("usd", "EUR"))
    }).pipe(Effect.provide(SandboxFxRates))
  )

  it("formats decimals without exponent notation", () => {
    assert.strictEqual(toPlainString(BigDecimal.make(5n, 20)), "0.00000000000000000005")
    assert.strictEqual(toPlainString(BigDecimal.make(12n, -18)), "12000000000000000000")
    assert.strictEqual(toPlainString(BigDecimal.make(-1500n, 3)), "-1.5")
    assert.strictEqual(toPlainString(BigDecimal.make(0n, 4)), "0")
  })
})

describe("SandboxDirectory", () => {
  it.effect("lists several institutions per corridor", () =>
    Effect.gen(function* () {
      const directory = yield* Directory
      const institutions = yield* directory.institutions()
      const corridors: ReadonlyArray<readonly [string, string]> = [
        ["US", "USD"],
        ["MX", "MXN"],
        ["BR", "BRL"],
        ["DE", "EUR"],
        ["FR", "EUR"],
        ["ES", "EUR"],
        ["NL", "EUR"],
        ["GB", "GBP"],
        ["IN", "INR"],
        ["PH", "PHP"],
        ["NG", "NGN"],
        ["CA", "CAD"]
      ]
      for (const [country, currency] of corridors) {
        const banks = institutions.filter((i) => i.country === country && i.currency === currency)
        assert.isAtLeast(banks.length, 2, `${country}/${currency}`)
      }
      assert.isAtLeast(institutions.filter((i) => i.currency === "EUR").length, 8, "EUR across DE, FR, ES and NL")
      const names = institutions.map((i) => i.bankName)
      assert.strictEqual(new Set(names).size, names.length)
    }).pipe(Effect.provide(SandboxDirectory))
  )

  it.effect("lists UMA providers with full currency objects", () =>
    Effect.gen(function* () {
      const directory = yield* Directory
      const providers = yield* directory.umaProviders()
      assert.isAtLeast(providers.length, 4)
      const sandbox = providers.find((p) => p.domain === "sandbox.uma.money")
      assert.isDefined(sandbox)
      assert.deepStrictEqual(
        sandbox?.supportedCurrencies.map((c) => c.code),
        ["USD", "EUR", "MXN"]
      )
      assert.deepStrictEqual(sandbox?.supportedCurrencies[0], {
        code: "USD",
        name: "United States Dollar",
        symbol: "$",
        decimals: 2
      })
      assert.deepStrictEqual(
        providers.filter((p) => p.supportedRegions.includes("MX")).map((p) => p.domain),
        ["sandbox.uma.money", "aurorapay.example"]
      )
      assert.deepStrictEqual(
        providers.filter((p) => p.supportedCurrencies.some((c) => c.code === "NGN")).map((p) => p.domain),
        ["kestrel.example"]
      )
      // Both sides of the allow list are represented (the upstream's boolean `allowListStatus`).
      assert.deepStrictEqual(
        providers.filter((p) => !p.allowListStatus).map((p) => p.domain),
        ["sampaguita.example", "shadow.example"]
      )
      assert.strictEqual(new Set(providers.map((p) => p.id)).size, providers.length)
    }).pipe(Effect.provide(SandboxDirectory))
  )

  it.effect("resolves the sandbox receivers by name", () =>
    Effect.gen(function* () {
      const directory = yield* Directory
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["$success.usd@sandbox.uma.money", "USD"],
        ["$success.eur@sandbox.uma.money", "EUR"],
        ["$success.mxn@sandbox.uma.money", "MXN"],
        ["$pending.long.usd@sandbox.uma.money", "USD"],
        ["$fail.compliance.usd@sandbox.uma.money", "USD"]
      ]
      for (const [address, currency] of cases) {
        assert.deepStrictEqual(yield* directory.umaReceiver(address), {
          umaAddress: address,
          currencies: [currency],
          minAmount: 1,
          maxAmount: 100_000_000
        })
      }
      assert.isDefined(yield* directory.umaReceiver("$Success.USD@Sandbox.UMA.Money"))
      assert.isUndefined(yield* directory.umaReceiver("$nobody@sandbox.uma.money"))
      assert.isUndefined(yield* directory.umaReceiver("$success.gbp@sandbox.uma.money"))
    }).pipe(Effect.provide(SandboxDirectory))
  )

  it.effect("resolves users at other known providers with that provider's currencies and payer data fields", () =>
    Effect.gen(function* () {
      const directory = yield* Directory
      assert.deepStrictEqual(yield* directory.umaReceiver("$maria@aurorapay.example"), {
        umaAddress: "$maria@aurorapay.example",
        currencies: ["BRL", "MXN", "USD"],
        minAmount: 1,
        maxAmount: 100_000_000,
        requiredPayerDataFields: [
          { name: "FULL_NAME", mandatory: true },
          { name: "NATIONALITY", mandatory: false }
        ]
      })
      // what a provider's receivers ask of the payer; the sandbox's own receivers ask nothing.
      assert.deepStrictEqual((yield* directory.umaReceiver("$jo@thames.example"))?.requiredPayerDataFields, [
        { name: "FULL_NAME", mandatory: true },
        { name: "BIRTH_DATE", mandatory: true }
      ])
      assert.isUndefined((yield* directory.umaReceiver("$ken@kestrel.example"))?.requiredPayerDataFields)
      assert.isUndefined(yield* directory.umaReceiver("$maria@unknown.example"))
      assert.isUndefined(yield* directory.umaReceiver("not an address"))
      assert.isUndefined(yield* directory.umaReceiver("$a@b@aurorapay.example"))
    }).pipe(Effect.provide(SandboxDirectory))
  )
})

describe("SandboxNotifier", () => {
  it.effect("sends nothing and accepts the fixed code", () =>
    Effect.gen(function* () {
      const notifier = yield* Notifier
      assert.strictEqual(notifier.fixedCode, "123456")
      yield* notifier.send("SMS", "+15555550100", Redacted.make("654321"))
    }).pipe(Effect.provide(SandboxNotifier))
  )
})

describe("NetworkFees", () => {
  it.effect("without an adapter every fee is 0 and the fee asset is the currency", () =>
    Effect.gen(function* () {
      const fees = yield* NetworkFees
      const zero = yield* fees.estimate({ network: "ETHEREUM", currency: "USDT", amount: 5_000_000 })
      assert.deepStrictEqual(zero, {
        networkFee: 0,
        networkFeeAsset: "USDT",
        networkFeeInCurrency: 0,
        applicationFee: 0
      })
    })
  )
})

describe("layer", () => {
  it.effect("provides all four ports with the rail options", () =>
    Effect.gen(function* () {
      const rail = yield* Rail
      const fx = yield* FxRates
      const directory = yield* Directory
      const notifier = yield* Notifier
      assert.strictEqual(rail.settlementSeconds("ACH"), 172_800)
      const submitted = yield* rail.submit({
        transactionId: "Transaction:t",
        rail: "ACH",
        amount: 1,
        currency: "USD",
        destination: { kind: "INTERNAL", accountId: "InternalAccount:a" }
      })
      // 2 days / 3600 = 48 s from the TestClock's epoch
      assert.strictEqual(submitted.expectedSettlementAt, new Date(48_000).toISOString())
      assert.strictEqual(yield* fx.rate("USD", "EUR"), "0.92")
      assert.isAtLeast((yield* directory.umaProviders()).length, 4)
      assert.strictEqual(notifier.fixedCode, "123456")
      // the fee table replaces the core's all-zero default.
      const fees = yield* NetworkFees
      assert.deepStrictEqual(yield* fees.estimate({ network: "SOLANA", currency: "USDC", amount: 1_000_000 }), {
        networkFee: 5_000,
        networkFeeAsset: "SOL",
        networkFeeInCurrency: 1_000,
        applicationFee: 1_000
      })
      assert.include(
        (yield* directory.vasps()).map((v) => v.vaspName),
        "Kraken"
      )
    }).pipe(Effect.provide(layer({ speedUp: 3600 })))
  )
})
