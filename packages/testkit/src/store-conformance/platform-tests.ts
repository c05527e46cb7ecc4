import { assert } from "@effect/vitest"
import {
  type Customer,
  type CustomerFilter,
  type ExternalAccount,
  type ExternalAccountFilter,
  type InternalAccountFilter,
  type InternalAccountRecord,
  Store,
  type TokenFilter,
  type TokenRecord
} from "@paycore/core"
import { Effect } from "effect"
import { assertUniqueViolation, expectFiltered, expectList } from "./assertions.ts"
import { DAY, type It, type ListFn, makeScope, newId, plusSeconds, unique } from "./ids.ts"
import {
  businessCustomer,
  externalFull,
  externalMinimal,
  individualFull,
  individualMinimal,
  internalFull,
  internalMinimal,
  tokenMinimal,
  tokenName
} from "./records.ts"

// ---------------------------------------------------------------------------------------------
// Repository-specific tests
// ---------------------------------------------------------------------------------------------

export const tokenTests = (it: It) => {
  it.effect("findUnique by clientId; a taken clientId is refused on insert and on update", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const a = tokenMinimal(s)
      const b = tokenMinimal(s)
      yield* store.tokens.insert(a)
      yield* store.tokens.insert(b)
      assert.deepStrictEqual(yield* store.tokens.findUnique("clientId", a.clientId), a)
      assert.isUndefined(yield* store.tokens.findUnique("clientId", `client-${unique()}`))

      const clash = { ...tokenMinimal(s), clientId: a.clientId }
      assertUniqueViolation(yield* store.tokens.insert(clash).pipe(Effect.flip), "clientId")
      assert.isUndefined(yield* store.tokens.get(clash.id), "a refused insert writes nothing")

      assertUniqueViolation(yield* store.tokens.update({ ...b, clientId: a.clientId }).pipe(Effect.flip), "clientId")
      assert.deepStrictEqual(yield* store.tokens.get(b.id), b, "a refused update changes nothing")
      assert.deepStrictEqual(yield* store.tokens.findUnique("clientId", a.clientId), a)

      // Keeping its own key, or moving to a free one, is fine; the old key is free again.
      const renamed = { ...b, name: `${b.name} renamed`, clientId: `client-${unique()}` }
      yield* store.tokens.update(renamed)
      assert.deepStrictEqual(yield* store.tokens.findUnique("clientId", renamed.clientId), renamed)
      assert.isUndefined(yield* store.tokens.findUnique("clientId", b.clientId))
      const reuse = { ...tokenMinimal(s), clientId: b.clientId }
      yield* store.tokens.insert(reuse)
      assert.deepStrictEqual(yield* store.tokens.findUnique("clientId", b.clientId), reuse)

      // A violation inside a transaction fails it: its earlier writes are rolled back.
      const earlier = tokenMinimal(s)
      const error = yield* store
        .transaction(
          Effect.gen(function* () {
            yield* store.tokens.insert(earlier)
            yield* store.tokens.insert({ ...tokenMinimal(s), clientId: a.clientId })
          })
        )
        .pipe(Effect.flip)
      assertUniqueViolation(error, "clientId")
      assert.isUndefined(yield* store.tokens.get(earlier.id))
    })
  )

  it.effect("list filters: name, createdAfter and createdBefore (exclusive), includeDeleted", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<TokenRecord, TokenFilter> = store.tokens.list
      const s = makeScope()
      const name = tokenName(s)
      const t1 = { ...tokenMinimal(s), createdAt: s.at(10) }
      const t2 = { ...tokenMinimal(s), createdAt: s.at(20), deletedAt: s.at(25) }
      const t3 = { ...tokenMinimal(s), createdAt: s.at(30) }
      const other = { ...tokenMinimal(s), name: `${name} (other)`, createdAt: s.at(20) }
      for (const t of [t1, t2, t3, other]) yield* store.tokens.insert(t)

      yield* expectList(list, { name, includeDeleted: false }, [t1, t3])
      yield* expectList(list, { name, includeDeleted: true }, [t1, t2, t3])
      yield* expectList(list, { name, createdAfter: s.at(10), includeDeleted: true }, [t2, t3])
      yield* expectList(list, { name, createdBefore: s.at(30), includeDeleted: true }, [t1, t2])
      yield* expectList(list, { name, createdAfter: s.at(10), createdBefore: s.at(30), includeDeleted: false }, [])
      yield* expectList(list, { createdAfter: s.at(10), createdBefore: s.at(30), includeDeleted: true }, [t2, other])

      // Each filter alone, among the rows of other tests.
      yield* expectFiltered(
        list,
        { createdAfter: s.at(20), includeDeleted: false },
        (t) => t.createdAt > s.at(20) && t.deletedAt === undefined,
        { included: [t3], excluded: [t1, t2, other] }
      )
      yield* expectFiltered(list, { createdBefore: s.at(20), includeDeleted: true }, (t) => t.createdAt < s.at(20), {
        included: [t1],
        excluded: [t2, t3, other]
      })
      yield* expectFiltered(list, { includeDeleted: false }, (t) => t.deletedAt === undefined, {
        included: [t1, t3, other],
        excluded: [t2]
      })
      yield* expectFiltered(list, { includeDeleted: true }, () => true, { included: [t1, t2, t3, other], excluded: [] })
    })
  )
}

export const customerTests = (it: It) => {
  it.effect("findUnique by platformCustomerId and umaAddress; taken keys are refused on insert and on update", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const a = individualFull(s)
      const b = businessCustomer(s)
      yield* store.customers.insert(a)
      yield* store.customers.insert(b)
      assert.deepStrictEqual(yield* store.customers.findUnique("platformCustomerId", a.platformCustomerId), a)
      assert.deepStrictEqual(yield* store.customers.findUnique("umaAddress", b.umaAddress), b)
      assert.isUndefined(yield* store.customers.findUnique("platformCustomerId", `pc-${unique()}`))
      assert.isUndefined(yield* store.customers.findUnique("umaAddress", `$u${unique()}@conformance.example`))

      const samePlatformId = { ...individualMinimal(s), platformCustomerId: a.platformCustomerId }
      assertUniqueViolation(yield* store.customers.insert(samePlatformId).pipe(Effect.flip), "platformCustomerId")
      const sameUma = { ...individualMinimal(s), umaAddress: a.umaAddress }
      assertUniqueViolation(yield* store.customers.insert(sameUma).pipe(Effect.flip), "umaAddress")
      assert.isUndefined(yield* store.customers.get(samePlatformId.id), "a refused insert writes nothing")
      assert.isUndefined(yield* store.customers.get(sameUma.id), "a refused insert writes nothing")

      assertUniqueViolation(
        yield* store.customers.update({ ...b, platformCustomerId: a.platformCustomerId }).pipe(Effect.flip),
        "platformCustomerId"
      )
      assertUniqueViolation(
        yield* store.customers.update({ ...b, umaAddress: a.umaAddress }).pipe(Effect.flip),
        "umaAddress"
      )
      assert.deepStrictEqual(yield* store.customers.get(b.id), b, "a refused update changes nothing")

      const moved = { ...b, platformCustomerId: `pc-${unique()}`, updatedAt: plusSeconds(b.updatedAt, 1) }
      yield* store.customers.update(moved)
      assert.deepStrictEqual(yield* store.customers.findUnique("platformCustomerId", moved.platformCustomerId), moved)
      assert.isUndefined(yield* store.customers.findUnique("platformCustomerId", b.platformCustomerId))
    })
  )

  it.effect("insertMany: a platformCustomerId or umaAddress taken, stored or among the rows, refuses every row", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const a = individualFull(s)
      yield* store.customers.insert(a)
      const deleted = { ...individualMinimal(s), isDeleted: true }
      yield* store.customers.insert(deleted)
      const refusals = [
        [
          "platformCustomerId",
          [individualFull(s), { ...businessCustomer(s), platformCustomerId: a.platformCustomerId }]
        ],
        ["umaAddress", [businessCustomer(s), { ...individualMinimal(s), umaAddress: a.umaAddress }]],
        [
          "platformCustomerId",
          (() => {
            const b = businessCustomer(s)
            return [b, individualFull(s), { ...individualMinimal(s), platformCustomerId: b.platformCustomerId }]
          })()
        ],
        [
          "umaAddress",
          (() => {
            const b = individualFull(s)
            return [b, { ...individualMinimal(s), umaAddress: b.umaAddress }]
          })()
        ]
      ] as const
      for (const [index, rows] of refusals) {
        assertUniqueViolation(yield* store.customers.insertMany(rows).pipe(Effect.flip), index)
        for (const row of rows)
          assert.isUndefined(yield* store.customers.get(row.id), "a refused insertMany writes nothing")
      }
      // A deleted customer holds no key: its platformCustomerId and umaAddress are free.
      const successor = {
        ...individualMinimal(s),
        platformCustomerId: deleted.platformCustomerId,
        umaAddress: deleted.umaAddress
      }
      const batch = [successor, businessCustomer(s)]
      yield* store.customers.insertMany(batch)
      assert.deepStrictEqual(
        yield* store.customers.findUnique("platformCustomerId", successor.platformCustomerId),
        successor
      )
      assert.deepStrictEqual(yield* store.customers.get(batch[1]!.id), batch[1])
    })
  )

  it.effect("a deleted customer frees its platformCustomerId and umaAddress", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const a = individualFull(s)
      yield* store.customers.insert(a)
      const deleted = { ...a, isDeleted: true, updatedAt: plusSeconds(a.updatedAt, 1) }
      yield* store.customers.update(deleted)
      assert.deepStrictEqual(yield* store.customers.get(a.id), deleted, "a deleted customer stays readable")
      assert.isUndefined(yield* store.customers.findUnique("platformCustomerId", a.platformCustomerId))
      assert.isUndefined(yield* store.customers.findUnique("umaAddress", a.umaAddress))
      const successor = { ...individualMinimal(s), platformCustomerId: a.platformCustomerId, umaAddress: a.umaAddress }
      yield* store.customers.insert(successor)
      assert.deepStrictEqual(yield* store.customers.findUnique("platformCustomerId", a.platformCustomerId), successor)
      assert.deepStrictEqual(yield* store.customers.findUnique("umaAddress", a.umaAddress), successor)
      const list: ListFn<Customer, CustomerFilter> = store.customers.list
      yield* expectList(list, { platformCustomerId: a.platformCustomerId, includeDeleted: false }, [successor])
      yield* expectList(list, { platformCustomerId: a.platformCustomerId, includeDeleted: true }, [deleted, successor])
    })
  )

  it.effect("list filters: type, region, currency, keys, created and updated ranges, includeDeleted", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<Customer, CustomerFilter> = store.customers.list
      const s = makeScope()
      const c1: Customer = { ...individualFull(s), createdAt: s.at(10), updatedAt: s.at(100) }
      const c2: Customer = { ...businessCustomer(s), createdAt: s.at(20), updatedAt: s.at(200) }
      const c3: Customer = { ...individualMinimal(s), createdAt: s.at(30), updatedAt: s.at(300), isDeleted: true }
      const c4: Customer = {
        ...individualMinimal(s),
        region: "US",
        currencies: ["EUR"],
        createdAt: s.at(40),
        updatedAt: s.at(400)
      }
      for (const c of [c1, c2, c3, c4]) yield* store.customers.insert(c)
      const window = { createdAfter: s.at(0), createdBefore: s.at(DAY) }
      const live = { ...window, includeDeleted: false }
      const all = { ...window, includeDeleted: true }

      yield* expectList(list, live, [c1, c2, c4])
      yield* expectList(list, all, [c1, c2, c3, c4])
      yield* expectList(list, { ...live, customerType: "BUSINESS" }, [c2])
      yield* expectList(list, { ...all, customerType: "INDIVIDUAL" }, [c1, c3, c4])
      yield* expectList(list, { ...live, region: "US" }, [c1, c4])
      yield* expectList(list, { ...all, currency: "USD" }, [c1, c2, c3])
      yield* expectList(list, { ...live, currency: "EUR" }, [c1, c4])
      yield* expectList(list, { ...live, currency: "MXN" }, [c2])
      yield* expectList(list, { ...all, platformCustomerId: c3.platformCustomerId }, [c3])
      yield* expectList(list, { ...live, platformCustomerId: c3.platformCustomerId }, [])
      yield* expectList(list, { ...live, umaAddress: c2.umaAddress }, [c2])
      yield* expectList(list, { createdAfter: s.at(10), createdBefore: s.at(40), includeDeleted: true }, [c2, c3])
      yield* expectList(list, { ...all, updatedAfter: s.at(200) }, [c3, c4])
      yield* expectList(list, { ...all, updatedBefore: s.at(300) }, [c1, c2])
      yield* expectList(list, { ...live, updatedAfter: s.at(100), updatedBefore: s.at(400) }, [c2])

      // Each filter alone, among the rows of other tests.
      yield* expectList(list, { platformCustomerId: c1.platformCustomerId, includeDeleted: false }, [c1])
      yield* expectList(list, { umaAddress: c4.umaAddress, includeDeleted: false }, [c4])
      yield* expectFiltered(
        list,
        { customerType: "BUSINESS", includeDeleted: false },
        (c) => c.customerType === "BUSINESS" && !c.isDeleted,
        {
          included: [c2],
          excluded: [c1, c3, c4]
        }
      )
      yield* expectFiltered(list, { region: "MX", includeDeleted: true }, (c) => c.region === "MX", {
        included: [c2],
        excluded: [c1, c3, c4]
      })
      yield* expectFiltered(
        list,
        { currency: "EUR", includeDeleted: false },
        (c) => c.currencies.includes("EUR") && !c.isDeleted,
        {
          included: [c1, c4],
          excluded: [c2, c3]
        }
      )
      yield* expectFiltered(list, { createdAfter: s.at(20), includeDeleted: true }, (c) => c.createdAt > s.at(20), {
        included: [c3, c4],
        excluded: [c1, c2]
      })
      yield* expectFiltered(
        list,
        { createdBefore: s.at(20), includeDeleted: false },
        (c) => c.createdAt < s.at(20) && !c.isDeleted,
        {
          included: [c1],
          excluded: [c2, c3, c4]
        }
      )
      yield* expectFiltered(list, { updatedAfter: s.at(300), includeDeleted: true }, (c) => c.updatedAt > s.at(300), {
        included: [c4],
        excluded: [c1, c2, c3]
      })
      yield* expectFiltered(list, { updatedBefore: s.at(200), includeDeleted: true }, (c) => c.updatedAt < s.at(200), {
        included: [c1],
        excluded: [c2, c3, c4]
      })
      yield* expectFiltered(list, { includeDeleted: false }, (c) => !c.isDeleted, {
        included: [c1, c2, c4],
        excluded: [c3]
      })
    })
  )
}

export const internalAccountTests = (it: It) => {
  it.effect("list filters: customerId, currency, type", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<InternalAccountRecord, InternalAccountFilter> = store.internalAccounts.list
      const s = makeScope()
      const other = makeScope()
      const a1 = internalFull(s)
      const a2: InternalAccountRecord = { ...internalFull(s), currency: "USDC", type: "INTERNAL_CRYPTO" }
      const a3: InternalAccountRecord = { ...internalFull(s), type: "EMBEDDED_WALLET" }
      const b1 = internalFull(other)
      const platform = internalMinimal(s)
      for (const a of [a1, a2, a3, b1, platform]) yield* store.internalAccounts.insert(a)

      yield* expectList(list, { customerId: s.customerId }, [a1, a2, a3])
      yield* expectList(list, { customerId: other.customerId }, [b1])
      yield* expectList(list, { customerId: s.customerId, currency: "USD" }, [a1, a3])
      yield* expectList(list, { customerId: s.customerId, type: "INTERNAL_CRYPTO" }, [a2])
      yield* expectList(list, { customerId: s.customerId, currency: "USD", type: "EMBEDDED_WALLET" }, [a3])
      yield* expectList(list, { customerId: s.customerId, currency: "EUR" }, [])

      yield* expectFiltered(list, { currency: "USDC" }, (a) => a.currency === "USDC", {
        included: [a2],
        excluded: [a1, a3, b1, platform]
      })
      yield* expectFiltered(list, { type: "EMBEDDED_WALLET" }, (a) => a.type === "EMBEDDED_WALLET", {
        included: [a3],
        excluded: [a1, a2, b1, platform]
      })
      yield* expectFiltered(list, {}, () => true, { included: [a1, a2, a3, b1, platform], excluded: [] })
    })
  )

  it.effect("AC-01: owner filter (ownedByCustomer): the platform's accounts (no customer) or the customers'", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<InternalAccountRecord, InternalAccountFilter> = store.internalAccounts.list
      const s = makeScope()
      const customers = [internalFull(s), { ...internalFull(s), currency: "EUR" }]
      const platform = [internalMinimal(s), { ...internalMinimal(s), currency: "EUR" }]
      for (const a of [...customers, ...platform]) yield* store.internalAccounts.insert(a)

      yield* expectFiltered(list, { ownedByCustomer: false }, (a) => a.customerId === undefined, {
        included: platform,
        excluded: customers
      })
      yield* expectFiltered(list, { ownedByCustomer: true }, (a) => a.customerId !== undefined, {
        included: customers,
        excluded: platform
      })
      yield* expectFiltered(
        list,
        { ownedByCustomer: false, currency: "EUR" },
        (a) => a.customerId === undefined && a.currency === "EUR",
        { included: [platform[1]!], excluded: [...customers, platform[0]!] }
      )
    })
  )

  it.effect("AC-01: platformCurrency is unique (one platform account per currency); unset on any number of rows", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      // A currency no other test uses, so the suite's shared store holds no account of it yet.
      const currency = `X${unique().slice(0, 6).toUpperCase()}`
      const first: InternalAccountRecord = { ...internalMinimal(s), currency, platformCurrency: currency }
      yield* store.internalAccounts.insert(first)
      assertUniqueViolation(
        yield* Effect.flip(
          store.internalAccounts.insert({ ...internalMinimal(s), currency, platformCurrency: currency })
        ),
        "platformCurrency"
      )
      assertUniqueViolation(
        yield* Effect.flip(
          store.internalAccounts.insertMany([{ ...internalMinimal(s), currency, platformCurrency: currency }])
        ),
        "platformCurrency"
      )
      const other = internalMinimal(s)
      yield* store.internalAccounts.insert(other)
      assertUniqueViolation(
        yield* Effect.flip(store.internalAccounts.update({ ...other, platformCurrency: currency })),
        "platformCurrency"
      )
      assert.deepStrictEqual(yield* store.internalAccounts.get(other.id), other, "a refused update changes nothing")
      // Customers' accounts (and platform rows written without it) hold no key: any number of them.
      for (const a of [internalFull(s), internalFull(s), internalMinimal(s)]) yield* store.internalAccounts.insert(a)
      assert.deepStrictEqual(yield* store.internalAccounts.findUnique("platformCurrency", currency), first)
    })
  )

  it.effect(
    "getWithCustomer: the account with its customer; none for a platform account or a customer not stored",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const s = makeScope()
        const customer = individualFull(s, s.customerId)
        yield* store.customers.insert(customer)
        const account = internalFull(s)
        const platform = internalMinimal(s)
        const orphan = internalFull(makeScope())
        for (const a of [account, platform, orphan]) yield* store.internalAccounts.insert(a)

        assert.deepStrictEqual(yield* store.internalAccounts.getWithCustomer(account.id), { account, customer })
        assert.deepStrictEqual(yield* store.transaction(store.internalAccounts.getWithCustomer(account.id)), {
          account,
          customer
        })
        assert.deepStrictEqual(yield* store.internalAccounts.getWithCustomer(platform.id), {
          account: platform,
          customer: undefined
        })
        assert.deepStrictEqual(yield* store.internalAccounts.getWithCustomer(orphan.id), {
          account: orphan,
          customer: undefined
        })
        assert.isUndefined(yield* store.internalAccounts.getWithCustomer(newId("InternalAccount")))

        // The customer as it is now, not as it was when the account was made.
        const renamed = { ...customer, updatedAt: plusSeconds(customer.updatedAt, 1) }
        yield* store.customers.update(renamed)
        assert.deepStrictEqual(yield* store.internalAccounts.getWithCustomer(account.id), {
          account,
          customer: renamed
        })
      })
  )
}

export const externalAccountTests = (it: It) => {
  it.effect("list filters: customerId, currency; INACTIVE accounts are left out of lists but readable", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<ExternalAccount, ExternalAccountFilter> = store.externalAccounts.list
      const s = makeScope()
      const other = makeScope()
      const e1 = externalFull(s)
      const e2 = externalMinimal(s)
      const e3: ExternalAccount = { ...externalFull(s), status: "INACTIVE", defaultUmaDepositAccount: false }
      const e4: ExternalAccount = { ...externalMinimal(s), status: "PENDING" }
      const f1 = externalFull(other)
      for (const e of [e1, e2, e3, e4, f1]) yield* store.externalAccounts.insert(e)

      yield* expectList(list, { customerId: s.customerId }, [e1, e2, e4])
      yield* expectList(list, { customerId: s.customerId, currency: "USD" }, [e1])
      yield* expectList(list, { customerId: s.customerId, currency: "EUR" }, [e2, e4])
      yield* expectList(list, { customerId: other.customerId }, [f1])
      assert.deepStrictEqual(yield* store.externalAccounts.get(e3.id), e3)

      // Deleting (status INACTIVE) hides an account from lists.
      const deleted: ExternalAccount = { ...e1, status: "INACTIVE", defaultUmaDepositAccount: false }
      yield* store.externalAccounts.update(deleted)
      yield* expectList(list, { customerId: s.customerId }, [e2, e4])
      assert.deepStrictEqual(yield* store.externalAccounts.get(e1.id), deleted)

      yield* expectFiltered(list, { currency: "EUR" }, (e) => e.currency === "EUR" && e.status !== "INACTIVE", {
        included: [e2, e4],
        excluded: [e1, e3, f1]
      })
    })
  )

  it.effect("owner filter (ownedByCustomer): the platform's own accounts (no customer) or the customers'", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<ExternalAccount, ExternalAccountFilter> = store.externalAccounts.list
      const s = makeScope()
      const { customerId: _, ...platformAccount } = externalFull(s)
      const platform: ExternalAccount = platformAccount
      const customer = externalMinimal(s)
      for (const e of [platform, customer]) yield* store.externalAccounts.insert(e)
      assert.deepStrictEqual(yield* store.externalAccounts.get(platform.id), platform)
      yield* expectFiltered(list, { ownedByCustomer: false }, (e) => e.customerId === undefined, {
        included: [platform],
        excluded: [customer]
      })
      yield* expectFiltered(list, { ownedByCustomer: true }, (e) => e.customerId !== undefined, {
        included: [customer],
        excluded: [platform]
      })
    })
  )
}
