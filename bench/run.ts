/**
 * `npm run bench`: every figure as a ratio against a baseline measured in the same run.
 *
 *   node --conditions=@paycore/source bench/run.ts [--seconds 5] [--pg-clients 16] [--pg-seconds 10] [--pg-rounds 2]
 *                     [--duration 5] [--warmup 1] [--connections 32] [--rounds 3]
 *                     [--pg-pool 32] [--pg-statements] [--only core,postgres,wallet,http,serve,http-postgres,csv,cards]
 *
 * 1. Payment lifecycles per second through the core on the in-memory store (bench/core.ts), against an
 *    empty Effect loop of the same number of steps.
 * 2. Executes and lifecycles per second on the PostgreSQL server named by DATABASE_URL (bench/postgres.ts), against
 *    pgbench's TPC-B-like tps on the same server with as many clients; skipped (and said so) without DATABASE_URL.
 * 3. req/s and p99 of GET /customers/{id} and POST /quotes on the paycore server, against a bare
 *    `node:http` server answering the same bytes, each served from a worker thread and loaded by autocannon.
 * 3b. The same through `npm start` as users run it (bench/serve.ts): its worker and webhook dispatcher running,
 *    `POST /quotes` on the memory store and `GET /customers/{id}` on embedded PGlite (its default store), against
 *    the bare server, each in a process of its own; invariants checked over the API after each server's runs.
 * 3c. The same two requests on the PostgreSQL server of DATABASE_URL (bench/http-postgres.ts): GET against
 *    `pgbench -S` (select-only) with as many clients as connections, POST's p99 and req/s against the bare echo.
 * 5. Signed retries per second (a wallet session refresh, both legs) through the core on the memory store, against
 *    `node:crypto`'s bare ECDSA P-256 verify in the same run (bench/wallet.ts).
 * 4. CSV bulk import rows per second of a 50,000-row file, and the server process's peak RSS, on PostgreSQL (the
 *    server of DATABASE_URL, else PGlite) and on the memory store (bench/csv-import.ts).
 * 6. Card authorizations per second (`CardNetwork.authorize`) on the memory store and, with DATABASE_URL, on
 *    PostgreSQL against pgbench; the merged `GET /transactions` listing against payments alone (bench/cards.ts).
 */
import { benchCards, formatCardsBench } from "./cards.ts"
import { benchCore, formatCoreBench } from "./core.ts"
import { benchCsvImport, CSV_IMPORT_STORES, formatCsvImportBench } from "./csv-import.ts"
import { numberFlag } from "./figures.ts"
import { type BenchHttpResult, benchHttp, formatHttpRow, summarize } from "./http.ts"
import { benchHttpPostgres, formatHttpPostgresBench, httpPostgresFlags } from "./http-postgres.ts"
import { BARE_TARGETS, PAYCORE_TARGETS } from "./paycore-server.ts"
import { benchPostgres, formatPostgresBench, postgresFlags } from "./postgres.ts"
import { benchServe, formatServeBench } from "./serve.ts"
import { benchWallet, formatWalletBench } from "./wallet.ts"

// `--only a,b` runs just those parts (all of them by default).
const onlyIndex = process.argv.indexOf("--only")
const only = onlyIndex < 0 ? undefined : new Set(process.argv[onlyIndex + 1]?.split(","))
const runs = (part: string): boolean => only === undefined || only.has(part)

if (runs("core")) console.log(formatCoreBench(await benchCore({ seconds: numberFlag("seconds") ?? 5 })))
if (runs("postgres")) console.log(formatPostgresBench(await benchPostgres(postgresFlags())))
if (runs("wallet")) console.log(formatWalletBench(await benchWallet({ seconds: numberFlag("seconds") ?? 6 })))

/** 3. The HTTP figures: the paycore server against a bare node:http server, alternating rounds. */
const benchHttpPart = async () => {
  const common = {
    connections: numberFlag("connections") ?? 32,
    durationSeconds: numberFlag("duration") ?? 5,
    warmupSeconds: numberFlag("warmup") ?? 1
  }
  const targets = {
    bare: BARE_TARGETS,
    paycore: {
      ...PAYCORE_TARGETS,
      listener: { module: new URL("./paycore-server.ts", import.meta.url), factory: "paycoreListener" }
    }
  }

  const rounds = numberFlag("rounds") ?? 3
  const results = { bare: [] as Array<BenchHttpResult>, paycore: [] as Array<BenchHttpResult> }
  // Alternate the servers so drifting background load hits both alike.
  for (let round = 0; round < rounds; round++) {
    results.bare.push(await benchHttp({ ...common, ...targets.bare }))
    results.paycore.push(await benchHttp({ ...common, ...targets.paycore }))
  }

  console.log(
    `\nHTTP: node ${process.version}, ${common.connections} connections, ${common.warmupSeconds}s warm-up + ` +
      `${common.durationSeconds}s per run, median of ${rounds} rounds; ratios against the bare node:http server`
  )
  const names = { get: "GET /customers/{id}", post: "POST /quotes (USD→MXN)" } as const
  for (const kind of ["get", "post"] as const) {
    const bare = summarize(results.bare.map((result) => result[kind]!))
    const paycore = summarize(results.paycore.map((result) => result[kind]!))
    console.log(formatHttpRow(`bare ${kind.toUpperCase()}`, bare, bare))
    console.log(formatHttpRow(`paycore ${names[kind]}`, paycore, bare))
  }
}

if (runs("http")) await benchHttpPart()
if (runs("serve")) {
  const serveOptions = {
    connections: numberFlag("connections") ?? 32,
    durationSeconds: numberFlag("duration") ?? 5,
    warmupSeconds: numberFlag("warmup") ?? 1,
    rounds: numberFlag("rounds") ?? 3
  }
  console.log(formatServeBench(await benchServe(serveOptions)))
}
if (runs("http-postgres")) console.log(formatHttpPostgresBench(await benchHttpPostgres(httpPostgresFlags())))
if (runs("cards")) {
  console.log(formatCardsBench(await benchCards({ seconds: numberFlag("seconds") ?? 5, postgres: postgresFlags() })))
}
if (runs("csv")) for (const store of CSV_IMPORT_STORES) console.log(formatCsvImportBench(await benchCsvImport(store)))
