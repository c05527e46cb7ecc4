/**
 * The crypto withdrawal fee estimate (Q-45) with the sandbox's fee table (`@paycore/sandbox` network-fees.ts), and the
 * VASP directory (`GET /vasps`, upstream-only; `vaspName` of wallet accounts), on every store.
 */
import { SANDBOX_VASPS } from "@paycore/sandbox"
import { beforeAll, expect, it } from "vitest"
import { expectInvalid, type Onboarded, onboardCustomer, type TestServer, useTestServer } from "./harness.ts"
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
    expect(r.json.code).toBe("NOT_FOUND")
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
