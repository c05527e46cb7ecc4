/**
 * The model harness of `@paycore/testkit/engine-model` on the memory store and the sandbox ports, and planted faults
 * it must catch: a store that forgets idempotency keys, one that loses an outbox event, a rail that settles what it
 * should fail. Rows: L-08 (no overdraft), L-10 (postings balance), I-01..I-04 (idempotency), WH-01/WH-03 (events
 * per state, in order), T-05/T-07 (settlement, failure and refund).
 */
import { Ids, Rail, Store, WebhookSigner } from "@paycore/core"
import * as Sandbox from "@paycore/sandbox"
import * as MemoryStore from "@paycore/store-memory"
import * as PostgresStore from "@paycore/store-postgres"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { checkEngineModel, type EngineInvariant } from "../src/engine-model/index.ts"

/** A fixed seed in CI (a failure names its own seed to replay); `PAYCORE_MODEL_RUNS` runs more. */
const RUNS = Number(process.env.PAYCORE_MODEL_RUNS ?? 40)
const SEED = process.env.CI === "true" ? 2911 : undefined

const ports = (store: Layer.Layer<Store> = MemoryStore.layer, rail?: (r: Rail["Service"]) => Rail["Service"]) => {
  const sandbox = Sandbox.layer({ speedUp: 1 })
  return Layer.mergeAll(
    store,
    MemoryStore.documentStoreLayer,
    Ids.layer,
    rail === undefined
      ? sandbox
      : Layer.merge(sandbox, Layer.effect(Rail, Effect.map(Effect.provide(Rail, sandbox), rail))),
    WebhookSigner.layerGenerated
  )
}

/** The memory store with `patch` applied to it. */
const patchedStore = (patch: (store: Store["Service"]) => Store["Service"]) =>
  Layer.effect(Store, Effect.map(MemoryStore.makeMemoryStore, patch))

/** What the runs reached, so that the test fails if the generator stops reaching the interesting states. */
const reached = { completed: 0, failed: 0, webhooks: 0 }
const observer: EngineInvariant = {
  name: "observer",
  violations: async (model, engine) => {
    reached.completed = Math.max(reached.completed, model.payments.filter((p) => p.status === "COMPLETED").length)
    reached.failed = Math.max(reached.failed, model.payments.filter((p) => p.status === "FAILED").length)
    reached.webhooks = Math.max(reached.webhooks, engine.webhooks.requests().length)
    return []
  }
}

describe("engine model harness", () => {
  it("keeps the ledger, balance, outbox and idempotency invariants over random command sequences (memory store, sandbox)", async () => {
    await checkEngineModel(
      { ports: ports(), invariants: [observer] },
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) }
    )
    // The sequences paid, settled, failed and refunded, and delivered webhooks.
    expect(reached.completed).toBeGreaterThan(0)
    expect(reached.failed).toBeGreaterThan(0)
    expect(reached.webhooks).toBeGreaterThan(0)
  }, 120_000)

  it("runs on the PostgreSQL store over PGlite, a fresh database per run", async () => {
    const pglite = ports(Layer.orDie(PostgresStore.layerPglite()))
    await checkEngineModel({ ports: pglite, maxCommands: 30 }, { numRuns: 2, seed: 5 })
  }, 120_000)

  describe("catches planted faults", () => {
    const params = { numRuns: 200, seed: 7, endOnFailure: true }

    it("a store that forgets the idempotency keys it was given (I-01)", async () => {
      const store = patchedStore((s) => ({ ...s, idempotency: { ...s.idempotency, put: () => Effect.void } }))
      await expect(checkEngineModel({ ports: ports(store) }, params)).rejects.toThrow(/idempotency: key|replay of/)
    }, 120_000)

    it("a store that loses a payment's FAILED event (WH-01)", async () => {
      const store = patchedStore((s) => ({
        ...s,
        outbox: {
          ...s.outbox,
          appendEvents: (events) => s.outbox.appendEvents(events.filter((e) => e.type !== "OUTGOING_PAYMENT.FAILED"))
        }
      }))
      await expect(checkEngineModel({ ports: ports(store) }, params)).rejects.toThrow(
        /outbox: .* is FAILED: events .*, not .*OUTGOING_PAYMENT.FAILED/
      )
    }, 120_000)

    it("a rail that settles a payout it should fail (T-07)", async () => {
      const settlesAll = (rail: Rail["Service"]): Rail["Service"] => ({
        ...rail,
        status: (reference) =>
          Effect.map(rail.status(reference), (s) =>
            s._tag === "Failed" ? { _tag: "Settled" as const, settledAt: new Date(0).toISOString() } : s
          )
      })
      await expect(checkEngineModel({ ports: ports(MemoryStore.layer, settlesAll) }, params)).rejects.toThrow(
        /ended COMPLETED, not FAILED/
      )
    }, 120_000)
  })
})
