/**
 * KYC/KYB onboarding on the HTTP surface (FEATURES CU-28..CU-38, K-01..K-24): hosted links, contact
 * verification, beneficial owners, verifications with the sandbox's magic suffixes, and their webhooks.
 * The whole file runs on the memory store, on PGlite, and on the PostgreSQL server named by DATABASE_URL.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import {
  type CallResult,
  errorOf,
  expectError,
  expectForbiddenWrite,
  expectInvalid,
  expectUnauthorized,
  ids,
  individualPacket as individual,
  UNKNOWN_CUSTOMER,
  UUID,
  uploadDocument,
  useTestServer
} from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const UNKNOWN_OWNER = "BeneficialOwner:01234567-89ab-7def-8123-456789abcdef"
const UNKNOWN_VERIFICATION = "Verification:01234567-89ab-7def-8123-456789abcdef"

const IDENTITY_TYPES = ["PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID"]

let seq = 0
const key = (prefix = "k") => `${prefix}-${Date.now().toString(36)}-${++seq}`

/** A business with every KYB field; `registrationNumber` carries the sandbox suffix. */
const business = (registrationNumber: string, info: Record<string, unknown> = {}, overrides = {}) => ({
  customerType: "BUSINESS",
  currencies: ["USD"],
  address: { line1: "500 Howard St", city: "San Francisco", state: "CA", postalCode: "94105", country: "US" },
  businessInfo: {
    legalName: "Analytical Engines Inc",
    country: "US",
    registrationNumber,
    incorporatedOn: "2019-05-01",
    entityType: "CORPORATION",
    taxId: "12-3456789",
    countriesOfOperation: ["US"],
    ...info
  },
  ...overrides
})

const personalInfo = (lastName: string, overrides: Record<string, unknown> = {}) => ({
  firstName: "Grace",
  lastName,
  birthDate: "1978-06-15",
  nationality: "US",
  address: { line1: "1 Navy Way", city: "Arlington", postalCode: "22202", country: "US" },
  idType: "SSN",
  identifier: "987-65-4321",
  ...overrides
})

const onboardingSuite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(async () => {}, stores())
  /** Puts a document on file for a holder (POST /documents); its id. */
  const file = async (holder: string, documentType: string): Promise<string> =>
    (await uploadDocument(server, holder, documentType)).id

  const create = async (body: object) => {
    const r = await server.call("POST", "/customers", body)
    expect(r.status, JSON.stringify(r.json)).toBe(201)
    return r.json
  }
  const addOwner = async (customerId: string, body: Record<string, unknown> = {}) => {
    const r = await server.call("POST", "/beneficial-owners", {
      customerId,
      roles: ["UBO", "CONTROL_PERSON"],
      ownershipPercentage: 60,
      personalInfo: personalInfo("Hopper"),
      ...body
    })
    expect(r.status, JSON.stringify(r.json)).toBe(201)
    return r.json
  }
  const verify = async (customerId: string): Promise<CallResult> =>
    server.call("POST", "/verifications", { customerId })
  const verified = async (customerId: string, status: string) => {
    const r = await verify(customerId)
    expect(r.status, JSON.stringify(r.json)).toBe(200)
    expect(r.json.verificationStatus, JSON.stringify(r.json.errors)).toBe(status)
    return r.json
  }
  const customer = async (id: string) => (await server.call("GET", `/customers/${id}`)).json
  const owner = async (id: string) => (await server.call("GET", `/beneficial-owners/${id}`)).json
  /** The webhook types emitted about a customer, oldest first. */
  const events = async (customerId: string): Promise<Array<string>> => {
    const r = await server.call("GET", `/webhooks/deliveries?subject=${customerId}&sortOrder=asc&limit=100`)
    expect(r.status).toBe(200)
    return r.json.data.map((d: { type: string }) => d.type)
  }
  const eventsWithData = async (customerId: string) => {
    const r = await server.call("GET", `/webhooks/deliveries?subject=${customerId}&sortOrder=asc&limit=100`)
    return r.json.data.map((d: { event: { type: string; data: any } }) => d.event)
  }
  const skipPaperwork = async (on: boolean) => {
    const r = await server.call("PATCH", "/config", { skipVerificationPaperwork: on })
    expect(r.status).toBe(200)
    expect(r.json.skipVerificationPaperwork).toBe(on)
  }
  const rename = async (id: string, fullName: string) => {
    const r = await server.call("PATCH", `/customers/${id}`, { customerType: "INDIVIDUAL", fullName })
    expect(r.status).toBe(200)
  }
  /** `idempotencyKey: null` sends none. */
  const kycLink = (customerId: string, idempotencyKey: string | null = key(), body: unknown = undefined) =>
    server.call("POST", `/customers/${customerId}/kyc-link`, body ?? { redirectUri: "https://app.example.com/done" }, {
      headers: idempotencyKey === null ? {} : { "idempotency-key": idempotencyKey }
    })
  /** A complete individual in an EEA region (its provider requires email and phone verification). */
  const euIndividual = (fullName = "Marie Curie", overrides: Record<string, unknown> = {}) =>
    create(
      individual(fullName, {
        region: "DE",
        email: `m.${key()}@example.com`,
        phoneNumber: "+4915112345678",
        ...overrides
      })
    )
  const confirm = (id: string, channel: "email" | "phone", code: string) =>
    server.call("POST", `/customers/${id}/verify-${channel}/confirm`, { code })

  describe("credentials and permissions", () => {
    /** Every onboarding write about business `c` and its owner `o`. */
    const writesOf = (c: string, o: string): Array<[string, string, unknown?]> => [
      ["POST", `/customers/${c}/kyc-link`, { redirectUri: "https://x.example" }],
      ["POST", `/customers/${c}/verify-email`],
      ["POST", `/customers/${c}/verify-email/confirm`, { code: "123456" }],
      ["POST", `/customers/${c}/verify-phone`],
      ["POST", `/customers/${c}/verify-phone/confirm`, { code: "123456" }],
      ["POST", "/verifications", { customerId: c }],
      ["POST", "/beneficial-owners", { customerId: c }],
      ["PATCH", `/beneficial-owners/${o}`, { ownershipPercentage: 50 }]
    ]

    it("every endpoint answers 401 without credentials", async () => {
      const c = await create(business("REG-100"))
      const o = await addOwner(c.id)
      const calls: Array<[string, string, unknown?]> = [
        ...writesOf(c.id, o.id),
        ["GET", "/verifications"],
        ["GET", `/verifications/${UNKNOWN_VERIFICATION}`],
        ["GET", `/beneficial-owners?customerId=${c.id}`],
        ["GET", `/beneficial-owners/${o.id}`]
      ]
      for (const [method, path, body] of calls) {
        expectUnauthorized(await server.call(method, path, body, { auth: null, headers: { "idempotency-key": key() } }))
      }
      expect((await owner(o.id)).ownershipPercentage).toBe(60)
    })

    it("A-04 a VIEW token reads, but every write needs TRANSACT or MANAGE (403)", async () => {
      const viewer = await server.token(["VIEW"])
      const c = await create(business("REG-101"))
      const o = await addOwner(c.id)
      expect((await server.call("GET", `/beneficial-owners/${o.id}`, undefined, { auth: viewer })).status).toBe(200)
      expect(
        (await server.call("GET", `/beneficial-owners?customerId=${c.id}`, undefined, { auth: viewer })).status
      ).toBe(200)
      expect((await server.call("GET", `/verifications?customerId=${c.id}`, undefined, { auth: viewer })).status).toBe(
        200
      )
      for (const [method, path, body] of writesOf(c.id, o.id)) {
        expectForbiddenWrite(
          await server.call(method, path, body, { auth: viewer, headers: { "idempotency-key": key() } })
        )
      }
      const transact = await server.token(["TRANSACT"])
      const r = await server.call(
        "PATCH",
        `/beneficial-owners/${o.id}`,
        { ownershipPercentage: 55 },
        { auth: transact }
      )
      expect(r.status).toBe(200)
    })
  })

  describe("beneficial owners (K-15..K-24)", () => {
    it("K-22 POST /beneficial-owners creates an UNVERIFIED owner of a business (201)", async () => {
      const c = await create(business("REG-110"))
      const r = await server.call("POST", "/beneficial-owners", {
        customerId: c.id,
        roles: ["UBO", "DIRECTOR", "UBO"],
        ownershipPercentage: 51,
        personalInfo: personalInfo("Smith", {
          middleName: "Marie",
          email: "jane.smith@example.com",
          phoneNumber: "+14155550192",
          idType: "NON_US_TAX_ID",
          countryOfIssuance: "GB"
        })
      })
      expect(r.status).toBe(201)
      expect(r.json.id).toMatch(new RegExp(`^BeneficialOwner:${UUID}$`))
      expect(r.json).toMatchObject({
        customerId: c.id,
        roles: ["UBO", "DIRECTOR"],
        ownershipPercentage: 51,
        kycStatus: "UNVERIFIED",
        personalInfo: { firstName: "Grace", middleName: "Marie", lastName: "Smith", countryOfIssuance: "GB" }
      })
      expect(r.json.createdAt).toBe(r.json.updatedAt)
      expect(await owner(r.json.id)).toEqual(r.json)
    })

    it("L-04, K-17..K-20 every invalid field at once: percentage 0..100 integer, roles, E.164, address, idType", async () => {
      const c = await create(business("REG-111"))
      const r = await server.call("POST", "/beneficial-owners", {
        customerId: c.id,
        roles: ["OWNER"],
        ownershipPercentage: 101,
        personalInfo: {
          firstName: "Ada",
          birthDate: "1815-13-10",
          nationality: "gb",
          phoneNumber: "0044 20 7946 0000",
          address: { city: "London", country: "GB" },
          idType: "PASSPORT",
          identifier: "X"
        }
      })
      expectInvalid(r, [
        "roles.0",
        "ownershipPercentage",
        "personalInfo.lastName",
        "personalInfo.birthDate",
        "personalInfo.nationality",
        "personalInfo.phoneNumber",
        "personalInfo.address.line1",
        "personalInfo.address.postalCode",
        "personalInfo.idType"
      ])
      expect(errorOf(r, "ownershipPercentage")?.constraint).toMatchObject({ maximum: 100 })
      expect(errorOf(r, "personalInfo.idType")?.constraint).toEqual({ enum: ["SSN", "ITIN", "EIN", "NON_US_TAX_ID"] })
      for (const [pct, field] of [
        [-1, "ownershipPercentage"],
        [25.5, "ownershipPercentage"]
      ] as const) {
        const bad = await server.call("POST", "/beneficial-owners", {
          customerId: c.id,
          roles: ["UBO"],
          ownershipPercentage: pct,
          personalInfo: personalInfo("Smith")
        })
        expectInvalid(bad, [field])
      }
      const noRoles = await server.call("POST", "/beneficial-owners", {
        customerId: c.id,
        roles: [],
        ownershipPercentage: 0,
        personalInfo: personalInfo("Smith")
      })
      expectInvalid(noRoles, ["roles"])
      for (const pct of [0, 100]) await addOwner(c.id, { ownershipPercentage: pct, roles: ["DIRECTOR"] })
      const page = await server.call("GET", `/beneficial-owners?customerId=${c.id}`)
      expect(page.json.totalCount).toBe(2)
    })

    it("owners belong to live business customers: 404 USER_NOT_FOUND, 400 for an individual, 410 when deleted", async () => {
      const body = { roles: ["UBO"], ownershipPercentage: 30, personalInfo: personalInfo("Smith") }
      expectError(
        await server.call("POST", "/beneficial-owners", { ...body, customerId: UNKNOWN_CUSTOMER }),
        404,
        "USER_NOT_FOUND"
      )
      const person = await create(individual("Ada Lovelace"))
      const r = await server.call("POST", "/beneficial-owners", { ...body, customerId: person.id })
      expectInvalid(r, ["customerId"])
      expect(errorOf(r, "customerId")?.constraint).toEqual({ customerType: "BUSINESS" })
      const gone = await create(business("REG-112"))
      const o = await addOwner(gone.id)
      expect((await server.call("DELETE", `/customers/${gone.id}`)).status).toBe(200)
      expectError(
        await server.call("POST", "/beneficial-owners", { ...body, customerId: gone.id }),
        410,
        "CUSTOMER_DELETED"
      )
      expectError(
        await server.call("PATCH", `/beneficial-owners/${o.id}`, { ownershipPercentage: 10 }),
        410,
        "CUSTOMER_DELETED"
      )
      expectInvalid(await server.call("POST", "/beneficial-owners", { ...body, customerId: "Customer:nope" }), [
        "customerId"
      ])
    })

    it("K-21 GET /beneficial-owners/{id}: 404 REFERENCE_NOT_FOUND for an unknown id, 400 for a malformed one", async () => {
      const r = await server.call("GET", `/beneficial-owners/${UNKNOWN_OWNER}`)
      expectError(r, 404, "REFERENCE_NOT_FOUND")
      expect(r.json.message).toContain("Beneficial owner not found")
      expectInvalid(await server.call("GET", "/beneficial-owners/Customer:1"), ["path.beneficialOwnerId"])
      expectError(
        await server.call("PATCH", `/beneficial-owners/${UNKNOWN_OWNER}`, { ownershipPercentage: 10 }),
        404,
        "REFERENCE_NOT_FOUND"
      )
    })

    it("K-23 GET /beneficial-owners?customerId= pages the business's owners only; customerId is required", async () => {
      const c = await create(business("REG-113"))
      const other = await create(business("REG-114"))
      const mine = []
      for (let i = 0; i < 5; i++) mine.push((await addOwner(c.id, { personalInfo: personalInfo(`Owner${i}`) })).id)
      await addOwner(other.id)
      const seen: Array<string> = []
      let cursor: string | undefined
      for (;;) {
        const r = await server.call(
          "GET",
          `/beneficial-owners?customerId=${c.id}&limit=2&sortOrder=asc${cursor === undefined ? "" : `&cursor=${cursor}`}`
        )
        expect(r.status).toBe(200)
        expect(r.json.totalCount).toBe(5)
        seen.push(...ids(r))
        if (!r.json.hasMore) break
        cursor = r.json.nextCursor
      }
      expect(seen).toEqual(mine)
      const newestFirst = await server.call("GET", `/beneficial-owners?customerId=${c.id}`)
      expect(ids(newestFirst)).toEqual([...mine].reverse())
      expectInvalid(await server.call("GET", "/beneficial-owners"), ["query.customerId"])
      expectInvalid(await server.call("GET", `/beneficial-owners?customerId=${c.id}&cursor=zzz`), ["cursor"])
      const none = await server.call("GET", `/beneficial-owners?customerId=${UNKNOWN_CUSTOMER}`)
      expect(none.json).toEqual({ data: [], hasMore: false, totalCount: 0 })
    })

    it("K-24 PATCH updates only the given fields (personal info merged) and never the kycStatus", async () => {
      const c = await create(business("REG-115"))
      const o = await addOwner(c.id)
      const update = {
        ownershipPercentage: 40,
        personalInfo: {
          lastName: "Hopper-Murray",
          address: { line1: "2 Fleet St", postalCode: "10001", country: "US" }
        }
      }
      // C-11: kycStatus is no field of an owner's update (only KYC moves it): refused as unknown, nothing changed.
      const withStatus = await server.call("PATCH", `/beneficial-owners/${o.id}`, { ...update, kycStatus: "APPROVED" })
      expectInvalid(withStatus, ["kycStatus"])
      expect((await server.call("GET", `/beneficial-owners/${o.id}`)).json).toEqual(o)
      const r = await server.call("PATCH", `/beneficial-owners/${o.id}`, update)
      expect(r.status).toBe(200)
      expect(r.json).toEqual({
        ...o,
        ownershipPercentage: 40,
        personalInfo: {
          ...o.personalInfo,
          lastName: "Hopper-Murray",
          address: { line1: "2 Fleet St", postalCode: "10001", country: "US" }
        },
        updatedAt: r.json.updatedAt
      })
      expect(r.json.kycStatus).toBe("UNVERIFIED")
      const roles = await server.call("PATCH", `/beneficial-owners/${o.id}`, { roles: ["DIRECTOR"] })
      expect(roles.json.roles).toEqual(["DIRECTOR"])
      expect(roles.json.ownershipPercentage).toBe(40)
      expectInvalid(await server.call("PATCH", `/beneficial-owners/${o.id}`, { ownershipPercentage: 101, roles: [] }), [
        "ownershipPercentage",
        "roles"
      ])
    })
  })

  describe("hosted KYC link (CU-28..CU-30)", () => {
    it("CU-28 201 with a single-use kycUrl, expiresAt, provider and token; the status does not change", async () => {
      const c = await create(individual("Ada Lovelace"))
      const r = await kycLink(c.id)
      expect(r.status).toBe(201)
      expect(r.json.kycUrl).toMatch(/^https:\/\/kyc\.sandbox\.paycore\.dev\/kyc\/[0-9a-f]{32}\?redirectUri=/)
      expect(r.json.kycUrl).toContain(encodeURIComponent("https://app.example.com/done"))
      expect(r.json.provider).toBe("SANDBOX")
      expect(r.json.token).toMatch(/^sbx_sdk_[0-9a-f]{48}$/)
      expect(Date.parse(r.json.expiresAt)).toBeGreaterThan(Date.now())
      expect((await customer(c.id)).kycStatus).toBe("UNVERIFIED")
      const b = await create(business("REG-120"))
      const kyb = await kycLink(b.id)
      expect(kyb.json.kycUrl).toMatch(/^https:\/\/kyc\.sandbox\.paycore\.dev\/kyb\//)
      expect((await customer(b.id)).kybStatus).toBe("UNVERIFIED")
    })

    it("CU-29 each call issues a fresh link; the same Idempotency-Key replays the first response", async () => {
      const c = await create(individual("Ada Lovelace"))
      const k = key()
      const first = await kycLink(c.id, k)
      const replay = await kycLink(c.id, k)
      expect(replay.status).toBe(201)
      expect(replay.json).toEqual(first.json)
      expect(replay.headers.get("idempotent-replayed")).toBe("true")
      const second = await kycLink(c.id)
      expect(second.status).toBe(201)
      expect(second.json.kycUrl).not.toBe(first.json.kycUrl)
      const reused = await kycLink(c.id, k, { redirectUri: "https://other.example.com" })
      expectError(reused, 409, "IDEMPOTENCY_KEY_REUSED")
    })

    it("400 without Idempotency-Key or redirectUri; 404 unknown customer; 410 deleted", async () => {
      const c = await create(individual("Ada Lovelace"))
      const noKey = await kycLink(c.id, null)
      expectInvalid(noKey, ["headers.idempotency-key"])
      expectInvalid(await kycLink(c.id, key(), {}), ["redirectUri"])
      expectInvalid(await kycLink(c.id, key(), { redirectUri: "ftp://x" }), ["redirectUri"])
      expectInvalid(await kycLink(c.id, "", {}), ["headers.idempotency-key", "redirectUri"])
      expectError(await kycLink(UNKNOWN_CUSTOMER), 404, "USER_NOT_FOUND")
      expect((await server.call("DELETE", `/customers/${c.id}`)).status).toBe(200)
      expectError(await kycLink(c.id), 410, "CUSTOMER_DELETED")
    })

    it("CU-30 409 while the provider's required contact verification is incomplete", async () => {
      const c = await euIndividual()
      const r = await kycLink(c.id)
      expectError(r, 409, "CONFLICT")
      expect(r.json.details).toEqual({ contactVerification: { email: "PENDING", phone: "PENDING" } })
      expect((await server.call("POST", `/customers/${c.id}/verify-email`)).status).toBe(204)
      expect((await confirm(c.id, "email", "123456")).status).toBe(200)
      const half = await kycLink(c.id)
      expectError(half, 409, "CONFLICT")
      expect(half.json.details).toEqual({ contactVerification: { phone: "PENDING" } })
      expect((await server.call("POST", `/customers/${c.id}/verify-phone`)).status).toBe(204)
      expect((await confirm(c.id, "phone", "123456")).status).toBe(200)
      expect((await kycLink(c.id)).status).toBe(201)
    })
  })

  describe("contact verification (CU-31..CU-38)", () => {
    it("CU-31/CU-33/CU-38 verify-email sends a code (204); the sandbox code 123456 marks the email VERIFIED", async () => {
      const c = await euIndividual()
      const sent = await server.call("POST", `/customers/${c.id}/verify-email`)
      expect(sent.status).toBe(204)
      expect(sent.json).toBeUndefined()
      const r = await confirm(c.id, "email", "123456")
      expect(r.status).toBe(200)
      expect(r.json.id).toBe(c.id)
      expect(r.json.contactVerification).toEqual({ email: "VERIFIED", phone: "PENDING" })
      expect((await customer(c.id)).contactVerification.email).toBe("VERIFIED")
    })

    it("CU-34/CU-35 verify-phone and its confirm mark the phone VERIFIED", async () => {
      const c = await euIndividual()
      expect((await server.call("POST", `/customers/${c.id}/verify-phone`)).status).toBe(204)
      const r = await confirm(c.id, "phone", "123456")
      expect(r.status).toBe(200)
      expect(r.json.contactVerification).toEqual({ email: "PENDING", phone: "VERIFIED" })
    })

    it("CU-32 409 CONFLICT when the provider has no such requirement, or the channel is already VERIFIED", async () => {
      const us = await create(individual("Ada Lovelace", { email: "ada@example.com", phoneNumber: "+14155550123" }))
      for (const channel of ["email", "phone"]) {
        expectError(await server.call("POST", `/customers/${us.id}/verify-${channel}`), 409, "CONFLICT")
        expectError(await confirm(us.id, channel as "email", "123456"), 409, "CONFLICT")
      }
      const eu = await euIndividual()
      await server.call("POST", `/customers/${eu.id}/verify-email`)
      await confirm(eu.id, "email", "123456")
      const again = await server.call("POST", `/customers/${eu.id}/verify-email`)
      expectError(again, 409, "CONFLICT")
      expect(again.json.message).toContain("already VERIFIED")
      expectError(await confirm(eu.id, "email", "123456"), 409, "CONFLICT")
    })

    it("a wrong code is 400 with the attempts left; after 5 wrong codes the code is void", async () => {
      const c = await euIndividual()
      await server.call("POST", `/customers/${c.id}/verify-email`)
      for (let left = 4; left >= 0; left--) {
        const r = await confirm(c.id, "email", "000000")
        expectInvalid(r, ["code"])
        expect(errorOf(r, "code")?.constraint).toEqual({ valid: true, attemptsLeft: left })
      }
      const voided = await confirm(c.id, "email", "123456")
      expectInvalid(voided, ["code"])
      expect(errorOf(voided, "code")?.constraint).toEqual({ requested: true })
      expect((await customer(c.id)).contactVerification.email).toBe("PENDING")
    })

    it("a confirm without a code sent, or after the address changed, is 400; 400 without a phone number", async () => {
      const c = await euIndividual("Marie Curie", { phoneNumber: undefined })
      expectInvalid(await confirm(c.id, "email", "123456"), ["code"])
      await server.call("POST", `/customers/${c.id}/verify-email`)
      const patched = await server.call("PATCH", `/customers/${c.id}`, {
        customerType: "INDIVIDUAL",
        email: `new.${key()}@example.com`
      })
      expect(patched.json.contactVerification.email).toBe("PENDING")
      const stale = await confirm(c.id, "email", "123456")
      expectInvalid(stale, ["code"])
      expect(errorOf(stale, "code")?.constraint).toEqual({ requested: true })
      // A new address may get a code at once (the rate limit is per address).
      expect((await server.call("POST", `/customers/${c.id}/verify-email`)).status).toBe(204)
      expect((await confirm(c.id, "email", "123456")).status).toBe(200)
      expectError(await server.call("POST", `/customers/${c.id}/verify-phone`), 400, "MISSING_MANDATORY_USER_INFO")
      expectInvalid(await server.call("POST", `/customers/${c.id}/verify-email/confirm`, {}), ["code"])
    })

    it("C-43 a re-send within 60 s is 429 RATE_LIMITED with Retry-After", async () => {
      const c = await euIndividual()
      expect((await server.call("POST", `/customers/${c.id}/verify-phone`)).status).toBe(204)
      const r = await server.call("POST", `/customers/${c.id}/verify-phone`)
      expectError(r, 429, "RATE_LIMITED")
      const retryAfter = Number(r.headers.get("retry-after"))
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(60)
      // The first code still works.
      expect((await confirm(c.id, "phone", "123456")).status).toBe(200)
    })

    it("the store keeps only a hash of the code", async () => {
      const c = await euIndividual()
      await server.call("POST", `/customers/${c.id}/verify-email`)
      const stored = await Effect.runPromise(server.store.contactChallenges.get(`${c.id}/EMAIL`))
      expect(stored).toBeDefined()
      expect(stored!.codeHash).toMatch(/^[0-9a-f]{64}$/)
      expect(JSON.stringify(stored)).not.toContain("123456")
      await confirm(c.id, "email", "123456")
      expect(await Effect.runPromise(server.store.contactChallenges.get(`${c.id}/EMAIL`))).toBeUndefined()
    })

    it("404 USER_NOT_FOUND, 410 CUSTOMER_DELETED, 400 for a malformed id", async () => {
      expectError(await server.call("POST", `/customers/${UNKNOWN_CUSTOMER}/verify-email`), 404, "USER_NOT_FOUND")
      expectError(await confirm(UNKNOWN_CUSTOMER, "phone", "123456"), 404, "USER_NOT_FOUND")
      const c = await euIndividual()
      await server.call("DELETE", `/customers/${c.id}`)
      expectError(await server.call("POST", `/customers/${c.id}/verify-email`), 410, "CUSTOMER_DELETED")
      expectInvalid(await server.call("POST", "/customers/nope/verify-email"), ["path.customerId"])
    })
  })

  describe("verifications: individuals (K-02..K-11, K-14)", () => {
    it("K-03 an incomplete packet: RESOLVE_ERRORS, one error per missing field and document; still UNVERIFIED", async () => {
      await skipPaperwork(false)
      const c = await create({ customerType: "INDIVIDUAL", fullName: "Ada Lovelace" })
      const v = await verified(c.id, "RESOLVE_ERRORS")
      expect(v.id).toMatch(new RegExp(`^Verification:${UUID}$`))
      expect(v.customerId).toBe(c.id)
      expect(v.errors).toEqual([
        { resourceId: c.id, type: "MISSING_FIELD", field: "customer.birthDate", reason: "Date of birth is required" },
        { resourceId: c.id, type: "MISSING_FIELD", field: "customer.nationality", reason: "Nationality is required" },
        {
          resourceId: c.id,
          type: "MISSING_FIELD",
          field: "customer.address",
          reason: "Residential address is required"
        },
        {
          resourceId: c.id,
          type: "MISSING_FIELD",
          field: "customer.idType",
          reason: "The type of identification number is required"
        },
        {
          resourceId: c.id,
          type: "MISSING_FIELD",
          field: "customer.identifier",
          reason: "The identification number is required"
        },
        {
          resourceId: c.id,
          type: "MISSING_IDENTITY_DOCUMENT",
          acceptedDocumentTypes: IDENTITY_TYPES,
          reason: "An identity document (passport, driver's license or national ID) is required"
        }
      ])
      expect((await customer(c.id)).kycStatus).toBe("UNVERIFIED")
      expect(await events(c.id)).toEqual(["VERIFICATION.RESOLVE_ERRORS"])
    })

    it("K-03 without documents on file an identity document is asked for (acceptedDocumentTypes)", async () => {
      await skipPaperwork(false)
      const c = await create(individual("Ada Lovelace", { idType: "NON_US_TAX_ID" }))
      const v = await verified(c.id, "RESOLVE_ERRORS")
      expect(v.errors.map((e: { type: string; field?: string }) => e.field ?? e.type)).toEqual([
        "customer.countryOfIssuance",
        "MISSING_IDENTITY_DOCUMENT"
      ])
      expect(v.errors[1].acceptedDocumentTypes).toEqual(IDENTITY_TYPES)
      // A document on file satisfies it: any accepted type.
      await file(c.id, "DRIVERS_LICENSE")
      await rename(c.id, "Ada Lovelace")
      const patched = await server.call("PATCH", `/customers/${c.id}`, {
        customerType: "INDIVIDUAL",
        countryOfIssuance: "GB"
      })
      expect(patched.status).toBe(200)
      const approved = await verified(c.id, "APPROVED")
      expect(approved.errors).toEqual([])
    })

    it("WH-09, K-11 any other suffix → APPROVED; CUSTOMER.KYC_APPROVED carries the approved customer", async () => {
      await skipPaperwork(true)
      const c = await create(individual("Ada Lovelace"))
      const v = await verified(c.id, "APPROVED")
      expect(v.errors).toEqual([])
      expect((await customer(c.id)).kycStatus).toBe("APPROVED")
      const emitted = await eventsWithData(c.id)
      expect(emitted.map((e: { type: string }) => e.type)).toEqual(["VERIFICATION.APPROVED", "CUSTOMER.KYC_APPROVED"])
      expect(emitted[0].data).toEqual(v)
      expect(emitted[1].data).toMatchObject({ id: c.id, kycStatus: "APPROVED", customerType: "INDIVIDUAL" })
    })

    it("SB-10, K-11 suffix 002 → REJECTED with APPLICANT_REJECTED; CUSTOMER.KYC_REJECTED", async () => {
      await skipPaperwork(true)
      const c = await create(individual("Ada Lovelace002"))
      const v = await verified(c.id, "REJECTED")
      expect(v.errors).toEqual([
        { resourceId: c.id, type: "APPLICANT_REJECTED", reason: "The applicant was rejected (sandbox suffix 002)" }
      ])
      expect((await customer(c.id)).kycStatus).toBe("REJECTED")
      expect(await events(c.id)).toEqual(["VERIFICATION.REJECTED", "CUSTOMER.KYC_REJECTED"])
    })

    it("K-11 suffix 001 still needs the whole packet with the switch on, then PENDING / PENDING_MANUAL_REVIEW", async () => {
      await skipPaperwork(true)
      const c = await create(individual("Ada Lovelace001"))
      const first = await verified(c.id, "RESOLVE_ERRORS")
      expect(first.errors.map((e: { type: string }) => e.type)).toEqual(["MISSING_IDENTITY_DOCUMENT"])
      expect((await customer(c.id)).kycStatus).toBe("UNVERIFIED")
      await file(c.id, "PASSPORT")
      await verified(c.id, "PENDING_MANUAL_REVIEW")
      expect((await customer(c.id)).kycStatus).toBe("PENDING")
      expect(await events(c.id)).toEqual([
        "VERIFICATION.RESOLVE_ERRORS",
        "VERIFICATION.PENDING_MANUAL_REVIEW",
        "CUSTOMER.KYC_PENDING"
      ])
      // A customer in review may be reviewed again: same verdict, no move, no customer event.
      await verified(c.id, "PENDING_MANUAL_REVIEW")
      expect((await events(c.id)).filter((t) => t.startsWith("CUSTOMER."))).toEqual(["CUSTOMER.KYC_PENDING"])
    })

    it("K-11 suffix 003 → RESOLVE_ERRORS POOR_QUALITY_DOCUMENT on the identity document", async () => {
      await skipPaperwork(true)
      const c = await create(individual("Ada Lovelace003"))
      const without = await verified(c.id, "RESOLVE_ERRORS")
      expect(without.errors.map((e: { type: string }) => e.type)).toEqual([
        "MISSING_IDENTITY_DOCUMENT",
        "POOR_QUALITY_DOCUMENT"
      ])
      const doc = await file(c.id, "NATIONAL_ID")
      const v = await verified(c.id, "RESOLVE_ERRORS")
      expect(v.errors).toEqual([
        {
          resourceId: doc,
          type: "POOR_QUALITY_DOCUMENT",
          acceptedDocumentTypes: IDENTITY_TYPES,
          reason: "The identity document is blurred or has glare: upload a clear photo or scan (sandbox suffix 003)"
        }
      ])
      expect((await customer(c.id)).kycStatus).toBe("UNVERIFIED")
    })

    it("suffix 004: the provider is unreachable: kyc-link and POST /verifications are 503 SERVICE_UNAVAILABLE, nothing changes", async () => {
      await skipPaperwork(true)
      for (const c of [await create(individual("Ada Lovelace004")), await create(business("REG-004"))]) {
        expectError(await kycLink(c.id), 503, "SERVICE_UNAVAILABLE")
        const r = await verify(c.id)
        expectError(r, 503, "SERVICE_UNAVAILABLE")
        expect(r.json.message).toContain("sandbox suffix 004")
        expect(await customer(c.id)).toEqual(c)
        expect(await events(c.id)).toEqual([])
        expect((await server.call("GET", `/verifications?customerId=${c.id}`)).json.data).toEqual([])
      }
    })

    it("K-07 a customer in review whose new review finds errors goes on HOLD, and comes back from it", async () => {
      await skipPaperwork(true)
      const c = await create(individual("Ada Lovelace001"))
      await file(c.id, "PASSPORT")
      await verified(c.id, "PENDING_MANUAL_REVIEW")
      await rename(c.id, "Ada Lovelace003")
      await verified(c.id, "RESOLVE_ERRORS")
      expect((await customer(c.id)).kycStatus).toBe("HOLD")
      await rename(c.id, "Ada Lovelace")
      await verified(c.id, "APPROVED")
      expect((await customer(c.id)).kycStatus).toBe("APPROVED")
      expect(await events(c.id)).toEqual([
        "VERIFICATION.PENDING_MANUAL_REVIEW",
        "CUSTOMER.KYC_PENDING",
        "VERIFICATION.RESOLVE_ERRORS",
        "VERIFICATION.APPROVED",
        "CUSTOMER.KYC_APPROVED"
      ])
    })

    it("K-06/K-14 APPROVED and REJECTED are final: a rename does not move them, a re-submission is 400", async () => {
      await skipPaperwork(true)
      const approved = await create(individual("Ada Lovelace"))
      await verified(approved.id, "APPROVED")
      await rename(approved.id, "Ada Lovelace002")
      expect((await customer(approved.id)).kycStatus).toBe("APPROVED")
      const again = await verify(approved.id)
      expectInvalid(again, ["customerId"])
      expect(again.json.message).toContain("already APPROVED")
      const rejected = await create(individual("Ada Lovelace002"))
      await verified(rejected.id, "REJECTED")
      await rename(rejected.id, "Ada Lovelace")
      expect((await customer(rejected.id)).kycStatus).toBe("REJECTED")
      expectInvalid(await verify(rejected.id), ["customerId"])
      expect(await events(approved.id)).toEqual(["VERIFICATION.APPROVED", "CUSTOMER.KYC_APPROVED"])
    })

    it("V-07, K-10 the suffix decides only at POST /verifications: a new customer stays UNVERIFIED", async () => {
      const c = await create(individual("Ada Lovelace002"))
      expect(c.kycStatus).toBe("UNVERIFIED")
      expect((await customer(c.id)).kycStatus).toBe("UNVERIFIED")
      expect(await events(c.id)).toEqual([])
    })

    it("regulated platforms get no suffix rule: a complete packet is approved", async () => {
      await skipPaperwork(true)
      const config = await Effect.runPromise(server.store.config.get())
      await Effect.runPromise(server.store.config.put({ ...config!, isRegulatedFinancialInstitution: true }))
      try {
        const c = await create(individual("Ada Lovelace002"))
        await verified(c.id, "APPROVED")
        const pending = await create(individual("Ada Lovelace001"))
        await verified(pending.id, "APPROVED")
      } finally {
        await Effect.runPromise(server.store.config.put({ ...config!, isRegulatedFinancialInstitution: false }))
      }
    })

    it("CU-37 409 while contact verification is incomplete; 404, 410 and 400 for the customerId", async () => {
      const eu = await euIndividual()
      expectError(await verify(eu.id), 409, "CONFLICT")
      expectError(await verify(UNKNOWN_CUSTOMER), 404, "USER_NOT_FOUND")
      expectInvalid(await verify("Customer:x"), ["customerId"])
      expectInvalid(await server.call("POST", "/verifications", {}), ["customerId"])
      const gone = await create(individual("Ada Lovelace"))
      await server.call("DELETE", `/customers/${gone.id}`)
      expectError(await verify(gone.id), 410, "CUSTOMER_DELETED")
    })

    it("K-05 each review is a new verification: GET by id, list by customer and status, 404 unknown", async () => {
      await skipPaperwork(false)
      const c = await create(individual("Ada Lovelace"))
      const first = await verified(c.id, "RESOLVE_ERRORS")
      await skipPaperwork(true)
      const second = await verified(c.id, "APPROVED")
      expect(second.id).not.toBe(first.id)
      expect((await server.call("GET", `/verifications/${first.id}`)).json).toEqual(first)
      const mine = await server.call("GET", `/verifications?customerId=${c.id}`)
      expect(mine.json.totalCount).toBe(2)
      expect(ids(mine)).toEqual([second.id, first.id])
      const resolved = await server.call("GET", `/verifications?customerId=${c.id}&verificationStatus=RESOLVE_ERRORS`)
      expect(ids(resolved)).toEqual([first.id])
      const all = await server.call("GET", "/verifications?verificationStatus=APPROVED&limit=100")
      expect(ids(all)).toContain(second.id)
      expect(ids(all)).not.toContain(first.id)
      expectError(await server.call("GET", `/verifications/${UNKNOWN_VERIFICATION}`), 404, "REFERENCE_NOT_FOUND")
      expectInvalid(await server.call("GET", "/verifications?verificationStatus=DONE"), ["query.verificationStatus"])
    })

    it("a verification with an Idempotency-Key runs once", async () => {
      await skipPaperwork(true)
      const c = await create(individual("Ada Lovelace"))
      const k = key()
      const first = await server.call(
        "POST",
        "/verifications",
        { customerId: c.id },
        { headers: { "idempotency-key": k } }
      )
      const again = await server.call(
        "POST",
        "/verifications",
        { customerId: c.id },
        { headers: { "idempotency-key": k } }
      )
      expect(again.json).toEqual(first.json)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect((await server.call("GET", `/verifications?customerId=${c.id}`)).json.totalCount).toBe(1)
    })
  })

  describe("verifications: businesses and owners (K-08, K-12, K-13, CU-05)", () => {
    it("K-08 business data, owners, a control person and documents are required", async () => {
      await skipPaperwork(false)
      const c = await create({
        customerType: "BUSINESS",
        businessInfo: { legalName: "Bare Ltd", country: "GB", incorporatedOn: "2020-01-01", taxId: "GB1" }
      })
      const v = await verified(c.id, "RESOLVE_ERRORS")
      expect(v.errors.map((e: { type: string; field?: string }) => [e.type, e.field ?? null])).toEqual([
        ["MISSING_FIELD", "customer.address"],
        ["MISSING_FIELD", "customer.businessInfo.entityType"],
        ["MISSING_FIELD", "customer.businessInfo.countriesOfOperation"],
        ["MISSING_BENEFICIAL_OWNER", null],
        ["MISSING_LEGAL_PRESENCE_DOCUMENT", null],
        ["MISSING_OWNERSHIP_STRUCTURE_DOCUMENT", null],
        ["MISSING_PROOF_OF_ADDRESS_DOCUMENT", null]
      ])
      expect(v.errors[4].acceptedDocumentTypes).toEqual([
        "CERTIFICATE_OF_INCORPORATION",
        "ARTICLES_OF_INCORPORATION",
        "ARTICLES_OF_ASSOCIATION",
        "STATE_REGISTRY_EXCERPT"
      ])
      expect(v.errors[6].acceptedDocumentTypes).toEqual([
        "UTILITY_BILL",
        "RENT_OR_LEASE_AGREEMENT",
        "ELECTRICITY_BILL",
        "BANK_STATEMENT",
        "TAX_RETURN"
      ])
      for (const e of v.errors) expect(e.resourceId).toBe(c.id)
      const owner = await addOwner(c.id, { roles: ["DIRECTOR"], ownershipPercentage: 0 })
      const next = await verified(c.id, "RESOLVE_ERRORS")
      const types = next.errors.map((e: { type: string }) => e.type)
      expect(types).toContain("MISSING_CONTROL_PERSON")
      expect(types).not.toContain("MISSING_BENEFICIAL_OWNER")
      expect(next.errors).toContainEqual({
        resourceId: owner.id,
        type: "MISSING_IDENTITY_DOCUMENT",
        acceptedDocumentTypes: IDENTITY_TYPES,
        reason: "An identity document of this owner is required"
      })
      expect((await customer(c.id)).kybStatus).toBe("UNVERIFIED")
    })

    it("K-08 every owner of 25% or more is a UBO, a UBO owns 25% or more, and ownership adds up to 100% at most", async () => {
      await skipPaperwork(true)
      const c = await create(business("REG-130"))
      const small = await addOwner(c.id, { roles: ["UBO", "CONTROL_PERSON"], ownershipPercentage: 10 })
      const big = await addOwner(c.id, { roles: ["DIRECTOR"], ownershipPercentage: 95 })
      const foreign = await addOwner(c.id, {
        roles: ["COMPANY_OFFICER"],
        ownershipPercentage: 0,
        personalInfo: personalInfo("Ng", { idType: "NON_US_TAX_ID" })
      })
      const v = await verified(c.id, "RESOLVE_ERRORS")
      expect(v.errors).toEqual([
        {
          resourceId: c.id,
          type: "INVALID_FIELD",
          field: "beneficialOwners.ownershipPercentage",
          reason: "Ownership adds up to 105%, more than 100%"
        },
        {
          resourceId: small.id,
          type: "INVALID_FIELD",
          field: "ownershipPercentage",
          reason: "A UBO owns at least 25%; this owner has 10%"
        },
        {
          resourceId: big.id,
          type: "INVALID_FIELD",
          field: "roles",
          reason: "An owner of 25% or more must have the role UBO"
        },
        {
          resourceId: foreign.id,
          type: "MISSING_FIELD",
          field: "personalInfo.countryOfIssuance",
          reason: "The issuing country is required for a non-US identification"
        }
      ])
      for (const o of [small, big, foreign]) expect((await owner(o.id)).kycStatus).toBe("UNVERIFIED")
    })

    it("WH-10, K-12, CU-06 a complete packet → APPROVED with its owners; CUSTOMER.KYB_APPROVED carries them", async () => {
      await skipPaperwork(true)
      const c = await create(business("REG-131"))
      const a = await addOwner(c.id)
      const b = await addOwner(c.id, {
        roles: ["DIRECTOR"],
        ownershipPercentage: 0,
        personalInfo: personalInfo("Byron003")
      })
      await verified(c.id, "APPROVED")
      const after = await customer(c.id)
      expect(after).toMatchObject({ kybStatus: "APPROVED", kycStatus: "APPROVED" })
      expect((await owner(a.id)).kycStatus).toBe("APPROVED")
      expect((await owner(b.id)).kycStatus).toBe("APPROVED")
      const emitted = await eventsWithData(c.id)
      expect(emitted.map((e: { type: string }) => e.type)).toEqual(["VERIFICATION.APPROVED", "CUSTOMER.KYB_APPROVED"])
      expect(emitted[1].data).toMatchObject({ id: c.id, customerType: "BUSINESS", kybStatus: "APPROVED" })
      // CU-06: the business as GET /customers/{id} answers it, its owners as decided.
      expect(emitted[1].data.beneficialOwners).toEqual([await owner(a.id), await owner(b.id)])
      expect(after.beneficialOwners).toEqual([await owner(a.id), await owner(b.id)])
    })

    it("K-12 registration number 002 → REJECTED; CUSTOMER.KYB_REJECTED", async () => {
      await skipPaperwork(true)
      const c = await create(business("REG-002"))
      const o = await addOwner(c.id)
      const v = await verified(c.id, "REJECTED")
      expect(v.errors).toEqual([
        { resourceId: c.id, type: "APPLICANT_REJECTED", reason: "The business was rejected (sandbox suffix 002)" }
      ])
      expect((await customer(c.id)).kybStatus).toBe("REJECTED")
      expect((await owner(o.id)).kycStatus).toBe("APPROVED")
      expect(await events(c.id)).toEqual(["VERIFICATION.REJECTED", "CUSTOMER.KYB_REJECTED"])
      expectInvalid(await verify(c.id), ["customerId"])
    })

    it("K-12 registration number 001 / 003: normal validation (documents too), then manual review", async () => {
      await skipPaperwork(true)
      for (const suffix of ["001", "003"]) {
        const c = await create(business(`REG-${suffix}`))
        const o = await addOwner(c.id)
        const first = await verified(c.id, "RESOLVE_ERRORS")
        expect(first.errors.map((e: { type: string }) => e.type)).toEqual([
          "MISSING_LEGAL_PRESENCE_DOCUMENT",
          "MISSING_OWNERSHIP_STRUCTURE_DOCUMENT",
          "MISSING_PROOF_OF_ADDRESS_DOCUMENT",
          "MISSING_IDENTITY_DOCUMENT"
        ])
        await file(c.id, "ARTICLES_OF_ASSOCIATION")
        await file(c.id, "SHAREHOLDER_REGISTER")
        await file(c.id, "UTILITY_BILL")
        await file(o.id, "PASSPORT")
        await verified(c.id, "PENDING_MANUAL_REVIEW")
        expect((await customer(c.id)).kybStatus).toBe("PENDING")
        expect((await owner(o.id)).kycStatus).toBe("APPROVED")
        expect(await events(c.id)).toEqual([
          "VERIFICATION.RESOLVE_ERRORS",
          "VERIFICATION.PENDING_MANUAL_REVIEW",
          "CUSTOMER.KYB_PENDING"
        ])
      }
    })

    it("K-13 an owner's last name 001 keeps owner and business in review; renamed, both are approved", async () => {
      await skipPaperwork(true)
      const c = await create(business("REG-132"))
      const a = await addOwner(c.id, { personalInfo: personalInfo("Hopper001") })
      await verified(c.id, "PENDING_MANUAL_REVIEW")
      expect((await owner(a.id)).kycStatus).toBe("PENDING")
      expect((await customer(c.id)).kybStatus).toBe("PENDING")
      await server.call("PATCH", `/beneficial-owners/${a.id}`, { personalInfo: { lastName: "Hopper" } })
      await verified(c.id, "APPROVED")
      expect((await owner(a.id)).kycStatus).toBe("APPROVED")
      expect(await events(c.id)).toEqual([
        "VERIFICATION.PENDING_MANUAL_REVIEW",
        "CUSTOMER.KYB_PENDING",
        "VERIFICATION.APPROVED",
        "CUSTOMER.KYB_APPROVED"
      ])
    })

    it("K-13/K-14 an owner's last name 002 rejects owner and business; an approved owner renamed stays approved", async () => {
      await skipPaperwork(true)
      const c = await create(business("REG-133"))
      const good = await addOwner(c.id)
      const bad = await addOwner(c.id, {
        roles: ["DIRECTOR"],
        ownershipPercentage: 0,
        personalInfo: personalInfo("Moriarty002")
      })
      const v = await verified(c.id, "REJECTED")
      expect(v.errors).toEqual([
        {
          resourceId: bad.id,
          type: "APPLICANT_REJECTED",
          reason: "A beneficial owner was rejected (sandbox suffix 002)"
        }
      ])
      expect((await owner(bad.id)).kycStatus).toBe("REJECTED")
      expect((await owner(good.id)).kycStatus).toBe("APPROVED")
      expect((await customer(c.id)).kybStatus).toBe("REJECTED")
      await server.call("PATCH", `/beneficial-owners/${good.id}`, { personalInfo: { lastName: "Hopper002" } })
      await server.call("PATCH", `/beneficial-owners/${bad.id}`, { personalInfo: { lastName: "Moriarty" } })
      expect((await owner(good.id)).kycStatus).toBe("APPROVED")
      expect((await owner(bad.id)).kycStatus).toBe("REJECTED")
    })

    it("CU-05 listed companies, trusts, foundations and charities are for non-US businesses; a trustee is a trust's control person", async () => {
      await skipPaperwork(true)
      const us = await create(business("REG-134", { entityType: "TRUST" }))
      await addOwner(us.id)
      const v = await verified(us.id, "RESOLVE_ERRORS")
      expect(v.errors).toEqual([
        {
          resourceId: us.id,
          type: "INVALID_FIELD",
          field: "customer.businessInfo.entityType",
          reason: "TRUST is available to businesses registered outside the US only"
        }
      ])
      const trust = await create(
        business(
          "REG-135",
          { entityType: "TRUST", country: "GB", countriesOfOperation: ["GB"] },
          {
            address: { line1: "1 Strand", city: "London", postalCode: "WC2N 5HR", country: "GB" }
          }
        )
      )
      await addOwner(trust.id, { roles: ["TRUSTEE"], ownershipPercentage: 0 })
      await verified(trust.id, "APPROVED")
      for (const entityType of ["PUBLICLY_LISTED_COMPANY", "PRIVATE_FOUNDATION", "CHARITY"]) {
        const b = await create(business("REG-136", { entityType, country: "DE", countriesOfOperation: ["DE"] }))
        await addOwner(b.id, { roles: ["CONTROL_PERSON"], ownershipPercentage: 0 })
        await verified(b.id, "APPROVED")
      }
    })

    it("a verification is refused while the business changes under review", async () => {
      // (The memory store serializes; this only checks a normal re-submission after a change is fine.)
      await skipPaperwork(true)
      const c = await create(business("REG-137"))
      await addOwner(c.id, { personalInfo: personalInfo("Hopper001") })
      await verified(c.id, "PENDING_MANUAL_REVIEW")
      await addOwner(c.id, { roles: ["DIRECTOR"], ownershipPercentage: 0, personalInfo: personalInfo("Lamarr") })
      await verified(c.id, "PENDING_MANUAL_REVIEW")
    })
  })
}

onEveryStore("onboarding", "onboarding_http", onboardingSuite)
