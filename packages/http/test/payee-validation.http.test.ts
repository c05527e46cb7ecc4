/**
 * Each payee type's fields validated as its scheme requires (AC-19, C-11; docs/payees.md, "What a new account is
 * checked for"): check digits, the corridor's phone numbers, a PIX key of its kind, a SWIFT account's bank country,
 * the routes of a type paid more than one way, the corridor's beneficiary. Every refusal is 400 naming its fields with
 * a machine-readable constraint, and stores nothing. Validation reads no store: the memory store is enough.
 */
import { ACCOUNT_TYPE_NAMES, AccountInfo } from "@paycore/core"
import { SANDBOX_PAYEES } from "@paycore/sandbox"
import { validBody } from "@paycore/testkit/arbitraries"
import { Schema } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { routeTable } from "./fuzzer.ts"
import { errorOf, expectInvalid, onboardCustomer, useTestServer } from "./harness.ts"

const server = useTestServer()

type Info = Record<string, unknown>

/** A sandbox payee of `type` with `changes` (a field `undefined`: left out). */
const payee = (type: keyof typeof SANDBOX_PAYEES, changes: Info = {}) => {
  const { currency, accountInfo } = SANDBOX_PAYEES[type]
  const info: Info = { ...accountInfo, ...changes }
  for (const [key, value] of Object.entries(changes)) if (value === undefined) delete info[key]
  return { currency, accountInfo: info }
}

describe("payee accounts are validated as their schemes require (AC-19)", () => {
  let customerId = ""
  const create = async (body: { readonly currency: string; readonly accountInfo: Info }) => {
    if (customerId === "") customerId = (await onboardCustomer(server)).id
    return server.call("POST", "/customers/external-accounts", { customerId, ...body })
  }
  const countAccounts = async () =>
    (await server.call("GET", `/customers/external-accounts?customerId=${customerId}&limit=100`)).json.data.length

  it("C-11 check digits: IBAN (ISO 7064), CLABE, ABA routing number, CPF/CNPJ → 400 {checksum}", async () => {
    const cases: ReadonlyArray<[keyof typeof SANDBOX_PAYEES, Info, string, string]> = [
      ["EUR_ACCOUNT", { iban: "DE89370400440532013001" }, "accountInfo.iban", "iso7064-mod97"],
      ["DKK_ACCOUNT", { iban: "DK5000400440116244" }, "accountInfo.iban", "iso7064-mod97"],
      ["MXN_ACCOUNT", { clabeNumber: "002010077777777772" }, "accountInfo.clabeNumber", "clabe"],
      ["USD_ACCOUNT", { routingNumber: "021000022" }, "accountInfo.routingNumber", "aba"],
      ["USD_ACCOUNT", { intermediaryRoutingNumber: "123456789" }, "accountInfo.intermediaryRoutingNumber", "aba"],
      ["BRL_ACCOUNT", { taxId: "12345678900" }, "accountInfo.taxId", "cpf-cnpj"]
    ]
    for (const [type, changes, field, checksum] of cases) {
      const r = await create(payee(type, changes))
      expectInvalid(r, [field])
      expect(errorOf(r, field)?.constraint, type).toEqual({ checksum })
    }
    // A country's IBAN type takes that country's IBAN only (a right German one is not Danish).
    expectInvalid(await create(payee("DKK_ACCOUNT", { iban: "DE89370400440532013000" })), ["accountInfo.iban"])
  })

  it("C-11 formats: sort code, IFSC, UPI address, BIC, lengths of national account numbers", async () => {
    expectInvalid(await create(payee("GBP_ACCOUNT", { sortCode: "20-00-00", accountNumber: "1234567" })), [
      "accountInfo.sortCode",
      "accountInfo.accountNumber"
    ])
    expectInvalid(await create(payee("INR_ACCOUNT", { ifsc: "HDFC1001234", vpa: "not a vpa" })), [
      "accountInfo.ifsc",
      "accountInfo.vpa"
    ])
    expectInvalid(await create(payee("HKD_ACCOUNT", { swiftCode: "HSBC" })), ["accountInfo.swiftCode"])
    expectInvalid(await create(payee("NGN_ACCOUNT", { accountNumber: "12345" })), ["accountInfo.accountNumber"])
    expectInvalid(await create(payee("CAD_ACCOUNT", { bankCode: "1", branchCode: "11" })), [
      "accountInfo.bankCode",
      "accountInfo.branchCode"
    ])
  })

  it("C-11 a mobile number is of the corridor's country; an XOF number of its region's", async () => {
    const kenya = await create(payee("KES_ACCOUNT", { phoneNumber: "+255712345671" }))
    expectInvalid(kenya, ["accountInfo.phoneNumber"])
    expect(errorOf(kenya, "accountInfo.phoneNumber")?.constraint).toEqual({ pattern: "^\\+(254\\d{9,9})$" })
    expectInvalid(await create(payee("COP_ACCOUNT", { phoneNumber: "+5730012345" })), ["accountInfo.phoneNumber"])
    const ivorian = await create(payee("XOF_ACCOUNT", { phoneNumber: "+2250712345671" }))
    expectInvalid(ivorian, ["accountInfo.phoneNumber"])
    expect(errorOf(ivorian, "accountInfo.phoneNumber")?.constraint).toEqual({ prefix: "+221" })
    expect((await create(payee("XOF_ACCOUNT", { phoneNumber: "+2250712345671", region: "CI" }))).status).toBe(201)
  })

  it("C-11 a PIX key is of its kind; a SWIFT account's BIC is of a bank in its country", async () => {
    const phone = await create(payee("BRL_ACCOUNT", { pixKeyType: "PHONE" }))
    expectInvalid(phone, ["accountInfo.pixKey"])
    expect(errorOf(phone, "accountInfo.pixKey")?.constraint).toEqual({ format: "PHONE" })
    expectInvalid(await create(payee("BRL_ACCOUNT", { pixKeyType: "CPF", pixKey: "12345678900" })), [
      "accountInfo.pixKey"
    ])
    const cpf = await create(payee("BRL_ACCOUNT", { pixKeyType: "CPF", pixKey: "52998224725" }))
    expect(cpf.status, JSON.stringify(cpf.json)).toBe(201)
    const swift = await create(payee("SWIFT_ACCOUNT", { country: "DE" }))
    expectInvalid(swift, ["accountInfo.swiftCode"])
    expect(errorOf(swift, "accountInfo.swiftCode")?.constraint).toEqual({ country: "DE" })
  })

  it("C-11 a type paid more than one way needs one route's fields, and is paid on the rails of those given", async () => {
    const none = await create(payee("INR_ACCOUNT", { vpa: undefined, accountNumber: undefined }))
    expectInvalid(none, ["accountInfo"])
    expect(errorOf(none, "accountInfo")?.constraint).toEqual({
      anyOf: [{ required: ["vpa"] }, { required: ["accountNumber", "ifsc"] }]
    })
    const upi = await create(payee("INR_ACCOUNT", { accountNumber: undefined, ifsc: undefined }))
    expect(upi.json.paymentRails).toEqual(["UPI"])
    const rtgs = await create(payee("INR_ACCOUNT", { vpa: undefined, rail: "RTGS" }))
    expect(rtgs.json.paymentRails).toEqual(["RTGS", "NEFT"])
    const mobile = await create(payee("COP_ACCOUNT", { accountNumber: undefined, bankAccountType: undefined }))
    expect(mobile.json.paymentRails).toEqual(["MOBILE_MONEY"])
    // A bank account without its type is no route.
    expectInvalid(await create(payee("SLV_ACCOUNT", { phoneNumber: undefined, bankAccountType: undefined })), [
      "accountInfo"
    ])
  })

  it("C-11 the corridor's beneficiary: EUR needs where the person lives, AED their address, GTQ a phone", async () => {
    const person = { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace" }
    expectInvalid(await create(payee("EUR_ACCOUNT", { beneficiary: person })), [
      "accountInfo.beneficiary.countryOfResidence"
    ])
    expectInvalid(await create(payee("AED_ACCOUNT", { beneficiary: person })), ["accountInfo.beneficiary.address"])
    expectInvalid(await create(payee("GTQ_ACCOUNT", { beneficiary: person })), [
      "accountInfo.beneficiary.countryOfResidence",
      "accountInfo.beneficiary.phoneNumber"
    ])
    // A business is a business wherever it is paid.
    const business = { beneficiaryType: "BUSINESS", legalName: "Acme Ltd" }
    expect((await create(payee("AED_ACCOUNT", { beneficiary: business }))).status).toBe(201)
  })

  it("AC-18 a bankName outside GET /discoveries is 400 (a SWIFT account's bank is abroad: free text)", async () => {
    const r = await create(payee("ZAR_ACCOUNT", { bankName: "Bank of Nowhere" }))
    expectInvalid(r, ["accountInfo.bankName"])
    expect(errorOf(r, "accountInfo.bankName")?.constraint.enum).toEqual([
      "Standard Bank of South Africa Limited",
      "FirstRand Bank Limited"
    ])
    const swift = await create(payee("SWIFT_ACCOUNT", { bankName: "Any Bank Abroad", accountNumber: "7654321" }))
    expect(swift.status, JSON.stringify(swift.json)).toBe(201)
  })

  it("AC-19 a currency the type does not hold is 400; SWIFT holds any fiat currency, SLV US dollars", async () => {
    const r = await create({ ...payee("KES_ACCOUNT"), currency: "TZS" })
    expectInvalid(r, ["currency"])
    expect(errorOf(r, "currency")?.constraint).toEqual({ enum: ["KES"] })
    expect((await create({ ...payee("SWIFT_ACCOUNT", { accountNumber: "1122331" }), currency: "EUR" })).status).toBe(
      201
    )
    expectInvalid(await create({ ...payee("SWIFT_ACCOUNT"), currency: "USDC" }), ["currency"])
    expectInvalid(await create({ ...payee("SLV_ACCOUNT"), currency: "EUR" }), ["currency"])
  })

  it("AC-19 the same account twice, under either name of its type, is 409; a refusal stores nothing", async () => {
    const before = await countAccounts()
    const first = await create(payee("EUR_ACCOUNT", { iban: "FR1420041010050500013M02606" }))
    expect(first.status).toBe(201)
    const again = await create(payee("EUR_ACCOUNT", { accountType: "IBAN", iban: "fr1420041010050500013m02606" }))
    expect({ status: again.status, code: again.json.code }).toEqual({ status: 400, code: "INVALID_INPUT" })
    const alias = await create(payee("EUR_ACCOUNT", { accountType: "IBAN", iban: "FR1420041010050500013M02606" }))
    expect({ status: alias.status, code: alias.json.code }).toEqual({ status: 409, code: "CONFLICT" })
    expect(await countAccounts()).toBe(before + 1)
  })
})

describe("the generated request bodies cover every payee type (the fuzzer, testkit's arbitraries)", () => {
  const CREATES = ["accounts.createExternal", "accounts.createPlatformExternal", "agentMe.createExternalAccount"]

  it.each(CREATES)("%s: 400 draws name every accountType, and each account drawn decodes", (operation) => {
    const route = routeTable().find((r) => r.name === operation)
    expect(route?.body, operation).toBeDefined()
    const drawn = Array.from({ length: 400 }, (_, seed) => route!.body!.sample(seed) as { accountInfo: unknown })
    const kit = fc.sample(validBody(operation), { numRuns: 400, seed: 30 }) as Array<{ accountInfo: unknown }>
    for (const bodies of [drawn, kit]) {
      const types = new Set(bodies.map((b) => (b.accountInfo as { accountType: string }).accountType))
      expect([...ACCOUNT_TYPE_NAMES].filter((name) => !types.has(name))).toEqual([])
      const decode = Schema.decodeUnknownExit(AccountInfo)
      expect(bodies.filter((b) => decode(b.accountInfo)._tag !== "Success")).toEqual([])
    }
  })
})
