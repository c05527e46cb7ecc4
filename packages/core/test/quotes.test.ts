import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, Effect, Result, Tracer } from "effect"
import { TestClock } from "effect/testing"
import { systemAccount } from "../src/ledger/model.ts"
import { Store } from "../src/ports/store.ts"
import { CreateQuoteRequest, PurposeOfPayment } from "../src/quotes/model.ts"
import { noFees, parseRate, platformFeeFor, priceQuote } from "../src/quotes/pricing.ts"
import { Quotes } from "../src/quotes/service.ts"
import { defaultEngineSettings, EngineConfig } from "../src/shared/engine-config.ts"
import type { InvalidInput, Refused } from "../src/shared/errors.ts"
import { decodeAll } from "../src/shared/validation.ts"
import { TransferOutRequest } from "../src/transactions/model.ts"
import { Transactions } from "../src/transactions/service.ts"
import {
  advance,
  balance,
  eventsOf,
  ledgerViolations,
  makeEnv,
  payeeQuote,
  seedCustomer,
  seedExternalAccount,
  seedInternalAccount,
  seedPayer,
  setConfig,
  startClock,
  UMA_RECEIVERS
} from "./fixtures.ts"

const UNKNOWN_LOOKUP = "Lookup:00000000-0000-7000-8000-000000000999" as CreateQuoteRequest["lookupId"] & string

const rate = (s: string) => parseRate(s)!

// ---------------------------------------------------------------------------------------------
// Pure pricing, hand-computed
// ---------------------------------------------------------------------------------------------

describe("priceQuote", () => {
  const usdEur = { sendingCurrency: "USD", receivingCurrency: "EUR", marketRate: rate("0.92") }
  const service50 = { serviceBps: 50, platformBps: 0, platformFixed: 0 }

  it("same currency: rate 1, no fees, amounts equal", () => {
    const p = Result.getOrThrow(
      priceQuote({
        sendingCurrency: "USD",
        receivingCurrency: "USD",
        marketRate: rate("1"),
        fees: noFees,
        lockedCurrencySide: "SENDING",
        lockedCurrencyAmount: 10_000
      })
    )
    assert.deepStrictEqual(
      [p.totalSendingAmount, p.totalReceivingAmount, p.feesIncluded, p.platformFeesIncluded, p.exchangeRate],
      [10_000, 10_000, 0, 0, 1]
    )
  })

  it("same currency with a platform fee: fees come out of the sending amount, rate stays 1", () => {
    const p = Result.getOrThrow(
      priceQuote({
        sendingCurrency: "USD",
        receivingCurrency: "USD",
        marketRate: rate("1"),
        fees: { serviceBps: 0, platformBps: 100, platformFixed: 25 },
        lockedCurrencySide: "SENDING",
        lockedCurrencyAmount: 10_000
      })
    )
    // platform = 25 + ceil(10000 × 1%) = 125
    assert.deepStrictEqual(
      [
        p.totalSendingAmount,
        p.netSendingAmount,
        p.totalReceivingAmount,
        p.feesIncluded,
        p.platformFeesIncluded,
        p.exchangeRate
      ],
      [10_000, 9_875, 9_875, 125, 125, 1]
    )
  })

  it("USD→EUR sending locked: $1000 at 0.92 with 50 bps → €915.40, fees $5", () => {
    const p = Result.getOrThrow(
      priceQuote({ ...usdEur, fees: service50, lockedCurrencySide: "SENDING", lockedCurrencyAmount: 100_000 })
    )
    assert.strictEqual(p.totalSendingAmount, 100_000)
    assert.strictEqual(p.serviceFee, 500)
    assert.strictEqual(p.netSendingAmount, 99_500)
    assert.strictEqual(p.totalReceivingAmount, 91_540) // 99500 × 0.92
    assert.strictEqual(p.feesIncluded, 500)
    assert.strictEqual(p.platformFeesIncluded, 0)
    assert.strictEqual(p.exchangeRate, 0.92)
    assert.strictEqual(p.minorRate, "0.92")
  })

  it("USD→EUR sending locked with a platform fee of $1 + 30 bps", () => {
    const p = Result.getOrThrow(
      priceQuote({
        ...usdEur,
        fees: { serviceBps: 50, platformBps: 30, platformFixed: 100 },
        lockedCurrencySide: "SENDING",
        lockedCurrencyAmount: 100_000
      })
    )
    // service 500, platform 100 + 300 = 400, net 99100, received floor(99100 × 0.92) = 91172
    assert.deepStrictEqual(
      [p.serviceFee, p.platformFee, p.feesIncluded, p.platformFeesIncluded, p.netSendingAmount, p.totalReceivingAmount],
      [500, 400, 900, 400, 99_100, 91_172]
    )
    assert.strictEqual(p.exchangeRate, 0.92)
  })

  it("USD→EUR receiving locked: the exact inverse of the sending side", () => {
    const p = Result.getOrThrow(
      priceQuote({ ...usdEur, fees: service50, lockedCurrencySide: "RECEIVING", lockedCurrencyAmount: 91_540 })
    )
    assert.deepStrictEqual([p.totalSendingAmount, p.totalReceivingAmount, p.feesIncluded], [100_000, 91_540, 500])
  })

  it("USD→EUR receiving locked €10: net rounded up, fees rounded up, smallest covering total", () => {
    const p = Result.getOrThrow(
      priceQuote({ ...usdEur, fees: service50, lockedCurrencySide: "RECEIVING", lockedCurrencyAmount: 1_000 })
    )
    // net = ceil(1000 / 0.92) = 1087; total 1093 (fee ceil(5.465) = 6 → net 1087); 1092 would net 1086
    assert.deepStrictEqual(
      [p.totalSendingAmount, p.netSendingAmount, p.feesIncluded, p.totalReceivingAmount],
      [1_093, 1_087, 6, 1_000]
    )
    assert.strictEqual(p.exchangeRate, 0.919963201472) // 10.00 / 10.87, 12 significant digits
  })

  it("USD→BTC (8 decimals): cents to satoshis", () => {
    const p = Result.getOrThrow(
      priceQuote({
        sendingCurrency: "USD",
        receivingCurrency: "BTC",
        marketRate: rate("0.00001"),
        fees: service50,
        lockedCurrencySide: "SENDING",
        lockedCurrencyAmount: 100_000
      })
    )
    // $995 net → 0.00995 BTC = 995 000 sat; 1 cent = 10 sat
    assert.deepStrictEqual([p.totalReceivingAmount, p.feesIncluded, p.minorRate], [995_000, 500, "10"])
    assert.strictEqual(p.exchangeRate, 0.00001)
  })

  it("USD→JPY (0 decimals): receiving rounded down; receiving-locked inverse", () => {
    const base = {
      sendingCurrency: "USD",
      receivingCurrency: "JPY",
      marketRate: rate("151.25"),
      fees: service50
    }
    const send = Result.getOrThrow(priceQuote({ ...base, lockedCurrencySide: "SENDING", lockedCurrencyAmount: 1_000 }))
    // fee ceil(5) = 5, net 995 cents × 1.5125 = 1504.9375 → 1504 yen
    assert.deepStrictEqual([send.feesIncluded, send.netSendingAmount, send.totalReceivingAmount], [5, 995, 1_504])
    assert.strictEqual(send.minorRate, "1.5125")
    const receive = Result.getOrThrow(
      priceQuote({ ...base, lockedCurrencySide: "RECEIVING", lockedCurrencyAmount: 1_504 })
    )
    // net ceil(1504 / 1.5125) = 995 → total 1000
    assert.deepStrictEqual([receive.totalSendingAmount, receive.netSendingAmount], [1_000, 995])
  })

  it("USD→USDC (6 decimals)", () => {
    const p = Result.getOrThrow(
      priceQuote({
        sendingCurrency: "USD",
        receivingCurrency: "USDC",
        marketRate: rate("1"),
        fees: service50,
        lockedCurrencySide: "SENDING",
        lockedCurrencyAmount: 10_000
      })
    )
    assert.deepStrictEqual([p.feesIncluded, p.totalReceivingAmount], [50, 99_500_000])
  })

  it("an amount that does not cover the fees, or delivers nothing, is refused on lockedCurrencyAmount", () => {
    const tiny = priceQuote({ ...usdEur, fees: service50, lockedCurrencySide: "SENDING", lockedCurrencyAmount: 1 })
    assert.isTrue(Result.isFailure(tiny))
    if (Result.isFailure(tiny)) {
      assert.strictEqual(tiny.failure.errors[0]!.field, "lockedCurrencyAmount")
      assert.deepStrictEqual(tiny.failure.errors[0]!.constraint, { minimum: 3 })
    }
    const fixedTooBig = priceQuote({
      ...usdEur,
      fees: { serviceBps: 0, platformBps: 0, platformFixed: 500 },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 500
    })
    assert.isTrue(Result.isFailure(fixedTooBig))
  })

  it("receiving-locked pricing is never cheaper than sending-locked (exhaustive small range)", () => {
    for (let received = 1; received <= 400; received++) {
      const r = Result.getOrThrow(
        priceQuote({ ...usdEur, fees: service50, lockedCurrencySide: "RECEIVING", lockedCurrencyAmount: received })
      )
      const s = Result.getOrThrow(
        priceQuote({
          ...usdEur,
          fees: service50,
          lockedCurrencySide: "SENDING",
          lockedCurrencyAmount: r.totalSendingAmount
        })
      )
      assert.isAtLeast(s.totalReceivingAmount, received)
      if (r.totalSendingAmount > 3) {
        const less = priceQuote({
          ...usdEur,
          fees: service50,
          lockedCurrencySide: "SENDING",
          lockedCurrencyAmount: r.totalSendingAmount - 1
        })
        if (Result.isSuccess(less))
          assert.isBelow(less.success.totalReceivingAmount, received, `minimal for ${received}`)
      }
    }
  })

  it("platform fees: override replaces config; USD source only; fixed fee in the source currency", () => {
    const override = { platformFixedFee: { amount: 10, currency: "USD" }, platformVariableFeeBps: 20 }
    assert.deepStrictEqual(Result.getOrThrow(platformFeeFor("USD", "EUR", undefined, override)), { bps: 20, fixed: 10 })
    const eur = platformFeeFor("EUR", "USD", undefined, {
      ...override,
      platformFixedFee: { amount: 10, currency: "EUR" }
    })
    assert.isTrue(Result.isFailure(eur))
    if (Result.isFailure(eur)) assert.strictEqual(eur.failure.errors[0]!.field, "platformFeeOverride")
    const wrongCurrency = platformFeeFor("USD", "EUR", undefined, {
      ...override,
      platformFixedFee: { amount: 10, currency: "EUR" }
    })
    assert.isTrue(Result.isFailure(wrongCurrency))
    assert.deepStrictEqual(Result.getOrThrow(platformFeeFor("USD", "EUR", undefined, undefined)), { bps: 0, fixed: 0 })
  })
})

describe("CreateQuoteRequest schema", () => {
  it("refuses remittanceInformation over 80 characters (the service trusts decoded types)", () => {
    const decode = decodeAll(CreateQuoteRequest)
    const base = {
      source: { sourceType: "ACCOUNT", accountId: "InternalAccount:00000000-0000-7000-8000-000000000001" },
      destination: { destinationType: "ACCOUNT", accountId: "ExternalAccount:00000000-0000-7000-8000-000000000002" },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 100
    }
    assert.isTrue(Result.isSuccess(decode({ ...base, remittanceInformation: "x".repeat(80) })))
    const long = decode({ ...base, remittanceInformation: "x".repeat(81) })
    assert.isTrue(Result.isFailure(long))
    if (Result.isFailure(long)) {
      assert.deepStrictEqual(long.failure.errors[0]!.field, "remittanceInformation")
      assert.deepStrictEqual(long.failure.errors[0]!.constraint, { maxLength: 80 })
    }
  })

  it("transfer-out takes purposeOfPayment from the quote's PurposeOfPayment (one list, not a copy)", () => {
    assert.strictEqual(TransferOutRequest.fields.purposeOfPayment.schema, PurposeOfPayment)
    const decode = decodeAll(TransferOutRequest)
    const base = {
      source: { accountId: "InternalAccount:00000000-0000-7000-8000-000000000001" },
      destination: { accountId: "ExternalAccount:00000000-0000-7000-8000-000000000002" },
      amount: 100
    }
    assert.isTrue(Result.isSuccess(decode({ ...base, purposeOfPayment: "FAMILY_SUPPORT" })))
    assert.isTrue(Result.isFailure(decode({ ...base, purposeOfPayment: "BRIBE" })))
  })
})

// ---------------------------------------------------------------------------------------------
// The Quotes service over the memory store
// ---------------------------------------------------------------------------------------------

/** A customer with terms, a funded USD account and a USD and a EUR payee. */
/** The payer of these tests also holds a EUR account. */
const setup = (funding = 100_000) => seedPayer(funding, { eurAccount: true })

describe("Quotes", () => {
  it.effect("same-currency quote: rate 1, fee fields present, PENDING transaction and event", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, usdPayee, customer } = yield* setup()
      const quotes = yield* Quotes
      const quote = yield* quotes.create({ ...payeeQuote(account.id, usdPayee.id, 10_000), description: "rent" })
      assert.strictEqual(quote.status, "PENDING")
      assert.strictEqual(quote.exchangeRate, 1)
      assert.strictEqual(quote.feesIncluded, 0)
      assert.strictEqual(quote.platformFeesIncluded, 0)
      assert.deepStrictEqual([quote.totalSendingAmount, quote.totalReceivingAmount], [10_000, 10_000])
      assert.strictEqual(quote.customerId, customer.id)
      assert.strictEqual(quote.expiresAt, "2026-03-02T12:05:00.000Z")
      assert.deepStrictEqual(quote.destination, {
        destinationType: "ACCOUNT",
        accountId: usdPayee.id,
        paymentRail: "ACH"
      })
      assert.deepStrictEqual(quote.paymentInstructions, [])
      const tx = yield* (yield* Transactions).get(quote.transactionId)
      assert.strictEqual(tx.status, "PENDING")
      assert.strictEqual(tx.type, "OUTGOING")
      assert.strictEqual(tx.direction, "DEBIT")
      assert.strictEqual(tx.quoteId, quote.id)
      assert.strictEqual(tx.description, "rent")
      assert.deepStrictEqual(yield* eventsOf(quote.transactionId), ["OUTGOING_PAYMENT.PENDING"])
      assert.deepStrictEqual(yield* quotes.get(quote.id), quote)
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("Q-04: cross-currency quote with configured platform fee (USD source)", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, eurPayee } = yield* setup()
      yield* setConfig({
        feeConfigs: [
          {
            feeType: "CROSS_CURRENCY_TRANSACTION",
            sourceCurrency: "USD",
            variableFeeBps: 30,
            fixedFee: { amount: 100, currency: "USD" }
          }
        ]
      })
      const quote = yield* (yield* Quotes).create(payeeQuote(account.id, eurPayee.id, 100_000))
      assert.deepStrictEqual(
        [
          quote.totalSendingAmount,
          quote.totalReceivingAmount,
          quote.feesIncluded,
          quote.platformFeesIncluded,
          quote.exchangeRate
        ],
        [100_000, 91_172, 900, 400, 0.92]
      )
      assert.strictEqual(quote.receivingCurrency.code, "EUR")
      assert.strictEqual(quote.destination.paymentRail, "SEPA")
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("receiving-locked cross-currency quote", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, eurPayee } = yield* setup()
      const quote = yield* (yield* Quotes).create({
        ...payeeQuote(account.id, eurPayee.id, 1_000),
        lockedCurrencySide: "RECEIVING"
      })
      assert.deepStrictEqual(
        [quote.totalSendingAmount, quote.totalReceivingAmount, quote.feesIncluded],
        [1_093, 1_000, 6]
      )
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("platformFeeOverride replaces the configured fee; refused for a non-USD source", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, eurAccount, eurPayee, usdPayee } = yield* setup()
      yield* setConfig({
        feeConfigs: [{ feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "USD", variableFeeBps: 30 }]
      })
      const quotes = yield* Quotes
      const quote = yield* quotes.create({
        ...payeeQuote(account.id, eurPayee.id, 100_000),
        platformFeeOverride: { platformFixedFee: { amount: 0, currency: "USD" }, platformVariableFeeBps: 100 }
      })
      assert.deepStrictEqual([quote.feesIncluded, quote.platformFeesIncluded], [1_500, 1_000])
      // Same currency: an override is a per-payment fee and applies.
      const same = yield* quotes.create({
        ...payeeQuote(account.id, usdPayee.id, 10_000),
        platformFeeOverride: { platformFixedFee: { amount: 25, currency: "USD" }, platformVariableFeeBps: 0 }
      })
      assert.deepStrictEqual(
        [same.feesIncluded, same.platformFeesIncluded, same.totalReceivingAmount, same.exchangeRate],
        [25, 25, 9_975, 1]
      )
      yield* (yield* Transactions).fundSandbox(eurAccount.id, 50_000)
      const error = yield* Effect.flip(
        quotes.create({
          ...payeeQuote(eurAccount.id, usdPayee.id, 10_000),
          platformFeeOverride: { platformFixedFee: { amount: 0, currency: "EUR" }, platformVariableFeeBps: 10 }
        })
      )
      assert.strictEqual(error._tag, "InvalidInput")
      if (error._tag === "InvalidInput") assert.strictEqual(error.errors[0]!.field, "platformFeeOverride")
      // A configured USD fee does not apply to a EUR source.
      const eurQuote = yield* quotes.create(payeeQuote(eurAccount.id, usdPayee.id, 10_000))
      assert.strictEqual(eurQuote.platformFeesIncluded, 0)
      assert.strictEqual(eurQuote.feesIncluded, 50)
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("Q-04: refusals: unknown accounts, terms, rails, tiny amounts, unknown UMA, FX unavailable", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, usdPayee, eurPayee } = yield* setup()
      const quotes = yield* Quotes
      const unknown = yield* Effect.flip(
        quotes.create(payeeQuote("InternalAccount:00000000-0000-7000-8000-000000000999", usdPayee.id, 100))
      )
      assert.deepStrictEqual([unknown._tag, "code" in unknown ? unknown.code : ""], ["NotFound", "REFERENCE_NOT_FOUND"])
      const unknownPayee = yield* Effect.flip(
        quotes.create(payeeQuote(account.id, "ExternalAccount:00000000-0000-7000-8000-000000000999", 100))
      )
      assert.strictEqual(unknownPayee._tag, "NotFound")

      const badRail = yield* Effect.flip(
        quotes.create({
          ...payeeQuote(account.id, usdPayee.id, 100),
          destination: { destinationType: "ACCOUNT", accountId: usdPayee.id, paymentRail: "SPEI" }
        })
      )
      assert.strictEqual(badRail._tag, "InvalidInput")
      if (badRail._tag === "InvalidInput") {
        assert.deepStrictEqual(badRail.errors[0], {
          field: "destination.paymentRail",
          constraint: { enum: ["ACH", "WIRE", "RTP"] },
          message: badRail.errors[0]!.message
        })
      }
      const tiny = yield* Effect.flip(quotes.create(payeeQuote(account.id, eurPayee.id, 1)))
      assert.strictEqual(tiny._tag, "InvalidInput")
      if (tiny._tag === "InvalidInput") assert.strictEqual(tiny.errors[0]!.field, "lockedCurrencyAmount")

      const uma = yield* Effect.flip(
        quotes.create({
          ...payeeQuote(account.id, usdPayee.id, 100),
          destination: { destinationType: "UMA_ADDRESS", umaAddress: "$nobody@bank.example" }
        })
      )
      assert.deepStrictEqual([uma._tag, "code" in uma ? uma.code : ""], ["NotFound", "UMA_NOT_FOUND"])

      // USD/EUR is cached by now; a pair never fetched and unavailable fails.
      const mxnPayee = yield* seedExternalAccount(usdPayee.customerId!, "MXN", { rails: ["SPEI"] })
      env.fx.set("USD/MXN", undefined)
      const fx = yield* Effect.flip(quotes.create(payeeQuote(account.id, mxnPayee.id, 10_000)))
      assert.deepStrictEqual([fx._tag, "code" in fx ? fx.code : ""], ["Refused", "QUOTE_REQUEST_FAILED"])

      const stranger = yield* seedCustomer({ terms: false })
      const strangerAccount = yield* seedInternalAccount(stranger.id, "USD")
      const terms = yield* Effect.flip(quotes.create(payeeQuote(strangerAccount.id, usdPayee.id, 100)))
      assert.deepStrictEqual(
        [terms._tag, "code" in terms ? terms.code : ""],
        ["Refused", "END_USER_TERMS_NOT_ACCEPTED"]
      )
      yield* setConfig({ isRegulatedFinancialInstitution: true })
      const regulated = yield* quotes.create(payeeQuote(strangerAccount.id, usdPayee.id, 100))
      assert.strictEqual(regulated.status, "PENDING")

      const inactive = yield* seedExternalAccount(stranger.id, "USD", { status: "UNVERIFIED" })
      const unverified = yield* Effect.flip(quotes.create(payeeQuote(account.id, inactive.id, 100)))
      assert.deepStrictEqual(
        [unverified._tag, "code" in unverified ? unverified.code : ""],
        ["Refused", "EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED"]
      )
      const gone = yield* Effect.flip(quotes.get("Quote:00000000-0000-7000-8000-000000000999"))
      assert.deepStrictEqual([gone._tag, gone._tag === "NotFound" ? gone.code : ""], ["NotFound", "QUOTE_NOT_FOUND"])
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("UMA destination: receiver's currency, Lightning rail, receiver's amount range", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account } = yield* setup()
      const quotes = yield* Quotes
      const { lookupId } = yield* quotes.lookupUma("$alice@bank.example")
      const quote = yield* quotes.create({
        lookupId,
        source: { sourceType: "ACCOUNT", accountId: account.id },
        destination: { destinationType: "UMA_ADDRESS", umaAddress: "$alice@bank.example" },
        lockedCurrencySide: "SENDING",
        lockedCurrencyAmount: 10_000
      })
      assert.strictEqual(quote.receivingCurrency.code, "EUR")
      assert.strictEqual(quote.totalReceivingAmount, 9_154)
      assert.strictEqual(quote.destination.paymentRail, "LIGHTNING")
      const wrong = yield* Effect.flip(
        quotes.create({
          source: { sourceType: "ACCOUNT", accountId: account.id },
          lookupId,
          destination: { destinationType: "UMA_ADDRESS", umaAddress: "$alice@bank.example", currency: "MXN" },
          lockedCurrencySide: "SENDING",
          lockedCurrencyAmount: 10_000
        })
      )
      assert.strictEqual(wrong._tag, "InvalidInput")
      const small = yield* Effect.flip(
        quotes.create({
          lookupId,
          source: { sourceType: "ACCOUNT", accountId: account.id },
          destination: { destinationType: "UMA_ADDRESS", umaAddress: "$alice@bank.example" },
          lockedCurrencySide: "RECEIVING",
          lockedCurrencyAmount: 50
        })
      )
      assert.deepStrictEqual([small._tag, "code" in small ? small.code : ""], ["Refused", "AMOUNT_OUT_OF_RANGE"])
      const executed = yield* quotes.execute(quote.id)
      assert.strictEqual(executed.status, "PROCESSING")
      assert.deepStrictEqual(env.rail.submissions.at(-1)?.destination, {
        kind: "UMA",
        umaAddress: "$alice@bank.example"
      })
    }).pipe(Effect.provide(env.layer))
  })

  it.effect(
    "Q-03 C-23 Q-48: an UMA quote names a live lookup of its address; the receiver's payer data is required",
    () => {
      const env = makeEnv()
      return Effect.gen(function* () {
        const { account, usdPayee } = yield* setup()
        const quotes = yield* Quotes
        const store = yield* Store
        const toBob = (extra: Partial<CreateQuoteRequest>): CreateQuoteRequest => ({
          source: { sourceType: "ACCOUNT", accountId: account.id },
          destination: { destinationType: "UMA_ADDRESS", umaAddress: "$bob@kyc.example" },
          lockedCurrencySide: "SENDING",
          lockedCurrencyAmount: 1_000,
          ...extra
        })
        const codeOf = (e: { readonly _tag: string }) => [e._tag, "code" in e ? e.code : ""]
        const fieldsOf = (e: { readonly _tag: string }) =>
          e._tag === "InvalidInput" ? (e as InvalidInput).errors.map((x) => x.field) : []

        const lookup = yield* quotes.lookupUma("$bob@kyc.example")
        assert.deepStrictEqual(
          lookup.requiredPayerDataFields,
          UMA_RECEIVERS["$bob@kyc.example"]!.requiredPayerDataFields
        )
        const stored = yield* store.lookups.get(lookup.lookupId)
        assert.deepStrictEqual(
          [stored?.destinationType, stored?.receiver, stored?.createdAt, stored?.expiresAt],
          ["UMA_ADDRESS", "$bob@kyc.example", "2026-03-02T12:00:00.000Z", "2026-03-02T12:15:00.000Z"]
        )

        // no lookupId → 400 on lookupId; C-23: one never issued → 404.
        assert.deepStrictEqual(fieldsOf(yield* Effect.flip(quotes.create(toBob({})))), ["lookupId"])
        const unknown = yield* Effect.flip(quotes.create(toBob({ lookupId: UNKNOWN_LOOKUP })))
        assert.deepStrictEqual(codeOf(unknown), ["NotFound", "LOOKUP_REQUEST_NOT_FOUND"])
        // A lookup of another receiver (another address, an account) is not this quote's.
        const alice = yield* quotes.lookupUma("$alice@bank.example")
        assert.deepStrictEqual(fieldsOf(yield* Effect.flip(quotes.create(toBob({ lookupId: alice.lookupId })))), [
          "lookupId"
        ])
        const account2 = yield* quotes.lookupExternalAccount(usdPayee.id)
        assert.deepStrictEqual(fieldsOf(yield* Effect.flip(quotes.create(toBob({ lookupId: account2.lookupId })))), [
          "lookupId"
        ])

        // every mandatory field, each named; an optional one may be left out; an empty value is no value.
        const missing = yield* Effect.flip(
          quotes.create(toBob({ lookupId: lookup.lookupId, senderCustomerInfo: { FULL_NAME: "" } }))
        )
        assert.deepStrictEqual(codeOf(missing), ["Refused", "MISSING_MANDATORY_USER_INFO"])
        assert.deepStrictEqual(
          (missing as Refused).details?.errors,
          ["FULL_NAME", "BIRTH_DATE"].map((name) => ({
            field: `senderCustomerInfo.${name}`,
            constraint: { required: true },
            message: `The receiver requires ${name} about the payer`
          }))
        )
        const info = { FULL_NAME: "Ada Lovelace", BIRTH_DATE: "1815-12-10" }
        const quote = yield* quotes.create(toBob({ lookupId: lookup.lookupId, senderCustomerInfo: info }))
        assert.strictEqual(quote.status, "PENDING")
        // One lookup serves several quotes while it lives.
        const again = yield* quotes.create(toBob({ lookupId: lookup.lookupId, senderCustomerInfo: info }))
        assert.strictEqual(again.status, "PENDING")

        // An account quote may name its account's lookup, and needs none.
        const payee = yield* quotes.create({ ...payeeQuote(account.id, usdPayee.id, 100), lookupId: account2.lookupId })
        assert.strictEqual(payee.status, "PENDING")
        const wrongAccount = yield* Effect.flip(
          quotes.create({ ...payeeQuote(account.id, usdPayee.id, 100), lookupId: lookup.lookupId })
        )
        assert.deepStrictEqual(fieldsOf(wrongAccount), ["lookupId"])

        // C-23: at expiresAt the lookup is gone for quotes.
        yield* TestClock.adjust(15 * 60 * 1000)
        const expired = yield* Effect.flip(
          quotes.create(toBob({ lookupId: lookup.lookupId, senderCustomerInfo: info }))
        )
        assert.deepStrictEqual(codeOf(expired), ["NotFound", "LOOKUP_REQUEST_NOT_FOUND"])
      }).pipe(Effect.provide(env.layer))
    }
  )

  it.effect("public calls get a span when a tracing backend is installed, and none without one", () => {
    const env = makeEnv()
    const names: Array<string> = []
    const recording = Tracer.make({
      span: (options) => {
        names.push(options.name)
        return new Tracer.NativeSpan(options)
      }
    })
    return Effect.gen(function* () {
      const { account, usdPayee } = yield* setup()
      const quotes = yield* Quotes
      const quote = yield* quotes.create(payeeQuote(account.id, usdPayee.id, 1_000)).pipe(Effect.withTracer(recording))
      yield* quotes.execute(quote.id).pipe(Effect.withTracer(recording))
      yield* (yield* Transactions).processDue().pipe(Effect.withTracer(recording))
      // Issue 33 item 5: their store transactions get a span of their own (`Store.transaction`) under a tracer too.
      const services = names.filter((name) => name !== "Store.transaction")
      assert.deepStrictEqual(services, ["Quotes.create", "Quotes.execute", "Transactions.processDue"])
      assert.isTrue(names.includes("Store.transaction"))
      const seen = names.length
      yield* quotes.get(quote.id)
      assert.strictEqual(names.length, seen)
      // Every other public operation (`operation` in service.ts) likewise: a span only under a tracer.
      yield* quotes.get(quote.id).pipe(Effect.withTracer(recording))
      assert.deepStrictEqual(names.slice(seen), ["Quotes.get"])
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("L-17: execute: PROCESSING with holds, then settle → COMPLETED with settledAt; executes once only", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, eurPayee } = yield* setup()
      const quotes = yield* Quotes
      const transactions = yield* Transactions
      const quote = yield* quotes.create(payeeQuote(account.id, eurPayee.id, 100_000))
      const executed = yield* quotes.execute(quote.id)
      assert.strictEqual(executed.status, "PROCESSING")
      assert.strictEqual(executed.transactionId, quote.transactionId)
      assert.deepStrictEqual(yield* balance(account.id, "USD"), {
        posted: 100_000,
        pendingDebits: 100_000,
        pendingCredits: 0,
        available: 0
      })
      const processing = yield* transactions.get(quote.transactionId)
      assert.strictEqual(processing.status, "PROCESSING")
      assert.strictEqual(processing.expectedSettlementAt, "2026-03-02T12:01:00.000Z")
      assert.strictEqual(processing.settlementTimelineSeconds, 60)

      const again = yield* Effect.flip(quotes.execute(quote.id))
      assert.deepStrictEqual([again._tag, "code" in again ? again.code : ""], ["Conflict", "QUOTE_ALREADY_EXECUTED"])

      yield* advance(30)
      assert.strictEqual((yield* transactions.get(quote.transactionId)).status, "PROCESSING")
      yield* advance(30)
      const done = yield* transactions.get(quote.transactionId)
      assert.strictEqual(done.status, "COMPLETED")
      assert.strictEqual(done.settledAt, "2026-03-02T12:01:00.000Z")
      assert.strictEqual((yield* quotes.get(quote.id)).status, "COMPLETED")
      assert.deepStrictEqual(yield* balance(account.id, "USD"), {
        posted: 0,
        pendingDebits: 0,
        pendingCredits: 0,
        available: 0
      })
      assert.strictEqual((yield* balance(systemAccount("fx", "USD"), "USD")).posted, 99_500)
      assert.strictEqual((yield* balance(systemAccount("fx", "EUR"), "EUR")).posted, -91_540)
      assert.strictEqual((yield* balance(systemAccount("payouts", "EUR"), "EUR")).posted, 91_540)
      assert.strictEqual((yield* balance(systemAccount("fees", "USD"), "USD")).posted, 500)
      assert.deepStrictEqual(yield* eventsOf(quote.transactionId), [
        "OUTGOING_PAYMENT.PENDING",
        "OUTGOING_PAYMENT.PROCESSING",
        "OUTGOING_PAYMENT.COMPLETED"
      ])
      assert.deepStrictEqual(yield* ledgerViolations, [])
      // Running the worker again changes nothing.
      yield* advance(3600)
      assert.strictEqual((yield* eventsOf(quote.transactionId)).length, 3)
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("an expired quote cannot execute: 409 QUOTE_EXPIRED and the expiry is persisted", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, usdPayee } = yield* setup()
      const quotes = yield* Quotes
      const quote = yield* quotes.create(payeeQuote(account.id, usdPayee.id, 10_000))
      yield* TestClock.adjust(300_000)
      const error = yield* Effect.flip(quotes.execute(quote.id))
      assert.deepStrictEqual([error._tag, "code" in error ? error.code : ""], ["Conflict", "QUOTE_EXPIRED"])
      assert.strictEqual((yield* quotes.get(quote.id)).status, "EXPIRED")
      assert.strictEqual((yield* (yield* Transactions).get(quote.transactionId)).status, "EXPIRED")
      assert.deepStrictEqual(yield* eventsOf(quote.transactionId), [
        "OUTGOING_PAYMENT.PENDING",
        "OUTGOING_PAYMENT.EXPIRED"
      ])
      const again = yield* Effect.flip(quotes.execute(quote.id))
      assert.deepStrictEqual([again._tag, "code" in again ? again.code : ""], ["Conflict", "QUOTE_EXPIRED"])
      assert.deepStrictEqual(yield* balance(account.id, "USD"), {
        posted: 100_000,
        pendingDebits: 0,
        pendingCredits: 0,
        available: 100_000
      })
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("L-05: the worker expires PENDING quotes after quoteLifetimeSeconds (EngineConfig)", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, usdPayee } = yield* setup()
      const quotes = yield* Quotes
      const quote = yield* quotes
        .create(payeeQuote(account.id, usdPayee.id, 10_000))
        .pipe(Effect.provideService(EngineConfig, { ...defaultEngineSettings, quoteLifetimeSeconds: 60 }))
      assert.strictEqual(quote.expiresAt, "2026-03-02T12:01:00.000Z")
      const early = yield* advance(59)
      assert.strictEqual(early.expired, 0)
      const report = yield* advance(1)
      assert.strictEqual(report.expired, 1)
      assert.strictEqual((yield* quotes.get(quote.id)).status, "EXPIRED")
      assert.strictEqual((yield* (yield* Transactions).get(quote.transactionId)).status, "EXPIRED")
      assert.strictEqual((yield* advance(60)).expired, 0)
      assert.deepStrictEqual(yield* eventsOf(quote.transactionId), [
        "OUTGOING_PAYMENT.PENDING",
        "OUTGOING_PAYMENT.EXPIRED"
      ])
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("insufficient funds: 400 INSUFFICIENT_FUNDS and nothing changes", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, usdPayee } = yield* setup(5_000)
      const store = yield* Store
      const quotes = yield* Quotes
      const quote = yield* quotes.create(payeeQuote(account.id, usdPayee.id, 10_000))
      const error = yield* Effect.flip(quotes.execute(quote.id))
      assert.deepStrictEqual([error._tag, "code" in error ? error.code : ""], ["Refused", "INSUFFICIENT_FUNDS"])
      assert.strictEqual((yield* quotes.get(quote.id)).status, "PENDING")
      assert.strictEqual((yield* (yield* Transactions).get(quote.transactionId)).status, "PENDING")
      assert.deepStrictEqual(yield* balance(account.id, "USD"), {
        posted: 5_000,
        pendingDebits: 0,
        pendingCredits: 0,
        available: 5_000
      })
      assert.deepStrictEqual(yield* store.ledger.transfers(quote.transactionId), [])
      assert.deepStrictEqual(yield* eventsOf(quote.transactionId), ["OUTGOING_PAYMENT.PENDING"])
      assert.strictEqual(yield* store.counters.get(`daily-volume:${quote.customerId}:USD:2026-03-02`), 0)
      // immediatelyExecute: the quote is not even created.
      const immediate = yield* Effect.flip(
        quotes.create({ ...payeeQuote(account.id, usdPayee.id, 10_000), immediatelyExecute: true })
      )
      assert.strictEqual("code" in immediate ? immediate.code : "", "INSUFFICIENT_FUNDS")
      assert.strictEqual((yield* store.quotes.list({}, { limit: 10, sortOrder: "asc" })).totalCount, 1)
      assert.deepStrictEqual(env.rail.submissions, [])
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("limits: 400 TRANSACTION_SIZE_LIMIT_EXCEEDED and 429 DAILY_VOLUME_LIMIT_EXCEEDED (per UTC day)", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, usdPayee } = yield* setup()
      yield* setConfig({
        transactionLimits: [{ currency: "USD", maxTransactionAmount: 20_000, maxDailyVolume: 30_000 }]
      })
      const quotes = yield* Quotes
      const big = yield* quotes.create(payeeQuote(account.id, usdPayee.id, 20_001))
      const size = yield* Effect.flip(quotes.execute(big.id))
      assert.deepStrictEqual(
        [size._tag, "code" in size ? size.code : ""],
        ["Refused", "TRANSACTION_SIZE_LIMIT_EXCEEDED"]
      )
      yield* quotes.create({ ...payeeQuote(account.id, usdPayee.id, 20_000), immediatelyExecute: true })
      const over = yield* quotes.create(payeeQuote(account.id, usdPayee.id, 10_001))
      const daily = yield* Effect.flip(quotes.execute(over.id))
      assert.strictEqual(daily._tag, "LimitExceeded")
      if (daily._tag === "LimitExceeded") {
        assert.strictEqual(daily.code, "DAILY_VOLUME_LIMIT_EXCEEDED")
        assert.strictEqual(daily.retryAfterSeconds, 12 * 3600)
      }
      const fits = yield* quotes.create({ ...payeeQuote(account.id, usdPayee.id, 10_000), immediatelyExecute: true })
      assert.strictEqual(fits.status, "PROCESSING")
      // The next UTC day has a fresh budget.
      yield* advance(12 * 3600)
      const tomorrow = yield* quotes.create({
        ...payeeQuote(account.id, usdPayee.id, 20_000),
        immediatelyExecute: true
      })
      assert.strictEqual(tomorrow.status, "PROCESSING")
      assert.deepStrictEqual(yield* ledgerViolations, [])
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("immediatelyExecute, internal transfers settle at once, transfer-out returns the transaction", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, customer, usdPayee } = yield* setup()
      const quotes = yield* Quotes
      const immediate = yield* quotes.create({
        ...payeeQuote(account.id, usdPayee.id, 1_000),
        immediatelyExecute: true
      })
      assert.strictEqual(immediate.status, "PROCESSING")

      const savings = yield* seedInternalAccount(customer.id, "USD")
      const internal = yield* quotes.create({ ...payeeQuote(account.id, savings.id, 2_000), immediatelyExecute: true })
      assert.strictEqual(internal.status, "COMPLETED")
      assert.strictEqual(internal.destination.paymentRail, "INTERNAL")
      assert.deepStrictEqual(yield* balance(savings.id, "USD"), {
        posted: 2_000,
        pendingDebits: 0,
        pendingCredits: 0,
        available: 2_000
      })
      assert.deepStrictEqual(yield* eventsOf(internal.transactionId), [
        "OUTGOING_PAYMENT.PENDING",
        "OUTGOING_PAYMENT.PROCESSING",
        "OUTGOING_PAYMENT.COMPLETED"
      ])
      const self = yield* Effect.flip(quotes.create(payeeQuote(account.id, account.id, 100)))
      assert.strictEqual("code" in self ? self.code : "", "SELF_PAYMENT")

      const transactions = yield* Transactions
      const tx = yield* transactions.transferOut({
        source: { accountId: account.id },
        destination: { accountId: usdPayee.id as never, paymentRail: "WIRE" },
        amount: 3_000,
        remittanceInformation: "INV-1"
      })
      assert.strictEqual(tx.type, "OUTGOING")
      assert.strictEqual(tx.status, "PROCESSING")
      assert.strictEqual(tx.paymentRail, "WIRE")
      assert.strictEqual(tx.railSelectionMode, "MANUAL")
      assert.strictEqual(tx.remittanceInformation, "INV-1")
      assert.strictEqual(env.rail.submissions.at(-1)?.remittanceInformation, "INV-1")
      const { eurPayee } = { eurPayee: yield* seedExternalAccount(customer.id, "EUR") }
      const cross = yield* Effect.flip(
        transactions.transferOut({
          source: { accountId: account.id },
          destination: { accountId: eurPayee.id as never },
          amount: 100
        })
      )
      assert.strictEqual(cross._tag, "InvalidInput")
      yield* advance(60)
      assert.strictEqual((yield* transactions.get(tx.id)).status, "COMPLETED")
      assert.deepStrictEqual(yield* ledgerViolations, [])
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("real-time funding: payment instructions, no execute call, sandbox send pays it", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { customer, eurPayee } = yield* setup(0)
      const quotes = yield* Quotes
      const transactions = yield* Transactions
      const quote = yield* quotes.create({
        source: { sourceType: "REALTIME_FUNDING", currency: "USD", customerId: customer.id },
        destination: { destinationType: "ACCOUNT", accountId: eurPayee.id },
        lockedCurrencySide: "SENDING",
        lockedCurrencyAmount: 10_000
      })
      assert.strictEqual(quote.paymentInstructions.length, 1)
      assert.strictEqual(quote.paymentInstructions[0]!.accountOrWalletInfo.accountType, "US_ACCOUNT")
      const direct = yield* Effect.flip(quotes.execute(quote.id))
      assert.deepStrictEqual([direct._tag, "code" in direct ? direct.code : ""], ["Conflict", "QUOTE_NOT_EXECUTABLE"])
      const wrongAmount = yield* Effect.flip(
        transactions.sandboxSend({ quoteId: quote.id, currencyCode: "USD", currencyAmount: 9_999 })
      )
      assert.strictEqual(wrongAmount._tag, "InvalidInput")
      const wrongCurrency = yield* Effect.flip(transactions.sandboxSend({ quoteId: quote.id, currencyCode: "EUR" }))
      assert.strictEqual(wrongCurrency._tag, "InvalidInput")
      const tx = yield* transactions.sandboxSend({ quoteId: quote.id, currencyCode: "USD" })
      assert.strictEqual(tx.status, "PROCESSING")
      assert.strictEqual((yield* balance(systemAccount("deposits", "USD"), "USD")).pendingDebits, 10_000)
      yield* advance(60)
      assert.strictEqual((yield* transactions.get(tx.id)).status, "COMPLETED")
      assert.strictEqual((yield* balance(systemAccount("deposits", "USD"), "USD")).posted, -10_000)
      assert.deepStrictEqual(yield* ledgerViolations, [])
      const usdc = yield* Effect.flip(
        quotes.create({
          source: { sourceType: "REALTIME_FUNDING", currency: "USDC" },
          destination: { destinationType: "ACCOUNT", accountId: eurPayee.id },
          lockedCurrencySide: "SENDING",
          lockedCurrencyAmount: 10_000_000
        })
      )
      assert.strictEqual(usdc._tag, "InvalidInput")
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("L-06: exchange rates come from a cache refreshed after fxCacheSeconds; fees included", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      yield* startClock
      const quotes = yield* Quotes
      const [first] = yield* quotes.exchangeRates({ sourceCurrency: "USD", destinationCurrency: "EUR" })
      assert.deepStrictEqual(first, {
        sourceCurrency: { code: "USD", name: "United States Dollar", symbol: "$", decimals: 2 },
        destinationCurrency: { code: "EUR", name: "Euro", symbol: "€", decimals: 2 },
        destinationPaymentRail: "SEPA_INSTANT",
        sendingAmount: 10_000,
        minSendingAmount: 3,
        maxSendingAmount: 9_000_000_000_000_000,
        receivingAmount: 9_154,
        exchangeRate: 0.9154,
        fees: { fixed: 0, total: 50 },
        updatedAt: "2026-03-02T12:00:00.000Z"
      })
      assert.strictEqual(env.fx.calls(), 1)
      env.fx.set("USD/EUR", "0.5")
      yield* advance(299)
      const [cached] = yield* quotes.exchangeRates({ sourceCurrency: "USD", destinationCurrency: ["EUR"] })
      assert.strictEqual(cached!.receivingAmount, 9_154)
      assert.strictEqual(env.fx.calls(), 1)
      yield* advance(1)
      const [fresh] = yield* quotes.exchangeRates({
        sourceCurrency: "USD",
        destinationCurrency: "EUR",
        sendingAmount: 10_000
      })
      assert.strictEqual(fresh!.receivingAmount, 4_975)
      assert.strictEqual(fresh!.updatedAt, "2026-03-02T12:05:00.000Z")
      assert.strictEqual(env.fx.calls(), 2)

      yield* setConfig({
        supportedCurrencies: ["USD", "EUR", "GBP"],
        feeConfigs: [
          { feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "USD", fixedFee: { amount: 10, currency: "USD" } }
        ]
      })
      // Without a destination: every supported currency but the source, skipping pairs without a rate.
      const all = yield* quotes.exchangeRates({ sourceCurrency: "USD" })
      assert.deepStrictEqual(
        all.map((r) => [r.destinationCurrency.code, r.fees]),
        [["EUR", { fixed: 10, total: 60 }]]
      )
      const missing = yield* Effect.flip(quotes.exchangeRates({ sourceCurrency: "USD", destinationCurrency: "GBP" }))
      assert.deepStrictEqual([missing._tag, "code" in missing ? missing.code : ""], ["Refused", "QUOTE_REQUEST_FAILED"])
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("receiver lookups", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { eurPayee, customer } = yield* setup(0)
      const quotes = yield* Quotes
      const lookup = yield* quotes.lookupExternalAccount(eurPayee.id)
      assert.strictEqual(lookup.accountId, eurPayee.id)
      assert.isTrue(lookup.lookupId.startsWith("Lookup:"))
      assert.deepStrictEqual(lookup.requiredPayerDataFields, [])
      assert.strictEqual(lookup.supportedCurrencies[0]!.currency.code, "EUR")
      assert.strictEqual(lookup.supportedCurrencies[0]!.estimatedExchangeRate, 0.92)
      const unknown = yield* Effect.flip(
        quotes.lookupExternalAccount("ExternalAccount:00000000-0000-7000-8000-000000000999")
      )
      assert.strictEqual(unknown._tag, "NotFound")
      const uma = yield* quotes.lookupUma("$alice@bank.example", { customerId: customer.id })
      assert.strictEqual(uma.receiverUmaAddress, "$alice@bank.example")
      assert.deepStrictEqual(
        uma.supportedCurrencies.map((c) => [c.currency.code, c.estimatedExchangeRate, c.min, c.max]),
        [
          ["EUR", 0.92, 100, 1_000_000],
          ["USD", 1, 100, 1_000_000]
        ]
      )
      const none = yield* Effect.flip(quotes.lookupUma("$bob@bank.example"))
      assert.deepStrictEqual([none._tag, "code" in none ? none.code : ""], ["NotFound", "UMA_NOT_FOUND"])
      assert.strictEqual(BigDecimal.format(parseRate("0.920")!), "0.92")
    }).pipe(Effect.provide(env.layer))
  })
})
