/**
 * The platform's own internal accounts raced on PostgreSQL (issue 17 slice E; the real server with DATABASE_URL, else
 * PGlite, where they serialize): concurrent first lists of `GET /platform/internal-accounts` each insert the missing
 * currencies; `internal_accounts.platform_currency` is unique, so one insert per currency wins, the losers' unique
 * violations are ignored, and every list answers the same accounts. No error reaches a caller.
 * Concurrent creates of one external account (or one platformAccountId) serialize on their owner's lock: one 201, the
 * others 409.
 */
import { Accounts, type InternalAccountRecord, Store } from "@paycore/core"
import { Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { makeEnv, seedCustomer, setConfig, startClock, usAccount } from "../../core/test/fixtures.ts"
import { testDatabase } from "./helpers.ts"

const db = testDatabase("platform_account_races")

const runOnAccounts = <A, E>(seed: number, effect: Effect.Effect<A, E, any>): Promise<A> => {
  const env = makeEnv(seed, { storeLayer: db.layer() })
  return Effect.runPromise(
    effect.pipe(
      Effect.provide(Accounts.layer.pipe(Layer.provideMerge(env.layer))),
      Effect.provide(TestClock.layer())
    ) as Effect.Effect<A, E>
  )
}

/** Every stored platform account (no customer), as `currency → how many`. */
const storedPlatformCurrencies = Effect.gen(function* () {
  const store = yield* Store
  const page = yield* store.internalAccounts.list({ ownedByCustomer: false }, { limit: 100, sortOrder: "asc" })
  const counts: Record<string, number> = {}
  for (const a of page.data as ReadonlyArray<InternalAccountRecord>) counts[a.currency] = (counts[a.currency] ?? 0) + 1
  return counts
})

/** 10 lists at once; each one's ids, sorted, and how many failed. */
const tenConcurrentLists = Effect.gen(function* () {
  const accounts = yield* Accounts
  const exits = yield* Effect.forEach(
    Array.from({ length: 10 }, () => accounts.listPlatformInternal({})),
    Effect.exit,
    { concurrency: "unbounded" }
  )
  const lists = exits.filter(Exit.isSuccess).map((e) => e.value.data.map((a) => a.id).sort())
  return { failures: exits.filter(Exit.isFailure).map((e) => String(e.cause)), lists }
})

describe(`platform account races (${db.kind === "pg" ? "PostgreSQL server" : "PGlite"})`, () => {
  it("AC-01: 10 concurrent first lists create each supported currency's platform account once, and all answer the same accounts; a currency added later is created once too", async () => {
    const outcome = await runOnAccounts(
      1701,
      Effect.gen(function* () {
        yield* startClock
        yield* setConfig({ supportedCurrencies: ["USD", "EUR", "MXN", "USDC", "BTC"] })
        const first = yield* tenConcurrentLists
        const afterFirst = yield* storedPlatformCurrencies
        yield* setConfig({ supportedCurrencies: ["USD", "EUR", "MXN", "USDC", "BTC", "BRL", "USDB"] })
        const second = yield* tenConcurrentLists
        return {
          failures: [...first.failures, ...second.failures],
          firstAgree: first.lists.every((l) => JSON.stringify(l) === JSON.stringify(first.lists[0])),
          firstSize: first.lists[0]?.length,
          afterFirst,
          secondAgree: second.lists.every((l) => JSON.stringify(l) === JSON.stringify(second.lists[0])),
          kept: first.lists[0]!.every((id) => second.lists[0]!.includes(id)),
          afterSecond: yield* storedPlatformCurrencies
        }
      })
    )
    expect(outcome).toEqual({
      failures: [],
      firstAgree: true,
      firstSize: 5,
      afterFirst: { USD: 1, EUR: 1, MXN: 1, USDC: 1, BTC: 1 },
      secondAgree: true,
      kept: true,
      afterSecond: { USD: 1, EUR: 1, MXN: 1, USDC: 1, BTC: 1, BRL: 1, USDB: 1 }
    })
  }, 120_000)
})

/** `n` creates at once; how many were created and the codes of the refused. */
const concurrently = <E>(n: number, create: (i: number) => Effect.Effect<unknown, E>) =>
  Effect.gen(function* () {
    const exits = yield* Effect.forEach(
      Array.from({ length: n }, (_, i) => create(i)),
      Effect.exit,
      {
        concurrency: "unbounded"
      }
    )
    const codes = exits.filter(Exit.isFailure).map((e) => (e.cause.reasons[0] as any)?.error?.code ?? String(e.cause))
    return { created: exits.filter(Exit.isSuccess).length, codes: [...new Set(codes)] }
  })

describe(`external account create races (${db.kind === "pg" ? "PostgreSQL server" : "PGlite"})`, () => {
  it("platform: 8 concurrent creates with one platformAccountId, 10 rounds → one created per round, the others 409", async () => {
    const rounds = await runOnAccounts(
      1702,
      Effect.gen(function* () {
        yield* startClock
        const accounts = yield* Accounts
        const out = []
        for (let round = 0; round < 10; round++) {
          out.push(
            yield* concurrently(8, (i) =>
              accounts.createPlatformExternal({
                currency: "USD",
                platformAccountId: `treasury-${round}`,
                accountInfo: usAccount(`7${round}00${i}0001`)
              })
            )
          )
        }
        return out
      })
    )
    expect(rounds).toEqual(Array.from({ length: 10 }, () => ({ created: 1, codes: ["CONFLICT"] })))
  }, 120_000)

  it("customer: 8 concurrent creates of one account, 10 rounds → one created per round, the others 409", async () => {
    const rounds = await runOnAccounts(
      1703,
      Effect.gen(function* () {
        yield* startClock
        const accounts = yield* Accounts
        const customer = yield* seedCustomer()
        const out = []
        for (let round = 0; round < 10; round++) {
          out.push(
            yield* concurrently(8, () =>
              accounts.createExternal({
                customerId: customer.id,
                currency: "USD",
                accountInfo: usAccount(`8${round}0000001`)
              })
            )
          )
        }
        return out
      })
    )
    expect(rounds).toEqual(Array.from({ length: 10 }, () => ({ created: 1, codes: ["CONFLICT"] })))
  }, 120_000)
})
