/**
 * The PostgreSQL store's telemetry (docs/operations.md, "Telemetry"): what a transaction's span says of it (the group
 * it committed in), and the pool's gauges.
 */
import { Context, Effect, Metric } from "effect"
import type { Pool } from "pg"
import type { CurrentTx, Group } from "./transaction.ts"

/** Members that ran in each group, counted only while a tracer is installed (a transaction's span reads it). */
const groupSizes = new WeakMap<Group, number>()

/**
 * `Store.transaction`'s span attributes on PostgreSQL: `paycore.store.grouped` (its last attempt ran in a group, not
 * alone) and `paycore.store.group_size` (the transactions that group committed or rolled back together).
 */
export const transactionObserver = (CurrentTx: CurrentTx) => ({
  store: "postgres",
  reruns: true,
  attempt: (context: Context.Context<never>) => {
    const inGroup = Context.get(context, CurrentTx)?.group
    if (inGroup !== undefined) groupSizes.set(inGroup, (groupSizes.get(inGroup) ?? 0) + 1)
    return () => ({
      "paycore.store.grouped": inGroup !== undefined,
      ...(inGroup === undefined ? {} : { "paycore.store.group_size": groupSizes.get(inGroup) ?? 1 })
    })
  }
})

/** The pool's connections, by `state`: `total` (open), `idle`, `waiting` (callers queued for a connection). */
export const poolConnections = Metric.gauge("paycore_db_pool_connections", {
  description: "Connections of the PostgreSQL pool, by state (total, idle, waiting)"
})

/** Reports `pool`'s connections in `poolConnections`, read when the metrics are; removed when the scope closes. */
export const registerPoolGauges = (pool: Pool) =>
  Effect.acquireRelease(
    Effect.contextWith((context: Context.Context<never>) =>
      Effect.succeed(
        (["total", "idle", "waiting"] as const).map((state) =>
          Metric.registerUnsafe(Metric.withAttributes(poolConnections, { state }), context, {
            get: () => ({
              value: state === "total" ? pool.totalCount : state === "idle" ? pool.idleCount : pool.waitingCount
            }),
            update: () => {},
            modify: () => {}
          })
        )
      )
    ),
    (registrations) =>
      Effect.sync(() => {
        for (const registration of registrations) registration.remove()
      })
  )
