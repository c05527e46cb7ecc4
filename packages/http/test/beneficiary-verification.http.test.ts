/**
 * Beneficiary name verification of new external accounts (AC-12, SB-08) on the customer, platform and agent create
 * routes, answered again by GET and the lists; and business customers answered with their `beneficialOwners` (CU-06)
 * on every customer route. On the memory store, PGlite and PostgreSQL.
 */
import { describe, expect, it } from "vitest"
import { agentOf, asAgent } from "./agent-kit.ts"
import { consent, expectError, onboardCustomer, useTestServer } from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const person = { beneficiaryType: "INDIVIDUAL", fullName: "Grace Hopper" } as const

const usAccountInfo = (accountNumber: string, beneficiary: object = person) => ({
  accountType: "US_ACCOUNT",
  accountNumber,
  routingNumber: "021000021",
  beneficiary
})

/** SB-08: each suffix, the status it gives and the verified name (absent: none answered). */
const OUTCOMES: ReadonlyArray<readonly [string, string, string | undefined]> = [
  ["102", "NOT_MATCHED", undefined],
  ["103", "PARTIAL_MATCH", "G. Hopper"],
  ["104", "PENDING", undefined],
  ["106", "UNSUPPORTED", undefined],
  ["107", "CHECKED_BY_RECEIVING_FI", undefined],
  ["000", "MATCHED", "Grace Hopper"],
  ["789", "MATCHED", "Grace Hopper"]
]

const verificationOf = (status: string, fullName: string | undefined) => ({
  beneficiaryVerificationStatus: status,
  ...(fullName === undefined ? {} : { beneficiaryVerifiedData: { fullName } })
})

const pick = (account: Record<string, unknown>) => ({
  beneficiaryVerificationStatus: account.beneficiaryVerificationStatus,
  ...(account.beneficiaryVerifiedData === undefined ? {} : { beneficiaryVerifiedData: account.beneficiaryVerifiedData })
})

const beneficiarySuite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(async () => {}, stores())
  let seq = 0
  /** A fresh account number ending in `suffix` (the prefix keeps numbers apart). */
  const numberEnding = (suffix: string) => `4${String(++seq).padStart(5, "0")}${suffix}`

  describe("SB-08 customers' external accounts", () => {
    it("AC-12, SB-08: each suffix's outcome is answered by the create, GET and the list", async () => {
      const customer = await onboardCustomer(server)
      for (const [suffix, status, fullName] of OUTCOMES) {
        const created = await server.call("POST", "/customers/external-accounts", {
          customerId: customer.id,
          currency: "USD",
          accountInfo: usAccountInfo(numberEnding(suffix))
        })
        expect(created.status, JSON.stringify(created.json)).toBe(201)
        expect(pick(created.json), suffix).toEqual(verificationOf(status, fullName))
        const got = await server.call("GET", `/customers/external-accounts/${created.json.id}`)
        expect(pick(got.json), suffix).toEqual(verificationOf(status, fullName))
      }
      const listed = await server.call(
        "GET",
        `/customers/external-accounts?customerId=${customer.id}&sortOrder=asc&limit=100`
      )
      expect(listed.json.data.map(pick)).toEqual(
        OUTCOMES.map(([, status, fullName]) => verificationOf(status, fullName))
      )
    })

    it("SB-08: 105 is refused 400 INVALID_BANK_ACCOUNT and nothing is stored", async () => {
      const customer = await onboardCustomer(server)
      const refused = await server.call("POST", "/customers/external-accounts", {
        customerId: customer.id,
        currency: "USD",
        accountInfo: usAccountInfo(numberEnding("105"))
      })
      expectError(refused, 400, "INVALID_BANK_ACCOUNT")
      const listed = await server.call("GET", `/customers/external-accounts?customerId=${customer.id}`)
      expect(listed.json.data).toEqual([])
      expect(listed.json.totalCount).toBe(0)
    })

    it("SB-08: the suffix of a CLABE and a business beneficiary's legal name are checked as well", async () => {
      const customer = await onboardCustomer(server, { currencies: ["USD", "MXN"] })
      const created = await server.call("POST", "/customers/external-accounts", {
        customerId: customer.id,
        currency: "MXN",
        accountInfo: {
          accountType: "MXN_ACCOUNT",
          clabeNumber: "002010077777772103",
          beneficiary: { beneficiaryType: "BUSINESS", legalName: "Analytical Engines" }
        }
      })
      expect(created.status, JSON.stringify(created.json)).toBe(201)
      expect(pick(created.json)).toEqual(verificationOf("PARTIAL_MATCH", "A. Engines"))
    })

    it("AC-12: a wallet is UNSUPPORTED, with or without a beneficiary, whatever its address ends in", async () => {
      const customer = await onboardCustomer(server, { currencies: ["USD", "USDC"] })
      const wallet = (address: string, beneficiary?: object) =>
        server.call("POST", "/customers/external-accounts", {
          customerId: customer.id,
          currency: "USDC",
          accountInfo: {
            accountType: "ETHEREUM_WALLET",
            address,
            ...(beneficiary === undefined ? {} : { beneficiary: { ...beneficiary, countryOfResidence: "US" } })
          }
        })
      for (const r of [await wallet(`0x${"ab".repeat(18)}d105`), await wallet(`0x${"cd".repeat(18)}e102`, person)]) {
        expect(r.status, JSON.stringify(r.json)).toBe(201)
        expect(pick(r.json)).toEqual(verificationOf("UNSUPPORTED", undefined))
      }
    })
  })

  describe("SB-08 the platform's and an agent's external accounts", () => {
    it("AC-12, SB-08: POST /platform/external-accounts checks the name; GET and the list answer it; 105 refused", async () => {
      const created = await server.call("POST", "/platform/external-accounts", {
        currency: "USD",
        accountInfo: usAccountInfo(numberEnding("103"))
      })
      expect(created.status, JSON.stringify(created.json)).toBe(201)
      expect(pick(created.json)).toEqual(verificationOf("PARTIAL_MATCH", "G. Hopper"))
      const got = await server.call("GET", `/platform/external-accounts/${created.json.id}`)
      expect(pick(got.json)).toEqual(verificationOf("PARTIAL_MATCH", "G. Hopper"))
      const listed = await server.call("GET", "/platform/external-accounts?limit=100")
      const row = listed.json.data.find((a: { id: string }) => a.id === created.json.id)
      expect(pick(row)).toEqual(verificationOf("PARTIAL_MATCH", "G. Hopper"))
      const before = listed.json.totalCount
      const refused = await server.call("POST", "/platform/external-accounts", {
        currency: "USD",
        accountInfo: usAccountInfo(numberEnding("105"))
      })
      expectError(refused, 400, "INVALID_BANK_ACCOUNT")
      expect((await server.call("GET", "/platform/external-accounts?limit=100")).json.totalCount).toBe(before)
    })

    it("AC-12, SB-08: POST /agents/me/external-accounts checks the name as the customer's route; 105 refused", async () => {
      const customer = await onboardCustomer(server)
      const call = asAgent(server, await agentOf(server, customer.id))
      const created = await call("POST", "/agents/me/external-accounts", {
        currency: "USD",
        accountInfo: usAccountInfo(numberEnding("102"))
      })
      expect(created.status, JSON.stringify(created.json)).toBe(201)
      expect(pick(created.json)).toEqual(verificationOf("NOT_MATCHED", undefined))
      const refused = await call("POST", "/agents/me/external-accounts", {
        currency: "USD",
        accountInfo: usAccountInfo(numberEnding("105"))
      })
      expectError(refused, 400, "INVALID_BANK_ACCOUNT")
      const listed = await server.call("GET", `/customers/external-accounts?customerId=${customer.id}`)
      expect(listed.json.data.map((a: { id: string }) => a.id)).toEqual([created.json.id])
    })
  })

  describe("CU-06 business customers carry their beneficialOwners", () => {
    const businessBody = (legalName: string) => ({
      customerType: "BUSINESS",
      currencies: ["USD"],
      endUserTermsConsent: consent,
      businessInfo: { legalName, country: "US", incorporatedOn: "2019-05-01", taxId: "12-3456789" }
    })
    const owner = (customerId: string, lastName: string) => ({
      customerId,
      roles: ["UBO"],
      ownershipPercentage: 40,
      personalInfo: {
        firstName: "Grace",
        lastName,
        birthDate: "1978-06-15",
        nationality: "US",
        address: { line1: "1 Navy Way", city: "Arlington", postalCode: "22202", country: "US" },
        idType: "SSN",
        identifier: "987-65-4321"
      }
    })
    const ownersOf = async (customerId: string) =>
      (await server.call("GET", `/beneficial-owners?customerId=${customerId}&sortOrder=asc&limit=100`)).json.data

    it("CU-06: create answers []; GET, the list, PATCH and DELETE answer the owners as GET /beneficial-owners", async () => {
      const created = await server.call("POST", "/customers", businessBody("Difference Engines"))
      expect(created.status, JSON.stringify(created.json)).toBe(201)
      expect(created.json.beneficialOwners).toEqual([])
      const other = (await server.call("POST", "/customers", businessBody("Jacquard Looms"))).json
      const id = created.json.id
      for (const [holder, lastName] of [
        [id, "Hopper"],
        [other.id, "Jacquard"],
        [id, "Byron"]
      ] as const) {
        expect((await server.call("POST", "/beneficial-owners", owner(holder, lastName))).status).toBe(201)
      }
      const owners = await ownersOf(id)
      expect(owners.map((o: { personalInfo: { lastName: string } }) => o.personalInfo.lastName)).toEqual([
        "Hopper",
        "Byron"
      ])

      expect((await server.call("GET", `/customers/${id}`)).json.beneficialOwners).toEqual(owners)
      const listed = await server.call("GET", "/customers?customerType=BUSINESS&limit=100")
      const byId = new Map(listed.json.data.map((c: { id: string }) => [c.id, c]))
      expect((byId.get(id) as { beneficialOwners: unknown }).beneficialOwners).toEqual(owners)
      expect((byId.get(other.id) as { beneficialOwners: unknown }).beneficialOwners).toEqual(await ownersOf(other.id))
      for (const c of listed.json.data) expect(Array.isArray(c.beneficialOwners)).toBe(true)

      const patched = await server.call("PATCH", `/customers/${id}`, {
        customerType: "BUSINESS",
        businessInfo: { doingBusinessAs: "Engines" }
      })
      expect(patched.status, JSON.stringify(patched.json)).toBe(200)
      expect(patched.json.beneficialOwners).toEqual(owners)
      const deleted = await server.call("DELETE", `/customers/${id}`)
      expect(deleted.status).toBe(200)
      expect(deleted.json.beneficialOwners).toEqual(owners)
    })

    it("CU-06: an individual has no beneficialOwners", async () => {
      const individual = await onboardCustomer(server)
      const got = await server.call("GET", `/customers/${individual.id}`)
      expect(got.json).not.toHaveProperty("beneficialOwners")
      const listed = await server.call("GET", "/customers?customerType=INDIVIDUAL&limit=5")
      for (const c of listed.json.data) expect(c).not.toHaveProperty("beneficialOwners")
    })
  })
}

onEveryStore("beneficiary verification and beneficial owners", "benef_verification", beneficiarySuite)
