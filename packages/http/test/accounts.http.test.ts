import { describe, expect, it } from "vitest"
import {
  consent,
  errorOf,
  expectForbiddenWrite,
  expectInvalid,
  expectUnauthorized,
  ids,
  UNKNOWN_CUSTOMER,
  UUID,
  useTestServer
} from "./harness.ts"

const server = useTestServer()

const UNKNOWN_EXTERNAL = "ExternalAccount:01234567-89ab-7def-8123-456789abcdef"

const newCustomer = async (currencies: ReadonlyArray<string> = ["USD"], fullName = "Ada Lovelace") => {
  const r = await server.call("POST", "/customers", {
    customerType: "INDIVIDUAL",
    fullName,
    currencies,
    endUserTermsConsent: consent
  })
  expect(r.status).toBe(201)
  return r.json as { id: string; currencies: Array<string> }
}

const banks = async (currency: string): Promise<Array<string>> =>
  (await server.call("GET", `/discoveries?currency=${currency}`)).json.data.map((i: { bankName: string }) => i.bankName)

const person = { beneficiaryType: "INDIVIDUAL", fullName: "Grace Hopper" } as const

let accountSeq = 100_000
const nextAccountNumber = () => String(++accountSeq)

const usAccount = (customerId: string, overrides: Record<string, unknown> = {}) => ({
  customerId,
  currency: "USD",
  accountInfo: {
    accountType: "US_ACCOUNT",
    accountNumber: nextAccountNumber(),
    routingNumber: "021000021",
    beneficiary: person,
    ...overrides
  }
})

const externalCount = async (customerId: string) =>
  (await server.call("GET", `/customers/external-accounts?customerId=${customerId}&limit=100`)).json
    .totalCount as number

describe("accounts group: credentials and permissions (A-02, A-04, C-12)", () => {
  it("C-12 every endpoint answers 401 with www-authenticate without credentials or with a wrong secret", async () => {
    const c = await newCustomer()
    const created = await server.call("POST", "/customers/external-accounts", usAccount(c.id))
    expect(created.status).toBe(201)
    const calls: Array<[string, string, unknown?]> = [
      ["GET", `/internal-account?customerId=${c.id}`],
      ["GET", `/customers/internal-accounts?customerId=${c.id}`],
      ["GET", "/customers/external-accounts"],
      ["GET", `/customers/external-accounts/${created.json.id}`],
      ["POST", "/customers/external-accounts", usAccount(c.id)],
      ["DELETE", `/customers/external-accounts/${created.json.id}`]
    ]
    for (const [method, path, body] of calls) {
      expectUnauthorized(await server.call(method, path, body, { auth: null }))
      expectUnauthorized(
        await server.call(method, path, body, { auth: { clientId: server.admin.clientId, clientSecret: "nope" } })
      )
    }
    expect(await externalCount(c.id)).toBe(1)
    expect((await server.call("GET", `/customers/external-accounts/${created.json.id}`)).status).toBe(200)
  })

  it("A-04 a VIEW token reads; creating or deleting an external account is 403 and changes nothing", async () => {
    const viewer = await server.token(["VIEW"])
    const c = await newCustomer()
    const created = await server.call("POST", "/customers/external-accounts", usAccount(c.id))
    for (const path of [
      `/internal-account?customerId=${c.id}`,
      `/customers/internal-accounts?customerId=${c.id}`,
      `/customers/external-accounts?customerId=${c.id}`,
      `/customers/external-accounts/${created.json.id}`
    ]) {
      expect((await server.call("GET", path, undefined, { auth: viewer })).status).toBe(200)
    }
    expectForbiddenWrite(await server.call("POST", "/customers/external-accounts", usAccount(c.id), { auth: viewer }))
    expectForbiddenWrite(
      await server.call("DELETE", `/customers/external-accounts/${created.json.id}`, undefined, { auth: viewer })
    )
    expect(await externalCount(c.id)).toBe(1)
    expect((await server.call("GET", `/customers/external-accounts/${created.json.id}`)).json.status).toBe("ACTIVE")
    // TRANSACT alone may manage payees.
    const transact = await server.token(["TRANSACT"])
    expect(
      (await server.call("POST", "/customers/external-accounts", usAccount(c.id), { auth: transact })).status
    ).toBe(201)
  })
})

describe("internal accounts (AC-01 .. AC-11, CU-39)", () => {
  it("C-08, CU-39 AC-09 one account per customer currency, created with the customer, ACTIVE with zero balances", async () => {
    const c = await newCustomer(["USD", "MXN", "EUR", "USDC"], "Ada Lovelace")
    const r = await server.call("GET", `/customers/internal-accounts?customerId=${c.id}`)
    expect(r.status).toBe(200)
    expect(r.json.totalCount).toBe(4)
    expect(r.json.hasMore).toBe(false)
    const byCurrency = new Map(r.json.data.map((a: { currency: string }) => [a.currency, a]))
    expect([...byCurrency.keys()].sort()).toEqual(["EUR", "MXN", "USD", "USDC"])
    for (const a of r.json.data) {
      expect(a.id).toMatch(new RegExp(`^InternalAccount:${UUID}$`))
      expect(a.customerId).toBe(c.id)
      expect(a.status).toBe("ACTIVE")
      expect(a.type).toBe(a.currency === "USDC" ? "INTERNAL_CRYPTO" : "INTERNAL_FIAT")
      expect(a.balance).toEqual({ amount: 0, currency: expect.objectContaining({ code: a.currency }) })
      expect(a.totalBalance).toEqual(a.balance)
      expect(a.cardCapabilities).toEqual({ supportsSpendLimits: true, supportsTransactionCountLimit: true })
    }
    const usd = byCurrency.get("USD") as {
      balance: { currency: unknown }
      fundingPaymentInstructions: Array<{ instructionsNotes?: string; accountOrWalletInfo: Record<string, unknown> }>
    }
    expect(usd.balance.currency).toEqual({ code: "USD", name: "United States Dollar", symbol: "$", decimals: 2 })
    expect(usd.fundingPaymentInstructions).toHaveLength(1)
    const info = usd.fundingPaymentInstructions[0]!.accountOrWalletInfo
    expect(info).toMatchObject({
      accountType: "US_ACCOUNT",
      accountHolderName: "Ada Lovelace",
      routingNumber: expect.stringMatching(/^\d{9}$/),
      accountNumber: expect.stringMatching(/^\d+$/),
      reference: expect.any(String),
      bankName: expect.any(String)
    })
    expect(usd.fundingPaymentInstructions[0]!.instructionsNotes).toContain(info.reference as string)
    const mxn = byCurrency.get("MXN") as {
      fundingPaymentInstructions: Array<{ accountOrWalletInfo: Record<string, unknown> }>
    }
    expect(mxn.fundingPaymentInstructions[0]!.accountOrWalletInfo).toMatchObject({
      accountType: "CLABE",
      clabeNumber: expect.stringMatching(/^\d{18}$/)
    })
    const usdc = byCurrency.get("USDC") as {
      balance: { currency: { decimals: number } }
      fundingPaymentInstructions: Array<{ accountOrWalletInfo: Record<string, unknown> }>
    }
    expect(usdc.balance.currency.decimals).toBe(6)
    expect(usdc.fundingPaymentInstructions[0]!.accountOrWalletInfo).toMatchObject({
      accountType: "SOLANA_WALLET",
      assetType: "USDC"
    })
  })

  it("AC-10 GET /internal-account?customerId=&currency= returns exactly that account; both paths agree", async () => {
    const c = await newCustomer(["USD", "EUR"])
    const usd = await server.call("GET", `/internal-account?customerId=${c.id}&currency=USD`)
    expect(usd.status).toBe(200)
    expect(usd.json.totalCount).toBe(1)
    expect(usd.json.data[0].currency).toBe("USD")
    const alias = await server.call("GET", `/customers/internal-accounts?customerId=${c.id}&currency=USD`)
    expect(alias.json).toEqual(usd.json)
    const all = await server.call("GET", `/internal-account?customerId=${c.id}`)
    expect(all.json).toEqual((await server.call("GET", `/customers/internal-accounts?customerId=${c.id}`)).json)
    expect(all.json.totalCount).toBe(2)
    const none = await server.call("GET", `/internal-account?customerId=${c.id}&currency=MXN`)
    expect(none.json).toEqual({ data: [], hasMore: false, totalCount: 0 })
  })

  it("AC-11 filters by type and pages with limit + cursor", async () => {
    const c = await newCustomer(["USD", "EUR", "MXN", "USDC", "USDT"])
    const crypto = await server.call("GET", `/customers/internal-accounts?customerId=${c.id}&type=INTERNAL_CRYPTO`)
    expect(crypto.json.data.map((a: { currency: string }) => a.currency).sort()).toEqual(["USDC", "USDT"])
    const all = ids(await server.call("GET", `/customers/internal-accounts?customerId=${c.id}`))
    const seen: Array<string> = []
    let cursor: string | undefined
    do {
      const r = await server.call(
        "GET",
        `/customers/internal-accounts?customerId=${c.id}&limit=2${cursor === undefined ? "" : `&cursor=${cursor}`}`
      )
      expect(r.json.totalCount).toBe(5)
      seen.push(...ids(r))
      cursor = r.json.nextCursor
    } while (cursor !== undefined)
    expect(seen).toEqual(all)
  })

  it("AC-10 bad filters are 400 naming each query field; a bad cursor is 400 on cursor", async () => {
    expectInvalid(await server.call("GET", "/internal-account?customerId=ada&currency=DOGE&type=SAVINGS"), [
      "query.customerId",
      "query.currency",
      "query.type"
    ])
    expectInvalid(await server.call("GET", "/customers/internal-accounts?limit=1000"), ["query.limit"])
    expectInvalid(await server.call("GET", "/customers/internal-accounts?cursor=xyz"), ["cursor"])
  })

  it("AC-10 an unknown customer has no accounts", async () => {
    const r = await server.call("GET", `/internal-account?customerId=${UNKNOWN_CUSTOMER}`)
    expect(r.status).toBe(200)
    expect(r.json).toEqual({ data: [], hasMore: false, totalCount: 0 })
  })
})

describe("POST /customers/external-accounts (AC-12 .. AC-19)", () => {
  it("AC-14 AC-17 a US_ACCOUNT with the full wire beneficiary: 201 ACTIVE, echoed, US rails", async () => {
    const c = await newCustomer()
    const [bankName] = await banks("USD")
    const accountInfo = {
      accountType: "US_ACCOUNT",
      accountNumber: "000123456789",
      routingNumber: "021000021",
      bankName,
      bankAccountType: "CHECKING",
      intermediaryBankName: "Citibank, N.A.",
      intermediaryRoutingNumber: "021000089",
      fiToFiInformation: "/BNF/Invoice 2025-001",
      beneficiary: {
        beneficiaryType: "BUSINESS",
        legalName: "Hopper Compilers Inc",
        registrationNumber: "C1234567",
        taxId: "12-3456789",
        email: "ap@hopper.example",
        phoneNumber: "+12025550143",
        countryOfResidence: "US",
        address: { line1: "1 Navy Yard", city: "Arlington", state: "VA", postalCode: "22202", country: "US" }
      }
    }
    const r = await server.call("POST", "/customers/external-accounts", {
      customerId: c.id,
      currency: "USD",
      platformAccountId: "payee-42",
      accountInfo
    })
    expect(r.status).toBe(201)
    expect(r.json).toEqual({
      id: expect.stringMatching(new RegExp(`^ExternalAccount:${UUID}$`)),
      customerId: c.id,
      status: "ACTIVE",
      currency: "USD",
      platformAccountId: "payee-42",
      ownershipType: "FIRST_PARTY",
      defaultUmaDepositAccount: false,
      paymentRails: ["ACH", "WIRE", "RTP", "FEDNOW"],
      // SB-08: the sandbox's name check matches any suffix outside 102 … 107 (a business by its legal name).
      beneficiaryVerificationStatus: "MATCHED",
      beneficiaryVerifiedData: { fullName: "Hopper Compilers Inc" },
      // Echoed as sent, with the rails it is paid on (where the upstream's responses carry them).
      accountInfo: { ...accountInfo, paymentRails: ["ACH", "WIRE", "RTP", "FEDNOW"] },
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      updatedAt: expect.any(String)
    })
    const get = await server.call("GET", `/customers/external-accounts/${r.json.id}`)
    expect(get.status).toBe(200)
    expect(get.json).toEqual(r.json)
  })

  it("AC-15 AC-16 a CLABE account with a bank from /discoveries and an individual beneficiary", async () => {
    const c = await newCustomer(["MXN"])
    const mxBanks = await banks("MXN")
    const accountInfo = {
      accountType: "CLABE",
      clabeNumber: "032180000118359719",
      bankName: mxBanks[0],
      beneficiary: {
        beneficiaryType: "INDIVIDUAL",
        fullName: "Frida Kahlo",
        birthDate: "1907-07-06",
        nationality: "MX",
        address: { line1: "Londres 247", city: "Ciudad de México", postalCode: "04100", country: "MX" }
      }
    }
    const r = await server.call("POST", "/customers/external-accounts", {
      customerId: c.id,
      currency: "MXN",
      accountInfo
    })
    expect(r.status).toBe(201)
    expect(r.json).toMatchObject({ status: "ACTIVE", currency: "MXN", paymentRails: ["SPEI"], accountInfo })
  })

  it("AC-19 an IBAN account (EUR, SEPA rails)", async () => {
    const c = await newCustomer(["EUR"])
    const accountInfo = {
      accountType: "IBAN",
      iban: "DE89370400440532013000",
      swiftCode: "COBADEFFXXX",
      bankName: "Commerzbank AG",
      beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Emmy Noether", countryOfResidence: "DE" }
    }
    const r = await server.call("POST", "/customers/external-accounts", {
      customerId: c.id,
      currency: "EUR",
      accountInfo
    })
    expect(r.status).toBe(201)
    expect(r.json).toMatchObject({ currency: "EUR", paymentRails: ["SEPA", "SEPA_INSTANT"], accountInfo })
  })

  it("AC-19 a PIX account (BRL)", async () => {
    const c = await newCustomer(["BRL"])
    const accountInfo = {
      accountType: "PIX",
      pixKey: "santos@example.com.br",
      pixKeyType: "EMAIL",
      taxId: "12345678909",
      beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Alberto Santos-Dumont" }
    }
    const r = await server.call("POST", "/customers/external-accounts", {
      customerId: c.id,
      currency: "BRL",
      accountInfo
    })
    expect(r.status).toBe(201)
    expect(r.json).toMatchObject({ currency: "BRL", paymentRails: ["PIX"], accountInfo })
  })

  it("AC-19 two wallet types: SOLANA_WALLET (USDC) and ETHEREUM_WALLET (USDT, third party)", async () => {
    const c = await newCustomer(["USDC", "USDT"])
    const solana = await server.call("POST", "/customers/external-accounts", {
      customerId: c.id,
      currency: "USDC",
      accountInfo: { accountType: "SOLANA_WALLET", address: "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T" }
    })
    expect(solana.status).toBe(201)
    expect(solana.json).toMatchObject({ currency: "USDC", paymentRails: ["SOLANA"], status: "ACTIVE" })
    const eth = await server.call("POST", "/customers/external-accounts", {
      customerId: c.id,
      currency: "USDT",
      ownershipType: "THIRD_PARTY",
      accountInfo: {
        accountType: "ETHEREUM_WALLET",
        address: "0x52908400098527886E0F7030069857D2E4169EE7",
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Vitalik B", countryOfResidence: "CH" }
      }
    })
    expect(eth.status).toBe(201)
    expect(eth.json).toMatchObject({ currency: "USDT", paymentRails: ["ETHEREUM"], ownershipType: "THIRD_PARTY" })
    // A wallet can hold only stablecoins.
    const usd = await server.call("POST", "/customers/external-accounts", {
      customerId: c.id,
      currency: "USD",
      accountInfo: { accountType: "SOLANA_WALLET", address: "7Np41oeYqPefeNQEHSv1UDhYrehxin3NStELsSKCT4K2" }
    })
    expectInvalid(usd, ["currency"])
    expect(errorOf(usd, "currency")?.constraint).toEqual({ enum: ["USDC", "USDT"] })
  })

  it("AC-18 a bankName not returned by /discoveries is 400 listing the allowed names; nothing stored", async () => {
    const c = await newCustomer()
    const allowed = await banks("USD")
    expect(allowed.length).toBeGreaterThanOrEqual(2)
    for (const bankName of ["Bank of Nowhere", "BBVA México, S.A.", "Chase"]) {
      const r = await server.call("POST", "/customers/external-accounts", usAccount(c.id, { bankName }))
      expectInvalid(r, ["accountInfo.bankName"])
      expect(errorOf(r, "accountInfo.bankName")?.constraint).toEqual({ enum: allowed })
    }
    const clabe = await server.call("POST", "/customers/external-accounts", {
      customerId: c.id,
      currency: "MXN",
      accountInfo: {
        accountType: "CLABE",
        clabeNumber: "032180000118359719",
        bankName: "Deutsche Bank AG",
        beneficiary: person
      }
    })
    expectInvalid(clabe, ["accountInfo.bankName"])
    expect(errorOf(clabe, "accountInfo.bankName")?.constraint).toEqual({ enum: await banks("MXN") })
    expect(await externalCount(c.id)).toBe(0)
  })

  it("AC-14 a currency the account type cannot hold is 400 on currency; combined with a bad bank both are listed", async () => {
    const c = await newCustomer()
    const mismatch = await server.call("POST", "/customers/external-accounts", { ...usAccount(c.id), currency: "EUR" })
    expectInvalid(mismatch, ["currency"])
    expect(errorOf(mismatch, "currency")?.constraint).toEqual({ enum: ["USD"] })
    const both = await server.call("POST", "/customers/external-accounts", {
      ...usAccount(c.id, { bankName: "Bank of Nowhere" }),
      currency: "MXN"
    })
    expectInvalid(both, ["currency", "accountInfo.bankName"])
    expect(await externalCount(c.id)).toBe(0)
  })

  it("C-11 several invalid fields at once: exactly the fields of the named variant, nothing stored", async () => {
    const c = await newCustomer()
    const before = await server.call("GET", "/customers/external-accounts?limit=100")
    const us = await server.call("POST", "/customers/external-accounts", {
      customerId: "Customer:nope",
      currency: "DOLLARS",
      accountInfo: {
        accountType: "US_ACCOUNT",
        accountNumber: "12-34",
        routingNumber: "0210",
        bankAccountType: "BROKERAGE",
        beneficiary: { beneficiaryType: "INDIVIDUAL", email: "grace@" }
      }
    })
    expectInvalid(us, [
      "customerId",
      "currency",
      "accountInfo.accountNumber",
      "accountInfo.routingNumber",
      "accountInfo.bankAccountType",
      "accountInfo.beneficiary.fullName",
      "accountInfo.beneficiary.email"
    ])
    expect(errorOf(us, "accountInfo.routingNumber")?.constraint).toEqual({ pattern: "^\\d{9,9}$" })
    const iban = await server.call("POST", "/customers/external-accounts", {
      customerId: c.id,
      currency: "EUR",
      accountInfo: { accountType: "IBAN", iban: "not-an-iban", swiftCode: "XX", beneficiary: person }
    })
    // A euro account's individual beneficiary says where they live (the upstream's EUR beneficiary).
    expectInvalid(iban, ["accountInfo.iban", "accountInfo.swiftCode", "accountInfo.beneficiary.countryOfResidence"])
    const clabe = await server.call("POST", "/customers/external-accounts", {
      customerId: c.id,
      currency: "MXN",
      accountInfo: { accountType: "CLABE", clabeNumber: "1234" }
    })
    expectInvalid(clabe, ["accountInfo.clabeNumber", "accountInfo.beneficiary"])
    const wallet = await server.call("POST", "/customers/external-accounts", {
      customerId: c.id,
      currency: "USDC",
      accountInfo: { accountType: "BASE_WALLET", address: "0x123" }
    })
    expectInvalid(wallet, ["accountInfo.address"])
    const after = await server.call("GET", "/customers/external-accounts?limit=100")
    expect(after.json.totalCount).toBe(before.json.totalCount)
  })

  it("AC-19 an unknown accountType is 400 naming accountInfo.accountType with the allowed values", async () => {
    const c = await newCustomer()
    const r = await server.call("POST", "/customers/external-accounts", {
      customerId: c.id,
      currency: "USD",
      accountInfo: { accountType: "CHEQUE_BOOK", accountNumber: "1" }
    })
    expectInvalid(r, ["accountInfo.accountType"])
    expect(errorOf(r, "accountInfo.accountType")?.constraint.enum).toEqual(
      expect.arrayContaining(["US_ACCOUNT", "CLABE", "IBAN", "PIX", "SOLANA_WALLET", "LIGHTNING"])
    )
  })

  it("AC-14 the same account twice for one customer is 409 CONFLICT naming the existing account", async () => {
    const c = await newCustomer()
    const body = usAccount(c.id)
    const first = await server.call("POST", "/customers/external-accounts", body)
    expect(first.status).toBe(201)
    const again = await server.call("POST", "/customers/external-accounts", body)
    expect(again.status).toBe(409)
    expect(again.json).toMatchObject({ status: 409, code: "CONFLICT", details: { existingAccountId: first.json.id } })
    expect(await externalCount(c.id)).toBe(1)
    // Another customer may hold the same account.
    const other = await newCustomer()
    expect((await server.call("POST", "/customers/external-accounts", { ...body, customerId: other.id })).status).toBe(
      201
    )
  })

  it("AC-14 defaultUmaDepositAccount: a new default takes over from the previous one", async () => {
    const c = await newCustomer()
    const a = await server.call("POST", "/customers/external-accounts", {
      ...usAccount(c.id),
      defaultUmaDepositAccount: true
    })
    expect(a.json.defaultUmaDepositAccount).toBe(true)
    const b = await server.call("POST", "/customers/external-accounts", {
      ...usAccount(c.id),
      defaultUmaDepositAccount: true
    })
    expect(b.json.defaultUmaDepositAccount).toBe(true)
    expect((await server.call("GET", `/customers/external-accounts/${a.json.id}`)).json.defaultUmaDepositAccount).toBe(
      false
    )
  })

  it("C-21 an unknown customer is 404 USER_NOT_FOUND", async () => {
    const r = await server.call("POST", "/customers/external-accounts", usAccount(UNKNOWN_CUSTOMER))
    expect(r.status).toBe(404)
    expect(r.json).toEqual({ status: 404, code: "USER_NOT_FOUND", message: expect.stringContaining(UNKNOWN_CUSTOMER) })
  })

  it("C-31 malformed JSON is 400 on the body", async () => {
    const r = await server.call("POST", "/customers/external-accounts", '{"customerId": ')
    expectInvalid(r, ["body"])
    expect(r.json.details.errors[0].constraint).toEqual({ format: "json" })
  })
})

describe("GET /customers/external-accounts (AC-20, AC-21)", () => {
  it("AC-20 filters by customerId and currency; pages with limit + cursor", async () => {
    const c = await newCustomer(["USD", "USDC"])
    const made: Array<string> = []
    for (let i = 0; i < 4; i++)
      made.push((await server.call("POST", "/customers/external-accounts", usAccount(c.id))).json.id)
    const wallet = await server.call("POST", "/customers/external-accounts", {
      customerId: c.id,
      currency: "USDC",
      accountInfo: { accountType: "POLYGON_WALLET", address: "0x000000000000000000000000000000000000dEaD" }
    })
    expect(wallet.status).toBe(201)

    const usd = await server.call("GET", `/customers/external-accounts?customerId=${c.id}&currency=USD`)
    expect(usd.json.totalCount).toBe(4)
    expect([...ids(usd)].sort()).toEqual([...made].sort())
    const usdc = await server.call("GET", `/customers/external-accounts?customerId=${c.id}&currency=USDC`)
    expect(ids(usdc)).toEqual([wallet.json.id])

    const all = ids(await server.call("GET", `/customers/external-accounts?customerId=${c.id}`))
    expect(all).toHaveLength(5)
    const seen: Array<string> = []
    let cursor: string | undefined
    let pages = 0
    do {
      const r = await server.call(
        "GET",
        `/customers/external-accounts?customerId=${c.id}&limit=2${cursor === undefined ? "" : `&cursor=${cursor}`}`
      )
      expect(r.json.totalCount).toBe(5)
      seen.push(...ids(r))
      cursor = r.json.nextCursor
      pages++
    } while (cursor !== undefined)
    expect(pages).toBe(3)
    expect(seen).toEqual(all)
  })

  it("AC-20 bad filters are 400 naming each; a bad cursor is 400 on cursor", async () => {
    expectInvalid(await server.call("GET", "/customers/external-accounts?customerId=1&currency=usd&limit=-1"), [
      "query.customerId",
      "query.currency",
      "query.limit"
    ])
    expectInvalid(await server.call("GET", "/customers/external-accounts?cursor=%%%"), ["cursor"])
  })

  it("AC-21 an unknown external account is 404; a malformed id is 400 on path.externalAccountId", async () => {
    const r = await server.call("GET", `/customers/external-accounts/${UNKNOWN_EXTERNAL}`)
    expect(r.status).toBe(404)
    expect(r.json).toEqual({
      status: 404,
      code: "REFERENCE_NOT_FOUND",
      message: expect.stringContaining(UNKNOWN_EXTERNAL)
    })
    expectInvalid(await server.call("GET", `/customers/external-accounts/${UNKNOWN_CUSTOMER}`), [
      "path.externalAccountId"
    ])
  })
})

describe("DELETE /customers/external-accounts/{externalAccountId} (AC-22)", () => {
  it("AC-22 answers 204 with no body; the account is then 404 and left out of lists", async () => {
    const c = await newCustomer()
    const keep = await server.call("POST", "/customers/external-accounts", usAccount(c.id))
    const drop = await server.call("POST", "/customers/external-accounts", usAccount(c.id))
    const del = await server.call("DELETE", `/customers/external-accounts/${drop.json.id}`)
    expect(del.status).toBe(204)
    expect(del.json).toBeUndefined()
    const get = await server.call("GET", `/customers/external-accounts/${drop.json.id}`)
    expect(get.status).toBe(404)
    expect(get.json.code).toBe("REFERENCE_NOT_FOUND")
    const list = await server.call("GET", `/customers/external-accounts?customerId=${c.id}`)
    expect(ids(list)).toEqual([keep.json.id])
    expect(list.json.totalCount).toBe(1)
  })

  it("AC-22 deleting twice, or an unknown id, is 404", async () => {
    const c = await newCustomer()
    const a = await server.call("POST", "/customers/external-accounts", usAccount(c.id))
    expect((await server.call("DELETE", `/customers/external-accounts/${a.json.id}`)).status).toBe(204)
    const again = await server.call("DELETE", `/customers/external-accounts/${a.json.id}`)
    expect(again.status).toBe(404)
    expect(again.json.code).toBe("REFERENCE_NOT_FOUND")
    const unknown = await server.call("DELETE", `/customers/external-accounts/${UNKNOWN_EXTERNAL}`)
    expect(unknown.status).toBe(404)
    expect(unknown.json.code).toBe("REFERENCE_NOT_FOUND")
  })

  it("AC-22 a deleted account may be added again", async () => {
    const c = await newCustomer()
    const body = usAccount(c.id)
    const a = await server.call("POST", "/customers/external-accounts", body)
    expect((await server.call("DELETE", `/customers/external-accounts/${a.json.id}`)).status).toBe(204)
    const again = await server.call("POST", "/customers/external-accounts", body)
    expect(again.status).toBe(201)
    expect(again.json.id).not.toBe(a.json.id)
  })
})
