import { beforeAll, describe, expect, it } from "vitest"
import { addMxPayee, balanceIn, expectError, onboardCustomer, useTestServer } from "./harness.ts"

// The sandbox group over the real server: funding, paying a real-time-funded quote, receiving an UMA payment,
// and the refusal of production tokens.

const server = useTestServer(async (server) => {
  const configured = await server.call("PATCH", "/config", { webhookEndpoint: "https://platform.example/hooks" })
  expect(configured.status).toBe(200)
})

const UNKNOWN_UUID = "00000000-0000-4000-8000-000000000000"

const onboard = (currencies: ReadonlyArray<string> = ["USD"]) => onboardCustomer(server, { currencies })

const balanceOf = (customerId: string, currency = "USD") => balanceIn(server, customerId, currency)

const eventsFor = (subject: string) =>
  server.webhooks.events().filter((e) => (e.data as { id?: string } | undefined)?.id === subject)

describe("POST /sandbox/internal-accounts/{id}/fund", () => {
  it("SB-01 WH-18: funding grows the balance and emits INCOMING_PAYMENT.COMPLETED after dispatch", async () => {
    const customer = await onboard()
    const account = customer.accounts.USD!
    const first = await server.call("POST", `/sandbox/internal-accounts/${account}/fund`, { amount: 12_345 })
    expect(first.status).toBe(200)
    expect(first.json).toMatchObject({
      id: account,
      customerId: customer.id,
      balance: { amount: 12_345, currency: { code: "USD" } }
    })
    const second = await server.call("POST", `/sandbox/internal-accounts/${account}/fund`, { amount: 655 })
    expect(second.json.balance.amount).toBe(13_000)
    expect(await balanceOf(customer.id)).toBe(13_000)

    const incoming = await server.call("GET", `/transactions?customerId=${customer.id}&type=INCOMING`)
    expect(incoming.json.totalCount).toBe(2)
    const tx = incoming.json.data.find((t: { sentAmount: { amount: number } }) => t.sentAmount.amount === 12_345)
    expect(tx).toMatchObject({
      status: "COMPLETED",
      type: "INCOMING",
      direction: "CREDIT",
      destination: { accountId: account },
      receivedAmount: { amount: 12_345 }
    })
    expect(Date.parse(tx.settledAt)).not.toBeNaN()

    await server.dispatch()
    const events = eventsFor(tx.id)
    expect(events.map((e) => e.type)).toEqual(["INCOMING_PAYMENT.COMPLETED"])
    expect(events[0]!.data).toMatchObject({ id: tx.id, status: "COMPLETED", receivedAmount: { amount: 12_345 } })
    expect(server.webhooks.requests().every((r) => r.url === "https://platform.example/hooks")).toBe(true)
  })

  it("SB-01 L-20: amount 0, above 100 000 000 000 or fractional → 400 on amount, balance unchanged", async () => {
    const customer = await onboard()
    const account = customer.accounts.USD!
    for (const amount of [0, 100_000_000_001, 1.5, -5]) {
      const refused = await server.call("POST", `/sandbox/internal-accounts/${account}/fund`, { amount })
      expectError(refused, 400, "INVALID_INPUT")
      expect(refused.json.details.errors.map((e: { field: string }) => e.field)).toEqual(["amount"])
    }
    const max = await server.call("POST", `/sandbox/internal-accounts/${account}/fund`, { amount: 100_000_000_000 })
    expect(max.status).toBe(200)
    expect(await balanceOf(customer.id)).toBe(100_000_000_000)
  })

  it("SB-01: an unknown account → 404; a malformed id → 400", async () => {
    const unknown = await server.call("POST", `/sandbox/internal-accounts/InternalAccount:${UNKNOWN_UUID}/fund`, {
      amount: 100
    })
    expectError(unknown, 404, "REFERENCE_NOT_FOUND")
    const malformed = await server.call("POST", "/sandbox/internal-accounts/acct-1/fund", { amount: 100 })
    expectError(malformed, 400, "INVALID_INPUT")
    expect(malformed.json.details.errors[0].field).toBe("path.accountId")
  })
})

describe("POST /sandbox/send", () => {
  let customer: Awaited<ReturnType<typeof onboard>>
  let payee: string
  beforeAll(async () => {
    customer = await onboard()
    payee = await addMxPayee(server, customer.id)
  })

  const fundedQuote = async (amount = 5_000) => {
    const quote = await server.call("POST", "/quotes", {
      source: { sourceType: "REALTIME_FUNDING", currency: "USD", customerId: customer.id },
      destination: { destinationType: "ACCOUNT", accountId: payee },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: amount
    })
    expect(quote.status).toBe(201)
    return quote.json
  }

  it("SB-03 Q-22: the deposit for a real-time-funded quote executes it; the payout then settles", async () => {
    const quote = await fundedQuote()
    const sent = await server.call("POST", "/sandbox/send", { quoteId: quote.id, currencyCode: "USD" })
    expect(sent.status).toBe(200)
    expect(sent.json).toMatchObject({
      id: quote.transactionId,
      type: "OUTGOING",
      status: "PROCESSING",
      quoteId: quote.id,
      sentAmount: { amount: 5_000, currency: { code: "USD" } },
      receivedAmount: { amount: quote.totalReceivingAmount, currency: { code: "MXN" } }
    })
    expect((await server.call("GET", `/quotes/${quote.id}`)).json.status).toBe("PROCESSING")
    await server.processDue()
    const tx = await server.call("GET", `/transactions/${quote.transactionId}`)
    expect(tx.json.status).toBe("COMPLETED")
    expect((await server.call("GET", `/quotes/${quote.id}`)).json.status).toBe("COMPLETED")
    // Paid once: a second deposit for the same quote is refused.
    const again = await server.call("POST", "/sandbox/send", { quoteId: quote.id, currencyCode: "USD" })
    expectError(again, 409, "QUOTE_ALREADY_EXECUTED")
  })

  it("SB-03: the exact currencyAmount is accepted; another amount or currency → 400, the quote stays PENDING", async () => {
    const quote = await fundedQuote(2_000)
    const wrongAmount = await server.call("POST", "/sandbox/send", {
      quoteId: quote.id,
      currencyCode: "USD",
      currencyAmount: 1_999
    })
    expectError(wrongAmount, 400, "INVALID_INPUT")
    expect(wrongAmount.json.details.errors[0].field).toBe("currencyAmount")
    const wrongCurrency = await server.call("POST", "/sandbox/send", { quoteId: quote.id, currencyCode: "EUR" })
    expectError(wrongCurrency, 400, "INVALID_INPUT")
    expect(wrongCurrency.json.details.errors[0].field).toBe("currencyCode")
    expect((await server.call("GET", `/quotes/${quote.id}`)).json.status).toBe("PENDING")
    const exact = await server.call("POST", "/sandbox/send", {
      quoteId: quote.id,
      currencyCode: "USD",
      currencyAmount: 2_000
    })
    expect(exact.status).toBe(200)
    expect(exact.json.status).toBe("PROCESSING")
  })

  it("SB-03: an account-funded quote → 400; an unknown quote → 404 QUOTE_NOT_FOUND", async () => {
    const quote = await server.call("POST", "/quotes", {
      source: { sourceType: "ACCOUNT", accountId: customer.accounts.USD! },
      destination: { destinationType: "ACCOUNT", accountId: payee },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 100
    })
    expect(quote.status).toBe(201)
    const refused = await server.call("POST", "/sandbox/send", { quoteId: quote.json.id, currencyCode: "USD" })
    expectError(refused, 400, "INVALID_INPUT")
    expect(refused.json.details.errors[0].field).toBe("quoteId")
    const unknown = await server.call("POST", "/sandbox/send", {
      quoteId: `Quote:${UNKNOWN_UUID}`,
      currencyCode: "USD"
    })
    expectError(unknown, 404, "QUOTE_NOT_FOUND")
  })

  it("C-11: several invalid fields → 400 listing all", async () => {
    const refused = await server.call("POST", "/sandbox/send", {
      quoteId: "q",
      currencyCode: "DOLLARS",
      currencyAmount: 0
    })
    expectError(refused, 400, "INVALID_INPUT")
    expect(refused.json.details.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      "currencyAmount",
      "currencyCode",
      "quoteId"
    ])
  })
})

describe("POST /sandbox/uma/receive", () => {
  it("SB-04: an UMA payment to the customer's UMA address credits their account (INCOMING, COMPLETED)", async () => {
    const customer = await onboard(["USD", "MXN"])
    const received = await server.call("POST", "/sandbox/uma/receive", {
      senderUmaAddress: "$alice@aurorapay.example",
      receiverUmaAddress: customer.umaAddress,
      receivingCurrencyCode: "MXN",
      receivingCurrencyAmount: 50_000
    })
    expect(received.status).toBe(200)
    expect(received.json).toMatchObject({
      type: "INCOMING",
      direction: "CREDIT",
      status: "COMPLETED",
      customerId: customer.id,
      source: { sourceType: "UMA_ADDRESS", umaAddress: "$alice@aurorapay.example" },
      destination: { accountId: customer.accounts.MXN },
      receivedAmount: { amount: 50_000, currency: { code: "MXN" } }
    })
    expect(await balanceOf(customer.id, "MXN")).toBe(50_000)
    expect(await balanceOf(customer.id, "USD")).toBe(0)
    await server.dispatch()
    expect(eventsFor(received.json.id).map((e) => e.type)).toEqual(["INCOMING_PAYMENT.COMPLETED"])
  })

  it("SB-04: by customerId; a currency without an account → 400; unknown receivers → 404", async () => {
    const customer = await onboard()
    const byId = await server.call("POST", "/sandbox/uma/receive", {
      senderUmaAddress: "$alice@aurorapay.example",
      customerId: customer.id,
      receivingCurrencyCode: "USD",
      receivingCurrencyAmount: 1_000
    })
    expect(byId.status).toBe(200)
    expect(await balanceOf(customer.id)).toBe(1_000)

    const noAccount = await server.call("POST", "/sandbox/uma/receive", {
      senderUmaAddress: "$alice@aurorapay.example",
      customerId: customer.id,
      receivingCurrencyCode: "EUR",
      receivingCurrencyAmount: 1_000
    })
    expectError(noAccount, 400, "INVALID_INPUT")
    expect(noAccount.json.details.errors[0].field).toBe("receivingCurrencyCode")

    const unknownAddress = await server.call("POST", "/sandbox/uma/receive", {
      senderUmaAddress: "$alice@aurorapay.example",
      receiverUmaAddress: "$nobody@sandbox.paycore.dev",
      receivingCurrencyCode: "USD",
      receivingCurrencyAmount: 1_000
    })
    expectError(unknownAddress, 404, "UMA_NOT_FOUND")
    const unknownCustomer = await server.call("POST", "/sandbox/uma/receive", {
      senderUmaAddress: "$alice@aurorapay.example",
      customerId: `Customer:${UNKNOWN_UUID}`,
      receivingCurrencyCode: "USD",
      receivingCurrencyAmount: 1_000
    })
    expectError(unknownCustomer, 404, "USER_NOT_FOUND")
    expect(await balanceOf(customer.id)).toBe(1_000)
  })
})

describe("Sandbox helpers: credentials", () => {
  it("SB-02: a PRODUCTION token is refused with 403 on every helper; nothing moves", async () => {
    const customer = await onboard()
    const production = await server.token(["VIEW", "TRANSACT", "MANAGE"], "PRODUCTION")
    const calls: Array<[string, unknown]> = [
      [`/sandbox/internal-accounts/${customer.accounts.USD}/fund`, { amount: 100 }],
      ["/sandbox/send", { quoteId: `Quote:${UNKNOWN_UUID}`, currencyCode: "USD" }],
      [
        "/sandbox/uma/receive",
        {
          senderUmaAddress: "$alice@aurorapay.example",
          customerId: customer.id,
          receivingCurrencyCode: "USD",
          receivingCurrencyAmount: 100
        }
      ],
      ["/sandbox/webhooks/test", undefined]
    ]
    for (const [path, body] of calls) {
      const refused = await server.call("POST", path, body, { auth: production })
      expect({ path, status: refused.status, code: refused.json.code }).toEqual({
        path,
        status: 403,
        code: "FORBIDDEN"
      })
    }
    expect(await balanceOf(customer.id)).toBe(0)
    // A production token may still read.
    expect(
      (await server.call("GET", `/transactions?customerId=${customer.id}`, undefined, { auth: production })).status
    ).toBe(200)
  })

  it("SB-02: a sandbox token without TRANSACT → 403; no credentials → 401", async () => {
    const customer = await onboard()
    const viewer = await server.token(["VIEW"])
    const path = `/sandbox/internal-accounts/${customer.accounts.USD}/fund`
    expectError(await server.call("POST", path, { amount: 100 }, { auth: viewer }), 403, "FORBIDDEN")
    for (const p of [path, "/sandbox/send", "/sandbox/uma/receive", "/sandbox/webhooks/test"]) {
      const anonymous = await server.call("POST", p, { amount: 100 }, { auth: null })
      expect({ p, status: anonymous.status, code: anonymous.json.code }).toEqual({
        p,
        status: 401,
        code: "UNAUTHORIZED"
      })
    }
    expect(await balanceOf(customer.id)).toBe(0)
  })
})
