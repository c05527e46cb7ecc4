import { assert, describe, it } from "@effect/vitest"
import { layer as memoryStore } from "@paycore/store-memory"
import { Effect, Layer } from "effect"
import type { AccountInfo, CreateExternalAccountRequest, PaymentRail } from "../src/accounts/model.ts"
import { Accounts } from "../src/accounts/service.ts"
import type { CreateCustomerRequest } from "../src/customers/model.ts"
import { Customers } from "../src/customers/service.ts"
import { systemAccount } from "../src/ledger/model.ts"
import type { Institution } from "../src/platform/model.ts"
import { PlatformConfigService } from "../src/platform/service.ts"
import { Directory } from "../src/ports/directory.ts"
import { Ids } from "../src/ports/ids.ts"
import { Store } from "../src/ports/store.ts"
import type { InvalidInput } from "../src/shared/errors.ts"
import type { CustomerId } from "../src/shared/ids.ts"

/** The spec code of a domain error (the tag for errors without one). */
const codeOf = (error: { readonly _tag: string }): string => ("code" in error ? String(error.code) : error._tag)

const institutions: ReadonlyArray<Institution> = [
  { bankName: "JPMorgan Chase Bank, N.A.", displayName: "Chase", country: "US", currency: "USD" },
  { bankName: "BBVA México, S.A.", displayName: "BBVA México", country: "MX", currency: "MXN" },
  { bankName: "Banco Mercantil del Norte, S.A.", displayName: "Banorte", country: "MX", currency: "MXN" },
  { bankName: "Deutsche Bank AG", displayName: "Deutsche Bank", country: "DE", currency: "EUR" },
  { bankName: "Itaú Unibanco S.A.", displayName: "Itaú", country: "BR", currency: "BRL" }
]

const TestDirectory = Layer.succeed(
  Directory,
  Directory.of({
    institutions: () => Effect.succeed(institutions),
    umaProviders: () => Effect.succeed([]),
    umaReceiver: () => Effect.succeed(undefined),
    vasps: () => Effect.succeed([])
  })
)

const TestLayer = Layer.mergeAll(Customers.layer, Accounts.layer).pipe(
  Layer.provideMerge(PlatformConfigService.layer),
  Layer.provideMerge(Layer.mergeAll(memoryStore, Ids.layerSeeded(5), TestDirectory))
)

const person = { beneficiaryType: "INDIVIDUAL", fullName: "Juana Pérez", countryOfResidence: "MX" } as const

const newCustomer = (currencies: ReadonlyArray<string> = ["USD"]) =>
  Customers.use((customers) =>
    customers.create({ customerType: "INDIVIDUAL", fullName: "Ada Lovelace", currencies } as CreateCustomerRequest)
  )

const invalid = (error: { readonly _tag: string }): InvalidInput => {
  assert.strictEqual(error._tag, "InvalidInput")
  return error as InvalidInput
}

const usAccount = (accountNumber = "123456789", extra: Partial<AccountInfo> = {}): AccountInfo =>
  ({
    accountType: "US_ACCOUNT",
    accountNumber,
    routingNumber: "021000021",
    beneficiary: person,
    ...extra
  }) as AccountInfo

describe("internal accounts", () => {
  it.effect("lists with filters and reports available and total balances from the ledger", () =>
    Effect.gen(function* () {
      const accounts = yield* Accounts
      const store = yield* Store
      const a = yield* newCustomer(["USD", "EUR", "USDC"])
      const b = yield* newCustomer(["USD"])

      assert.strictEqual((yield* accounts.listInternal({})).totalCount, 4)
      assert.strictEqual((yield* accounts.listInternal({ customerId: a.id })).totalCount, 3)
      assert.strictEqual((yield* accounts.listInternal({ currency: "USD" })).totalCount, 2)
      assert.deepStrictEqual(
        (yield* accounts.listInternal({ customerId: a.id, type: "INTERNAL_CRYPTO" })).data.map((x) => x.currency),
        ["USDC"]
      )
      for (const account of (yield* accounts.listInternal({})).data) {
        assert.strictEqual(account.balance.amount, 0)
        assert.strictEqual(account.totalBalance.amount, 0)
      }

      const usd = (yield* accounts.listInternal({ customerId: b.id })).data[0]!
      yield* store.transaction(
        store.ledger.record([
          {
            id: "t1",
            debit: systemAccount("deposits", "USD"),
            credit: usd.id,
            amount: 10_000,
            currency: "USD",
            state: "POSTED",
            reference: "Transaction:1",
            createdAt: "1970-01-01T00:00:00.000Z"
          },
          {
            id: "t2",
            debit: usd.id,
            credit: systemAccount("payouts", "USD"),
            amount: 2_500,
            currency: "USD",
            state: "PENDING",
            reference: "Transaction:2",
            createdAt: "1970-01-01T00:00:00.000Z"
          }
        ])
      )
      const funded = yield* accounts.getInternal(usd.id)
      assert.strictEqual(funded.balance.amount, 7_500)
      assert.strictEqual(funded.totalBalance.amount, 10_000)
      assert.strictEqual(funded.balance.currency.code, "USD")
      const listed = (yield* accounts.listInternal({ customerId: b.id })).data[0]!
      assert.deepStrictEqual(listed, funded)

      const missing = yield* Effect.flip(accounts.getInternal("InternalAccount:019542f5-b3e7-7d02-8000-000000000009"))
      assert.strictEqual(codeOf(missing), "REFERENCE_NOT_FOUND")
      const bad = invalid(yield* Effect.flip(accounts.listInternal({ cursor: "nope" })))
      assert.strictEqual(bad.errors[0]?.field, "cursor")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("pages internal accounts without skipping or repeating", () =>
    Effect.gen(function* () {
      const accounts = yield* Accounts
      const c = yield* newCustomer(["USD", "EUR", "MXN", "BRL", "GBP"])
      const all = (yield* accounts.listInternal({ customerId: c.id, sortOrder: "asc", limit: 100 })).data.map(
        (a) => a.id
      )
      const seen: Array<string> = []
      let cursor: string | undefined
      do {
        const page = yield* accounts.listInternal({
          customerId: c.id,
          sortOrder: "asc",
          limit: 2,
          ...(cursor === undefined ? {} : { cursor })
        })
        seen.push(...page.data.map((a) => a.id))
        cursor = page.nextCursor
      } while (cursor !== undefined)
      assert.deepStrictEqual(seen, all)
      assert.strictEqual(all.length, 5)
    }).pipe(Effect.provide(TestLayer))
  )
})

describe("external accounts", () => {
  const variants: ReadonlyArray<{
    readonly currency: string
    readonly info: AccountInfo
    readonly rails: ReadonlyArray<PaymentRail>
  }> = [
    { currency: "USD", info: usAccount(), rails: ["ACH", "WIRE", "RTP", "FEDNOW"] },
    {
      currency: "USD",
      info: usAccount("99887766", {
        accountType: "USD_ACCOUNT",
        bankName: "JPMorgan Chase Bank, N.A."
      } as Partial<AccountInfo>),
      rails: ["ACH", "WIRE", "RTP", "FEDNOW"]
    },
    {
      currency: "MXN",
      info: {
        accountType: "CLABE",
        clabeNumber: "002010077777777771",
        bankName: "BBVA México, S.A.",
        beneficiary: person
      },
      rails: ["SPEI"]
    },
    {
      currency: "MXN",
      info: { accountType: "MXN_ACCOUNT", clabeNumber: "072580010000000001", beneficiary: person },
      rails: ["SPEI"]
    },
    {
      currency: "EUR",
      info: { accountType: "IBAN", iban: "DE89370400440532013000", beneficiary: person },
      rails: ["SEPA", "SEPA_INSTANT"]
    },
    {
      currency: "EUR",
      info: {
        accountType: "EUR_ACCOUNT",
        iban: "FR1420041010050500013M02606",
        swiftCode: "BNPAFRPP",
        beneficiary: person
      },
      rails: ["SEPA", "SEPA_INSTANT"]
    },
    {
      currency: "BRL",
      info: {
        accountType: "PIX",
        pixKey: "juana@example.com",
        pixKeyType: "EMAIL",
        taxId: "12345678909",
        beneficiary: person
      },
      rails: ["PIX"]
    },
    {
      currency: "USDC",
      info: { accountType: "SOLANA_WALLET", address: "4Nd1mYz8D8tZ2fV7WcPqv2X3kJpQ9rS6bH5gT1uE7aLm" },
      rails: ["SOLANA"]
    },
    {
      currency: "USDT",
      info: { accountType: "ETHEREUM_WALLET", address: "0x52908400098527886E0F7030069857D2E4169EE7" },
      rails: ["ETHEREUM"]
    },
    {
      currency: "USDC",
      info: { accountType: "BASE_WALLET", address: "0x8617E340B3D01FA5F11F306F4090FD50E238070D" },
      rails: ["BASE"]
    },
    {
      currency: "USDC",
      info: { accountType: "POLYGON_WALLET", address: "0xde709f2102306220921060314715629080e2fb77" },
      rails: ["POLYGON"]
    },
    {
      currency: "USDT",
      info: { accountType: "TRON_WALLET", address: "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7" },
      rails: ["TRON"]
    },
    {
      currency: "BTC",
      info: { accountType: "LIGHTNING", lightningAddress: "juana@wallet.example" },
      rails: ["LIGHTNING"]
    }
  ]

  it.effect("creates every variant ACTIVE with its rails, echoing the accountType sent", () =>
    Effect.gen(function* () {
      const accounts = yield* Accounts
      const c = yield* newCustomer()
      for (const v of variants) {
        const created = yield* accounts.createExternal({
          customerId: c.id,
          currency: v.currency,
          platformAccountId: `ext-${v.info.accountType}`,
          accountInfo: v.info
        })
        assert.match(created.id, /^ExternalAccount:[0-9a-f-]{36}$/)
        assert.strictEqual(created.status, "ACTIVE")
        assert.strictEqual(created.customerId, c.id)
        assert.strictEqual(created.currency, v.currency)
        assert.strictEqual(created.platformAccountId, `ext-${v.info.accountType}`)
        assert.strictEqual(created.ownershipType, "FIRST_PARTY")
        assert.isFalse(created.defaultUmaDepositAccount)
        assert.deepStrictEqual(created.paymentRails, v.rails, v.info.accountType)
        // Echoed as sent, with the rails it is paid on (the upstream's response shape).
        assert.deepStrictEqual(created.accountInfo, { ...v.info, paymentRails: v.rails })
        assert.deepStrictEqual(yield* accounts.getExternal(created.id), created)
      }
      assert.strictEqual((yield* accounts.listExternal({ customerId: c.id })).totalCount, variants.length)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("refuses a currency the variant cannot hold and a bankName not in the directory, together", () =>
    Effect.gen(function* () {
      const accounts = yield* Accounts
      const c = yield* newCustomer()
      const error = invalid(
        yield* Effect.flip(
          accounts.createExternal({
            customerId: c.id,
            currency: "USD",
            accountInfo: {
              accountType: "CLABE",
              clabeNumber: "002010077777777771",
              bankName: "Chase",
              beneficiary: person
            }
          })
        )
      )
      assert.deepStrictEqual(
        error.errors.map((e) => e.field),
        ["currency", "accountInfo.bankName"]
      )
      assert.deepStrictEqual(error.errors[0]?.constraint, { enum: ["MXN"] })
      assert.deepStrictEqual(error.errors[1]?.constraint, {
        enum: ["BBVA México, S.A.", "Banco Mercantil del Norte, S.A."]
      })

      const wallet = invalid(
        yield* Effect.flip(
          accounts.createExternal({
            customerId: c.id,
            currency: "BTC",
            accountInfo: { accountType: "SOLANA_WALLET", address: "4Nd1mYz8D8tZ2fV7WcPqv2X3kJpQ9rS6bH5gT1uE7aLm" }
          })
        )
      )
      assert.deepStrictEqual(wallet.errors[0]?.constraint, { enum: ["USDC", "USDT"] })

      // A bank name from another corridor is refused too.
      const wrongCorridor = invalid(
        yield* Effect.flip(
          accounts.createExternal({
            customerId: c.id,
            currency: "USD",
            accountInfo: usAccount("1", { bankName: "Deutsche Bank AG" } as Partial<AccountInfo>)
          })
        )
      )
      assert.deepStrictEqual(
        wrongCorridor.errors.map((e) => [e.field, e.constraint]),
        [["accountInfo.bankName", { enum: ["JPMorgan Chase Bank, N.A."] }]]
      )
      const lightning = invalid(
        yield* Effect.flip(
          accounts.createExternal({ customerId: c.id, currency: "BTC", accountInfo: { accountType: "LIGHTNING" } })
        )
      )
      assert.strictEqual(lightning.errors[0]?.field, "accountInfo")
      assert.strictEqual((yield* accounts.listExternal({ customerId: c.id })).totalCount, 0)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("409 for the same account twice for one customer; fine for another customer or after delete", () =>
    Effect.gen(function* () {
      const accounts = yield* Accounts
      const c = yield* newCustomer()
      const other = yield* newCustomer()
      const req = (customerId: CustomerId): CreateExternalAccountRequest => ({
        customerId,
        currency: "USD",
        accountInfo: usAccount("555000111")
      })
      const first = yield* accounts.createExternal(req(c.id))
      // The alias spelling and another beneficiary still name the same bank account.
      const alias = yield* Effect.flip(
        accounts.createExternal({
          ...req(c.id),
          accountInfo: { ...usAccount("555000111"), accountType: "USD_ACCOUNT" } as AccountInfo
        })
      )
      assert.strictEqual(alias._tag, "Conflict")
      if (alias._tag === "Conflict") assert.strictEqual(alias.code, "CONFLICT")
      const evm = {
        customerId: c.id,
        currency: "USDC",
        accountInfo: { accountType: "BASE_WALLET", address: "0x8617E340B3D01FA5F11F306F4090FD50E238070D" }
      } as const
      yield* accounts.createExternal(evm)
      const lower = yield* Effect.flip(
        accounts.createExternal({
          ...evm,
          accountInfo: { ...evm.accountInfo, address: evm.accountInfo.address.toLowerCase() }
        })
      )
      assert.strictEqual(lower._tag, "Conflict")

      yield* accounts.createExternal(req(other.id))
      yield* accounts.deleteExternal(first.id)
      const again = yield* accounts.createExternal(req(c.id))
      assert.notStrictEqual(again.id, first.id)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("404 USER_NOT_FOUND for an unknown or deleted customer", () =>
    Effect.gen(function* () {
      const accounts = yield* Accounts
      const customers = yield* Customers
      const unknown = yield* Effect.flip(
        accounts.createExternal({
          customerId: "Customer:019542f5-b3e7-7d02-8000-000000000001" as CustomerId,
          currency: "USD",
          accountInfo: usAccount()
        })
      )
      assert.strictEqual(unknown._tag, "NotFound")
      if (unknown._tag === "NotFound") assert.strictEqual(unknown.code, "USER_NOT_FOUND")
      const c = yield* newCustomer()
      yield* customers.delete(c.id)
      const deleted = yield* Effect.flip(
        accounts.createExternal({ customerId: c.id, currency: "USD", accountInfo: usAccount() })
      )
      assert.strictEqual(deleted._tag, "NotFound")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("lists by customer and currency, pages, and hides deleted accounts", () =>
    Effect.gen(function* () {
      const accounts = yield* Accounts
      const c = yield* newCustomer()
      const other = yield* newCustomer()
      const made: Array<string> = []
      for (let i = 0; i < 5; i++) {
        made.push(
          (yield* accounts.createExternal({ customerId: c.id, currency: "USD", accountInfo: usAccount(`10${i}`) })).id
        )
      }
      yield* accounts.createExternal({
        customerId: c.id,
        currency: "EUR",
        accountInfo: { accountType: "IBAN", iban: "DE89370400440532013000", beneficiary: person }
      })
      yield* accounts.createExternal({ customerId: other.id, currency: "USD", accountInfo: usAccount("1") })

      assert.strictEqual((yield* accounts.listExternal({})).totalCount, 7)
      assert.strictEqual((yield* accounts.listExternal({ customerId: c.id })).totalCount, 6)
      assert.strictEqual((yield* accounts.listExternal({ customerId: c.id, currency: "USD" })).totalCount, 5)

      const seen: Array<string> = []
      let cursor: string | undefined
      do {
        const page = yield* accounts.listExternal({
          customerId: c.id,
          currency: "USD",
          limit: 2,
          ...(cursor === undefined ? {} : { cursor })
        })
        seen.push(...page.data.map((a) => a.id))
        cursor = page.nextCursor
      } while (cursor !== undefined)
      assert.deepStrictEqual(seen, [...made].reverse())

      yield* accounts.deleteExternal(made[2]!)
      const gone = yield* Effect.flip(accounts.getExternal(made[2]!))
      assert.strictEqual(codeOf(gone), "REFERENCE_NOT_FOUND")
      const twice = yield* Effect.flip(accounts.deleteExternal(made[2]!))
      assert.strictEqual(codeOf(twice), "REFERENCE_NOT_FOUND")
      assert.strictEqual((yield* accounts.listExternal({ customerId: c.id, currency: "USD" })).totalCount, 4)
      const bad = invalid(yield* Effect.flip(accounts.listExternal({ cursor: "x" })))
      assert.strictEqual(bad.errors[0]?.field, "cursor")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a new default UMA deposit account takes over from the previous one", () =>
    Effect.gen(function* () {
      const accounts = yield* Accounts
      const c = yield* newCustomer()
      const first = yield* accounts.createExternal({
        customerId: c.id,
        currency: "USD",
        defaultUmaDepositAccount: true,
        ownershipType: "THIRD_PARTY",
        accountInfo: usAccount("1")
      })
      assert.isTrue(first.defaultUmaDepositAccount)
      assert.strictEqual(first.ownershipType, "THIRD_PARTY")
      const second = yield* accounts.createExternal({
        customerId: c.id,
        currency: "USD",
        defaultUmaDepositAccount: true,
        accountInfo: usAccount("2")
      })
      assert.isTrue(second.defaultUmaDepositAccount)
      assert.isFalse((yield* accounts.getExternal(first.id)).defaultUmaDepositAccount)
    }).pipe(Effect.provide(TestLayer))
  )
})
