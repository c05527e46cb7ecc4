import { Effect } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import {
  addMxPayee,
  addUsPayee,
  type CallResult,
  expectError as expectErrorBody,
  fundAccount,
  lookupUma,
  type Onboarded,
  onboardCustomer,
  quoteBody,
  useTestServer
} from "./harness.ts"

// The payments group over the real server: quotes, execution, transactions, receivers, deprecated transfers.
// The sandbox rail settles at once (speedUp 1e9); `processDue()` runs the settlement worker once.

const server = useTestServer()

const MXN_PER_USD = 17.25
const SERVICE_FEE_BPS = 50
const UNKNOWN_UUID = "00000000-0000-4000-8000-000000000000"

const onboard = (currencies: ReadonlyArray<string> = ["USD"], withConsent = true) =>
  onboardCustomer(server, { currencies, withConsent })

const fund = (accountId: string, amount: number) => fundAccount(server, accountId, amount)

const balanceOf = async (customerId: string, accountId: string): Promise<number> => {
  const listed = await server.call("GET", `/internal-account?customerId=${customerId}`)
  expect(listed.status).toBe(200)
  const account = listed.json.data.find((a: { id: string }) => a.id === accountId)
  expect(account).toBeTypeOf("object")
  return account.balance.amount
}

const usPayee = (customerId: string, accountNumber = "123456789") => addUsPayee(server, customerId, { accountNumber })
/** `POST /transfer-in` of `amount` from the external account `source` into the customer's USD account. */
const pullInto = (customer: Onboarded, source: string, amount: number) =>
  server.call("POST", "/transfer-in", {
    source: { accountId: source },
    destination: { accountId: customer.accounts.USD! },
    amount
  })

const mxPayee = (customerId: string) => addMxPayee(server, customerId)

const transactionCount = async (): Promise<number> => {
  const listed = await server.call("GET", "/transactions?limit=1")
  expect(listed.status).toBe(200)
  return listed.json.totalCount
}

const expectError = (result: CallResult, status: number, code: string) => {
  expectErrorBody(result, status, code)
  expect(result.json.message).toBeTypeOf("string")
}

const getTx = async (id: string) => {
  const tx = await server.call("GET", `/transactions/${id}`)
  expect(tx.status).toBe(200)
  return tx.json
}

describe("POST /quotes: pricing and fields", () => {
  let payer: Onboarded
  let usPayeeId: string
  let mxPayeeId: string
  beforeAll(async () => {
    payer = await onboard(["USD", "MXN"])
    await fund(payer.accounts.USD!, 1_000_000)
    usPayeeId = await usPayee(payer.id)
    mxPayeeId = await mxPayee(payer.id)
  })

  it("Q-01 Q-13 Q-17 Q-27: a same-currency quote has exchangeRate 1, fee fields, expiresAt and a PENDING transaction", async () => {
    const quote = await server.call("POST", "/quotes", quoteBody(payer.accounts.USD!, usPayeeId, 2_500))
    expect(quote.status).toBe(201)
    expect(quote.json).toMatchObject({
      status: "PENDING",
      customerId: payer.id,
      sendingCurrency: { code: "USD", decimals: 2 },
      receivingCurrency: { code: "USD", decimals: 2 },
      totalSendingAmount: 2_500,
      totalReceivingAmount: 2_500,
      exchangeRate: 1,
      feesIncluded: 0,
      platformFeesIncluded: 0,
      paymentInstructions: [],
      // no rail named; the sandbox selects the payee's fastest (issue 32 item 2).
      destination: { destinationType: "ACCOUNT", accountId: usPayeeId, paymentRail: "RTP" }
    })
    expect(quote.json.id).toMatch(/^Quote:[0-9a-f-]{36}$/)
    expect(quote.json.transactionId).toMatch(/^Transaction:[0-9a-f-]{36}$/)
    expect(Date.parse(quote.json.expiresAt)).toBeGreaterThan(Date.parse(quote.json.createdAt))
    const tx = await getTx(quote.json.transactionId)
    expect(tx).toMatchObject({
      id: quote.json.transactionId,
      status: "PENDING",
      type: "OUTGOING",
      direction: "DEBIT",
      quoteId: quote.json.id,
      customerId: payer.id,
      sentAmount: { amount: 2_500, currency: { code: "USD" } },
      receivedAmount: { amount: 2_500, currency: { code: "USD" } },
      fees: 0,
      platformFees: 0
    })
  })

  it("Q-05 Q-10: USD→MXN locked on SENDING: total = locked amount, receiving = (total − fees) × rate rounded down", async () => {
    const quote = await server.call("POST", "/quotes", quoteBody(payer.accounts.USD!, mxPayeeId, 10_000))
    expect(quote.status).toBe(201)
    const q = quote.json
    expect(q.sendingCurrency.code).toBe("USD")
    expect(q.receivingCurrency.code).toBe("MXN")
    expect(q.totalSendingAmount).toBe(10_000)
    expect(q.feesIncluded).toBe((10_000 * SERVICE_FEE_BPS) / 10_000)
    expect(q.platformFeesIncluded).toBe(0)
    const net = q.totalSendingAmount - q.feesIncluded
    expect(q.totalReceivingAmount).toBe(Math.floor(net * MXN_PER_USD)) // 171637
    // exchangeRate: receiving major units per net sending major unit (after fees).
    expect(q.exchangeRate).toBeCloseTo(q.totalReceivingAmount / net, 8)
    expect(q.exchangeRate).toBeLessThanOrEqual(MXN_PER_USD)
    expect(q.destination.paymentRail).toBe("SPEI")
    expect(q.rateDetails.counterpartyMultiplier).toBe(MXN_PER_USD)
  })

  it("Q-05: USD→MXN locked on RECEIVING: receiving = locked amount; total is the smallest that covers it after fees", async () => {
    const quote = await server.call("POST", "/quotes", {
      ...quoteBody(payer.accounts.USD!, mxPayeeId, 171_637),
      lockedCurrencySide: "RECEIVING"
    })
    expect(quote.status).toBe(201)
    const q = quote.json
    expect(q.totalReceivingAmount).toBe(171_637)
    expect(q.totalSendingAmount).toBe(10_000)
    expect(q.feesIncluded).toBe(Math.ceil((q.totalSendingAmount * SERVICE_FEE_BPS) / 10_000))
    const net = q.totalSendingAmount - q.feesIncluded
    expect(net * MXN_PER_USD).toBeGreaterThanOrEqual(q.totalReceivingAmount)
    expect(q.exchangeRate).toBeCloseTo(q.totalReceivingAmount / net, 8)
    // One cent less would not cover the locked receiving amount.
    const smaller = q.totalSendingAmount - 1
    expect((smaller - Math.ceil((smaller * SERVICE_FEE_BPS) / 10_000)) * MXN_PER_USD).toBeLessThan(171_637)
  })

  it("Q-12 P-02: a configured platform fee is part of feesIncluded and reported as platformFeesIncluded", async () => {
    const patched = await server.call("PATCH", "/config", {
      feeConfigs: [
        {
          feeType: "CROSS_CURRENCY_TRANSACTION",
          sourceCurrency: "USD",
          variableFeeBps: 100,
          fixedFee: { amount: 25, currency: "USD" }
        }
      ]
    })
    expect(patched.status).toBe(200)
    try {
      const quote = await server.call("POST", "/quotes", quoteBody(payer.accounts.USD!, mxPayeeId, 10_000))
      expect(quote.status).toBe(201)
      expect(quote.json.platformFeesIncluded).toBe(25 + 100)
      expect(quote.json.feesIncluded).toBe(50 + 25 + 100)
      expect(quote.json.totalReceivingAmount).toBe(Math.floor((10_000 - 175) * MXN_PER_USD))
    } finally {
      expect((await server.call("PATCH", "/config", { feeConfigs: [] })).status).toBe(200)
    }
  })

  it("Q-09: platformFeeOverride on a USD source replaces the platform fee", async () => {
    const quote = await server.call(
      "POST",
      "/quotes",
      quoteBody(payer.accounts.USD!, mxPayeeId, 10_000, {
        platformFeeOverride: { platformFixedFee: { amount: 10, currency: "USD" }, platformVariableFeeBps: 20 }
      })
    )
    expect(quote.status).toBe(201)
    expect(quote.json.platformFeesIncluded).toBe(10 + 20)
    expect(quote.json.feesIncluded).toBe(50 + 30)
  })

  it("Q-09 L-16: platformFeeOverride on a non-USD source → 400, nothing created", async () => {
    const before = await transactionCount()
    const quote = await server.call("POST", "/quotes", {
      ...quoteBody(payer.accounts.MXN!, usPayeeId, 10_000),
      platformFeeOverride: { platformFixedFee: { amount: 10, currency: "MXN" }, platformVariableFeeBps: 0 }
    })
    expectError(quote, 400, "INVALID_INPUT")
    expect(quote.json.details.errors.map((e: { field: string }) => e.field)).toEqual(["platformFeeOverride"])
    expect(await transactionCount()).toBe(before)
  })

  it("Q-03 Q-14: a quote to an UMA address pays over LIGHTNING in the receiver's currency and settles", async () => {
    const quote = await server.call("POST", "/quotes", {
      lookupId: await lookupUma(server, "$success.usd@sandbox.uma.money"),
      source: { sourceType: "ACCOUNT", accountId: payer.accounts.USD! },
      destination: { destinationType: "UMA_ADDRESS", umaAddress: "$success.usd@sandbox.uma.money" },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 1_000
    })
    expect(quote.status).toBe(201)
    expect(quote.json).toMatchObject({
      destination: {
        destinationType: "UMA_ADDRESS",
        umaAddress: "$success.usd@sandbox.uma.money",
        currency: "USD",
        paymentRail: "LIGHTNING"
      },
      receivingCurrency: { code: "USD" },
      totalSendingAmount: 1_000,
      totalReceivingAmount: 1_000,
      exchangeRate: 1
    })
    const executed = await server.call("POST", `/quotes/${quote.json.id}/execute`)
    expect(executed.status).toBe(200)
    await server.processDue()
    expect((await getTx(quote.json.transactionId)).status).toBe("COMPLETED")
  })

  it("C-27: a quote to an unknown UMA receiver → 404 UMA_NOT_FOUND (as its lookup is)", async () => {
    const lookup = await server.call("GET", `/receiver/uma/${encodeURIComponent("$nobody@sandbox.uma.money")}`)
    expectError(lookup, 404, "UMA_NOT_FOUND")
    const quote = await server.call("POST", "/quotes", {
      source: { sourceType: "ACCOUNT", accountId: payer.accounts.USD! },
      destination: { destinationType: "UMA_ADDRESS", umaAddress: "$nobody@sandbox.uma.money" },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 1_000
    })
    expectError(quote, 404, "UMA_NOT_FOUND")
  })

  it("Q-15 Q-22: a REALTIME_FUNDING quote carries paymentInstructions with its reference and cannot be executed by a call", async () => {
    const quote = await server.call("POST", "/quotes", {
      source: { sourceType: "REALTIME_FUNDING", currency: "USD", customerId: payer.id },
      destination: { destinationType: "ACCOUNT", accountId: mxPayeeId },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 5_000
    })
    expect(quote.status).toBe(201)
    expect(quote.json.source).toEqual({ sourceType: "REALTIME_FUNDING", currency: "USD", customerId: payer.id })
    expect(quote.json.paymentInstructions).toHaveLength(1)
    const info = quote.json.paymentInstructions[0].accountOrWalletInfo
    expect(info.accountType).toBe("US_ACCOUNT")
    const tx = await getTx(quote.json.transactionId)
    expect(info.reference).toBe(tx.reconciliationInstructions.reference)
    const executed = await server.call("POST", `/quotes/${quote.json.id}/execute`)
    expectError(executed, 409, "QUOTE_NOT_EXECUTABLE")
    expect((await server.call("GET", `/quotes/${quote.json.id}`)).json.status).toBe("PENDING")
  })

  it("Q-06: immediatelyExecute on a REALTIME_FUNDING source → 400 on immediatelyExecute", async () => {
    const quote = await server.call("POST", "/quotes", {
      source: { sourceType: "REALTIME_FUNDING", currency: "USD", customerId: payer.id },
      destination: { destinationType: "ACCOUNT", accountId: usPayeeId },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 5_000,
      immediatelyExecute: true
    })
    expectError(quote, 400, "INVALID_INPUT")
    expect(quote.json.details.errors[0].field).toBe("immediatelyExecute")
  })

  it("Q-06 Q-28: immediatelyExecute creates and executes in one request; the source is debited", async () => {
    const customer = await onboard()
    await fund(customer.accounts.USD!, 10_000)
    const payee = await usPayee(customer.id)
    const quote = await server.call(
      "POST",
      "/quotes",
      quoteBody(customer.accounts.USD!, payee, 4_000, { immediatelyExecute: true })
    )
    expect(quote.status).toBe(201)
    expect(quote.json.status).toBe("PROCESSING")
    expect((await getTx(quote.json.transactionId)).status).toBe("PROCESSING")
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(6_000)
    await server.processDue()
    expect((await getTx(quote.json.transactionId)).status).toBe("COMPLETED")
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(6_000)
  })

  it("Q-07 L-03: remittanceInformation of 80 characters is kept; 81 → 400 maxLength, nothing created", async () => {
    const ok = await server.call(
      "POST",
      "/quotes",
      quoteBody(payer.accounts.USD!, usPayeeId, 100, { remittanceInformation: "r".repeat(80), description: "rent" })
    )
    expect(ok.status).toBe(201)
    expect(ok.json.remittanceInformation).toBe("r".repeat(80))
    expect(ok.json.description).toBe("rent")
    expect((await getTx(ok.json.transactionId)).remittanceInformation).toBe("r".repeat(80))
    const before = await transactionCount()
    const tooLong = await server.call(
      "POST",
      "/quotes",
      quoteBody(payer.accounts.USD!, usPayeeId, 100, { remittanceInformation: "r".repeat(81) })
    )
    expectError(tooLong, 400, "INVALID_INPUT")
    expect(tooLong.json.details.errors).toEqual([
      expect.objectContaining({ field: "remittanceInformation", constraint: { maxLength: 80 } })
    ])
    expect(await transactionCount()).toBe(before)
  })

  it("Q-08: purposeOfPayment is kept on the quote; a value outside the enum → 400", async () => {
    const ok = await server.call(
      "POST",
      "/quotes",
      quoteBody(payer.accounts.USD!, usPayeeId, 100, { purposeOfPayment: "FAMILY_SUPPORT" })
    )
    expect(ok.status).toBe(201)
    expect(ok.json.purposeOfPayment).toBe("FAMILY_SUPPORT")
    const bad = await server.call(
      "POST",
      "/quotes",
      quoteBody(payer.accounts.USD!, usPayeeId, 100, { purposeOfPayment: "BRIBE" })
    )
    expectError(bad, 400, "INVALID_INPUT")
    expect(bad.json.details.errors[0].field).toBe("purposeOfPayment")
    expect(bad.json.details.errors[0].constraint.enum).toContain("GIFT")
  })

  it("C-11: a body with several invalid fields → 400 listing every one, nothing stored", async () => {
    const before = await transactionCount()
    const bad = await server.call("POST", "/quotes", {
      source: { sourceType: "ACCOUNT", accountId: "not-an-id" },
      destination: { destinationType: "ACCOUNT" },
      lockedCurrencySide: "BOTH",
      lockedCurrencyAmount: 0,
      remittanceInformation: "x".repeat(81)
    })
    expectError(bad, 400, "INVALID_INPUT")
    expect(bad.json.details.errors.map((e: { field: string }) => e.field).sort()).toEqual(
      [
        "destination.accountId",
        "lockedCurrencyAmount",
        "lockedCurrencySide",
        "remittanceInformation",
        "source.accountId"
      ].sort()
    )
    for (const e of bad.json.details.errors) expect(Object.keys(e.constraint).length).toBeGreaterThan(0)
    expect(await transactionCount()).toBe(before)
  })

  it("CU-27, C-47: a customer without end-user terms consent → 403 END_USER_TERMS_NOT_ACCEPTED, nothing created", async () => {
    const customer = await onboard(["USD"], false)
    const payee = await usPayee(customer.id)
    const before = await transactionCount()
    const quote = await server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, payee, 100))
    expectError(quote, 403, "END_USER_TERMS_NOT_ACCEPTED")
    expect(await transactionCount()).toBe(before)
  })

  it("Q-05: an unknown source account → 404; a destination that is the source → 400 SELF_PAYMENT", async () => {
    const unknown = await server.call("POST", "/quotes", quoteBody(`InternalAccount:${UNKNOWN_UUID}`, usPayeeId, 100))
    expectError(unknown, 404, "REFERENCE_NOT_FOUND")
    const self = await server.call("POST", "/quotes", quoteBody(payer.accounts.USD!, payer.accounts.USD!, 100))
    expectError(self, 400, "SELF_PAYMENT")
  })

  it("L-19 C-05: an UMA amount outside the receiver's range → 400 AMOUNT_OUT_OF_RANGE; above 9e15 → 400", async () => {
    const lookupId = await lookupUma(server, "$success.usd@sandbox.uma.money")
    const tooMuch = await server.call("POST", "/quotes", {
      lookupId,
      source: { sourceType: "ACCOUNT", accountId: payer.accounts.USD! },
      destination: { destinationType: "UMA_ADDRESS", umaAddress: "$success.usd@sandbox.uma.money" },
      lockedCurrencySide: "RECEIVING",
      lockedCurrencyAmount: 100_000_001
    })
    expectError(tooMuch, 400, "AMOUNT_OUT_OF_RANGE")
    expect(tooMuch.json.details).toMatchObject({ min: 1, max: 100_000_000, currency: "USD" })
    const wrongCurrency = await server.call("POST", "/quotes", {
      lookupId,
      source: { sourceType: "ACCOUNT", accountId: payer.accounts.USD! },
      destination: { destinationType: "UMA_ADDRESS", umaAddress: "$success.usd@sandbox.uma.money", currency: "EUR" },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 100
    })
    expectError(wrongCurrency, 400, "INVALID_INPUT")
    expect(wrongCurrency.json.details.errors[0].field).toBe("destination.currency")
    const huge = await server.call("POST", "/quotes", quoteBody(payer.accounts.USD!, usPayeeId, 9_000_000_000_000_001))
    expectError(huge, 400, "INVALID_INPUT")
    expect(huge.json.details.errors[0].field).toBe("lockedCurrencyAmount")
  })

  it("Q-02: REALTIME_FUNDING in a stablecoin needs cryptoNetwork; a currency without instant funding → 400", async () => {
    const missing = await server.call("POST", "/quotes", {
      source: { sourceType: "REALTIME_FUNDING", currency: "USDC", customerId: payer.id },
      destination: { destinationType: "ACCOUNT", accountId: usPayeeId },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 1_000_000
    })
    expectError(missing, 400, "INVALID_INPUT")
    expect(missing.json.details.errors[0].field).toBe("source.cryptoNetwork")
    const solana = await server.call("POST", "/quotes", {
      source: { sourceType: "REALTIME_FUNDING", currency: "USDC", customerId: payer.id, cryptoNetwork: "SOLANA" },
      destination: { destinationType: "ACCOUNT", accountId: usPayeeId },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 1_000_000
    })
    expect(solana.status).toBe(201)
    expect(solana.json.paymentInstructions[0].accountOrWalletInfo).toMatchObject({
      accountType: "SOLANA_WALLET",
      assetType: "USDC"
    })
    const gbp = await server.call("POST", "/quotes", {
      source: { sourceType: "REALTIME_FUNDING", currency: "GBP", customerId: payer.id },
      destination: { destinationType: "ACCOUNT", accountId: usPayeeId },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 1_000
    })
    expectError(gbp, 400, "INVALID_INPUT")
    expect(gbp.json.details.errors[0].field).toBe("source.currency")
  })

  it("Q-03: an internal account as destination settles at once on the INTERNAL rail", async () => {
    const other = await onboard()
    const quote = await server.call(
      "POST",
      "/quotes",
      quoteBody(payer.accounts.USD!, other.accounts.USD!, 1_234, { immediatelyExecute: true })
    )
    expect(quote.status).toBe(201)
    expect(quote.json.destination.paymentRail).toBe("INTERNAL")
    expect(quote.json.status).toBe("COMPLETED")
    expect((await getTx(quote.json.transactionId)).status).toBe("COMPLETED")
    expect(await balanceOf(other.id, other.accounts.USD!)).toBe(1_234)
  })
})

describe("Quote permissions", () => {
  it("A: a VIEW token cannot create (403 FORBIDDEN, nothing created) nor execute (403, quote still PENDING)", async () => {
    const customer = await onboard()
    await fund(customer.accounts.USD!, 5_000)
    const payee = await usPayee(customer.id)
    const viewer = await server.token(["VIEW"])
    const before = await transactionCount()
    const created = await server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, payee, 1_000), {
      auth: viewer
    })
    expectError(created, 403, "FORBIDDEN")
    expect(await transactionCount()).toBe(before)

    const quote = await server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, payee, 1_000))
    expect(quote.status).toBe(201)
    const executed = await server.call("POST", `/quotes/${quote.json.id}/execute`, undefined, { auth: viewer })
    expectError(executed, 403, "FORBIDDEN")
    expect((await server.call("GET", `/quotes/${quote.json.id}`, undefined, { auth: viewer })).json.status).toBe(
      "PENDING"
    )
    expect((await getTx(quote.json.transactionId)).status).toBe("PENDING")
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(5_000)
    // Reads need any token.
    expect((await server.call("GET", "/transactions", undefined, { auth: viewer })).status).toBe(200)
  })

  it("C-12: every payments endpoint without credentials → 401 UNAUTHORIZED", async () => {
    const calls: Array<[string, string, unknown?]> = [
      ["POST", "/quotes", {}],
      ["GET", `/quotes/Quote:${UNKNOWN_UUID}`],
      ["POST", `/quotes/Quote:${UNKNOWN_UUID}/execute`],
      ["GET", "/transactions"],
      ["GET", `/transactions/Transaction:${UNKNOWN_UUID}`],
      ["GET", `/receiver/external-account/ExternalAccount:${UNKNOWN_UUID}`],
      ["GET", "/receiver/uma/$success.usd@sandbox.uma.money"],
      ["POST", "/transfer-out", {}],
      ["POST", "/transfer-in", {}]
    ]
    for (const [method, path, body] of calls) {
      const result = await server.call(method, path, body, { auth: null })
      expect({ path, status: result.status, code: result.json.code }).toEqual({
        path,
        status: 401,
        code: "UNAUTHORIZED"
      })
    }
    const wrong = await server.call("GET", "/transactions", undefined, {
      auth: { clientId: server.admin.clientId, clientSecret: "wrong" }
    })
    expectError(wrong, 401, "UNAUTHORIZED")
  })
})

describe("GET /quotes/{id} and POST /quotes/{id}/execute", () => {
  let customer: Onboarded
  let payee: string
  beforeAll(async () => {
    customer = await onboard()
    await fund(customer.accounts.USD!, 10_000)
    payee = await usPayee(customer.id)
  })

  it("Q-25 C-22: GET returns the quote; an unknown id → 404 QUOTE_NOT_FOUND; a malformed id → 400", async () => {
    const quote = await server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, payee, 1_000))
    const got = await server.call("GET", `/quotes/${quote.json.id}`)
    expect(got.status).toBe(200)
    expect(got.json).toEqual(quote.json)
    expectError(await server.call("GET", `/quotes/Quote:${UNKNOWN_UUID}`), 404, "QUOTE_NOT_FOUND")
    expectError(await server.call("POST", `/quotes/Quote:${UNKNOWN_UUID}/execute`), 404, "QUOTE_NOT_FOUND")
    const malformed = await server.call("GET", "/quotes/nope")
    expectError(malformed, 400, "INVALID_INPUT")
    expect(malformed.json.details.errors[0].field).toBe("path.quoteId")
  })

  it("Q-11 Q-18 Q-20 Q-23: execute → PROCESSING with the same transactionId; a second execute → 409", async () => {
    const quote = await server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, payee, 1_000))
    const executed = await server.call("POST", `/quotes/${quote.json.id}/execute`)
    expect(executed.status).toBe(200)
    expect(executed.json.status).toBe("PROCESSING")
    expect(executed.json.transactionId).toBe(quote.json.transactionId)
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(9_000)
    const again = await server.call("POST", `/quotes/${quote.json.id}/execute`)
    expectError(again, 409, "QUOTE_ALREADY_EXECUTED")
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(9_000)
  })

  it("insufficient funds → 400 INSUFFICIENT_FUNDS; balance, quote and transaction unchanged", async () => {
    const before = await balanceOf(customer.id, customer.accounts.USD!)
    const quote = await server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, payee, before + 1))
    expect(quote.status).toBe(201)
    const executed = await server.call("POST", `/quotes/${quote.json.id}/execute`)
    expectError(executed, 400, "INSUFFICIENT_FUNDS")
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(before)
    expect((await server.call("GET", `/quotes/${quote.json.id}`)).json.status).toBe("PENDING")
    expect((await getTx(quote.json.transactionId)).status).toBe("PENDING")
  })

  /** Moves a quote's expiresAt into the past (the test server runs on the real clock). */
  const backdate = (quoteId: string) =>
    Effect.runPromise(
      server.store.transaction(
        Effect.gen(function* () {
          const record = yield* server.store.quotes.getForUpdate(quoteId)
          if (record === undefined) return yield* Effect.die(new Error("no quote"))
          yield* server.store.quotes.update({
            ...record,
            quote: { ...record.quote, expiresAt: "2020-01-01T00:00:00.000Z" }
          })
        })
      )
    )

  it("Q-20 Q-31: executing after expiresAt → 409 QUOTE_EXPIRED; quote and transaction EXPIRED; nothing debited", async () => {
    const before = await balanceOf(customer.id, customer.accounts.USD!)
    const quote = await server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, payee, 100))
    await backdate(quote.json.id)
    const executed = await server.call("POST", `/quotes/${quote.json.id}/execute`)
    expectError(executed, 409, "QUOTE_EXPIRED")
    expect((await server.call("GET", `/quotes/${quote.json.id}`)).json.status).toBe("EXPIRED")
    expect((await getTx(quote.json.transactionId)).status).toBe("EXPIRED")
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(before)
    expectError(await server.call("POST", `/quotes/${quote.json.id}/execute`), 409, "QUOTE_EXPIRED")
  })

  it("Q-31: the worker expires a PENDING quote past expiresAt with its transaction", async () => {
    const quote = await server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, payee, 100))
    await backdate(quote.json.id)
    await server.processDue()
    expect((await server.call("GET", `/quotes/${quote.json.id}`)).json.status).toBe("EXPIRED")
    expect((await getTx(quote.json.transactionId)).status).toBe("EXPIRED")
  })
})

describe("Concurrent execution without Idempotency-Key", () => {
  it("Q-20: 10 concurrent executes of one quote → one 200, nine 409 QUOTE_ALREADY_EXECUTED; debited once", async () => {
    const customer = await onboard()
    await fund(customer.accounts.USD!, 5_000)
    const payee = await usPayee(customer.id)
    const quote = await server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, payee, 1_000))
    const results = await Promise.all(
      Array.from({ length: 10 }, () => server.call("POST", `/quotes/${quote.json.id}/execute`))
    )
    expect(results.filter((r) => r.status === 200)).toHaveLength(1)
    const conflicts = results.filter((r) => r.status === 409)
    expect(conflicts).toHaveLength(9)
    for (const r of conflicts) expect(r.json.code).toBe("QUOTE_ALREADY_EXECUTED")
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(4_000)
  })

  it("concurrent executes of different quotes never overdraw: 3 of 5 fit, 2 → INSUFFICIENT_FUNDS", async () => {
    const customer = await onboard()
    await fund(customer.accounts.USD!, 1_000)
    const payee = await usPayee(customer.id)
    const quotes = await Promise.all(
      Array.from({ length: 5 }, () => server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, payee, 300)))
    )
    const results = await Promise.all(quotes.map((q) => server.call("POST", `/quotes/${q.json.id}/execute`)))
    expect(results.filter((r) => r.status === 200)).toHaveLength(3)
    const refused = results.filter((r) => r.status !== 200)
    expect(refused.map((r) => [r.status, r.json.code])).toEqual([
      [400, "INSUFFICIENT_FUNDS"],
      [400, "INSUFFICIENT_FUNDS"]
    ])
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(100)
  })
})

describe("Limits (PATCH /config transactionLimits)", () => {
  it("L-15, Q-26 C-33 C-42: size limit → 400 TRANSACTION_SIZE_LIMIT_EXCEEDED; daily volume → 429 with Retry-After", async () => {
    const customer = await onboard()
    await fund(customer.accounts.USD!, 100_000)
    const payee = await usPayee(customer.id)
    const patched = await server.call("PATCH", "/config", {
      transactionLimits: [{ currency: "USD", maxTransactionAmount: 5_000, maxDailyVolume: 8_000 }]
    })
    expect(patched.status).toBe(200)
    try {
      const big = await server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, payee, 5_001))
      const tooBig = await server.call("POST", `/quotes/${big.json.id}/execute`)
      expectError(tooBig, 400, "TRANSACTION_SIZE_LIMIT_EXCEEDED")
      expect(tooBig.json.details).toMatchObject({ currency: "USD", amount: 5_001, maxTransactionAmount: 5_000 })
      expect((await getTx(big.json.transactionId)).status).toBe("PENDING")

      // With immediatelyExecute the refusal leaves nothing behind.
      const before = await transactionCount()
      const immediate = await server.call(
        "POST",
        "/quotes",
        quoteBody(customer.accounts.USD!, payee, 5_001, { immediatelyExecute: true })
      )
      expectError(immediate, 400, "TRANSACTION_SIZE_LIMIT_EXCEEDED")
      expect(await transactionCount()).toBe(before)

      const first = await server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, payee, 5_000))
      expect((await server.call("POST", `/quotes/${first.json.id}/execute`)).status).toBe(200)
      const second = await server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, payee, 3_001))
      const overDaily = await server.call("POST", `/quotes/${second.json.id}/execute`)
      expectError(overDaily, 429, "DAILY_VOLUME_LIMIT_EXCEEDED")
      const retryAfter = Number(overDaily.headers.get("retry-after"))
      expect(Number.isInteger(retryAfter)).toBe(true)
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      expect(retryAfter).toBeLessThanOrEqual(86_400)
      expect((await server.call("GET", `/quotes/${second.json.id}`)).json.status).toBe("PENDING")
      expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(95_000)
      // Exactly up to the daily volume still goes through.
      const third = await server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, payee, 3_000))
      expect((await server.call("POST", `/quotes/${third.json.id}/execute`)).status).toBe(200)
      // the deprecated transfer-out is held to the same limits.
      const transfer = await server.call("POST", "/transfer-out", {
        source: { accountId: customer.accounts.USD! },
        destination: { accountId: payee },
        amount: 1
      })
      expectError(transfer, 429, "DAILY_VOLUME_LIMIT_EXCEEDED")
      expect(Number(transfer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    } finally {
      expect((await server.call("PATCH", "/config", { transactionLimits: [] })).status).toBe(200)
    }
  })
})

describe("GET /transactions", () => {
  let customer: Onboarded
  let payee: string
  let completedId: string
  let pendingId: string
  beforeAll(async () => {
    customer = await onboard()
    await fund(customer.accounts.USD!, 10_000)
    payee = await usPayee(customer.id)
    const done = await server.call(
      "POST",
      "/quotes",
      quoteBody(customer.accounts.USD!, payee, 1_000, { immediatelyExecute: true })
    )
    completedId = done.json.transactionId
    await server.processDue()
    const waiting = await server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, payee, 500))
    pendingId = waiting.json.transactionId
  })

  it("Q-43: filters by customerId, status and type", async () => {
    const all = await server.call("GET", `/transactions?customerId=${customer.id}`)
    expect(all.status).toBe(200)
    expect(all.json.totalCount).toBe(3)
    expect(all.json.data.map((t: { id: string }) => t.id)).toEqual(expect.arrayContaining([completedId, pendingId]))
    for (const t of all.json.data) expect(t.customerId).toBe(customer.id)

    const incoming = await server.call("GET", `/transactions?customerId=${customer.id}&type=INCOMING`)
    expect(incoming.json.totalCount).toBe(1)
    expect(incoming.json.data[0]).toMatchObject({ type: "INCOMING", direction: "CREDIT", status: "COMPLETED" })

    const completedOutgoing = await server.call(
      "GET",
      `/transactions?customerId=${customer.id}&type=OUTGOING&status=COMPLETED`
    )
    expect(completedOutgoing.json.data.map((t: { id: string }) => t.id)).toEqual([completedId])

    const pending = await server.call("GET", `/transactions?customerId=${customer.id}&status=PENDING`)
    expect(pending.json.data.map((t: { id: string }) => t.id)).toEqual([pendingId])
  })

  it("Q-43: filters by reference, accountIdentifier and date range", async () => {
    const tx = await getTx(pendingId)
    const byReference = await server.call(
      "GET",
      `/transactions?reference=${encodeURIComponent(tx.reconciliationInstructions.reference)}`
    )
    expect(byReference.json.data.map((t: { id: string }) => t.id)).toEqual([pendingId])
    const byAccount = await server.call(
      "GET",
      `/transactions?accountIdentifier=${encodeURIComponent(customer.accounts.USD!)}`
    )
    expect(byAccount.json.totalCount).toBe(3)
    const future = await server.call("GET", `/transactions?customerId=${customer.id}&startDate=2999-01-01T00:00:00Z`)
    expect(future.json).toMatchObject({ data: [], totalCount: 0, hasMore: false })
    const past = await server.call("GET", `/transactions?customerId=${customer.id}&endDate=2000-01-01T00:00:00Z`)
    expect(past.json.totalCount).toBe(0)
    const asc = await server.call("GET", `/transactions?customerId=${customer.id}&sortOrder=asc`)
    const desc = await server.call("GET", `/transactions?customerId=${customer.id}&sortOrder=desc`)
    expect(asc.json.data.map((t: { id: string }) => t.id)).toEqual(
      [...desc.json.data.map((t: { id: string }) => t.id)].reverse()
    )
    expect(asc.json.data[0].type).toBe("INCOMING")
  })

  it("C-07 L-18: pages with limit and cursor; a foreign cursor or limit 0 → 400", async () => {
    const first = await server.call("GET", `/transactions?customerId=${customer.id}&limit=2`)
    expect(first.json).toMatchObject({ hasMore: true, totalCount: 3 })
    expect(first.json.data).toHaveLength(2)
    expect(first.json.nextCursor).toBeTypeOf("string")
    const second = await server.call(
      "GET",
      `/transactions?customerId=${customer.id}&limit=2&cursor=${encodeURIComponent(first.json.nextCursor)}`
    )
    expect(second.status).toBe(200)
    expect(second.json.hasMore).toBe(false)
    expect(second.json.data).toHaveLength(1)
    const ids = [...first.json.data, ...second.json.data].map((t: { id: string }) => t.id)
    expect(new Set(ids).size).toBe(3)
    expectError(await server.call("GET", "/transactions?cursor=bogus"), 400, "INVALID_INPUT")
    expectError(await server.call("GET", "/transactions?limit=0"), 400, "INVALID_INPUT")
    expectError(await server.call("GET", "/transactions?status=DONE"), 400, "INVALID_INPUT")
  })

  it("Q-44 C-19: GET /transactions/{id}; unknown → 404 TRANSACTION_NOT_FOUND", async () => {
    const tx = await getTx(completedId)
    expect(tx.id).toBe(completedId)
    expectError(await server.call("GET", `/transactions/Transaction:${UNKNOWN_UUID}`), 404, "TRANSACTION_NOT_FOUND")
  })
})

describe("Settlement and failures (sandbox suffixes)", () => {
  let customer: Onboarded
  const START = 1_000_000
  beforeAll(async () => {
    customer = await onboard()
    await fund(customer.accounts.USD!, START)
  })

  const pay = async (accountNumber: string, amount = 1_000) => {
    const payee = await usPayee(customer.id, accountNumber)
    const quote = await server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, payee, amount))
    expect(quote.status).toBe(201)
    const executed = await server.call("POST", `/quotes/${quote.json.id}/execute`)
    expect(executed.status).toBe(200)
    await server.processDue()
    return { quote: quote.json, tx: await getTx(quote.json.transactionId) }
  }

  it("Q-29: a payout settles → COMPLETED with settledAt; the quote follows; the debit stays", async () => {
    const before = await balanceOf(customer.id, customer.accounts.USD!)
    const { quote, tx } = await pay("123456789", 2_000)
    expect(tx.status).toBe("COMPLETED")
    expect(Date.parse(tx.settledAt)).not.toBeNaN()
    // no rail named; the sandbox selects the payee's fastest (RTP of ACH, WIRE, RTP, FEDNOW: issue 32 item 2).
    expect(tx.paymentRail).toBe("RTP")
    expect(tx.railSelectionMode).toBe("AUTO")
    expect(tx.failureReason).toBeUndefined()
    expect((await server.call("GET", `/quotes/${quote.id}`)).json.status).toBe("COMPLETED")
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(before - 2_000)
  })

  const failures: ReadonlyArray<[string, string]> = [
    ["002", "QUOTE_EXECUTION_FAILED"],
    ["004", "ACCOUNT_CANNOT_RECEIVE"],
    ["006", "ACCOUNT_INVALID"],
    ["008", "LIMIT_EXCEEDED"],
    ["009", "COMPLIANCE_REJECTED"]
  ]
  for (const [suffix, reason] of failures) {
    it(`Q-30 Q-35 Q-39 SB-06: suffix ${suffix} → FAILED ${reason}, refund COMPLETED, balance restored`, async () => {
      const before = await balanceOf(customer.id, customer.accounts.USD!)
      const { quote, tx } = await pay(`4000123${suffix}`)
      expect(tx.status).toBe("FAILED")
      expect(tx.failureReason).toBe(reason)
      expect(tx.refund).toMatchObject({
        status: "COMPLETED",
        reason: "TRANSACTION_FAILED",
        reference: `${tx.id}:refund`
      })
      expect(Date.parse(tx.refund.settledAt)).not.toBeNaN()
      expect((await server.call("GET", `/quotes/${quote.id}`)).json.status).toBe("FAILED")
      expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(before)
    })
  }

  it("SB-06: suffix 007 → FAILED QUOTE_EXECUTION_FAILED with refund FAILED; the money is not given back", async () => {
    const before = await balanceOf(customer.id, customer.accounts.USD!)
    const { tx } = await pay("4000123007")
    expect(tx.status).toBe("FAILED")
    expect(tx.failureReason).toBe("QUOTE_EXECUTION_FAILED")
    expect(tx.refund).toMatchObject({ status: "FAILED", reason: "TRANSACTION_FAILED" })
    expect(tx.refund.settledAt).toBeUndefined()
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(before - 1_000)
  })

  it("SB-06 WH-07: suffix 005 → returned after completing: FAILED PAYOUT_RETURNED, refunded, balance restored", async () => {
    const before = await balanceOf(customer.id, customer.accounts.USD!)
    const { tx } = await pay("4000123005")
    expect(tx.status).toBe("FAILED")
    expect(tx.failureReason).toBe("PAYOUT_RETURNED")
    expect(Date.parse(tx.settledAt)).not.toBeNaN()
    expect(tx.refund).toMatchObject({ status: "COMPLETED", reason: "TRANSACTION_FAILED" })
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(before)
  })

  const payMx = async (clabe: string) => {
    const created = await server.call("POST", "/customers/external-accounts", {
      customerId: customer.id,
      currency: "MXN",
      accountInfo: {
        accountType: "CLABE",
        clabeNumber: clabe,
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Frida Kahlo" }
      }
    })
    expect(created.status).toBe(201)
    const quote = await server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, created.json.id, 10_000))
    expect(quote.json.feesIncluded).toBeGreaterThan(0)
    expect((await server.call("POST", `/quotes/${quote.json.id}/execute`)).status).toBe(200)
    await server.processDue()
    return getTx(quote.json.transactionId)
  }

  it("Q-36 SB-05: a failed USD→MXN payout (CLABE …004) refunds the whole sending amount, fees included", async () => {
    const before = await balanceOf(customer.id, customer.accounts.USD!)
    const tx = await payMx("002010077777774004")
    expect(tx).toMatchObject({
      status: "FAILED",
      failureReason: "ACCOUNT_CANNOT_RECEIVE",
      refund: { status: "COMPLETED" }
    })
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(before)
  })

  it("Q-36 SB-05: a returned USD→MXN payout (CLABE …005) gives the whole sending amount back, fees included", async () => {
    const before = await balanceOf(customer.id, customer.accounts.USD!)
    const tx = await payMx("002010077777773005")
    expect(tx).toMatchObject({ status: "FAILED", failureReason: "PAYOUT_RETURNED", refund: { status: "COMPLETED" } })
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(before)
  })

  it("SB-09: $fail.compliance.usd@sandbox.uma.money → FAILED COMPLIANCE_REJECTED, refunded", async () => {
    const before = await balanceOf(customer.id, customer.accounts.USD!)
    const quote = await server.call("POST", "/quotes", {
      lookupId: await lookupUma(server, "$fail.compliance.usd@sandbox.uma.money"),
      source: { sourceType: "ACCOUNT", accountId: customer.accounts.USD! },
      destination: { destinationType: "UMA_ADDRESS", umaAddress: "$fail.compliance.usd@sandbox.uma.money" },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 700,
      immediatelyExecute: true
    })
    expect(quote.status).toBe(201)
    await server.processDue()
    const tx = await getTx(quote.json.transactionId)
    expect(tx).toMatchObject({
      status: "FAILED",
      failureReason: "COMPLIANCE_REJECTED",
      refund: { status: "COMPLETED" }
    })
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(before)
  })
})

describe("Receiver lookups", () => {
  let customer: Onboarded
  let mx: string
  beforeAll(async () => {
    customer = await onboard()
    mx = await mxPayee(customer.id)
  })

  it("Q-46: GET /receiver/external-account/{id} → the account's currency with an estimated rate", async () => {
    const lookup = await server.call("GET", `/receiver/external-account/${mx}`)
    expect(lookup.status).toBe(200)
    expect(lookup.json.accountId).toBe(mx)
    expect(lookup.json.lookupId).toMatch(/^Lookup:[0-9a-f-]{36}$/)
    expect(lookup.json.supportedCurrencies).toEqual([
      expect.objectContaining({ currency: expect.objectContaining({ code: "MXN" }), estimatedExchangeRate: 17.25 })
    ])
    expect(lookup.json.requiredPayerDataFields).toEqual([])
    const unknown = await server.call("GET", `/receiver/external-account/ExternalAccount:${UNKNOWN_UUID}`)
    expectError(unknown, 404, "REFERENCE_NOT_FOUND")
  })

  it("Q-47 C-27: GET /receiver/uma/{addr} → currencies with min/max; unknown → 404 UMA_NOT_FOUND", async () => {
    const lookup = await server.call(
      "GET",
      `/receiver/uma/${encodeURIComponent("$success.mxn@sandbox.uma.money")}?customerId=${customer.id}`
    )
    expect(lookup.status).toBe(200)
    expect(lookup.json.receiverUmaAddress).toBe("$success.mxn@sandbox.uma.money")
    expect(lookup.json.supportedCurrencies).toEqual([
      { currency: expect.objectContaining({ code: "MXN" }), estimatedExchangeRate: 17.25, min: 1, max: 100_000_000 }
    ])
    const unknown = await server.call("GET", `/receiver/uma/${encodeURIComponent("$nobody@sandbox.uma.money")}`)
    expectError(unknown, 404, "UMA_NOT_FOUND")
  })
})

describe("Deprecated transfers", () => {
  let customer: Onboarded
  let payee: string
  let mx: string
  beforeAll(async () => {
    customer = await onboard(["USD", "MXN"])
    await fund(customer.accounts.USD!, 10_000)
    payee = await usPayee(customer.id)
    mx = await mxPayee(customer.id)
  })

  it("Q-50 Q-51: POST /transfer-out → 201 an OUTGOING transaction that settles", async () => {
    const out = await server.call("POST", "/transfer-out", {
      source: { accountId: customer.accounts.USD! },
      destination: { accountId: payee },
      amount: 1_500,
      remittanceInformation: "invoice 42"
    })
    expect(out.status).toBe(201)
    expect(out.json).toMatchObject({
      type: "OUTGOING",
      direction: "DEBIT",
      status: "PROCESSING",
      sentAmount: { amount: 1_500, currency: { code: "USD" } },
      receivedAmount: { amount: 1_500, currency: { code: "USD" } },
      remittanceInformation: "invoice 42"
    })
    expect(out.json.id).toMatch(/^Transaction:/)
    expect(out.json.quoteId).toMatch(/^Quote:/)
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(8_500)
    await server.processDue()
    expect((await getTx(out.json.id)).status).toBe("COMPLETED")
  })

  it("Q-50: transfer-out is same-currency only → 400", async () => {
    const out = await server.call("POST", "/transfer-out", {
      source: { accountId: customer.accounts.USD! },
      destination: { accountId: mx },
      amount: 100
    })
    expectError(out, 400, "INVALID_INPUT")
    expect(out.json.details.errors[0].field).toBe("destination.accountId")
  })

  it("Q-49: POST /transfer-in → 201 an INCOMING transaction that completes and credits the account", async () => {
    const before = await balanceOf(customer.id, customer.accounts.USD!)
    const pulled = await pullInto(customer, payee, 2_000)
    expect(pulled.status).toBe(201)
    expect(pulled.json).toMatchObject({
      type: "INCOMING",
      direction: "CREDIT",
      customerId: customer.id,
      sentAmount: { amount: 2_000 },
      receivedAmount: { amount: 2_000 },
      source: { accountId: payee },
      destination: { accountId: customer.accounts.USD! }
    })
    expect(pulled.json.status).toBe("PENDING")
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(before)
    await server.processDue()
    const tx = await getTx(pulled.json.id)
    expect(tx.status).toBe("COMPLETED")
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(before + 2_000)
  })

  it("Q-49 SB-07: a transfer-in whose pull fails (…004) → FAILED COLLECTION_FAILED, nothing credited", async () => {
    const failing = await usPayee(customer.id, "5550001004")
    const before = await balanceOf(customer.id, customer.accounts.USD!)
    const pulled = await pullInto(customer, failing, 3_000)
    expect(pulled.status).toBe(201)
    await server.processDue()
    const tx = await getTx(pulled.json.id)
    expect(tx.status).toBe("FAILED")
    // An incoming payment reports the upstream's incoming reason, not the payout reason the rail gave.
    expect(tx.failureReason).toBe("COLLECTION_FAILED")
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(before)
  })

  it.each([
    ["002", "insufficient funds"],
    ["003", "account closed or invalid"]
  ])("SB-07: a transfer-in from an account ending %s (%s) fails at once, nothing credited", async (suffix) => {
    const failing = await usPayee(customer.id, `5550001${suffix}`)
    const before = await balanceOf(customer.id, customer.accounts.USD!)
    const pulled = await pullInto(customer, failing, 3_000)
    expect(pulled.status).toBe(201)
    expect(pulled.json).toMatchObject({ status: "FAILED", failureReason: "COLLECTION_FAILED" })
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(before)
  })

  it("SB-07: a transfer-in from an account ending 005 stays pending, then fails, nothing credited", async () => {
    const slow = await usPayee(customer.id, "5550001005")
    const before = await balanceOf(customer.id, customer.accounts.USD!)
    const pulled = await pullInto(customer, slow, 3_000)
    expect(pulled.json.status).toBe("PENDING")
    await server.processDue()
    expect(await getTx(pulled.json.id)).toMatchObject({ status: "FAILED", failureReason: "COLLECTION_FAILED" })
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(before)
  })

  it("SB-07: a transfer-out to an account ending 002 fails at once and the money comes back; a quote to it is the payout table's (002 fails at settlement)", async () => {
    const poor = await usPayee(customer.id, "5550002002")
    const before = await balanceOf(customer.id, customer.accounts.USD!)
    const out = await server.call("POST", "/transfer-out", {
      source: { accountId: customer.accounts.USD! },
      destination: { accountId: poor },
      amount: 500
    })
    expect(out.status).toBe(201)
    const failed = await getTx(out.json.id)
    expect(failed).toMatchObject({ status: "FAILED", failureReason: "QUOTE_EXECUTION_FAILED" })
    expect(await balanceOf(customer.id, customer.accounts.USD!)).toBe(before)
    const quoted = await server.call(
      "POST",
      "/quotes",
      quoteBody(customer.accounts.USD!, poor, 500, { immediatelyExecute: true })
    )
    expect(quoted.status, JSON.stringify(quoted.json)).toBe(201)
    expect((await getTx(quoted.json.transactionId)).status).toBe("PROCESSING")
    await server.processDue()
    expect(await getTx(quoted.json.transactionId)).toMatchObject({
      status: "FAILED",
      failureReason: "QUOTE_EXECUTION_FAILED"
    })
  })

  it("Q-49: transfer-in from an account that cannot be pulled (CLABE) → 400", async () => {
    const pulled = await server.call("POST", "/transfer-in", {
      source: { accountId: mx },
      destination: { accountId: customer.accounts.MXN! },
      amount: 100
    })
    expectError(pulled, 400, "INVALID_INPUT")
    expect(pulled.json.details.errors[0].field).toBe("source.accountId")
  })
})
