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

let seq = 0
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`

const individual = (overrides: Record<string, unknown> = {}) => ({
  customerType: "INDIVIDUAL",
  fullName: "Ada Lovelace",
  currencies: ["USD"],
  endUserTermsConsent: consent,
  ...overrides
})

const business = (overrides: Record<string, unknown> = {}) => ({
  customerType: "BUSINESS",
  currencies: ["USD", "EUR"],
  businessInfo: {
    legalName: "Analytical Engines Ltd",
    country: "GB",
    incorporatedOn: "2019-05-01",
    taxId: "GB123456789"
  },
  ...overrides
})

const create = async (body: object) => {
  const r = await server.call("POST", "/customers", body)
  expect(r.status, JSON.stringify(r.json)).toBe(201)
  return r.json
}

/** Walks every page of `path` with `limit`; `between` runs after each page (e.g. to add rows). */
const walk = async (path: string, limit: number, between: (page: number) => Promise<void> = async () => {}) => {
  const seen: Array<string> = []
  let cursor: string | undefined
  for (let page = 0; page < 100; page++) {
    const sep = path.includes("?") ? "&" : "?"
    const r = await server.call("GET", `${path}${sep}limit=${limit}${cursor === undefined ? "" : `&cursor=${cursor}`}`)
    expect(r.status).toBe(200)
    expect(r.json.data.length).toBeLessThanOrEqual(limit)
    seen.push(...ids(r))
    if (!r.json.hasMore) {
      expect(r.json.nextCursor).toBeUndefined()
      return seen
    }
    expect(r.json.nextCursor).toBeTypeOf("string")
    cursor = r.json.nextCursor
    await between(page)
  }
  throw new Error("too many pages")
}

describe("customers group: credentials and permissions (A-02, A-04, C-12)", () => {
  it("C-12 every endpoint answers 401 with www-authenticate without credentials, and stores nothing", async () => {
    const c = await create(individual())
    const before = await server.call("GET", "/customers?limit=100")
    const calls: Array<[string, string, unknown?]> = [
      ["GET", "/customers"],
      ["GET", "/customers/end-user-terms"],
      ["GET", `/customers/${c.id}`],
      ["POST", "/customers", individual()],
      ["PATCH", `/customers/${c.id}`, { customerType: "INDIVIDUAL", fullName: "Mallory" }],
      ["DELETE", `/customers/${c.id}`]
    ]
    for (const [method, path, body] of calls) {
      expectUnauthorized(await server.call(method, path, body, { auth: null }))
      expectUnauthorized(
        await server.call(method, path, body, { auth: { clientId: server.admin.clientId, clientSecret: "wrong" } })
      )
    }
    const after = await server.call("GET", "/customers?limit=100")
    expect(after.json.totalCount).toBe(before.json.totalCount)
    expect((await server.call("GET", `/customers/${c.id}`)).json).toEqual(c)
  })

  it("A-04 a VIEW token reads, but POST / PATCH / DELETE are 403 FORBIDDEN and change nothing", async () => {
    const viewer = await server.token(["VIEW"])
    const c = await create(individual())
    expect((await server.call("GET", "/customers", undefined, { auth: viewer })).status).toBe(200)
    expect((await server.call("GET", `/customers/${c.id}`, undefined, { auth: viewer })).json).toEqual(c)
    expect((await server.call("GET", "/customers/end-user-terms", undefined, { auth: viewer })).status).toBe(200)

    const before = await server.call("GET", "/customers?limit=100")
    expectForbiddenWrite(await server.call("POST", "/customers", individual(), { auth: viewer }))
    expectForbiddenWrite(
      await server.call("PATCH", `/customers/${c.id}`, { customerType: "INDIVIDUAL", fullName: "X" }, { auth: viewer })
    )
    expectForbiddenWrite(await server.call("DELETE", `/customers/${c.id}`, undefined, { auth: viewer }))
    expect((await server.call("GET", "/customers?limit=100")).json.totalCount).toBe(before.json.totalCount)
    expect((await server.call("GET", `/customers/${c.id}`)).json).toEqual(c)
  })

  it("A-04 TRANSACT or MANAGE alone may write customers", async () => {
    for (const permissions of [["TRANSACT"], ["MANAGE"]] as const) {
      const auth = await server.token([...permissions])
      const r = await server.call("POST", "/customers", individual(), { auth })
      expect(r.status).toBe(201)
      const del = await server.call("DELETE", `/customers/${r.json.id}`, undefined, { auth })
      expect(del.status).toBe(200)
    }
  })
})

describe("GET /customers/end-user-terms (CU-26)", () => {
  it("CU-26 returns the current terms version and its hosted URL", async () => {
    const r = await server.call("GET", "/customers/end-user-terms")
    expect(r.status).toBe(200)
    expect(r.json).toEqual({ version: consent.termsVersion, url: expect.stringMatching(/^https:\/\//) })
  })
})

describe("POST /customers (CU-01 .. CU-09, CU-39)", () => {
  it("CU-01 CU-03 CU-07 creates an individual with identity and EDD fields; 201 echoes them", async () => {
    const edd = {
      sourceOfFundsCategories: ["SALARY", "OTHER"],
      sourceOfFundsOtherDescription: "Royalties",
      sourceOfWealthCategories: ["INHERITANCE"],
      purposeOfAccount: "P2P_TRANSFERS",
      expectedMonthlyTransactionCount: "COUNT_10_TO_100",
      expectedMonthlyTransactionVolume: "VOLUME_10K_TO_100K",
      annualIncomeRange: "RANGE_100K_250K",
      netWorthRange: "RANGE_1M_5M",
      pepStatus: "NONE"
    }
    const body = individual({
      platformCustomerId: unique("ada"),
      fullName: "Ada Lovelace",
      birthDate: "1815-12-10",
      nationality: "GB",
      region: "GB",
      email: "ada@example.com",
      phoneNumber: "+447700900123",
      address: { line1: "12 St James's Square", city: "London", postalCode: "SW1Y 4JH", country: "GB" },
      idType: "NON_US_TAX_ID",
      identifier: "AB123456C",
      countryOfIssuance: "GB",
      currencies: ["USD", "EUR"],
      ...edd
    })
    const r = await server.call("POST", "/customers", body)
    expect(r.status).toBe(201)
    expect(r.json).toMatchObject(body)
    expect(r.json.id).toMatch(new RegExp(`^Customer:${UUID}$`))
    expect(r.json.kycStatus).toBe("UNVERIFIED")
    expect(r.json.isDeleted).toBe(false)
    expect(r.json.contactVerification).toEqual({ email: "PENDING", phone: "PENDING" })
    expect(r.json.umaAddress).toMatch(/^\$[a-z0-9]+@sandbox\.paycore\.dev$/)
    expect(r.json.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/)
    expect(r.json.updatedAt).toBe(r.json.createdAt)
    expect((await server.call("GET", `/customers/${r.json.id}`)).json).toEqual(r.json)
  })

  it("CU-06 generates platformCustomerId and umaAddress when omitted; keeps given ones", async () => {
    const generated = await create({ customerType: "INDIVIDUAL" })
    expect(generated.platformCustomerId).toBe(generated.id.slice("Customer:".length))
    expect(generated.currencies).toEqual(["USD"])
    const given = await create(
      individual({ platformCustomerId: unique("given"), umaAddress: "$ada.given@acme.example" })
    )
    expect(given.umaAddress).toBe("$ada.given@acme.example")
  })

  it("CU-06 C-11 read-only fields in a body (id, isDeleted, createdAt, contactVerification) are refused as unknown; nothing is created", async () => {
    const platformCustomerId = unique("read-only")
    const r = await server.call(
      "POST",
      "/customers",
      individual({
        platformCustomerId,
        id: "Customer:01234567-89ab-7def-8123-456789abcdef",
        isDeleted: true,
        createdAt: "2000-01-01T00:00:00Z",
        contactVerification: { email: "VERIFIED", phone: "VERIFIED" }
      })
    )
    expectInvalid(r, ["id", "isDeleted", "createdAt", "contactVerification"])
    expect(r.json.details.errors[0]).toEqual({
      field: "id",
      constraint: { unexpected: true },
      message: "Unknown field"
    })
    const listed = await server.call("GET", `/customers?platformCustomerId=${platformCustomerId}`)
    expect(listed.json.totalCount).toBe(0)
    const c = await create(individual())
    const p = await server.call("PATCH", `/customers/${c.id}`, { customerType: "INDIVIDUAL", isDeleted: true })
    expectInvalid(p, ["isDeleted"])
  })

  it("CU-06 the upstream's kycStatus (kybStatus) in a create or PATCH body is accepted and ignored: only KYC sets it", async () => {
    const c = await create(individual({ kycStatus: "APPROVED" }))
    expect(c.kycStatus).toBe("UNVERIFIED")
    const p = await server.call("PATCH", `/customers/${c.id}`, { customerType: "INDIVIDUAL", kycStatus: "APPROVED" })
    expect(p.status).toBe(200)
    expect(p.json).toMatchObject({ kycStatus: "UNVERIFIED", id: c.id })
    const b = await create(business({ kybStatus: "APPROVED" }))
    expect(b).toMatchObject({ kybStatus: "UNVERIFIED", kycStatus: "UNVERIFIED" })
    const q = await server.call("PATCH", `/customers/${b.id}`, { customerType: "BUSINESS", kybStatus: "APPROVED" })
    expect(q.json).toMatchObject({ kybStatus: "UNVERIFIED", kycStatus: "UNVERIFIED" })
  })

  it("CU-12 CU-09 PATCH changes the umaAddress (the upstream's field); another customer's is 409 UMA_ADDRESS_EXISTS", async () => {
    const c = await create(individual())
    const other = await create(individual())
    const address = `$${unique("moved")}@acme.example`
    const p = await server.call("PATCH", `/customers/${c.id}`, { customerType: "INDIVIDUAL", umaAddress: address })
    expect(p.status, JSON.stringify(p.json)).toBe(200)
    expect(p.json.umaAddress).toBe(address)
    expect(ids(await server.call("GET", `/customers?umaAddress=${encodeURIComponent(address)}`))).toEqual([c.id])
    const taken = await server.call("PATCH", `/customers/${other.id}`, {
      customerType: "INDIVIDUAL",
      umaAddress: address
    })
    expect({ status: taken.status, code: taken.json.code }).toEqual({ status: 409, code: "UMA_ADDRESS_EXISTS" })
    expect((await server.call("GET", `/customers/${other.id}`)).json.umaAddress).toBe(other.umaAddress)
  })

  it("CU-04 CU-05 creates a business with businessInfo; kybStatus starts UNVERIFIED", async () => {
    const businessInfo = {
      legalName: "Analytical Engines Ltd",
      doingBusinessAs: "AE",
      country: "GB",
      registrationNumber: "09876543",
      incorporatedOn: "2019-05-01",
      entityType: "PUBLICLY_LISTED_COMPANY",
      taxId: "GB123456789",
      countriesOfOperation: ["GB", "US"],
      businessType: "PROFESSIONAL_SCIENTIFIC_AND_TECHNICAL_SERVICES",
      purposeOfAccount: "SUPPLIER_PAYMENTS",
      naicsCode: "541715",
      sourceOfFundsCategories: ["OPERATING_REVENUE"],
      expectedCounterpartyCountries: ["DE"],
      primaryContactFirstName: "Charles",
      primaryContactLastName: "Babbage"
    }
    const body = business({
      platformCustomerId: unique("biz"),
      address: { line1: "1 Engine Way", postalCode: "EC1A 1BB", country: "GB" },
      businessInfo
    })
    const r = await server.call("POST", "/customers", body)
    expect(r.status).toBe(201)
    expect(r.json).toMatchObject({
      ...body,
      customerType: "BUSINESS",
      kybStatus: "UNVERIFIED",
      kycStatus: "UNVERIFIED"
    })
    expect(r.json.businessInfo).toEqual(businessInfo)
  })

  it("CU-39 creates one internal account per currency, with zero balances", async () => {
    const c = await create(individual({ currencies: ["USD", "EUR", "USD"] }))
    expect(c.currencies).toEqual(["USD", "EUR"])
    const accounts = await server.call("GET", `/customers/internal-accounts?customerId=${c.id}`)
    expect(accounts.json.totalCount).toBe(2)
    expect(accounts.json.data.map((a: { currency: string }) => a.currency).sort()).toEqual(["EUR", "USD"])
    for (const a of accounts.json.data) {
      expect(a.balance.amount).toBe(0)
      expect(a.totalBalance.amount).toBe(0)
    }
  })

  it("CU-09 a duplicate platformCustomerId is 409 CONFLICT; a taken UMA address is 409 UMA_ADDRESS_EXISTS", async () => {
    const platformCustomerId = unique("dup")
    const first = await create(individual({ platformCustomerId, umaAddress: `$${platformCustomerId}@acme.example` }))
    const before = await server.call("GET", "/customers?limit=100")

    const dupId = await server.call("POST", "/customers", individual({ platformCustomerId }))
    expect(dupId.status).toBe(409)
    expect(dupId.json).toMatchObject({ status: 409, code: "CONFLICT" })
    expect(dupId.json.message).toContain(platformCustomerId)

    const dupUma = await server.call("POST", "/customers", individual({ umaAddress: first.umaAddress }))
    expect(dupUma.status).toBe(409)
    expect(dupUma.json).toMatchObject({ status: 409, code: "UMA_ADDRESS_EXISTS" })

    expect((await server.call("GET", "/customers?limit=100")).json.totalCount).toBe(before.json.totalCount)
    // A business with the same platformCustomerId is refused too.
    expect((await server.call("POST", "/customers", business({ platformCustomerId }))).status).toBe(409)
  })

  it("CU-08 consent to terms that are not current is 400 END_USER_TERMS_VERSION_NOT_FOUND", async () => {
    const r = await server.call(
      "POST",
      "/customers",
      individual({ endUserTermsConsent: { ...consent, termsVersion: "1999-01-01" } })
    )
    expect(r.status).toBe(400)
    expect(r.json.code).toBe("END_USER_TERMS_VERSION_NOT_FOUND")
    expect(r.json.details).toEqual({ termsVersion: "1999-01-01", currentVersion: consent.termsVersion })
  })

  it("C-11 C-04 an individual with several invalid fields: all listed, nothing stored", async () => {
    const before = await server.call("GET", "/customers?limit=100&isIncludingDeleted=true")
    const r = await server.call("POST", "/customers", {
      customerType: "INDIVIDUAL",
      fullName: "",
      email: "not-an-email",
      phoneNumber: "0044 7700 900123",
      birthDate: "1815-13-10",
      nationality: "gb",
      currencies: ["USD", "DOGE"],
      pepStatus: "MAYBE",
      endUserTermsConsent: { ...consent, acceptanceMethod: "NOD" }
    })
    expectInvalid(r, [
      "fullName",
      "email",
      "phoneNumber",
      "birthDate",
      "nationality",
      "currencies.1",
      "pepStatus",
      "endUserTermsConsent.acceptanceMethod"
    ])
    expect(errorOf(r, "phoneNumber")?.constraint).toEqual({ pattern: expect.any(String) })
    expect(errorOf(r, "pepStatus")?.constraint).toEqual({
      enum: ["NONE", "DOMESTIC", "FOREIGN", "HIO", "FAMILY_OR_ASSOCIATE"]
    })
    const after = await server.call("GET", "/customers?limit=100&isIncludingDeleted=true")
    expect(after.json.totalCount).toBe(before.json.totalCount)
    expect(ids(after)).toEqual(ids(before))
  })

  it("C-11 CU-04 a business missing required businessInfo fields: all listed, nothing stored", async () => {
    const before = await server.call("GET", "/customers?limit=100&isIncludingDeleted=true")
    const r = await server.call("POST", "/customers", {
      customerType: "BUSINESS",
      email: "ops@",
      businessInfo: { legalName: "Half Done LLC", country: "usa", entityType: "GUILD", naicsCode: "5" }
    })
    expectInvalid(r, [
      "email",
      "businessInfo.country",
      "businessInfo.incorporatedOn",
      "businessInfo.taxId",
      "businessInfo.entityType",
      "businessInfo.naicsCode"
    ])
    expect(errorOf(r, "businessInfo.taxId")?.constraint).toEqual({ required: true })
    expect((await server.call("GET", "/customers?limit=100&isIncludingDeleted=true")).json.totalCount).toBe(
      before.json.totalCount
    )
  })

  it("C-11 currencies the platform does not support are 400, one error per entry", async () => {
    const supported: Array<string> = (await server.call("GET", "/config")).json.supportedCurrencies.map(
      (c: { currencyCode: string }) => c.currencyCode
    )
    const unsupported = ["KES", "JPY", "COP"].filter((c) => !supported.includes(c))
    expect(unsupported.length).toBeGreaterThanOrEqual(2)
    const r = await server.call("POST", "/customers", individual({ currencies: ["USD", ...unsupported] }))
    expectInvalid(
      r,
      unsupported.map((_, i) => `currencies.${i + 1}`)
    )
    expect(errorOf(r, "currencies.1")?.constraint).toEqual({ enum: supported })
  })

  it("CU-02 an unknown customerType is 400 naming customerType with the allowed values", async () => {
    const r = await server.call("POST", "/customers", { customerType: "ROBOT", fullName: "R2" })
    expectInvalid(r, ["customerType"])
    expect(errorOf(r, "customerType")?.constraint).toEqual({ enum: ["INDIVIDUAL", "BUSINESS"] })
  })

  it("C-31 malformed JSON, a missing body and a non-object body are 400 on the body", async () => {
    const malformed = await server.call("POST", "/customers", '{"customerType": "INDIVIDUAL",')
    expectInvalid(malformed, ["body"])
    expect(malformed.json.details.errors[0].constraint).toEqual({ format: "json" })
    expectInvalid(await server.call("POST", "/customers"), ["body"])
    expectInvalid(await server.call("POST", "/customers", "[1, 2]"), ["body"])
  })
})

describe("GET /customers (CU-10, C-07)", () => {
  it("CU-10 filters by customerType, platformCustomerId, region, currency, umaAddress and creation time", async () => {
    const region = "NZ"
    const a = await create(individual({ region, platformCustomerId: unique("nz-a"), currencies: ["USD", "MXN"] }))
    await new Promise((resolve) => setTimeout(resolve, 5))
    const b = await create(business({ region, platformCustomerId: unique("nz-b"), currencies: ["EUR"] }))

    expect(ids(await server.call("GET", `/customers?region=${region}`))).toEqual([b.id, a.id])
    expect(ids(await server.call("GET", `/customers?region=${region}&customerType=BUSINESS`))).toEqual([b.id])
    expect(ids(await server.call("GET", `/customers?region=${region}&customerType=INDIVIDUAL`))).toEqual([a.id])
    expect(ids(await server.call("GET", `/customers?platformCustomerId=${a.platformCustomerId}`))).toEqual([a.id])
    expect(ids(await server.call("GET", `/customers?region=${region}&currency=MXN`))).toEqual([a.id])
    expect(ids(await server.call("GET", `/customers?umaAddress=${encodeURIComponent(b.umaAddress)}`))).toEqual([b.id])
    expect(
      ids(await server.call("GET", `/customers?region=${region}&createdAfter=${encodeURIComponent(a.createdAt)}`))
    ).toEqual([b.id])
    expect(
      ids(await server.call("GET", `/customers?region=${region}&createdBefore=${encodeURIComponent(b.createdAt)}`))
    ).toEqual([a.id])
    const r = await server.call("GET", `/customers?region=${region}&sortOrder=asc`)
    expect(r.json).toMatchObject({ hasMore: false, totalCount: 2 })
    expect(ids(r)).toEqual([a.id, b.id])
  })

  it("C-07 walks every page with limit + cursor: no row skipped or repeated while rows are added (desc)", async () => {
    const region = "JP"
    const originals: Array<string> = []
    for (let i = 0; i < 7; i++) originals.push((await create(individual({ region }))).id)
    const added: Array<string> = []
    const seen = await walk(`/customers?region=${region}`, 3, async () => {
      added.push((await create(individual({ region }))).id)
    })
    // Newest first: rows added after the walk started sort before the cursor, so they are not part of this walk.
    expect(seen).toEqual([...originals].reverse())
    expect(added).toHaveLength(2)
    const again = await walk(`/customers?region=${region}`, 4)
    expect(again).toEqual([...originals, ...added].reverse())
  })

  it("C-07 walks every page oldest first while rows are added: each row once, new rows at the end", async () => {
    const region = "KR"
    const originals: Array<string> = []
    for (let i = 0; i < 5; i++) originals.push((await create(individual({ region }))).id)
    const added: Array<string> = []
    const seen = await walk(`/customers?region=${region}&sortOrder=asc`, 2, async (page) => {
      if (page < 2) added.push((await create(individual({ region }))).id)
    })
    expect(seen).toEqual([...originals, ...added])
    expect(new Set(seen).size).toBe(seen.length)
  })

  it("C-07 paging totals: totalCount is the filtered total and hasMore flips on the last page", async () => {
    const region = "SG"
    for (let i = 0; i < 3; i++) await create(individual({ region }))
    const first = await server.call("GET", `/customers?region=${region}&limit=2`)
    expect(first.json).toMatchObject({ hasMore: true, totalCount: 3, nextCursor: expect.any(String) })
    expect(first.json.data).toHaveLength(2)
    const last = await server.call("GET", `/customers?region=${region}&limit=2&cursor=${first.json.nextCursor}`)
    expect(last.json).toMatchObject({ hasMore: false, totalCount: 3 })
    expect(last.json.data).toHaveLength(1)
    expect(last.json).not.toHaveProperty("nextCursor")
  })

  it("C-07 a bad cursor is 400 on cursor; bad filters are 400 naming each query field", async () => {
    const bad = await server.call("GET", "/customers?cursor=Zm9v")
    expectInvalid(bad, ["cursor"])
    expect(bad.json.details.errors[0].constraint).toEqual({ format: "cursor" })
    expectInvalid(
      await server.call("GET", "/customers?limit=0&customerType=ROBOT&region=nzl&isIncludingDeleted=yes&sortOrder=up"),
      ["query.limit", "query.customerType", "query.region", "query.isIncludingDeleted", "query.sortOrder"]
    )
  })
})

describe("GET /customers/{customerId} (CU-11)", () => {
  it("C-21 CU-11 an unknown customer is 404 USER_NOT_FOUND; a malformed id is 400 on path.customerId", async () => {
    const r = await server.call("GET", `/customers/${UNKNOWN_CUSTOMER}`)
    expect(r.status).toBe(404)
    expect(r.json).toEqual({ status: 404, code: "USER_NOT_FOUND", message: expect.stringContaining(UNKNOWN_CUSTOMER) })
    expectInvalid(await server.call("GET", "/customers/cus_123"), ["path.customerId"])
    expectInvalid(await server.call("GET", "/customers/Quote:01234567-89ab-7def-8123-456789abcdef"), [
      "path.customerId"
    ])
  })
})

describe("PATCH /customers/{customerId} (CU-12, CU-13)", () => {
  it("CU-12 updates the supplied fields only and returns 200 with the customer", async () => {
    const c = await create(individual({ email: "old@example.com", birthDate: "1990-01-01" }))
    await new Promise((resolve) => setTimeout(resolve, 2))
    const r = await server.call("PATCH", `/customers/${c.id}`, {
      customerType: "INDIVIDUAL",
      fullName: "Ada King",
      pepStatus: "FOREIGN",
      email: "new@example.com"
    })
    expect(r.status).toBe(200)
    expect(r.json).toEqual({
      ...c,
      fullName: "Ada King",
      pepStatus: "FOREIGN",
      email: "new@example.com",
      updatedAt: expect.any(String)
    })
    expect(r.json.updatedAt > c.updatedAt).toBe(true)
    expect((await server.call("GET", `/customers/${c.id}`)).json).toEqual(r.json)
  })

  it("CU-12 CU-39 adding a currency provisions its internal account", async () => {
    const c = await create(individual({ currencies: ["USD"] }))
    const r = await server.call("PATCH", `/customers/${c.id}`, {
      customerType: "INDIVIDUAL",
      currencies: ["USD", "MXN"]
    })
    expect(r.status).toBe(200)
    expect(r.json.currencies).toEqual(["USD", "MXN"])
    const accounts = await server.call("GET", `/internal-account?customerId=${c.id}`)
    expect(accounts.json.data.map((a: { currency: string }) => a.currency).sort()).toEqual(["MXN", "USD"])
  })

  it("CU-12 a business PATCH merges businessInfo", async () => {
    const c = await create(business())
    const r = await server.call("PATCH", `/customers/${c.id}`, {
      customerType: "BUSINESS",
      businessInfo: { doingBusinessAs: "AE Labs" }
    })
    expect(r.status).toBe(200)
    expect(r.json.businessInfo).toEqual({ ...c.businessInfo, doingBusinessAs: "AE Labs" })
  })

  it("CU-13 a PATCH with both email and phoneNumber is 400 listing both; nothing changes", async () => {
    const c = await create(individual())
    const r = await server.call("PATCH", `/customers/${c.id}`, {
      customerType: "INDIVIDUAL",
      email: "a@example.com",
      phoneNumber: "+15555550100"
    })
    expectInvalid(r, ["email", "phoneNumber"])
    expect((await server.call("GET", `/customers/${c.id}`)).json).toEqual(c)
  })

  it("C-11 several invalid fields at once (schema): all listed, nothing changes", async () => {
    const c = await create(individual())
    const r = await server.call("PATCH", `/customers/${c.id}`, {
      customerType: "INDIVIDUAL",
      fullName: "",
      phoneNumber: "555-0100",
      address: { line1: "x", country: "United Kingdom" },
      annualIncomeRange: "LOTS"
    })
    expectInvalid(r, ["fullName", "phoneNumber", "address.postalCode", "address.country", "annualIncomeRange"])
    expect((await server.call("GET", `/customers/${c.id}`)).json).toEqual(c)
  })

  it("C-11 several broken rules at once (type change, email+phone, unsupported currency): all listed", async () => {
    const c = await create(individual())
    const r = await server.call("PATCH", `/customers/${c.id}`, {
      customerType: "BUSINESS",
      email: "a@example.com",
      phoneNumber: "+15555550100",
      currencies: ["USD", "JPY"]
    })
    expectInvalid(r, ["customerType", "email", "phoneNumber", "currencies.1"])
    expect(errorOf(r, "customerType")?.constraint).toEqual({ enum: ["INDIVIDUAL"] })
    expect((await server.call("GET", `/customers/${c.id}`)).json).toEqual(c)
  })

  it("CU-09 changing platformCustomerId to one in use is 409 CONFLICT", async () => {
    const a = await create(individual({ platformCustomerId: unique("taken") }))
    const b = await create(individual())
    const r = await server.call("PATCH", `/customers/${b.id}`, {
      customerType: "INDIVIDUAL",
      platformCustomerId: a.platformCustomerId
    })
    expect(r.status).toBe(409)
    expect(r.json.code).toBe("CONFLICT")
    expect((await server.call("GET", `/customers/${b.id}`)).json).toEqual(b)
  })

  it("C-21 an unknown customer is 404 USER_NOT_FOUND", async () => {
    const r = await server.call("PATCH", `/customers/${UNKNOWN_CUSTOMER}`, {
      customerType: "INDIVIDUAL",
      fullName: "X"
    })
    expect(r.status).toBe(404)
    expect(r.json.code).toBe("USER_NOT_FOUND")
  })

  it("C-31 malformed JSON is 400 and changes nothing", async () => {
    const c = await create(individual())
    expectInvalid(await server.call("PATCH", `/customers/${c.id}`, "{'customerType':'INDIVIDUAL'}"), ["body"])
    expect((await server.call("GET", `/customers/${c.id}`)).json).toEqual(c)
  })
})

describe("DELETE /customers/{customerId} (CU-19)", () => {
  it("CU-19 answers 200 with isDeleted: true; the customer stays readable, hidden from lists by default", async () => {
    const region = "NO"
    const c = await create(individual({ region }))
    const r = await server.call("DELETE", `/customers/${c.id}`)
    expect(r.status).toBe(200)
    expect(r.json).toEqual({ ...c, isDeleted: true, updatedAt: expect.any(String) })
    const get = await server.call("GET", `/customers/${c.id}`)
    expect(get.status).toBe(200)
    expect(get.json.isDeleted).toBe(true)
    expect((await server.call("GET", `/customers?region=${region}`)).json).toEqual({
      data: [],
      hasMore: false,
      totalCount: 0
    })
    const withDeleted = await server.call("GET", `/customers?region=${region}&isIncludingDeleted=true`)
    expect(ids(withDeleted)).toEqual([c.id])
  })

  it("CU-19 deleting twice is 410 CUSTOMER_DELETED; so is a PATCH of a deleted customer", async () => {
    const c = await create(individual())
    expect((await server.call("DELETE", `/customers/${c.id}`)).status).toBe(200)
    const again = await server.call("DELETE", `/customers/${c.id}`)
    expect(again.status).toBe(410)
    expect(again.json).toEqual({ status: 410, code: "CUSTOMER_DELETED", message: expect.stringContaining(c.id) })
    const patch = await server.call("PATCH", `/customers/${c.id}`, { customerType: "INDIVIDUAL", fullName: "Zombie" })
    expect(patch.status).toBe(410)
    expect(patch.json.code).toBe("CUSTOMER_DELETED")
    expect((await server.call("GET", `/customers/${c.id}`)).json.fullName).toBe(c.fullName)
  })

  it("C-21 deleting an unknown customer is 404 USER_NOT_FOUND", async () => {
    const r = await server.call("DELETE", `/customers/${UNKNOWN_CUSTOMER}`)
    expect(r.status).toBe(404)
    expect(r.json.code).toBe("USER_NOT_FOUND")
  })
})
