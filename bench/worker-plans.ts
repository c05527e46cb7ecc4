/**
 * The plans of the background worker's statements on a store with many rows (issue 34: a pass must not cost more as
 * the store grows). Makes a schema on DATABASE_URL, stores one quote through the engine, copies its quote,
 * transaction, timeline and outbox rows `--rows` times (most of them settled or delivered, as an old store's are),
 * runs one pass of every worker (payments, bulk imports, cards, invitations, stablecoins) and one webhook claim with
 * every statement captured, then EXPLAINs (ANALYZE, BUFFERS) each distinct statement with the values it was sent, both
 * with the plan PostgreSQL picks for those values and with the generic plan a prepared statement falls back to.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --conditions=@paycore/source bench/worker-plans.ts [--rows 200000] [--churn | --backlog]
 *
 * A statement is bounded when its plan reaches rows through an index condition on what makes a row due (or a
 * primary key), never a Seq Scan or a full index scan over a table that grows.
 */
import type { RequestListener } from "node:http"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import {
  BulkImports,
  CardsWorker,
  type DueCursor,
  Ids,
  Invitations,
  StablecoinsWorker,
  Store,
  Transactions,
  WebhookSigner
} from "@paycore/core"
import { makeApp } from "@paycore/http"
import * as Sandbox from "@paycore/sandbox"
import { documentStoreLayerPg, layerPg } from "@paycore/store-postgres"
import { makeWebhookRecorder } from "@paycore/testkit"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import pg from "pg"
import { numberFlag } from "./figures.ts"
import { PAYCORE_TARGETS, paycoreSeed } from "./paycore-server.ts"
import { admin, statementLabel, withApplicationName } from "./postgres.ts"

const url = process.env.DATABASE_URL
if (url === undefined || url === "") throw new Error("DATABASE_URL is not set")
const rows = numberFlag("rows") ?? 200_000
/** `--churn`: the settled payments' rows updated as the worker leaves them, their dead versions not yet vacuumed. */
const churn = process.argv.includes("--churn")
/**
 * `--backlog`: every copied payment due now and waiting for its rail (a rail's outage just over), and no pass: the
 * worker's walk over them is timed page by page instead, the cost of finding the due rows apart from stepping them.
 */
const backlog = process.argv.includes("--backlog")
const schema = `paycore_plans_${process.pid}`
await admin(url, `CREATE SCHEMA ${schema}`)

/** Every statement a pg client sends (text and values), while `capturing`. */
const captured: Array<{ readonly text: string; readonly values: ReadonlyArray<unknown> }> = []
let capturing = false
const proto = pg.Client.prototype as unknown as { query: (...args: Array<unknown>) => unknown }
const original = proto.query
proto.query = function (this: unknown, ...args: Array<unknown>) {
  if (capturing) {
    const q = args[0] as { text?: string; values?: Array<unknown>; statements?: Array<{ config: pg.QueryConfig }> }
    if (Array.isArray(q.statements))
      for (const s of q.statements) captured.push({ text: s.config.text, values: s.config.values ?? [] })
    else if (typeof q === "string") captured.push({ text: q, values: (args[1] as Array<unknown>) ?? [] })
    else if (typeof q.text === "string") captured.push({ text: q.text, values: q.values ?? [] })
  }
  return original.apply(this, args)
}

const config = { connectionString: withApplicationName(url, schema), schema, max: 4 }
const scope = Effect.runSync(Scope.make())
try {
  const { app, store } = await Effect.runPromise(
    Effect.gen(function* () {
      const ports = yield* Layer.build(
        Layer.mergeAll(
          layerPg(config),
          documentStoreLayerPg(config),
          Ids.layer,
          Sandbox.layer({ speedUp: 3600 }),
          makeWebhookRecorder().layer,
          WebhookSigner.layerGenerated
        )
      )
      const app = yield* makeApp({ workerIntervalMillis: 0, webhookIntervalMillis: 0 }).pipe(Effect.provide(ports))
      return { app, store: Context.get(ports, Store) }
    }).pipe(Scope.provide(scope))
  )
  await paycoreSeed(app.context)

  // One quote through HTTP (its quote, PENDING transaction, timeline and event rows), to copy.
  const server = createServer(app.listener as RequestListener)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const targets = await PAYCORE_TARGETS.prepare(base)
  const created = await fetch(base + targets.postPath, {
    method: "POST",
    headers: { ...PAYCORE_TARGETS.headers, "content-type": "application/json" },
    body: targets.postBody
  })
  if (!created.ok) throw new Error(`POST /quotes: ${created.status} ${await created.text()}`)
  server.close()

  // Copies: a row's JSON with its keys suffixed, most rows in a final state, as an old store holds them.
  const copy = async (table: string, set: string) => {
    const started = performance.now()
    // Generated columns are computed from the others: left out of the INSERT.
    const columns = (
      await admin<{ c: string }>(
        url,
        `SELECT column_name AS c FROM information_schema.columns WHERE table_schema = '${schema}' ` +
          `AND table_name = '${table}' AND is_generated = 'NEVER' ORDER BY ordinal_position`
      )
    ).map((r) => r.c)
    await admin(
      url,
      `INSERT INTO ${schema}.${table} (${columns.join(", ")}) SELECT ${columns.map((c) => `r.${c}`).join(", ")} ` +
        `FROM ${schema}.${table} s, generate_series(1, ${rows}) g, ` +
        `jsonb_populate_record(NULL::${schema}.${table}, to_jsonb(s) || ${set}) r`
    )
    console.log(`${table}: ${rows} copies in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  }
  const t0 = performance.now()
  await copy(
    "quotes",
    `jsonb_build_object('id', s.id || '-' || g, 'transaction_id', s.transaction_id || '-' || g, 'status', CASE WHEN g % 100 = 0 THEN 'PENDING' ELSE 'EXPIRED' END, 'expires_at', CASE WHEN g % 100 = 0 THEN '2999-01-01T00:00:00.000Z' ELSE s.expires_at END)`
  )
  await copy(
    "transactions",
    `jsonb_build_object('id', s.id || '-' || g, 'status', CASE WHEN g % 100 = 0 THEN 'PROCESSING' ELSE 'COMPLETED' END, 'due_at', CASE WHEN g % 100 = 0 THEN '2999-01-01T00:00:00.000Z' ELSE NULL END)`
  )
  await copy(
    "transaction_transitions",
    `jsonb_build_object('id', s.id || '-' || g, 'transaction_id', s.transaction_id || '-' || g)`
  )
  await copy(
    "outbox",
    `jsonb_build_object('id', s.id || '-' || g, 'subject', s.subject || '-' || g, 'status', CASE WHEN g % 100 = 0 THEN 'PENDING' ELSE 'DELIVERED' END, 'next_attempt_at', '2999-01-01T00:00:00.000Z')`
  )
  for (const table of ["quotes", "transactions", "transaction_transitions", "outbox"]) {
    await admin(url, `ANALYZE ${schema}.${table}`)
  }
  if (churn) {
    // Each settled payment was due once and then no longer: the version that was due stays, dead, in the due index
    // until VACUUM, as between two vacuums of a live store (the worker's passes update due times all day).
    const started = performance.now()
    await admin(url, `UPDATE ${schema}.transactions SET due_at = '2000-01-01T00:00:00.000Z' WHERE status = 'COMPLETED'`)
    await admin(url, `UPDATE ${schema}.transactions SET due_at = NULL WHERE status = 'COMPLETED'`)
    console.log(
      `churn: every settled payment due once and done, not vacuumed, in ${((performance.now() - started) / 1000).toFixed(1)} s`
    )
  }
  console.log(
    `copied ${rows} rows of quotes, transactions, timelines, outbox in ${((performance.now() - t0) / 1000).toFixed(1)} s`
  )
  if (backlog) {
    await admin(
      url,
      `UPDATE ${schema}.transactions SET state = 'PROCESSING', status = 'PROCESSING', due_at = '2000-01-01T00:00:00.000Z'`
    )
    await admin(url, `VACUUM ANALYZE ${schema}.transactions`)
    const now = new Date().toISOString()
    const filter = { states: ["PROCESSING"], dueBy: now }
    /** Walks every due row by `page` (a list by id, or the due queue), timing each page. */
    const walk = async <C>(
      label: string,
      page: (after: C | undefined) => Effect.Effect<{ rows: number; after: C | undefined }, unknown>
    ) => {
      const times: Array<number> = []
      let seen = 0
      await Effect.runPromise(
        Effect.gen(function* () {
          let after: C | undefined
          for (;;) {
            const started = performance.now()
            const next = yield* page(after)
            times.push(performance.now() - started)
            seen += next.rows
            if (next.after === undefined) break
            after = next.after
          }
        })
      )
      const total = times.reduce((a, b) => a + b, 0)
      console.log(
        `backlog, ${label}: ${seen} due rows in ${times.length} pages, ${total.toFixed(0)} ms ` +
          `(first page ${times[0]?.toFixed(1)} ms, last ${times[times.length - 1]?.toFixed(1)} ms, ` +
          `${(total / times.length).toFixed(2)} ms a page)`
      )
      return seen
    }
    const listed = await walk<string>("a list by id (the walk before issue 34's due queues)", (after) =>
      Effect.map(store.transactions.list(filter, { limit: 100, after, sortOrder: "asc" }), (page) => ({
        rows: page.data.length,
        after: page.hasMore ? page.data[page.data.length - 1]?.id : undefined
      }))
    )
    const queued = await walk<DueCursor>("the due queue", (after) =>
      Effect.map(store.transactions.due(filter, 100, after), (page) => ({ rows: page.data.length, after: page.next }))
    )
    if (listed !== rows + 1 || queued !== rows + 1) throw new Error(`walked ${listed} and ${queued} of ${rows + 1}`)
  }

  // One pass of every worker, and one webhook claim, captured.
  if (!backlog) await passAndExplain(app.context, store)
} finally {
  proto.query = original
  await Effect.runPromise(Scope.close(scope, Exit.void))
  await admin(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`)
}

/** One pass of every worker and one webhook claim, each distinct statement of them explained. */
async function passAndExplain(context: Effect.Success<ReturnType<typeof makeApp>>["context"], store: Store["Service"]) {
  capturing = true
  await Effect.runPromise(
    Effect.gen(function* () {
      yield* Context.get(context, Transactions).processDue()
      yield* Context.get(context, BulkImports).sweep()
      yield* Context.get(context, CardsWorker).processDue()
      yield* Context.get(context, Invitations).processDue()
      yield* Context.get(context, StablecoinsWorker).processDue()
      const now = new Date().toISOString()
      yield* store.transaction(store.outbox.claimDue(now, 100, now, "plans"))
    }) as Effect.Effect<void, unknown>
  )
  capturing = false

  // EXPLAIN each distinct statement: the plan for its values, and the generic plan.
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` })
  await client.connect()
  const seen = new Set<string>()
  let n = 0
  for (const { text, values } of captured) {
    if (seen.has(text) || /^(BEGIN|COMMIT|ROLLBACK|SELECT pg_try_advisory)/i.test(text)) continue
    seen.add(text)
    n++
    /** `generic`: the plan a prepared statement falls back to; `noSeqScan`: what the planner does when it must not scan. */
    const plan = async (mode: "custom" | "generic" | "noSeqScan") => {
      await client.query("BEGIN")
      try {
        if (mode === "generic") {
          await client.query("SET LOCAL plan_cache_mode = force_generic_plan")
          await client.query(`PREPARE plan_${n} AS ${text}`)
          const literals = values.map((v) =>
            v === null || v === undefined
              ? "NULL"
              : client.escapeLiteral(
                  Array.isArray(v) ? `{${v.map((x) => JSON.stringify(String(x))).join(",")}}` : String(v)
                )
          )
          const r = await client.query(
            `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE plan_${n}${literals.length > 0 ? `(${literals.join(", ")})` : ""}`
          )
          await client.query(`DEALLOCATE plan_${n}`)
          return r.rows.map((row) => row["QUERY PLAN"] as string)
        }
        if (mode === "noSeqScan") await client.query("SET LOCAL enable_seqscan = off")
        const r = await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${text}`, values as Array<unknown>)
        return r.rows.map((row) => row["QUERY PLAN"] as string)
      } finally {
        await client.query("ROLLBACK")
      }
    }
    console.log(`\n== ${statementLabel(text)}\n   ${text.replace(/\s+/g, " ").slice(0, 400)}`)
    try {
      const custom = await plan("custom")
      console.log(custom.map((line) => `   | ${line}`).join("\n"))
      if (custom.some((line) => line.includes("Seq Scan"))) {
        const forced = await plan("noSeqScan")
        console.log(
          `   without Seq Scan (a table still empty here):\n${forced.map((line) => `   | ${line}`).join("\n")}`
        )
      }
      const generic = await plan("generic")
      if (
        generic.join("").replace(/\(actual[^)]*\)|Buffers:[^\n]*|Planning[^\n]*|Execution[^\n]*/g, "") !==
        custom.join("").replace(/\(actual[^)]*\)|Buffers:[^\n]*|Planning[^\n]*|Execution[^\n]*/g, "")
      ) {
        console.log(`   generic plan:\n${generic.map((line) => `   | ${line}`).join("\n")}`)
      } else console.log("   generic plan: the same")
    } catch (error) {
      console.log(`   (not explained: ${String(error)})`)
    }
  }
  await client.end()
}
