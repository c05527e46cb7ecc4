/**
 * Stablecoin issuance as a property (issue 17 slice B; docs/design/invitations-stablecoins.md section 4, "Property
 * tests" B): random sequences of link, register, mint and burn (every funding source and destination kind, the
 * sandbox's outcome suffixes), provider outages, time and worker passes, on the memory store and the TestClock. After
 * every step: every currency's postings sum to zero (`ledgerViolations`); the outstanding supply of USDB is the sum of
 * completed mints minus completed burns; a terminal operation holds nothing (no pending transfer); no internal
 * account is below zero; a request made during an outage stored no operation.
 */
import {
  type Environment,
  type IdempotentRequest,
  Ids,
  type InternalAccountRecord,
  Stablecoins,
  StablecoinsWorker,
  Store,
  supplyAccount
} from "@paycore/core"
import { sandboxStablecoinProvider } from "@paycore/sandbox"
import { layer as memoryStore } from "@paycore/store-memory"
import { ledgerViolations, type ScriptedStablecoinProvider, scriptedStablecoinProvider } from "@paycore/testkit"
import { Effect, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { seedCustomer, seedExternalAccount, seedInternalAccount, startClock } from "./fixtures.ts"

/** A request's idempotency identity (the HTTP layer's, without HTTP). */
export const request = (key: string, fingerprint = key): IdempotentRequest => ({ scope: "platform", key, fingerprint })

/**
 * The stablecoins services over a store, the sandbox provider (on the TestClock, its delays divided by `speedUp`) behind
 * an outage switch.
 */
export const stablecoinEnv = (seed: number, storeLayer?: Layer.Layer<Store, unknown>, speedUp = 1) => {
  const provider: ScriptedStablecoinProvider = scriptedStablecoinProvider(sandboxStablecoinProvider({ speedUp }))
  const ports = Layer.mergeAll(
    storeLayer === undefined ? memoryStore : Layer.orDie(storeLayer),
    Ids.layerSeeded(seed),
    provider.layer
  )
  const layer = Layer.mergeAll(Stablecoins.layer, StablecoinsWorker.layer).pipe(Layer.provideMerge(ports))
  return { provider, layer }
}

/** Credits an internal account `amount` from the deposits account (posted), as a sandbox funding would. */
export const credit = (accountId: string, currency: string, amount: number) =>
  Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const reference = yield* ids.make("Transaction")
    yield* store.transaction(
      store.ledger.record([
        {
          id: `${reference}#1`,
          debit: `system:deposits:${currency}`,
          credit: accountId,
          amount,
          currency,
          state: "POSTED",
          reference,
          createdAt: new Date(0).toISOString()
        }
      ])
    )
  })

/** What the property's commands act on. */
export interface World {
  readonly usd: InternalAccountRecord
  /** A USDB account a burn may debit (no embedded wallet). */
  readonly usdbHolding: InternalAccountRecord
  readonly usdbWallet: InternalAccountRecord
  readonly bank: string
  readonly spark: string
  readonly coinId: string
}

/** A linked account, USDB registered, and the accounts of one customer (USD funded with `usdFunds`). */
export const seedWorld = (usdFunds: number) =>
  Effect.gen(function* () {
    yield* startClock
    const stablecoins = yield* Stablecoins
    const customer = yield* seedCustomer({ currencies: ["USD", "USDB"] })
    const usd = yield* seedInternalAccount(customer.id, "USD")
    const usdbHolding = yield* seedInternalAccount(undefined, "USDB", { type: "INTERNAL_CRYPTO" })
    const usdbWallet = yield* seedInternalAccount(customer.id, "USDB", { type: "EMBEDDED_WALLET" })
    const bank = yield* seedExternalAccount(customer.id, "USD")
    const spark = yield* seedExternalAccount(customer.id, "BTC", {
      rails: ["SPARK"],
      accountInfo: {
        accountType: "SPARK_WALLET",
        address: "spark1pgssy5a9pw9dhw9rmcz34h9hc9zfdsvpdjn89vl4lvrlfvhaa5hjp38rjly9p4"
      }
    })
    if (usdFunds > 0) yield* credit(usd.id, "USD", usdFunds)
    const environment: Environment = "SANDBOX"
    yield* stablecoins.linkProviderAccount(
      { provider: "BRALE", apiClientId: "client-property", apiClientSecret: Redacted.make("secret-property") },
      environment,
      request("link")
    )
    const coin = yield* stablecoins.register(
      { providerTokenIdentifier: "usdb", networkTokenIdentifier: "btkn1usdb", network: "SPARK" },
      environment,
      request("register")
    )
    const world: World = {
      usd,
      usdbHolding,
      usdbWallet,
      bank: bank.id,
      spark: spark.id,
      coinId: (coin.body as { id: string }).id
    }
    return world
  })

// ---- the commands ----

/** Base-currency cents of an operation: its last 3 digits pick the sandbox outcome (002 fails, 003 never funded). */
const cents = fc.oneof(
  fc.integer({ min: 1, max: 40 }).map((n) => n * 1000),
  fc.constantFrom(1002, 2002, 1003, 2003)
)

type Command =
  | {
      readonly kind: "mint"
      readonly cents: number
      readonly funding: "INTERNAL" | "WIRE" | "ACH" | "PROVIDER"
      readonly to: "WALLET" | "HOLDING" | "SPARK"
    }
  | { readonly kind: "burn"; readonly cents: number; readonly source: "HOLDING" | "WALLET_ADDRESS" | "PROVIDER" }
  | { readonly kind: "outage"; readonly on: boolean }
  | { readonly kind: "time"; readonly seconds: number }
  | { readonly kind: "worker" }

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("mint" as const),
      cents,
      funding: fc.constantFrom("INTERNAL" as const, "WIRE" as const, "ACH" as const, "PROVIDER" as const),
      to: fc.constantFrom("WALLET" as const, "HOLDING" as const, "SPARK" as const)
    })
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("burn" as const),
      cents,
      source: fc.constantFrom("HOLDING" as const, "WALLET_ADDRESS" as const, "PROVIDER" as const)
    })
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("outage" as const), on: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("time" as const),
      seconds: fc.constantFrom(1, 5, 30, 60, 3600, 86_400, 172_800)
    })
  },
  { weight: 3, arbitrary: fc.constant({ kind: "worker" as const }) }
)

const runCommand = (world: World, provider: ScriptedStablecoinProvider, c: Command, n: number) =>
  Effect.gen(function* () {
    const stablecoins = yield* Stablecoins
    const key = `cmd-${n}`
    switch (c.kind) {
      case "mint": {
        const fundingSource =
          c.funding === "INTERNAL"
            ? { type: "SERVICE_INTERNAL_ACCOUNT" as const, accountId: world.usd.id }
            : c.funding === "WIRE"
              ? { type: "WIRE" as const }
              : c.funding === "ACH"
                ? { type: "ACH_DEBIT" as const, externalAccountId: world.bank }
                : { type: "PROVIDER_INTERNAL_BALANCE" as const, sourceTokenIdentifier: "usdc", cryptoNetwork: "SPARK" }
        const accountId =
          c.to === "WALLET" ? world.usdbWallet.id : c.to === "HOLDING" ? world.usdbHolding.id : world.spark
        return yield* Effect.exit(
          stablecoins.mint(
            world.coinId,
            { amount: String(c.cents * 10_000), fundingSource, destination: { accountId } },
            "SANDBOX",
            request(key)
          )
        )
      }
      case "burn": {
        const source =
          c.source === "HOLDING"
            ? { type: "SERVICE_INTERNAL_ACCOUNT" as const, accountId: world.usdbHolding.id }
            : c.source === "WALLET_ADDRESS"
              ? { type: "EXTERNAL_ACCOUNT" as const }
              : { type: "PROVIDER_INTERNAL_BALANCE" as const }
        return yield* Effect.exit(
          stablecoins.burn(
            world.coinId,
            {
              amount: String(c.cents * 10_000),
              source,
              destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: world.bank, rail: "WIRE" }
            },
            "SANDBOX",
            request(key)
          )
        )
      }
      case "outage":
        provider.outage(c.on)
        return undefined
      case "time":
        yield* TestClock.adjust(`${c.seconds} seconds`)
        return undefined
      case "worker":
        yield* (yield* StablecoinsWorker).processDue()
        return undefined
    }
  })

/** Every invariant of the property, as messages (empty: all hold). */
export const stablecoinViolations = (world: World) =>
  Effect.gen(function* () {
    const store = yield* Store
    const problems: Array<string> = [...(yield* ledgerViolations)]
    const ops = yield* store.stablecoinOperations.list({ stablecoinId: world.coinId }, { limit: 100, sortOrder: "asc" })
    let minted = 0
    for (const op of ops.data) {
      if (op.state === "COMPLETED") minted += op.operationType === "MINT" ? op.minorAmount : -op.minorAmount
      const transfers = yield* store.ledger.transfers(op.id)
      const pending = transfers.filter((t) => t.state === "PENDING")
      const terminal = op.state === "COMPLETED" || op.state === "FAILED" || op.state === "EXPIRED"
      if (terminal && pending.length > 0) problems.push(`${op.id} is ${op.state} and still holds ${pending.length}`)
      if (!terminal && op.heldAccountId !== undefined) {
        const held = op.operationType === "MINT" ? op.baseAmount : op.minorAmount
        if (pending.length !== 1 || pending[0]!.amount !== held) problems.push(`${op.id} does not hold ${held}`)
      }
      if (!terminal && op.heldAccountId === undefined && pending.length > 0)
        problems.push(`${op.id} holds without a source account`)
    }
    const [supply] = yield* store.ledger.balances([{ account: supplyAccount("USDB"), currency: "USDB" }])
    if (-(supply?.posted ?? 0) !== minted)
      problems.push(`supply ${-(supply?.posted ?? 0)} ≠ completed mints − burns ${minted}`)
    for (const [account, currency] of [
      [world.usd.id, "USD"],
      [world.usdbHolding.id, "USDB"],
      [world.usdbWallet.id, "USDB"]
    ] as const) {
      const [b] = yield* store.ledger.balances([{ account, currency }])
      if ((b?.posted ?? 0) - (b?.pendingDebits ?? 0) < 0) problems.push(`${account} is below zero`)
    }
    return problems
  })

export interface PropertyReport {
  readonly completed: number
  readonly failed: number
  readonly expired: number
  readonly refusedInOutage: number
}

/**
 * Runs `numRuns` random sequences (fixed `seed`); throws with the counterexample when an invariant breaks. Returns what
 * the runs reached, so the test can check that they meant something.
 */
export const checkStablecoinsProperty = async (options: { readonly numRuns: number; readonly seed: number }) => {
  const reached = { completed: 0, failed: 0, expired: 0, refusedInOutage: 0 }
  await fc.assert(
    fc.asyncProperty(fc.array(command, { minLength: 5, maxLength: 30 }), async (commands) => {
      const env = stablecoinEnv(options.seed)
      await Effect.runPromise(
        Effect.gen(function* () {
          const store = yield* Store
          const world = yield* seedWorld(500_000)
          let n = 0
          for (const c of commands) {
            n++
            const before = (yield* store.stablecoinOperations.list({}, { limit: 1, sortOrder: "desc" })).totalCount
            const down = c.kind === "mint" || c.kind === "burn" ? env.provider.isDown() : false
            const exit = yield* runCommand(world, env.provider, c, n)
            if (down) {
              const after = (yield* store.stablecoinOperations.list({}, { limit: 1, sortOrder: "desc" })).totalCount
              if (after !== before) throw new Error(`command ${n} stored an operation during an outage`)
              if (exit !== undefined && exit._tag === "Failure") reached.refusedInOutage++
            }
            const problems = yield* stablecoinViolations(world)
            if (problems.length > 0)
              throw new Error(`after command ${n} (${JSON.stringify(c)}): ${problems.join("; ")}`)
          }
          const ops = yield* store.stablecoinOperations.list({}, { limit: 100, sortOrder: "asc" })
          for (const op of ops.data) {
            if (op.state === "COMPLETED") reached.completed++
            if (op.state === "FAILED") reached.failed++
            if (op.state === "EXPIRED") reached.expired++
          }
        }).pipe(Effect.provide(env.layer), Effect.provide(TestClock.layer()))
      )
    }),
    { numRuns: options.numRuns, seed: options.seed }
  )
  return reached satisfies PropertyReport
}
