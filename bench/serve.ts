/**
 * `npm start` as users run it, against the bare `node:http` server (issue 34): the real serve entry in a process of
 * its own (its worker and webhook dispatcher running, the rate limits on, `GET /metrics` served), loaded by autocannon
 * from this process, beside the bare server in a process of its own too. Two figures:
 *
 * - `POST /quotes` on the memory store (`PAYCORE_STORE=memory`) against the bare POST;
 * - `GET /customers/{id}` on the default store, embedded PGlite (a fresh data folder, removed after), against the
 *   bare GET.
 *
 * The rate limit per credential is raised (`PAYCORE_RATE_LIMIT`) so the token bucket is kept but never refuses: the
 * bench loads one credential far past the default 1,000 requests per second. After each server's runs the invariants
 * are checked over its API: every request answered 2xx, one payment listed per quote created, the paying
 * account's balance untouched by quotes; the customer read back is the one created.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { npmStart } from "./figures.ts"
import {
  BARE_POST_BODY,
  type BenchHttpResult,
  benchHttp,
  formatHttpRow,
  type RunResult,
  type ServerHandle,
  startProcess,
  summarize
} from "./http.ts"
import {
  type Account,
  api,
  BENCH_AUTHORIZATION,
  BENCH_CREDENTIALS,
  BENCH_CUSTOMER_INPUT,
  type Page,
  quoteTargets
} from "./paycore-server.ts"

export interface ServeBenchOptions {
  readonly connections: number
  readonly durationSeconds: number
  readonly warmupSeconds: number
  readonly rounds: number
}

export interface ServeBench {
  readonly options: ServeBenchOptions
  readonly bare: { readonly get: RunResult; readonly post: RunResult }
  /** `POST /quotes` through `npm start` on the memory store. */
  readonly memoryPost: RunResult
  /** `GET /customers/{id}` through `npm start` on embedded PGlite. */
  readonly pgliteGet: RunResult
}

/** The bare server (bench/http.ts's `bareListener`) in a process of its own. */
const startBare = (): Promise<ServerHandle> =>
  startProcess(
    [
      "--conditions=@paycore/source",
      "--input-type=module",
      "-e",
      `import { createServer } from "node:http"
       import { bareListener } from "./bench/http.ts"
       const server = createServer(bareListener())
       server.listen(0, "127.0.0.1", () => console.log("listening on http://127.0.0.1:" + server.address().port))`
    ],
    {},
    /listening on (\S+)/
  )

/** `npm start` with `env` (its store), the bench's credentials, and a rate limit it never reaches. */
const startServe = (env: Record<string, string | undefined>): Promise<ServerHandle> => {
  const { flags, script } = npmStart()
  return startProcess(
    [...flags, script],
    {
      PORT: "0",
      DATABASE_URL: undefined,
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
      PAYCORE_SANDBOX_CREDENTIALS: `${BENCH_CREDENTIALS.clientId}:${BENCH_CREDENTIALS.clientSecret}`,
      PAYCORE_RATE_LIMIT: "1000000:1000000",
      ...env
    },
    /base URL\s+(http:\/\/[^/\s]+)/
  )
}

const fail = (message: string): never => {
  throw new Error(`serve bench: ${message}`)
}

const benchServer = async (
  start: () => Promise<ServerHandle>,
  kind: "get" | "post",
  options: ServeBenchOptions
): Promise<RunResult> => {
  let customerId = ""
  let balanceBefore = ""
  const result = await benchHttp({
    listener: start,
    kinds: [kind],
    connections: options.connections,
    durationSeconds: options.durationSeconds,
    warmupSeconds: options.warmupSeconds,
    headers: { authorization: BENCH_AUTHORIZATION },
    getPath: "",
    postPath: "",
    postBody: "",
    prepare: async (origin) => {
      const customer = await api<{ id: string }>(`${origin}/2025-10-13/customers`, {
        method: "POST",
        body: JSON.stringify(BENCH_CUSTOMER_INPUT)
      })
      customerId = customer.id
      const targets = await quoteTargets(origin, customer.id)
      balanceBefore = JSON.stringify(targets.usd.balance)
      return targets
    },
    check: async (origin, result) => {
      const baseUrl = `${origin}/2025-10-13`
      const run = result[kind]!
      if (run.failures > 0) fail(`${run.failures} requests were not answered 2xx`)
      const customer = await api<{ fullName: string }>(`${baseUrl}/customers/${customerId}`)
      if (customer.fullName !== BENCH_CUSTOMER_INPUT.fullName) fail("the customer read back is not the one created")
      if (kind === "get") return
      const payments = await api<Page<unknown>>(`${baseUrl}/transactions?customerId=${customerId}&limit=1`)
      // autocannon stops counting with requests in flight (one per connection, at the warm-up's end and the run's):
      // the server created those too.
      const inFlight = 2 * options.connections
      if (payments.totalCount < run.answered || payments.totalCount > run.answered + inFlight) {
        fail(
          `${run.answered} quotes answered 201 (+ up to ${inFlight} in flight), ${payments.totalCount} payments listed`
        )
      }
      const accounts = await api<Page<Account>>(`${baseUrl}/customers/internal-accounts?customerId=${customerId}`)
      const balance = JSON.stringify(accounts.data.find((account) => account.currency === "USD")!.balance)
      if (balance !== balanceBefore) fail(`quotes moved the USD balance: ${balanceBefore} → ${balance}`)
    }
  })
  return result[kind]!
}

/** The bare server, `npm start` on memory, `npm start` on PGlite: one of each per round, alternated. */
export const benchServe = async (options: ServeBenchOptions): Promise<ServeBench> => {
  const results = { bare: [] as Array<BenchHttpResult>, memory: [] as Array<RunResult>, pglite: [] as Array<RunResult> }
  for (let round = 0; round < options.rounds; round++) {
    results.bare.push(
      await benchHttp({
        ...options,
        listener: startBare,
        getPath: "/x",
        postPath: "/x",
        postBody: BARE_POST_BODY
      })
    )
    results.memory.push(await benchServer(() => startServe({ PAYCORE_STORE: "memory" }), "post", options))
    const dataDir = mkdtempSync(join(tmpdir(), "paycore-bench-serve-"))
    try {
      results.pglite.push(
        await benchServer(() => startServe({ PAYCORE_STORE: undefined, PAYCORE_DATA_DIR: dataDir }), "get", options)
      )
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
  return {
    options,
    bare: {
      get: summarize(results.bare.map((result) => result.get!)),
      post: summarize(results.bare.map((result) => result.post!))
    },
    memoryPost: summarize(results.memory),
    pgliteGet: summarize(results.pglite)
  }
}

export const formatServeBench = ({ options, bare, memoryPost, pgliteGet }: ServeBench): string =>
  [
    `\nnpm start (its worker and webhook dispatcher running) against the bare node:http server, both in processes of ` +
      `their own: ${options.connections} connections, ${options.warmupSeconds}s warm-up + ${options.durationSeconds}s ` +
      `per run, median of ${options.rounds} rounds (targets: memory POST >= 0.4x and PGlite GET >= 0.15x, p99 < 10 ms)`,
    formatHttpRow("bare POST", bare.post, bare.post),
    formatHttpRow("npm start, memory: POST /quotes", memoryPost, bare.post),
    formatHttpRow("bare GET", bare.get, bare.get),
    formatHttpRow("npm start, PGlite: GET /customers/{id}", pgliteGet, bare.get)
  ].join("\n")
