/**
 * Crypto on every store: the withdrawal fee estimate (Q-45) with the sandbox's fee table (`@paycore/sandbox`
 * network-fees.ts) and the same fees charged by quotes to wallets (Q5); deposit networks per currency and their
 * instructions (Q-02, Q-22, AC-06, V-08); on-chain transfers on settled legs and the UMA settlement hash (Q-41,
 * Q-42, V-03); the VASP directory (`GET /vasps`, upstream-only; `vaspName` of wallet accounts).
 */
import { Store } from "@paycore/core"
import { SANDBOX_VASPS } from "@paycore/sandbox"
import { ledgerViolations } from "@paycore/testkit"
import { Effect } from "effect"
import { beforeAll, expect, it } from "vitest"
import {
  addUsPayee,
  expectInvalid,
  fundAccount,
  lookupUma,
  type Onboarded,
  onboardCustomer,
  type TestServer,
  useTestServer
} from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const SOLANA_ADDRESS = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
const EVM_ADDRESS = "0x742d35Cc6634C0532925a3b844Bc454e4438f44e"
const TRON_ADDRESS = "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8"
const BITCOIN_ADDRESS = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
const UNKNOWN_ACCOUNT = "InternalAccount:01234567-89ab-7def-8123-456789abcdef"

const suite = (stores: () => StoresUnderTest) => {
  const server: TestServer = useTestServer(async () => {}, stores())
  let customer: Onboarded

  beforeAll(async () => {
    customer = await onboardCustomer(server, { currencies: ["USD", "USDC", "USDT", "BTC"] })
  })

  const estimate = (body: Record<string, unknown>, auth?: { clientId: string; clientSecret: string }) =>
    server.call("POST", "/crypto/estimate-withdrawal-fee", body, auth === undefined ? {} : { auth })
  const withdrawal = (currency: string, cryptoNetwork: string, amount: number, destinationAddress: string) => ({
    internalAccountId: customer.accounts[currency],
    currency,
    cryptoNetwork,
    amount,
    destinationAddress
  })

  it("Q-45 every network's fees from the sandbox table: network fee in its asset, 10 bps application fee, net", async () => {
    const cases: ReadonlyArray<[string, string, number, string, Record<string, unknown>]> = [
      // networkFeeInCurrency 0.001 USDC = 1 000; 10 bps of 1 000 000 = 1 000
      [
        "USDC",
        "SOLANA",
        1_000_000,
        SOLANA_ADDRESS,
        { networkFee: 5_000, networkFeeAsset: "SOL", applicationFee: 1_000, totalFee: 2_000, netAmount: 998_000 }
      ],
      [
        "USDC",
        "ETHEREUM",
        10_000_000,
        EVM_ADDRESS,
        {
          networkFee: 500_000_000_000_000,
          networkFeeAsset: "ETH",
          applicationFee: 10_000,
          totalFee: 1_510_000,
          netAmount: 8_490_000
        }
      ],
      [
        "USDC",
        "BASE",
        1_000_000,
        EVM_ADDRESS,
        {
          networkFee: 20_000_000_000_000,
          networkFeeAsset: "ETH",
          applicationFee: 1_000,
          totalFee: 11_000,
          netAmount: 989_000
        }
      ],
      [
        "USDC",
        "POLYGON",
        1_000_000,
        EVM_ADDRESS,
        {
          networkFee: 10_000_000_000_000_000,
          networkFeeAsset: "POL",
          applicationFee: 1_000,
          totalFee: 11_000,
          netAmount: 989_000
        }
      ],
      [
        "USDT",
        "TRON",
        5_000_000,
        TRON_ADDRESS,
        {
          networkFee: 1_000_000,
          networkFeeAsset: "TRX",
          applicationFee: 5_000,
          totalFee: 1_005_000,
          netAmount: 3_995_000
        }
      ],
      [
        "USDT",
        "PLASMA",
        1_000_000,
        EVM_ADDRESS,
        { networkFee: 0, networkFeeAsset: "XPL", applicationFee: 1_000, totalFee: 1_000, netAmount: 999_000 }
      ],
      [
        "BTC",
        "BITCOIN",
        100_000,
        BITCOIN_ADDRESS,
        { networkFee: 2_000, networkFeeAsset: "BTC", applicationFee: 100, totalFee: 2_100, netAmount: 97_900 }
      ],
      [
        "BTC",
        "LIGHTNING",
        10_000,
        "ada@wallet.example",
        { networkFee: 1, networkFeeAsset: "BTC", applicationFee: 10, totalFee: 11, netAmount: 9_989 }
      ]
    ]
    for (const [currency, network, amount, address, expected] of cases) {
      const r = await estimate(withdrawal(currency, network, amount, address))
      expect({ network, status: r.status, body: r.json }).toEqual({ network, status: 200, body: expected })
    }
  })

  it("Q-45 the application fee rounds down; a VIEW token may ask (a computation that changes nothing)", async () => {
    const viewer = await server.token(["VIEW"])
    const r = await estimate(withdrawal("USDC", "SOLANA", 1_999, SOLANA_ADDRESS), viewer)
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({ applicationFee: 1, totalFee: 1_001, netAmount: 998 })
    const transactions = await server.call("GET", `/transactions?customerId=${customer.id}`)
    expect(transactions.json.data).toEqual([])
  })

  it("Q-45 400 INVALID_INPUT on the body: missing fields, amount 0, an unknown network or currency", async () => {
    expectInvalid(await estimate({ currency: "USDC", cryptoNetwork: "SOLANA", amount: 1 }), [
      "internalAccountId",
      "destinationAddress"
    ])
    expectInvalid(await estimate(withdrawal("USDC", "SOLANA", 0, SOLANA_ADDRESS)), ["amount"])
    expectInvalid(await estimate(withdrawal("USDC", "DOGE", 1_000, SOLANA_ADDRESS)), ["cryptoNetwork"])
    expectInvalid(await estimate({ ...withdrawal("USDC", "SOLANA", 1_000, SOLANA_ADDRESS), currency: "XYZ" }), [
      "currency"
    ])
    expectInvalid(await estimate(withdrawal("USDC", "SOLANA", 1_000, "")), ["destinationAddress"])
  })

  it("Q-45 404 NOT_FOUND for an unknown internal account", async () => {
    const r = await estimate({
      ...withdrawal("USDC", "SOLANA", 1_000, SOLANA_ADDRESS),
      internalAccountId: UNKNOWN_ACCOUNT
    })
    expect(r.status).toBe(404)
    expect(r.json.code).toBe("REFERENCE_NOT_FOUND")
  })

  it("Q-45 400 in check order: the account's currency, a crypto account, the currency's networks, the address", async () => {
    const otherCurrency = await estimate({ ...withdrawal("USDC", "SOLANA", 1_000, SOLANA_ADDRESS), currency: "USDT" })
    expectInvalid(otherCurrency, ["currency"])
    expect(otherCurrency.json.details.errors[0].constraint).toEqual({ enum: ["USDC"] })

    const fiat = await estimate(withdrawal("USD", "SOLANA", 1_000, SOLANA_ADDRESS))
    expectInvalid(fiat, ["internalAccountId"])
    expect(fiat.json.details.errors[0].constraint).toEqual({ accountType: ["INTERNAL_CRYPTO", "EMBEDDED_WALLET"] })

    const wrongNetwork = await estimate(withdrawal("USDC", "TRON", 1_000, TRON_ADDRESS))
    expectInvalid(wrongNetwork, ["cryptoNetwork"])
    expect(wrongNetwork.json.details.errors[0].constraint).toEqual({ enum: ["SOLANA", "ETHEREUM", "BASE", "POLYGON"] })
    const btcOnEthereum = await estimate(withdrawal("BTC", "ETHEREUM", 100_000, EVM_ADDRESS))
    expect(btcOnEthereum.json.details.errors[0].constraint).toEqual({ enum: ["LIGHTNING", "BITCOIN"] })

    for (const [currency, network, address] of [
      ["USDC", "ETHEREUM", SOLANA_ADDRESS],
      ["USDC", "SOLANA", EVM_ADDRESS],
      ["USDT", "TRON", EVM_ADDRESS],
      ["BTC", "BITCOIN", TRON_ADDRESS],
      ["BTC", "LIGHTNING", BITCOIN_ADDRESS]
    ] as const) {
      const r = await estimate(withdrawal(currency, network, 100_000, address))
      expectInvalid(r, ["destinationAddress"])
      expect(r.json.details.errors[0].constraint).toMatchObject({ network })
    }
  })

  it("Q-45 400 AMOUNT_OUT_OF_RANGE when the fees take the whole amount; one more than the fees nets 1", async () => {
    // ETHEREUM: 1 500 000 network fee + 10 bps of 1 500 000 (1 500) = 1 501 500 ≥ the amount.
    const r = await estimate(withdrawal("USDC", "ETHEREUM", 1_500_000, EVM_ADDRESS))
    expect(r.status).toBe(400)
    expect(r.json.code).toBe("AMOUNT_OUT_OF_RANGE")
    expect(r.json.details).toEqual({ amount: 1_500_000, currency: "USDC", min: 1_501_501, totalFee: 1_501_500 })
    // LIGHTNING: 1 sat network fee, 0 application fee below 1 000 sat.
    const one = await estimate(withdrawal("BTC", "LIGHTNING", 1, "ada@wallet.example"))
    expect(one.json.code).toBe("AMOUNT_OUT_OF_RANGE")
    const two = await estimate(withdrawal("BTC", "LIGHTNING", 2, "ada@wallet.example"))
    expect(two.json).toMatchObject({ totalFee: 1, netAmount: 1 })
  })

  // ---- deposits: networks per currency and their instructions ----

  const realtimeQuote = (currency: string, cryptoNetwork: string | undefined, destination: string, amount: number) =>
    server.call("POST", "/quotes", {
      source: {
        sourceType: "REALTIME_FUNDING",
        currency,
        customerId: customer.id,
        ...(cryptoNetwork === undefined ? {} : { cryptoNetwork })
      },
      destination: { destinationType: "ACCOUNT", accountId: destination },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: amount
    })
  const getTx = async (id: string) => {
    const r = await server.call("GET", `/transactions/${id}`)
    expect(r.status).toBe(200)
    return r.json
  }
  let usPayee: string
  beforeAll(async () => {
    usPayee = await addUsPayee(server, customer.id)
  })

  it("Q-02 V-08 a deposit's cryptoNetwork must be one of its currency's: USDT on SOLANA → 400 with the allowed enum", async () => {
    const usdtOnSolana = await realtimeQuote("USDT", "SOLANA", usPayee, 1_000_000)
    expectInvalid(usdtOnSolana, ["source.cryptoNetwork"])
    expect(usdtOnSolana.json.details.errors[0].constraint).toEqual({ enum: ["TRON", "ETHEREUM", "PLASMA"] })
    const usdcOnTron = await realtimeQuote("USDC", "TRON", usPayee, 1_000_000)
    expect(usdcOnTron.json.details.errors[0].constraint).toEqual({ enum: ["SOLANA", "ETHEREUM", "BASE", "POLYGON"] })
    const btcOnBase = await realtimeQuote("BTC", "BASE", usPayee, 100_000)
    expect(btcOnBase.json.details.errors[0].constraint).toEqual({ enum: ["LIGHTNING", "BITCOIN"] })
    // A bank deposit moves on no network.
    const usdOnSolana = await realtimeQuote("USD", "SOLANA", usPayee, 1_000)
    expectInvalid(usdOnSolana, ["source.cryptoNetwork"])
    expect(usdOnSolana.json.details.errors[0].constraint).toEqual({ enum: [] })
  })

  it("AC-06 Q-22 USDT on PLASMA is deposited to a PLASMA_WALLET; on TRON and ETHEREUM to their wallets", async () => {
    const plasma = await realtimeQuote("USDT", "PLASMA", usPayee, 1_000_000)
    expect(plasma.status).toBe(201)
    expect(plasma.json.paymentInstructions).toHaveLength(1)
    const info = plasma.json.paymentInstructions[0].accountOrWalletInfo
    expect(info).toEqual({ accountType: "PLASMA_WALLET", assetType: "USDT", address: expect.any(String) })
    expect(info.address).toMatch(/^0x[0-9a-fA-F]{40}$/)
    for (const [network, accountType] of [
      ["TRON", "TRON_WALLET"],
      ["ETHEREUM", "ETHEREUM_WALLET"]
    ]) {
      const q = await realtimeQuote("USDT", network, usPayee, 1_000_000)
      expect(q.json.paymentInstructions[0].accountOrWalletInfo).toMatchObject({ accountType, assetType: "USDT" })
    }
  })

  it("AC-06 Q-22 BTC on BITCOIN is deposited to a BITCOIN_L1 address; BTC without a network pays a Lightning invoice", async () => {
    const l1 = await realtimeQuote("BTC", "BITCOIN", usPayee, 100_000)
    expect(l1.status).toBe(201)
    const info = l1.json.paymentInstructions[0].accountOrWalletInfo
    expect(info).toEqual({ accountType: "BITCOIN_L1", address: expect.any(String), network: "BITCOIN" })
    expect(info.address).toMatch(/^bc1[02-9ac-hj-np-z]{8,87}$/)
    for (const network of [undefined, "LIGHTNING"]) {
      const lightning = await realtimeQuote("BTC", network, usPayee, 100_000)
      expect(lightning.json.paymentInstructions[0].accountOrWalletInfo.accountType).toBe("LIGHTNING")
    }
  })

  // ---- on-chain transfers on settled legs ----

  const addWallet = async (currency: string, accountType: string, address: string) => {
    const created = await server.call("POST", "/customers/external-accounts", {
      customerId: customer.id,
      currency,
      accountInfo: { accountType, address }
    })
    expect(created.status, JSON.stringify(created.json)).toBe(201)
    return created.json.id as string
  }
  const payFromAccount = async (currency: string, destination: string, amount: number) => {
    const quote = await server.call("POST", "/quotes", {
      source: { sourceType: "ACCOUNT", accountId: customer.accounts[currency] },
      destination: { destinationType: "ACCOUNT", accountId: destination },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: amount
    })
    expect(quote.status, JSON.stringify(quote.json)).toBe(201)
    const executed = await server.call("POST", `/quotes/${quote.json.id}/execute`)
    expect(executed.status, JSON.stringify(executed.json)).toBe(200)
    return quote.json
  }
  const noViolations = async () =>
    expect(
      await Effect.runPromise(ledgerViolations.pipe(Effect.provideService(Store, server.store), Effect.orDie))
    ).toEqual([])

  it("Q-41 V-03 a settled USDC payout to a wallet carries destination.onChainTransaction in the network's format, not before settlement", async () => {
    await fundAccount(server, customer.accounts.USDC!, 10_000_000)
    const cases = [
      ["SOLANA_WALLET", SOLANA_ADDRESS, "SOLANA", /^[1-9A-HJ-NP-Za-km-z]{86,88}$/],
      ["BASE_WALLET", EVM_ADDRESS, "BASE", /^0x[0-9a-f]{64}$/]
    ] as const
    for (const [accountType, address, network, format] of cases) {
      const wallet = await addWallet("USDC", accountType, address)
      const quote = await payFromAccount("USDC", wallet, 1_000_000)
      const before = await getTx(quote.transactionId)
      expect(before.status).toBe("PROCESSING")
      expect(before.destination.onChainTransaction).toBeUndefined()
      await server.processDue()
      const after = await getTx(quote.transactionId)
      expect(after.status).toBe("COMPLETED")
      expect(after.destination).toMatchObject({ accountId: wallet, paymentRail: network })
      expect(after.destination.onChainTransaction).toEqual({ transactionHash: expect.any(String), network })
      expect(after.destination.onChainTransaction.transactionHash).toMatch(format)
      expect(after.source.onChainTransaction).toBeUndefined()
      // V-03: a wallet transfer's hash is never in the deprecated reconciliation field.
      expect(after.reconciliationInstructions).toEqual({ reference: expect.any(String) })
    }
    await noViolations()
  })

  it("Q-41 /sandbox/send of a REALTIME USDC or Bitcoin L1 quote: source.onChainTransaction; Lightning and bank deposits none", async () => {
    const cases = [
      ["USDC", "BASE", 1_000_000, { network: "BASE", format: /^0x[0-9a-f]{64}$/ }],
      ["USDT", "TRON", 1_000_000, { network: "TRON", format: /^[0-9a-f]{64}$/ }],
      ["BTC", "BITCOIN", 100_000, { network: "BITCOIN", format: /^[0-9a-f]{64}$/ }],
      ["BTC", "LIGHTNING", 100_000, undefined],
      ["USD", undefined, 5_000, undefined]
    ] as const
    for (const [currency, cryptoNetwork, amount, expected] of cases) {
      const quote = await realtimeQuote(currency, cryptoNetwork, usPayee, amount)
      expect(quote.status, JSON.stringify(quote.json)).toBe(201)
      expect((await getTx(quote.json.transactionId)).source.onChainTransaction).toBeUndefined()
      const sent = await server.call("POST", "/sandbox/send", { quoteId: quote.json.id, currencyCode: currency })
      expect(sent.status, JSON.stringify(sent.json)).toBe(200)
      if (expected === undefined) {
        expect(sent.json.source.onChainTransaction).toBeUndefined()
      } else {
        expect(sent.json.source.onChainTransaction).toEqual({
          transactionHash: expect.any(String),
          network: expected.network
        })
        expect(sent.json.source.onChainTransaction.transactionHash).toMatch(expected.format)
      }
      await server.processDue()
      const settled = await getTx(quote.json.transactionId)
      expect(settled.status).toBe("COMPLETED")
      expect(settled.source.onChainTransaction).toEqual(sent.json.source.onChainTransaction)
      // The payout went to a bank account: no on-chain destination.
      expect(settled.destination.onChainTransaction).toBeUndefined()
    }
    await noViolations()
  })

  it("Q-42 V-03 an UMA payment reports its inter-VASP leg in reconciliationInstructions.transactionHash once settled", async () => {
    await fundAccount(server, customer.accounts.USD!, 100_000)
    const quote = await server.call("POST", "/quotes", {
      lookupId: await lookupUma(server, "$success.usd@sandbox.uma.money"),
      source: { sourceType: "ACCOUNT", accountId: customer.accounts.USD },
      destination: { destinationType: "UMA_ADDRESS", umaAddress: "$success.usd@sandbox.uma.money" },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 1_000
    })
    expect(quote.status).toBe(201)
    expect((await server.call("POST", `/quotes/${quote.json.id}/execute`)).status).toBe(200)
    const before = await getTx(quote.json.transactionId)
    expect(before.reconciliationInstructions).toEqual({ reference: expect.any(String) })
    await server.processDue()
    const after = await getTx(quote.json.transactionId)
    expect(after.status).toBe("COMPLETED")
    expect(after.reconciliationInstructions).toEqual({
      reference: before.reconciliationInstructions.reference,
      transactionHash: expect.stringMatching(/^[0-9a-f]{64}$/)
    })
    // An UMA address is not a wallet: no onChainTransaction on either side.
    expect(after.destination.onChainTransaction).toBeUndefined()
    expect(after.source.onChainTransaction).toBeUndefined()
    // The listing by reference finds it with the hash.
    const listed = await server.call(
      "GET",
      `/transactions?reference=${encodeURIComponent(before.reconciliationInstructions.reference)}`
    )
    expect(listed.json.data.map((t: { reconciliationInstructions: unknown }) => t.reconciliationInstructions)).toEqual([
      after.reconciliationInstructions
    ])
  })

  // ---- Q5: a quote to a wallet is charged what the estimate says ----

  it("Q-40, Q-45 Q5 a same-currency quote to a wallet charges the estimate's totalFee; money stays balanced", async () => {
    await fundAccount(server, customer.accounts.USDC!, 10_000_000)
    const wallet = await addWallet("USDC", "SOLANA_WALLET", "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T")
    const balance = async () =>
      (await server.call("GET", `/internal-account?customerId=${customer.id}&currency=USDC`)).json.data[0].balance
        .amount as number
    const start = await balance()
    const fees = await estimate(withdrawal("USDC", "SOLANA", 1_000_000, SOLANA_ADDRESS))
    expect(fees.json).toMatchObject({ totalFee: 2_000, netAmount: 998_000, applicationFee: 1_000 })

    const sending = await server.call("POST", "/quotes", {
      source: { sourceType: "ACCOUNT", accountId: customer.accounts.USDC },
      destination: { destinationType: "ACCOUNT", accountId: wallet },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 1_000_000
    })
    expect(sending.status).toBe(201)
    expect(sending.json).toMatchObject({
      totalSendingAmount: 1_000_000,
      totalReceivingAmount: fees.json.netAmount,
      feesIncluded: fees.json.totalFee,
      platformFeesIncluded: fees.json.applicationFee,
      exchangeRate: 1
    })

    // Receiving locked: the smallest total that nets the amount, and the estimate of that total agrees.
    const receiving = await server.call("POST", "/quotes", {
      source: { sourceType: "ACCOUNT", accountId: customer.accounts.USDC },
      destination: { destinationType: "ACCOUNT", accountId: wallet },
      lockedCurrencySide: "RECEIVING",
      lockedCurrencyAmount: 998_000
    })
    expect(receiving.json).toMatchObject({
      totalSendingAmount: 999_999,
      totalReceivingAmount: 998_000,
      feesIncluded: 1_999
    })
    const atTotal = await estimate(withdrawal("USDC", "SOLANA", 999_999, SOLANA_ADDRESS))
    expect(atTotal.json).toMatchObject({ totalFee: 1_999, netAmount: 998_000 })

    const executed = await server.call("POST", `/quotes/${sending.json.id}/execute`)
    expect(executed.status).toBe(200)
    await server.processDue()
    const tx = await getTx(sending.json.transactionId)
    expect(tx).toMatchObject({
      status: "COMPLETED",
      fees: 2_000,
      platformFees: 1_000,
      sentAmount: { amount: 1_000_000 },
      receivedAmount: { amount: 998_000 }
    })
    expect(await balance()).toBe(start - 1_000_000)
    await noViolations()
  })

  it("Q5 a quote to a wallet whose fees take the whole amount → 400 lockedCurrencyAmount with the smallest amount that nets one unit", async () => {
    const wallet = await addWallet("USDC", "ETHEREUM_WALLET", EVM_ADDRESS)
    const r = await server.call("POST", "/quotes", {
      source: { sourceType: "ACCOUNT", accountId: customer.accounts.USDC },
      destination: { destinationType: "ACCOUNT", accountId: wallet },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 1_500_000
    })
    expectInvalid(r, ["lockedCurrencyAmount"])
    expect(r.json.details.errors[0].constraint).toEqual({ minimum: 1_501_502 })
    const atMinimum = await estimate(withdrawal("USDC", "ETHEREUM", 1_501_502, EVM_ADDRESS))
    expect(atMinimum.json).toMatchObject({ netAmount: 1 })
    // A bank payout and an internal transfer in the same currency stay free.
    const toBank = await server.call("POST", "/quotes", {
      source: { sourceType: "ACCOUNT", accountId: customer.accounts.USD },
      destination: { destinationType: "ACCOUNT", accountId: usPayee },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 1_000
    })
    expect(toBank.json).toMatchObject({ feesIncluded: 0, totalReceivingAmount: 1_000 })
  })

  it("GET /vasps: the sandbox directory by name, paged with a cursor (AC: vaspName of wallet accounts)", async () => {
    const names = SANDBOX_VASPS.map((v) => v.vaspName)
    const all = await server.call("GET", "/vasps")
    expect(all.status).toBe(200)
    expect(all.json).toMatchObject({ hasMore: false, totalCount: names.length })
    expect(all.json.data).toEqual(SANDBOX_VASPS)
    expect(all.json.data).toContainEqual({ vaspName: "Kraken", url: "https://www.kraken.com" })

    const paged: Array<string> = []
    let cursor: string | undefined
    do {
      const page = await server.call("GET", `/vasps?limit=3${cursor === undefined ? "" : `&cursor=${cursor}`}`)
      expect(page.status).toBe(200)
      expect(page.json.data.length).toBeLessThanOrEqual(3)
      paged.push(...page.json.data.map((v: { vaspName: string }) => v.vaspName))
      expect(page.json.hasMore).toBe(page.json.nextCursor !== undefined)
      cursor = page.json.nextCursor
    } while (cursor !== undefined)
    expect(paged).toEqual(names)
  })

  it("GET /vasps 400 on a cursor it never issued or a limit outside 1-100", async () => {
    const bogus = await server.call("GET", "/vasps?cursor=bogus")
    expect(bogus.status).toBe(400)
    expect(bogus.json.code).toBe("INVALID_INPUT")
    expectInvalid(await server.call("GET", "/vasps?limit=0"), ["query.limit"])
    expectInvalid(await server.call("GET", "/vasps?limit=101"), ["query.limit"])
  })
}

onEveryStore("crypto withdrawal fees and VASPs", "crypto", suite)
