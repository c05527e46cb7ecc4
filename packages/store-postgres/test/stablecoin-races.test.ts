/**
 * Stablecoin operations raced on PostgreSQL (docs/design/invitations-stablecoins.md, "Races"; the real server with
 * DATABASE_URL, else PGlite, where they serialize): one Idempotency-Key opens one operation (one client reference at
 * the provider), holds are taken under the balance's lock so a balance is never held twice, and two worker passes at
 * once complete each operation once. No deadlock or serialization error reaches a caller.
 */
import { Stablecoins, StablecoinsWorker, Store, supplyAccount } from "@paycore/core"
import { Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { request, seedWorld, stablecoinEnv } from "../../core/test/stablecoins-property.ts"
import { testDatabase } from "./helpers.ts"

// One schema per race: each seeds its own link and USDB registration (a token registers once per store).
const dbs = {
  key: testDatabase("stablecoin_races_key"),
  funds: testDatabase("stablecoin_races_funds"),
  worker: testDatabase("stablecoin_races_worker")
}
const db = dbs.key

/** A refusal's code; `undefined` for a success. */
const codeOf = (exit: Exit.Exit<unknown, unknown>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const error = (exit.cause.reasons[0] as any)?.error
  return error?.code ?? String(exit.cause)
}

const run = <A, E>(
  database: keyof typeof dbs,
  seed: number,
  body: (env: ReturnType<typeof stablecoinEnv>) => Effect.Effect<A, E, any>
) => {
  // The provider answers at once (speedUp): one worker step takes an operation to its end.
  const env = stablecoinEnv(seed, dbs[database].layer(), 1e9)
  return Effect.runPromise(
    body(env).pipe(Effect.provide(env.layer), Effect.provide(TestClock.layer())) as Effect.Effect<A, E>
  )
}

/** 10 USDB = 1000 cents. */
const A = 10_000_000
const F = 1_000

describe(`stablecoin races (${db.kind === "pg" ? "PostgreSQL server" : "PGlite"})`, () => {
  it("P-13, C-09: 20 concurrent mints with one Idempotency-Key → one operation, one client reference at the provider, 19 replays", async () => {
    const outcome = await run("key", 5001, (env) =>
      Effect.gen(function* () {
        const world = yield* seedWorld(0)
        const stablecoins = yield* Stablecoins
        const body = {
          amount: String(A),
          fundingSource: { type: "WIRE" as const },
          destination: { accountId: world.usdbWallet.id }
        }
        const exits = yield* Effect.forEach(
          Array.from({ length: 20 }, () => stablecoins.mint(world.coinId, body, "SANDBOX", request("one-key"))),
          Effect.exit,
          { concurrency: "unbounded" }
        )
        const answers = exits.filter(Exit.isSuccess).map((e) => e.value)
        const ops = yield* (yield* Store).stablecoinOperations.list(
          { stablecoinId: world.coinId },
          { limit: 100, sortOrder: "asc" }
        )
        const references = new Set(env.provider.calls.filter((c) => c.method === "create").map((c) => c.reference))
        return {
          failures: exits.map(codeOf).filter((c) => c !== undefined),
          ids: new Set(answers.map((a) => (a.body as { id: string }).id)).size,
          replayed: answers.filter((a) => a.replayed).length,
          stored: ops.data.length,
          references: references.size
        }
      })
    )
    expect(outcome).toEqual({ failures: [], ids: 1, replayed: 19, stored: 1, references: 1 })
  }, 120_000)

  it("P-13, L-20: 10 internal-funded mints of f from an account holding 3f → 3 created, 7 × 400 INSUFFICIENT_FUNDS; 3f held", async () => {
    const outcome = await run("funds", 5002, () =>
      Effect.gen(function* () {
        const world = yield* seedWorld(3 * F)
        const stablecoins = yield* Stablecoins
        const exits = yield* Effect.forEach(
          Array.from({ length: 10 }, (_, i) =>
            stablecoins.mint(
              world.coinId,
              {
                amount: String(A),
                fundingSource: { type: "SERVICE_INTERNAL_ACCOUNT", accountId: world.usd.id },
                destination: { accountId: world.usdbWallet.id }
              },
              "SANDBOX",
              request(`key-${i}`)
            )
          ),
          Effect.exit,
          { concurrency: "unbounded" }
        )
        const [balance] = yield* (yield* Store).ledger.balances([{ account: world.usd.id, currency: "USD" }])
        return {
          created: exits.filter(Exit.isSuccess).length,
          refused: exits.map(codeOf).filter((c) => c !== undefined),
          posted: balance?.posted,
          held: balance?.pendingDebits
        }
      })
    )
    expect(outcome).toEqual({
      created: 3,
      refused: Array(7).fill("INSUFFICIENT_FUNDS"),
      posted: 3 * F,
      held: 3 * F
    })
  }, 120_000)

  it("the worker: two passes at once over 20 due operations → each completes once; the supply posted once per operation", async () => {
    const outcome = await run("worker", 5003, () =>
      Effect.gen(function* () {
        const world = yield* seedWorld(20 * F)
        const stablecoins = yield* Stablecoins
        const store = yield* Store
        for (let i = 0; i < 20; i++) {
          yield* stablecoins.mint(
            world.coinId,
            {
              amount: String(A),
              fundingSource:
                i % 2 === 0 ? { type: "SERVICE_INTERNAL_ACCOUNT", accountId: world.usd.id } : { type: "WIRE" },
              destination: { accountId: world.usdbWallet.id }
            },
            "SANDBOX",
            request(`due-${i}`)
          )
        }
        const worker = yield* StablecoinsWorker
        yield* Effect.all([worker.processDue(), worker.processDue()], { concurrency: "unbounded" })
        // Anything a pass left (it lost a row to the other) is finished by a later one.
        yield* worker.processDue()
        const ops = yield* store.stablecoinOperations.list(
          { stablecoinId: world.coinId },
          { limit: 100, sortOrder: "asc" }
        )
        const transfers = yield* Effect.forEach(ops.data, (op) => store.ledger.transfers(op.id))
        const [supply] = yield* store.ledger.balances([{ account: supplyAccount("USDB"), currency: "USDB" }])
        const [wallet] = yield* store.ledger.balances([{ account: world.usdbWallet.id, currency: "USDB" }])
        const [usd] = yield* store.ledger.balances([{ account: world.usd.id, currency: "USD" }])
        return {
          states: [...new Set(ops.data.map((o) => o.state))],
          // Internal-funded: the hold (posted) and the supply leg; wire-funded: the deposit and the supply leg.
          transfersPerOperation: [...new Set(transfers.map((t) => t.length))],
          supply: supply?.posted,
          wallet: wallet?.posted,
          usd: { posted: usd?.posted, held: usd?.pendingDebits }
        }
      })
    )
    expect(outcome).toEqual({
      states: ["COMPLETED"],
      transfersPerOperation: [2],
      supply: -20 * A,
      wallet: 20 * A,
      usd: { posted: 10 * F, held: 0 }
    })
  }, 120_000)
})
