/**
 * Issue 33 item 5 on the PostgreSQL store (the real server with DATABASE_URL, else PGlite): one `Store.transaction`
 * span per outermost transaction, with its attempts and its group; metric updates counted only once committed; the
 * pool's gauges.
 */
import { Store, StoreError, updateOnCommit } from "@paycore/core"
import { Effect, Layer, Metric, Tracer } from "effect"
import { describe, expect, it } from "vitest"
import { testDatabase } from "./helpers.ts"

const db = testDatabase("telemetry")

/** A tracer that keeps the spans it made. */
const recordingTracer = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  return { spans, tracer }
}

const attributesOf = (span: Tracer.NativeSpan) => Object.fromEntries(span.attributes)

describe(`store telemetry (${db.kind === "pg" ? "PostgreSQL server" : "PGlite"})`, () => {
  it("a span per outermost transaction (nested calls join it), with its attempts and, grouped, its group's size", async () => {
    const { spans, tracer } = recordingTracer()
    await Effect.runPromise(
      Effect.gen(function* () {
        const store = yield* Store
        const write = (n: number) => store.transaction(store.counters.add(`telemetry-${n}`, 1))
        yield* Effect.all([1, 2, 3, 4, 5].map(write), { concurrency: "unbounded" })
        yield* store.transaction(store.transaction(store.counters.add("telemetry-nested", 1)))
      }).pipe(Effect.withTracer(tracer), Effect.provide(db.layer()), Effect.scoped)
    )
    const transactions = spans.filter((span) => span.name === "Store.transaction")
    expect(transactions.length).toBe(6)
    for (const span of transactions) {
      expect(attributesOf(span)).toMatchObject({
        "paycore.store": "postgres",
        "paycore.store.attempts": 1,
        "paycore.store.committed": true
      })
      expect(span.status._tag).toBe("Ended")
    }
    const sizes = transactions.map((span) => attributesOf(span)["paycore.store.group_size"] as number | undefined)
    if (db.kind === "pg") {
      // Five at once on a pool: two groups begin at once, the other three wait in a third and commit together.
      for (const span of transactions) expect(attributesOf(span)["paycore.store.grouped"]).toBe(true)
      expect(Math.max(...sizes.map((size) => size ?? 0))).toBeGreaterThan(1)
    } else {
      // PGlite runs every transaction alone.
      for (const span of transactions) expect(attributesOf(span)["paycore.store.grouped"]).toBe(false)
      expect(sizes.every((size) => size === undefined)).toBe(true)
    }
  })

  it("metric updates inside a transaction count once it commits, and not at all when it rolls back", async () => {
    const registry: Metric.MetricRegistry = new Map()
    const counted = Metric.counter("telemetry_test_total")
    const value = await Effect.runPromise(
      Effect.gen(function* () {
        const store = yield* Store
        yield* store.transaction(Effect.andThen(store.counters.add("telemetry-commit", 1), updateOnCommit(counted, 1)))
        const failed = yield* Effect.exit(
          store.transaction(
            Effect.andThen(
              Effect.andThen(store.counters.add("telemetry-rollback", 1), updateOnCommit(counted, 10)),
              Effect.fail(new StoreError({ message: "rolled back on purpose", retryable: false }))
            )
          )
        )
        expect(failed._tag).toBe("Failure")
        // Outside a transaction an update counts at once.
        yield* updateOnCommit(counted, 100)
        return (yield* Metric.value(counted)).count
      }).pipe(Effect.provideService(Metric.MetricRegistry, registry), Effect.provide(db.layer()), Effect.scoped)
    )
    expect(value).toBe(101)
  })

  it.runIf(db.kind === "pg")("the pool's connections are gauges while the store is open", async () => {
    const registry: Metric.MetricRegistry = new Map()
    const gauges = await Effect.runPromise(
      Effect.gen(function* () {
        const store = yield* Store
        yield* store.transaction(store.counters.add("telemetry-pool", 1))
        const snapshot = yield* Metric.snapshot
        return snapshot
          .filter((metric) => metric.id === "paycore_db_pool_connections")
          .map((metric) => [metric.attributes?.state, (metric.state as { value: number }).value] as const)
      }).pipe(
        Effect.provide(Layer.fresh(db.layer())),
        Effect.scoped,
        Effect.provideService(Metric.MetricRegistry, registry)
      )
    )
    const byState = Object.fromEntries(gauges)
    expect(Object.keys(byState).sort()).toEqual(["idle", "total", "waiting"])
    expect(byState.total).toBeGreaterThanOrEqual(1)
    expect(byState.waiting).toBe(0)
    // Closed with its scope: the gauges are gone.
    expect(registry.size).toBe(0)
  })
})
