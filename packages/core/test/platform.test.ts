import { assert, describe, it } from "@effect/vitest"
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js"
import { makeMemoryStore, layer as memoryStore } from "@paycore/store-memory"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import type { Institution, UmaProvider } from "../src/platform/model.ts"
import { Discoveries, PlatformConfigService, Tokens } from "../src/platform/service.ts"
import { CREDENTIAL_CACHE_TTL_MS } from "../src/platform/tokens.ts"
import { Directory } from "../src/ports/directory.ts"
import { Ids } from "../src/ports/ids.ts"
import { Store } from "../src/ports/store.ts"
import { constantTimeEqual } from "../src/shared/constant-time.ts"
import { currency } from "../src/shared/currency.ts"
import { defaultEngineSettings, EngineConfig } from "../src/shared/engine-config.ts"

/** The spec code of a domain error (the tag for errors without one). */
const codeOf = (error: { readonly _tag: string }): string => ("code" in error ? String(error.code) : error._tag)

const institutions: ReadonlyArray<Institution> = [
  { bankName: "JPMorgan Chase Bank, N.A.", displayName: "Chase", country: "US", currency: "USD" },
  { bankName: "BBVA México, S.A.", displayName: "BBVA México", country: "MX", currency: "MXN" },
  { bankName: "Banco Santander México, S.A.", displayName: "Santander México", country: "MX", currency: "MXN" },
  { bankName: "Deutsche Bank AG", displayName: "Deutsche Bank", country: "DE", currency: "EUR" },
  { bankName: "BNP Paribas S.A.", displayName: "BNP Paribas", country: "FR", currency: "EUR" }
]

const provider = (id: string, regions: ReadonlyArray<string>, codes: ReadonlyArray<string>): UmaProvider => ({
  id,
  name: id,
  domain: `${id}.example`,
  umaAddress: `$pay@${id}.example`,
  supportedRegions: regions,
  supportedCurrencies: codes.map(currency),
  allowListStatus: true
})

const providers: ReadonlyArray<UmaProvider> = [
  provider("uma-e", ["US"], ["USD"]),
  provider("uma-a", ["MX", "US"], ["MXN", "USD"]),
  provider("uma-c", ["GB"], ["GBP"]),
  provider("uma-b", ["BR"], ["BRL", "USD"]),
  provider("uma-d", ["MX"], ["MXN"])
]

const TestDirectory = Layer.succeed(
  Directory,
  Directory.of({
    institutions: () => Effect.succeed(institutions),
    umaProviders: () => Effect.succeed(providers),
    umaReceiver: () => Effect.succeed(undefined),
    vasps: () => Effect.succeed([])
  })
)

const TestLayer = Layer.mergeAll(Tokens.layer, PlatformConfigService.layer, Discoveries.layer).pipe(
  Layer.provideMerge(Layer.mergeAll(memoryStore, Ids.layerSeeded(11), TestDirectory))
)

const hex = (s: string) => bytesToHex(sha256(utf8ToBytes(s)))

describe("API tokens", () => {
  it.effect("shows the secret once; it authenticates by client id or token id", () =>
    Effect.gen(function* () {
      const tokens = yield* Tokens
      const store = yield* Store
      const created = yield* tokens.create({ name: "ops", permissions: ["VIEW", "TRANSACT"] })
      assert.match(created.clientId, /^[0-9a-f]{32}$/)
      assert.match(created.clientSecret, /^[0-9a-f]{64}$/)
      assert.match(created.id, /^Token:[0-9a-f-]{36}$/)
      assert.strictEqual(created.environment, "SANDBOX")

      // Never readable again: not on get, not in lists, and not stored in clear.
      const read = yield* tokens.get(created.id)
      assert.isFalse("clientSecret" in read)
      assert.isFalse("secretHash" in read)
      const listed = yield* tokens.list({})
      assert.isFalse("clientSecret" in listed.data[0]!)
      const record = yield* store.tokens.get(created.id)
      assert.strictEqual(record?.secretHash, hex(created.clientSecret))
      assert.notInclude(JSON.stringify(record), created.clientSecret)

      const principal = yield* tokens.authenticate(created.clientId, created.clientSecret)
      assert.deepStrictEqual(principal, {
        kind: "PLATFORM",
        tokenId: created.id,
        permissions: ["VIEW", "TRANSACT"],
        environment: "SANDBOX"
      })
      assert.deepStrictEqual(yield* tokens.authenticate(created.id, created.clientSecret), principal)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("refuses a wrong secret, an unknown user and a deleted token at once", () =>
    Effect.gen(function* () {
      const tokens = yield* Tokens
      const created = yield* tokens.create({ name: "prod", permissions: ["MANAGE"], environment: "PRODUCTION" })
      assert.strictEqual(
        (yield* tokens.authenticate(created.clientId, created.clientSecret))?.environment,
        "PRODUCTION"
      )
      assert.isUndefined(yield* tokens.authenticate(created.clientId, `${created.clientSecret.slice(0, -1)}0`))
      assert.isUndefined(yield* tokens.authenticate(created.clientId, ""))
      assert.isUndefined(yield* tokens.authenticate("0".repeat(32), created.clientSecret))

      yield* tokens.delete(created.id)
      assert.isUndefined(yield* tokens.authenticate(created.clientId, created.clientSecret))
      assert.isUndefined(yield* tokens.authenticate(created.id, created.clientSecret))
      const notFound = yield* Effect.flip(tokens.get(created.id))
      assert.strictEqual(codeOf(notFound), "TOKEN_NOT_FOUND")
      const again = yield* Effect.flip(tokens.delete(created.id))
      assert.strictEqual(codeOf(again), "TOKEN_NOT_FOUND")
      assert.strictEqual((yield* tokens.list({})).totalCount, 0)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("re-reads a cached credential after the TTL (a delete by another process)", () =>
    Effect.gen(function* () {
      const tokens = yield* Tokens
      const store = yield* Store
      const created = yield* tokens.create({ name: "t", permissions: ["VIEW"] })
      assert.isDefined(yield* tokens.authenticate(created.clientId, created.clientSecret))
      const record = (yield* store.tokens.get(created.id))!
      yield* store.transaction(store.tokens.update({ ...record, deletedAt: record.createdAt }))
      assert.isDefined(yield* tokens.authenticate(created.clientId, created.clientSecret))
      yield* TestClock.adjust(CREDENTIAL_CACHE_TTL_MS + 1)
      assert.isUndefined(yield* tokens.authenticate(created.clientId, created.clientSecret))
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("creates the start-up token from given credentials, idempotently", () =>
    Effect.gen(function* () {
      const tokens = yield* Tokens
      const given = {
        clientId: "sandbox-client",
        clientSecret: "sandbox-secret-123",
        name: "Sandbox",
        permissions: ["VIEW", "TRANSACT", "MANAGE"] as const
      }
      const first = yield* tokens.createWithCredentials(given)
      const second = yield* tokens.createWithCredentials(given)
      assert.strictEqual(second.id, first.id)
      assert.strictEqual((yield* tokens.list({})).totalCount, 1)
      assert.strictEqual((yield* tokens.authenticate("sandbox-client", "sandbox-secret-123"))?.tokenId, first.id)

      // A new secret in the environment re-keys the token; the old one stops working.
      yield* tokens.createWithCredentials({ ...given, clientSecret: "another-secret-456" })
      assert.isUndefined(yield* tokens.authenticate("sandbox-client", "sandbox-secret-123"))
      assert.isDefined(yield* tokens.authenticate("sandbox-client", "another-secret-456"))

      // A deleted start-up token comes back on the next start.
      yield* tokens.delete(first.id)
      const revived = yield* tokens.createWithCredentials(given)
      assert.strictEqual(revived.id, first.id)
      assert.isDefined(yield* tokens.authenticate("sandbox-client", "sandbox-secret-123"))
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("rejects malformed start-up credentials listing every field", () =>
    Effect.gen(function* () {
      const tokens = yield* Tokens
      const error = yield* Effect.flip(
        tokens.createWithCredentials({ clientId: "bad:id", clientSecret: "short", name: "x", permissions: [] })
      )
      assert.strictEqual(error._tag, "InvalidInput")
      if (error._tag !== "InvalidInput") return
      assert.deepStrictEqual(
        error.errors.map((e) => e.field),
        ["clientId", "clientSecret", "permissions"]
      )
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("lists with filters and pages without skipping or repeating", () =>
    Effect.gen(function* () {
      const tokens = yield* Tokens
      const made: Array<string> = []
      for (let i = 0; i < 7; i++) {
        made.push((yield* tokens.create({ name: i % 2 === 0 ? "even" : "odd", permissions: ["VIEW"] })).id)
        yield* TestClock.adjust(1000)
      }
      yield* tokens.delete(made[3]!)
      const live = made.filter((_, i) => i !== 3)

      for (const sortOrder of ["asc", "desc"] as const) {
        const seen: Array<string> = []
        let cursor: string | undefined
        do {
          const page = yield* tokens.list({ limit: 2, sortOrder, ...(cursor === undefined ? {} : { cursor }) })
          assert.strictEqual(page.totalCount, 6)
          seen.push(...page.data.map((t) => t.id))
          cursor = page.nextCursor
        } while (cursor !== undefined)
        assert.deepStrictEqual(seen, sortOrder === "asc" ? live : [...live].reverse())
      }

      assert.strictEqual((yield* tokens.list({ name: "even" })).totalCount, 4)
      const window = yield* tokens.list({
        createdAfter: "1970-01-01T00:00:01.500Z",
        createdBefore: "1970-01-01T00:00:04.500Z"
      })
      assert.deepStrictEqual(
        window.data.map((t) => t.id),
        [made[4]!, made[2]!]
      )
      const bad = yield* Effect.flip(tokens.list({ cursor: "not-a-cursor" }))
      assert.strictEqual(bad._tag, "InvalidInput")
      if (bad._tag === "InvalidInput") assert.strictEqual(bad.errors[0]?.field, "cursor")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("lists one page from the store (deleted tokens filtered there), not every token", () => {
    const calls: Array<{ readonly includeDeleted: boolean; readonly limit: number }> = []
    const countingStore = Layer.effect(
      Store,
      Effect.map(makeMemoryStore, (store) =>
        Store.of({
          ...store,
          tokens: {
            ...store.tokens,
            list: (filter, page) => {
              calls.push({ includeDeleted: filter.includeDeleted, limit: page.limit })
              return store.tokens.list(filter, page)
            }
          }
        })
      )
    )
    const layer = Tokens.layer.pipe(Layer.provideMerge(Layer.mergeAll(countingStore, Ids.layerSeeded(11))))
    return Effect.gen(function* () {
      const tokens = yield* Tokens
      const made: Array<string> = []
      for (let i = 0; i < 150; i++) {
        made.push((yield* tokens.create({ name: "t", permissions: ["VIEW"] })).id)
        yield* TestClock.adjust(1)
      }
      for (const id of made.slice(0, 10)) yield* tokens.delete(id)
      const page = yield* tokens.list({ limit: 5, sortOrder: "asc" })
      assert.deepStrictEqual(
        page.data.map((t) => t.id),
        made.slice(10, 15)
      )
      assert.strictEqual(page.totalCount, 140)
      assert.isTrue(page.hasMore)
      assert.deepStrictEqual(calls, [{ includeDeleted: false, limit: 5 }])
    }).pipe(Effect.provide(layer))
  })

  it("compares bytes in constant time", () => {
    assert.isTrue(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3])))
    assert.isFalse(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4])))
    assert.isFalse(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3])))
  })
})

describe("platform configuration", () => {
  it.effect("creates the default configuration on first use", () =>
    Effect.gen(function* () {
      const config = yield* PlatformConfigService
      const first = yield* config.get()
      assert.match(first.id, /^PlatformConfig:[0-9a-f-]{36}$/)
      assert.strictEqual(first.umaDomain, "sandbox.paycore.dev")
      assert.deepStrictEqual(
        first.supportedCurrencies.map((c) => c.currencyCode),
        ["USD", "EUR", "MXN", "BRL", "GBP", "INR", "PHP", "NGN", "CAD", "USDC", "USDT", "BTC"]
      )
      assert.deepStrictEqual(first.supportedCurrencies[0], {
        currencyCode: "USD",
        minAmount: 1,
        maxAmount: 9_000_000_000_000_000,
        requiredCounterpartyFields: [],
        enabledTransactionTypes: ["OUTGOING", "INCOMING"]
      })
      assert.isFalse(first.isRegulatedFinancialInstitution)
      assert.isFalse(first.skipVerificationPaperwork)
      assert.deepStrictEqual(first.feeConfigs, [])
      assert.deepStrictEqual(first.transactionLimits, [])
      assert.isUndefined(first.webhookEndpoint)
      assert.deepStrictEqual(yield* config.get(), first)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("PATCH keeps omitted fields and merges card caps", () =>
    Effect.gen(function* () {
      const config = yield* PlatformConfigService
      yield* config.update({
        umaDomain: "pay.example.com",
        cardConfigs: { maxSpendPerDay: 50_000, maxSpendPerTransaction: 10_000 }
      })
      yield* TestClock.adjust(5000)
      const next = yield* config.update({
        feeConfigs: [{ feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "USD", variableFeeBps: 30 }],
        cardConfigs: { maxSpendPerTransaction: null }
      })
      assert.strictEqual(next.umaDomain, "pay.example.com")
      assert.deepStrictEqual(next.cardConfigs, { maxSpendPerDay: 50_000, maxSpendPerTransaction: null })
      assert.strictEqual(next.feeConfigs.length, 1)
      assert.strictEqual(next.updatedAt, "1970-01-01T00:00:05.000Z")
      assert.strictEqual(next.createdAt, "1970-01-01T00:00:00.000Z")
      assert.deepStrictEqual(yield* config.get(), next)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("rejects fee configs listing every broken field, and changes nothing", () =>
    Effect.gen(function* () {
      const config = yield* PlatformConfigService
      const before = yield* config.get()
      const error = yield* Effect.flip(
        config.update({
          umaDomain: "changed.example.com",
          feeConfigs: [
            { feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "EUR", variableFeeBps: 10 },
            { feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "USD" },
            {
              feeType: "CROSS_CURRENCY_TRANSACTION",
              sourceCurrency: "USD",
              fixedFee: { amount: 100, currency: "MXN" }
            }
          ]
        })
      )
      assert.strictEqual(error._tag, "InvalidInput")
      if (error._tag !== "InvalidInput") return
      assert.deepStrictEqual(
        error.errors.map((e) => e.field),
        ["feeConfigs.0.sourceCurrency", "feeConfigs.1", "feeConfigs.2.fixedFee.currency", "feeConfigs.2"]
      )
      assert.deepStrictEqual(error.errors[0]?.constraint, { enum: ["USD"] })
      assert.deepStrictEqual(yield* config.get(), before)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a new webhook endpoint sends a TEST event, the same one does not", () =>
    Effect.gen(function* () {
      const config = yield* PlatformConfigService
      const store = yield* Store
      const testEvents = () =>
        Effect.map(store.outbox.list({ type: "TEST" }, { limit: 10, sortOrder: "asc" }), (p) => p.data)
      yield* config.update({ umaDomain: "a.example.com" })
      assert.strictEqual((yield* testEvents()).length, 0)
      const saved = yield* config.update({ webhookEndpoint: "https://platform.example/hooks" })
      assert.strictEqual(saved.webhookEndpoint, "https://platform.example/hooks")
      const events = yield* testEvents()
      assert.strictEqual(events.length, 1)
      assert.deepStrictEqual(JSON.parse(events[0]!.body).data, {})
      assert.strictEqual(JSON.parse(events[0]!.body).type, "TEST")
      yield* config.update({ webhookEndpoint: "https://platform.example/hooks" })
      assert.strictEqual((yield* testEvents()).length, 1)
      yield* config.update({ webhookEndpoint: "https://platform.example/v2" })
      assert.strictEqual((yield* testEvents()).length, 2)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("end-user terms come from the engine configuration", () =>
    Effect.gen(function* () {
      const config = yield* PlatformConfigService
      assert.deepStrictEqual(yield* config.endUserTerms(), defaultEngineSettings.endUserTerms)
      const custom = yield* config.endUserTerms().pipe(
        Effect.provideService(EngineConfig, {
          ...defaultEngineSettings,
          endUserTerms: { version: "v9", url: "https://t.example/v9" }
        })
      )
      assert.deepStrictEqual(custom, { version: "v9", url: "https://t.example/v9" })
    }).pipe(Effect.provide(TestLayer))
  )
})

describe("discoveries and UMA providers", () => {
  it.effect("filters institutions by country and currency; no filter returns all", () =>
    Effect.gen(function* () {
      const discoveries = yield* Discoveries
      assert.strictEqual((yield* discoveries.institutions({})).length, institutions.length)
      assert.deepStrictEqual(
        (yield* discoveries.institutions({ currency: "MXN" })).map((i) => i.displayName),
        ["BBVA México", "Santander México"]
      )
      assert.deepStrictEqual(
        (yield* discoveries.institutions({ country: "FR", currency: "EUR" })).map((i) => i.displayName),
        ["BNP Paribas"]
      )
      assert.deepStrictEqual(yield* discoveries.institutions({ country: "FR", currency: "USD" }), [])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("filters UMA providers and pages them", () =>
    Effect.gen(function* () {
      const discoveries = yield* Discoveries
      const usd = yield* discoveries.umaProviders({ currencyCode: "USD" })
      assert.deepStrictEqual(
        usd.data.map((p) => p.id),
        ["uma-a", "uma-b", "uma-e"]
      )
      assert.strictEqual(usd.totalCount, 3)
      const mx = yield* discoveries.umaProviders({ countryCode: "MX", currencyCode: "MXN" })
      assert.deepStrictEqual(
        mx.data.map((p) => p.id),
        ["uma-a", "uma-d"]
      )

      const seen: Array<string> = []
      let cursor: string | undefined
      do {
        const page = yield* discoveries.umaProviders({ limit: 2, ...(cursor === undefined ? {} : { cursor }) })
        assert.isAtMost(page.data.length, 2)
        seen.push(...page.data.map((p) => p.id))
        cursor = page.nextCursor
      } while (cursor !== undefined)
      assert.deepStrictEqual(seen, ["uma-a", "uma-b", "uma-c", "uma-d", "uma-e"])

      const desc = yield* discoveries.umaProviders({ sortOrder: "desc", limit: 1 })
      assert.deepStrictEqual(
        desc.data.map((p) => p.id),
        ["uma-e"]
      )
      const bad = yield* Effect.flip(discoveries.umaProviders({ cursor: "bogus" }))
      assert.strictEqual(bad._tag, "InvalidInput")
    }).pipe(Effect.provide(TestLayer))
  )
})
