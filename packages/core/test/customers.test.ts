import { assert, describe, it } from "@effect/vitest"
import { layer as memoryStore } from "@paycore/store-memory"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { Accounts } from "../src/accounts/service.ts"
import type { CreateCustomerRequest, Customer } from "../src/customers/model.ts"
import { Customers } from "../src/customers/service.ts"
import { PlatformConfigService } from "../src/platform/service.ts"
import { Directory } from "../src/ports/directory.ts"
import { Ids } from "../src/ports/ids.ts"
import { Store } from "../src/ports/store.ts"
import { defaultEngineSettings } from "../src/shared/engine-config.ts"
import type { InvalidInput } from "../src/shared/errors.ts"

const TestDirectory = Layer.succeed(
  Directory,
  Directory.of({
    institutions: () => Effect.succeed([]),
    umaProviders: () => Effect.succeed([]),
    umaReceiver: () => Effect.succeed(undefined),
    vasps: () => Effect.succeed([])
  })
)

const TestLayer = Layer.mergeAll(Customers.layer, Accounts.layer).pipe(
  Layer.provideMerge(PlatformConfigService.layer),
  Layer.provideMerge(Layer.mergeAll(memoryStore, Ids.layerSeeded(3), TestDirectory))
)

const TERMS = defaultEngineSettings.endUserTerms.version

const individual = (fields: Partial<Extract<CreateCustomerRequest, { customerType: "INDIVIDUAL" }>> = {}) =>
  ({ customerType: "INDIVIDUAL", fullName: "Ada Lovelace", ...fields }) as CreateCustomerRequest

const business = (fields: Partial<Extract<CreateCustomerRequest, { customerType: "BUSINESS" }>> = {}) =>
  ({
    customerType: "BUSINESS",
    businessInfo: { legalName: "Acme Corp", country: "US", incorporatedOn: "2020-01-02", taxId: "12-3456789" },
    ...fields
  }) as CreateCustomerRequest

const consent = (termsVersion: string) => ({
  acceptedAt: "2025-10-13T10:00:00Z",
  ipAddress: "203.0.113.7",
  termsVersion,
  acceptanceMethod: "CHECKBOX" as const
})

const invalid = (error: { readonly _tag: string }): InvalidInput => {
  assert.strictEqual(error._tag, "InvalidInput")
  return error as InvalidInput
}

/** Valid CLABE check digit: weights 3, 7, 1 over the first 17 digits. */
/** An update that answers at once (no tied wallet credentials: no signed retry). */
const updated = (
  customers: Customers["Service"],
  ...args: Parameters<Customers["Service"]["update"]>
): Effect.Effect<Customer, unknown> =>
  Effect.flatMap(customers.update(...args), (r) =>
    "payloadToSign" in r ? Effect.die(new Error("expected no signed retry")) : Effect.succeed(r)
  )

const clabeValid = (clabe: string): boolean => {
  const w = [3, 7, 1]
  let sum = 0
  for (let i = 0; i < 17; i++) sum += (Number(clabe[i]) * w[i % 3]!) % 10
  return (10 - (sum % 10)) % 10 === Number(clabe[17])
}

/** IBAN mod-97 check. */
const ibanValid = (iban: string): boolean => {
  const rearranged = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55))
  let rest = 0
  for (const ch of rearranged) rest = (rest * 10 + Number(ch)) % 97
  return rest === 1
}

describe("creating customers", () => {
  it.effect("fills the defaults and opens a USD internal account with zero balance", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      const accounts = yield* Accounts
      const c = yield* customers.create(individual({ email: "ada@example.com" }))
      assert.match(c.id, /^Customer:[0-9a-f-]{36}$/)
      assert.strictEqual(c.customerType, "INDIVIDUAL")
      assert.strictEqual(c.platformCustomerId, c.id.slice("Customer:".length))
      assert.match(c.umaAddress, /^\$u[0-9a-f]{32}@sandbox\.paycore\.dev$/)
      assert.deepStrictEqual(c.currencies, ["USD"])
      assert.strictEqual(c.kycStatus, "UNVERIFIED")
      assert.deepStrictEqual(c.contactVerification, { email: "PENDING", phone: "PENDING" })
      assert.isFalse(c.isDeleted)
      assert.strictEqual(c.createdAt, "1970-01-01T00:00:00.000Z")
      assert.deepStrictEqual(yield* customers.get(c.id), c)

      const page = yield* accounts.listInternal({ customerId: c.id })
      assert.strictEqual(page.totalCount, 1)
      const usd = page.data[0]!
      assert.strictEqual(usd.type, "INTERNAL_FIAT")
      assert.strictEqual(usd.status, "ACTIVE")
      assert.strictEqual(usd.currency, "USD")
      assert.deepStrictEqual(usd.balance, {
        amount: 0,
        currency: { code: "USD", name: "United States Dollar", symbol: "$", decimals: 2 }
      })
      assert.strictEqual(usd.totalBalance.amount, 0)
      assert.deepStrictEqual(usd.cardCapabilities, { supportsSpendLimits: true, supportsTransactionCountLimit: true })
      const info = usd.fundingPaymentInstructions[0]!.accountOrWalletInfo
      assert.strictEqual(info.accountType, "US_ACCOUNT")
      if (info.accountType === "US_ACCOUNT") {
        assert.match(info.accountNumber, /^\d{12}$/)
        assert.match(info.routingNumber, /^\d{9}$/)
        assert.match(info.reference, /^PC[A-Z2-9]{6}$/)
        assert.strictEqual(info.accountHolderName, "Ada Lovelace")
        assert.deepStrictEqual(info.paymentRails, ["ACH", "WIRE", "RTP", "FEDNOW"])
      }
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a business gets kybStatus and one internal account per currency", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      const accounts = yield* Accounts
      const c = yield* customers.create(
        business({
          platformCustomerId: "biz-1",
          umaAddress: "$acme@pay.example.com",
          currencies: ["USD", "MXN", "EUR", "USDC", "USDT", "BTC", "GBP", "MXN"]
        })
      )
      assert.strictEqual(c.customerType, "BUSINESS")
      if (c.customerType !== "BUSINESS") return
      assert.strictEqual(c.kybStatus, "UNVERIFIED")
      assert.strictEqual(c.kycStatus, "UNVERIFIED")
      assert.strictEqual(c.umaAddress, "$acme@pay.example.com")
      assert.deepStrictEqual(c.currencies, ["USD", "MXN", "EUR", "USDC", "USDT", "BTC", "GBP"])

      const all = (yield* accounts.listInternal({ customerId: c.id, limit: 100 })).data
      const byCurrency = new Map(all.map((a) => [a.currency, a]))
      assert.strictEqual(all.length, 7)
      assert.strictEqual(byCurrency.get("USDC")?.type, "INTERNAL_CRYPTO")
      assert.strictEqual(byCurrency.get("BTC")?.type, "INTERNAL_CRYPTO")
      assert.strictEqual(byCurrency.get("GBP")?.type, "INTERNAL_FIAT")
      const infoOf = (code: string) => byCurrency.get(code)!.fundingPaymentInstructions[0]!.accountOrWalletInfo
      const clabe = infoOf("MXN")
      assert.strictEqual(clabe.accountType, "CLABE")
      if (clabe.accountType === "CLABE") {
        assert.match(clabe.clabeNumber, /^\d{18}$/)
        assert.isTrue(clabeValid(clabe.clabeNumber))
        assert.strictEqual(clabe.accountHolderName, "Acme Corp")
      }
      const iban = infoOf("EUR")
      assert.strictEqual(iban.accountType, "EUR_ACCOUNT")
      if (iban.accountType === "EUR_ACCOUNT") assert.isTrue(ibanValid(iban.iban))
      // AC-19: every fiat currency is paid in on its own scheme (the upstream's name where the spec has none).
      const gbp = infoOf("GBP")
      assert.strictEqual(gbp.accountType, "GBP_ACCOUNT")
      if (gbp.accountType === "GBP_ACCOUNT") {
        assert.match(gbp.sortCode, /^\d{6}$/)
        assert.match(gbp.accountNumber, /^\d{8}$/)
        assert.deepStrictEqual(gbp.paymentRails, ["FASTER_PAYMENTS"])
        assert.strictEqual(gbp.accountHolderName, "Acme Corp")
      }
      const usdc = infoOf("USDC")
      assert.strictEqual(usdc.accountType, "SOLANA_WALLET")
      if (usdc.accountType === "SOLANA_WALLET") {
        assert.strictEqual(usdc.assetType, "USDC")
        assert.match(usdc.address, /^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
      }
      const usdt = infoOf("USDT")
      if (usdt.accountType === "SOLANA_WALLET") assert.strictEqual(usdt.assetType, "USDT")
      const btc = infoOf("BTC")
      assert.strictEqual(btc.accountType, "LIGHTNING")
      if (btc.accountType === "LIGHTNING") assert.match(btc.invoice, /^lnbc1p[a-z0-9]+$/)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("refuses unsupported currencies, listing every one, and creates nothing", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      const config = yield* PlatformConfigService
      const store = yield* Store
      yield* config.update({ supportedCurrencies: ["USD", "EUR"] })
      const error = invalid(yield* Effect.flip(customers.create(individual({ currencies: ["MXN", "USD", "BTC"] }))))
      assert.deepStrictEqual(
        error.errors.map((e) => e.field),
        ["currencies.0", "currencies.2"]
      )
      assert.deepStrictEqual(error.errors[0]?.constraint, { enum: ["USD", "EUR"] })
      assert.strictEqual((yield* customers.list({})).totalCount, 0)
      assert.strictEqual((yield* store.internalAccounts.list({}, { limit: 10, sortOrder: "asc" })).totalCount, 0)

      // Without USD support the default currency list is empty.
      yield* config.update({ supportedCurrencies: ["EUR"] })
      const c = yield* customers.create(individual())
      assert.deepStrictEqual(c.currencies, [])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("409 on a taken platformCustomerId or UMA address, without partial writes", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      const store = yield* Store
      yield* customers.create(individual({ platformCustomerId: "p-1", umaAddress: "$ada@example.com" }))
      const dupId = yield* Effect.flip(customers.create(individual({ platformCustomerId: "p-1" })))
      assert.strictEqual(dupId._tag, "Conflict")
      if (dupId._tag === "Conflict") assert.strictEqual(dupId.code, "CONFLICT")
      const dupUma = yield* Effect.flip(customers.create(business({ umaAddress: "$ada@example.com" })))
      assert.strictEqual(dupUma._tag, "Conflict")
      if (dupUma._tag === "Conflict") assert.strictEqual(dupUma.code, "UMA_ADDRESS_EXISTS")
      assert.strictEqual((yield* customers.list({})).totalCount, 1)
      assert.strictEqual((yield* store.internalAccounts.list({}, { limit: 10, sortOrder: "asc" })).totalCount, 1)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("end-user terms consent must name the current version", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      const refused = yield* Effect.flip(customers.create(individual({ endUserTermsConsent: consent("1999-01-01") })))
      assert.strictEqual(refused._tag, "Refused")
      if (refused._tag === "Refused") assert.strictEqual(refused.code, "END_USER_TERMS_VERSION_NOT_FOUND")

      const withConsent = yield* customers.create(individual({ endUserTermsConsent: consent(TERMS) }))
      assert.deepStrictEqual(withConsent.endUserTermsConsent, consent(TERMS))
      assert.isTrue(yield* customers.hasAcceptedTerms(withConsent.id))

      const without = yield* customers.create(individual())
      assert.isFalse(yield* customers.hasAcceptedTerms(without.id))
      const later = yield* updated(customers, without.id, {
        customerType: "INDIVIDUAL",
        endUserTermsConsent: consent(TERMS)
      })
      assert.strictEqual(later.endUserTermsConsent?.termsVersion, TERMS)
      assert.isTrue(yield* customers.hasAcceptedTerms(without.id))
      const badUpdate = yield* Effect.flip(
        customers.update(without.id, { customerType: "INDIVIDUAL", endUserTermsConsent: consent("old") })
      )
      assert.strictEqual(badUpdate._tag, "Refused")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("404 USER_NOT_FOUND for an unknown customer", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      const id = "Customer:019542f5-b3e7-7d02-8000-000000000001"
      for (const error of [
        yield* Effect.flip(customers.get(id)),
        yield* Effect.flip(customers.update(id, { customerType: "INDIVIDUAL" })),
        yield* Effect.flip(customers.delete(id)),
        yield* Effect.flip(customers.hasAcceptedTerms(id))
      ]) {
        assert.strictEqual(error._tag, "NotFound")
        if (error._tag === "NotFound") assert.strictEqual(error.code, "USER_NOT_FOUND")
      }
    }).pipe(Effect.provide(TestLayer))
  )
})

describe("listing customers", () => {
  const seed = Effect.gen(function* () {
    const customers = yield* Customers
    const made: Array<Customer> = []
    const specs: Array<CreateCustomerRequest> = [
      individual({ platformCustomerId: "a", region: "US", currencies: ["USD"] }),
      business({ platformCustomerId: "b", region: "MX", currencies: ["MXN"] }),
      individual({ platformCustomerId: "c", region: "MX", currencies: ["USD", "MXN"], umaAddress: "$c@x.example.com" }),
      business({ platformCustomerId: "d", region: "US", currencies: ["EUR"] }),
      individual({ platformCustomerId: "e", region: "DE", currencies: ["EUR"] })
    ]
    for (const spec of specs) {
      made.push(yield* customers.create(spec))
      yield* TestClock.adjust(1000)
    }
    return made
  })

  it.effect("applies every filter", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      const made = yield* seed
      const ids = (page: { readonly data: ReadonlyArray<Customer> }) =>
        page.data.map((c) => c.platformCustomerId).sort()
      assert.deepStrictEqual(ids(yield* customers.list({ customerType: "BUSINESS" })), ["b", "d"])
      assert.deepStrictEqual(ids(yield* customers.list({ region: "MX" })), ["b", "c"])
      assert.deepStrictEqual(ids(yield* customers.list({ currency: "MXN" })), ["b", "c"])
      assert.deepStrictEqual(ids(yield* customers.list({ platformCustomerId: "d" })), ["d"])
      assert.deepStrictEqual(ids(yield* customers.list({ umaAddress: "$c@x.example.com" })), ["c"])
      assert.deepStrictEqual(
        ids(
          yield* customers.list({ createdAfter: "1970-01-01T00:00:00.500Z", createdBefore: "1970-01-01T00:00:03.500Z" })
        ),
        ["b", "c", "d"]
      )
      yield* customers.update(made[0]!.id, { customerType: "INDIVIDUAL", fullName: "Ada Byron" })
      assert.deepStrictEqual(ids(yield* customers.list({ updatedAfter: "1970-01-01T00:00:04.500Z" })), ["a"])
      assert.deepStrictEqual(ids(yield* customers.list({ updatedBefore: "1970-01-01T00:00:02.500Z" })), ["b", "c"])

      yield* customers.delete(made[1]!.id)
      assert.deepStrictEqual(ids(yield* customers.list({ customerType: "BUSINESS" })), ["d"])
      assert.deepStrictEqual(ids(yield* customers.list({ customerType: "BUSINESS", isIncludingDeleted: "false" })), [
        "d"
      ])
      assert.deepStrictEqual(ids(yield* customers.list({ customerType: "BUSINESS", isIncludingDeleted: "true" })), [
        "b",
        "d"
      ])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("pages in both orders without skipping or repeating, even while customers are added", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      const made = (yield* seed).map((c) => c.id)
      for (const sortOrder of ["asc", "desc"] as const) {
        const seen: Array<string> = []
        let cursor: string | undefined
        do {
          const page = yield* customers.list({ limit: 2, sortOrder, ...(cursor === undefined ? {} : { cursor }) })
          assert.isAtMost(page.data.length, 2)
          seen.push(...page.data.map((c) => c.id))
          cursor = page.nextCursor
        } while (cursor !== undefined)
        assert.deepStrictEqual(seen, sortOrder === "asc" ? made : [...made].reverse())
      }

      // asc: a customer created between two pages shows up on a later page, nothing repeats.
      const first = yield* customers.list({ limit: 3, sortOrder: "asc" })
      const late = yield* customers.create(individual())
      const rest = yield* customers.list({ limit: 10, sortOrder: "asc", cursor: first.nextCursor! })
      assert.deepStrictEqual(
        [...first.data, ...rest.data].map((c) => c.id),
        [...made, late.id]
      )
      assert.strictEqual(rest.totalCount, 6)

      const bad = invalid(yield* Effect.flip(customers.list({ cursor: "%%%" })))
      assert.strictEqual(bad.errors[0]?.field, "cursor")
    }).pipe(Effect.provide(TestLayer))
  )
})

describe("updating customers", () => {
  it.effect("PATCH changes only the given fields", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      const c = yield* customers.create(
        individual({ platformCustomerId: "p", region: "US", email: "ada@example.com", birthDate: "1815-12-10" })
      )
      yield* TestClock.adjust(2000)
      const next = yield* updated(customers, c.id, {
        customerType: "INDIVIDUAL",
        fullName: "Ada King",
        pepStatus: "NONE"
      })
      assert.strictEqual(next.customerType, "INDIVIDUAL")
      if (next.customerType !== "INDIVIDUAL") return
      assert.strictEqual(next.fullName, "Ada King")
      assert.strictEqual(next.pepStatus, "NONE")
      assert.strictEqual(next.birthDate, "1815-12-10")
      assert.strictEqual(next.email, "ada@example.com")
      assert.strictEqual(next.region, "US")
      assert.strictEqual(next.platformCustomerId, "p")
      assert.strictEqual(next.createdAt, c.createdAt)
      assert.strictEqual(next.updatedAt, "1970-01-01T00:00:02.000Z")
      assert.deepStrictEqual(yield* customers.get(c.id), next)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("merges businessInfo field by field", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      const c = yield* customers.create(business())
      const next = yield* updated(customers, c.id, {
        customerType: "BUSINESS",
        businessInfo: { doingBusinessAs: "Acme", registrationNumber: "R-1" }
      })
      if (next.customerType !== "BUSINESS") return assert.fail("expected a business")
      assert.deepStrictEqual(next.businessInfo, {
        legalName: "Acme Corp",
        country: "US",
        incorporatedOn: "2020-01-02",
        taxId: "12-3456789",
        doingBusinessAs: "Acme",
        registrationNumber: "R-1"
      })
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("lists every broken rule at once: type change, email with phone, unsupported currency", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      const config = yield* PlatformConfigService
      yield* config.update({ supportedCurrencies: ["USD", "EUR", "MXN"] })
      const c = yield* customers.create(individual())
      const error = invalid(
        yield* Effect.flip(
          customers.update(c.id, {
            customerType: "BUSINESS",
            email: "a@example.com",
            phoneNumber: "+15551234567",
            currencies: ["USD", "JPY"]
          })
        )
      )
      assert.deepStrictEqual(
        error.errors.map((e) => e.field),
        ["customerType", "email", "phoneNumber", "currencies.1"]
      )
      assert.deepStrictEqual(error.errors[0]?.constraint, { enum: ["INDIVIDUAL"] })
      const both = invalid(
        yield* Effect.flip(
          customers.update(c.id, { customerType: "INDIVIDUAL", email: "a@example.com", phoneNumber: "+15551234567" })
        )
      )
      assert.deepStrictEqual(
        both.errors.map((e) => e.field),
        ["email", "phoneNumber"]
      )
      assert.deepStrictEqual(yield* customers.get(c.id), c)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a changed email or phone goes back to PENDING verification", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      const store = yield* Store
      const c = yield* customers.create(individual({ email: "a@example.com", phoneNumber: "+15550000001" }))
      yield* store.transaction(
        store.customers.update({ ...c, contactVerification: { email: "VERIFIED", phone: "VERIFIED" } })
      )
      const same = yield* updated(customers, c.id, { customerType: "INDIVIDUAL", email: "a@example.com" })
      assert.deepStrictEqual(same.contactVerification, { email: "VERIFIED", phone: "VERIFIED" })
      const newEmail = yield* updated(customers, c.id, { customerType: "INDIVIDUAL", email: "b@example.com" })
      assert.deepStrictEqual(newEmail.contactVerification, { email: "PENDING", phone: "VERIFIED" })
      const newPhone = yield* updated(customers, c.id, { customerType: "INDIVIDUAL", phoneNumber: "+15550000002" })
      assert.deepStrictEqual(newPhone.contactVerification, { email: "PENDING", phone: "PENDING" })
      assert.strictEqual(newPhone.email, "b@example.com")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("new currencies add internal accounts; dropped ones keep theirs", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      const accounts = yield* Accounts
      const c = yield* customers.create(individual({ currencies: ["USD"] }))
      const usdId = (yield* accounts.listInternal({ customerId: c.id })).data[0]!.id
      const next = yield* updated(customers, c.id, { customerType: "INDIVIDUAL", currencies: ["EUR", "USDC"] })
      assert.deepStrictEqual(next.currencies, ["EUR", "USDC"])
      const held = (yield* accounts.listInternal({ customerId: c.id, sortOrder: "asc" })).data
      assert.deepStrictEqual(
        held.map((a) => a.currency),
        ["USD", "EUR", "USDC"]
      )
      assert.strictEqual(held[0]!.id, usdId)
      yield* customers.update(c.id, { customerType: "INDIVIDUAL", currencies: ["USD", "EUR"] })
      assert.strictEqual((yield* accounts.listInternal({ customerId: c.id })).totalCount, 3)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("409 when moving to another customer's platformCustomerId", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      yield* customers.create(individual({ platformCustomerId: "taken" }))
      const c = yield* customers.create(individual({ platformCustomerId: "mine" }))
      const error = yield* Effect.flip(
        customers.update(c.id, { customerType: "INDIVIDUAL", platformCustomerId: "taken" })
      )
      assert.strictEqual(error._tag, "Conflict")
      const kept = yield* updated(customers, c.id, { customerType: "INDIVIDUAL", platformCustomerId: "mine" })
      assert.strictEqual(kept.platformCustomerId, "mine")
    }).pipe(Effect.provide(TestLayer))
  )
})

describe("deleting customers", () => {
  it.effect("soft-deletes; the customer stays readable; changes answer CUSTOMER_DELETED", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      const c = yield* customers.create(individual({ platformCustomerId: "gone" }))
      yield* TestClock.adjust(1000)
      const deleted = yield* customers.delete(c.id)
      assert.isTrue(deleted.isDeleted)
      assert.strictEqual(deleted.updatedAt, "1970-01-01T00:00:01.000Z")
      assert.deepStrictEqual(yield* customers.get(c.id), deleted)

      for (const error of [
        yield* Effect.flip(customers.delete(c.id)),
        yield* Effect.flip(customers.update(c.id, { customerType: "INDIVIDUAL", fullName: "X" }))
      ]) {
        assert.strictEqual(error._tag, "Refused")
        if (error._tag === "Refused") assert.strictEqual(error.code, "CUSTOMER_DELETED")
      }
      assert.strictEqual((yield* customers.list({})).totalCount, 0)
      assert.strictEqual((yield* customers.list({ isIncludingDeleted: "true" })).totalCount, 1)
    }).pipe(Effect.provide(TestLayer))
  )
})
