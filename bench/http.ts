/**
 * HTTP serving benchmark: a bare `node:http` server against the lean HttpApi listener (`makeRequestListener`).
 *
 *   node bench/http.ts [--duration 5] [--warmup 1] [--connections 32] [--rounds 3]
 *
 * Each server runs alone in a worker thread (one core) while autocannon drives it from the main thread (the other
 * core), so load generation does not steal the server's event loop; bare and lean use the same arrangement.
 * Besides req/s (bounded by autocannon itself when the server is fast), it reports req per CPU-second of the server
 * thread, which stays comparable when the client or other processes are the bottleneck.
 * `benchHttp` is exported for the project bench: give it a module + factory that builds a request listener.
 */
import type { RequestListener } from "node:http"
import { createRequire } from "node:module"
import { Worker } from "node:worker_threads"
import { makeRequestListener, parseBasicAuth } from "@paycore/http"
import { Context, Effect, Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

// -----------------------------------------------------------------------------
// autocannon (untyped CommonJS package)
// -----------------------------------------------------------------------------

interface Histogram {
  readonly average: number
  readonly p99: number
}

interface AutocannonResult {
  readonly requests: Histogram & { readonly total: number }
  readonly latency: Histogram
  readonly non2xx: number
  readonly errors: number
}

type Autocannon = (options: {
  readonly url: string
  readonly connections: number
  readonly duration: number
  readonly method: string
  readonly headers: Record<string, string>
  readonly body?: string | undefined
}) => Promise<AutocannonResult>

// Loaded on first use: server workers import this module for its listeners and do not need it.
let loaded: Autocannon | undefined
const autocannon: Autocannon = (options) => {
  loaded ??= createRequire(import.meta.url)("autocannon") as Autocannon
  return loaded(options)
}

// -----------------------------------------------------------------------------
// benchHttp
// -----------------------------------------------------------------------------

/** Where a worker finds the listener: `module`'s export `factory`, a (possibly async) function returning it. */
export interface ListenerFactory {
  readonly module: string | URL
  readonly factory: string
}

export interface BenchHttpOptions {
  readonly listener: ListenerFactory
  readonly getPath: string
  readonly postPath: string
  readonly postBody: string
  /** Sent with every request (e.g. `authorization`); `content-type: application/json` is added to POSTs. */
  readonly headers?: Record<string, string> | undefined
  readonly connections?: number | undefined
  /** Seconds measured per run, after `warmupSeconds` of unmeasured load. */
  readonly durationSeconds?: number | undefined
  readonly warmupSeconds?: number | undefined
}

export interface RunResult {
  readonly requestsPerSecond: number
  readonly p99Ms: number
  /** Server thread CPU time / wall time: well below 1 means the load generator (or a noisy machine) was the limit. */
  readonly serverUtilization: number
  /** Requests per second of server thread CPU: what one fully busy core would serve. Robust to other load. */
  readonly capacity: number
  /** Responses that were not 2xx, or connection errors: a non-zero value means the figures are not trustworthy. */
  readonly failures: number
}

export interface BenchHttpResult {
  readonly get: RunResult
  readonly post: RunResult
}

interface ServerHandle {
  readonly url: string
  /** CPU microseconds the server thread has used so far. */
  readonly cpuMicros: () => Promise<number>
  readonly stop: () => Promise<number>
}

// The worker's entry (CommonJS, evaluated): builds the listener, serves, reports its thread CPU time on request.
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads")
const { createServer } = require("node:http")
;(async () => {
  const exports = await import(workerData.module)
  const server = createServer(await exports[workerData.factory]())
  server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port))
  parentPort.on("message", () => {
    const { user, system } = process.threadCpuUsage()
    parentPort.postMessage(user + system)
  })
})()
`

const startServer = (listener: ListenerFactory) =>
  new Promise<ServerHandle>((resolve, reject) => {
    const worker = new Worker(workerSource, {
      eval: true,
      workerData: { module: String(listener.module), factory: listener.factory }
    })
    worker.once("error", reject)
    worker.once("exit", (code) => reject(new Error(`The server worker exited (${code}) before listening`)))
    worker.once("message", (port: number) =>
      resolve({
        url: `http://127.0.0.1:${port}`,
        cpuMicros: () =>
          new Promise((resolve) => {
            worker.once("message", resolve)
            worker.postMessage("cpu")
          }),
        stop: () => worker.terminate()
      })
    )
  })

/** Load-tests GET `getPath` and POST `postPath` on the listener, served from a worker thread. */
export const benchHttp = async (options: BenchHttpOptions): Promise<BenchHttpResult> => {
  const server = await startServer(options.listener)
  const connections = options.connections ?? 32
  const run = async (method: string, path: string, body: string | undefined): Promise<RunResult> => {
    const headers = { ...options.headers, ...(body === undefined ? {} : { "content-type": "application/json" }) }
    const target = { url: server.url + path, connections, method, headers, body }
    const probe = await fetch(target.url, { method, headers, ...(body === undefined ? {} : { body }) })
    if (!probe.ok) throw new Error(`${method} ${path} answered ${probe.status}: ${await probe.text()}`)
    await autocannon({ ...target, duration: options.warmupSeconds ?? 1 })
    const duration = options.durationSeconds ?? 5
    const cpuBefore = await server.cpuMicros()
    const result = await autocannon({ ...target, duration })
    const cpuSeconds = ((await server.cpuMicros()) - cpuBefore) / 1e6
    return {
      requestsPerSecond: result.requests.average,
      p99Ms: result.latency.p99,
      serverUtilization: cpuSeconds / duration,
      capacity: result.requests.total / cpuSeconds,
      failures: result.non2xx + result.errors
    }
  }
  try {
    return {
      get: await run("GET", options.getPath, undefined),
      post: await run("POST", options.postPath, options.postBody)
    }
  } finally {
    await server.stop()
  }
}

// -----------------------------------------------------------------------------
// The two servers under test
// -----------------------------------------------------------------------------

/** The baseline: no routing, no validation. */
export const bareListener = (): RequestListener => (req, res) => {
  if (req.method === "GET") {
    const body = JSON.stringify({ id: "cus_1", name: "Ada Lovelace", country: "US", status: "ACTIVE" })
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    res.end(body)
    return
  }
  const chunks: Array<Buffer> = []
  req.on("data", (chunk: Buffer) => chunks.push(chunk))
  req.on("end", () => {
    const body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString("utf8")))
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    res.end(body)
  })
}

const Currency = Schema.Literals(["USD", "EUR", "MXN", "BRL", "GBP"])

const Customer = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  country: Schema.String,
  status: Schema.Literals(["ACTIVE", "FROZEN"])
})

const CreateQuote = Schema.Struct({
  customerId: Schema.String.check(Schema.isStartingWith("cus_"), Schema.isMaxLength(40)),
  sourceCurrency: Currency,
  targetCurrency: Currency,
  amount: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_000_000_000 })),
  lockedSide: Schema.Literals(["SENDING", "RECEIVING"]),
  purpose: Schema.Literals(["GIFT", "SALARY", "GOODS", "SERVICES"]),
  reference: Schema.String.check(Schema.isPattern(/^[A-Za-z0-9-]{1,36}$/)),
  description: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(140)))
})

const Quote = Schema.Struct({
  id: Schema.String,
  customerId: Schema.String,
  sourceCurrency: Currency,
  targetCurrency: Currency,
  sendingAmount: Schema.Int,
  receivingAmount: Schema.Int,
  rate: Schema.Number,
  fee: Schema.Int,
  status: Schema.Literal("PENDING")
})

class QuoteApiError extends Schema.TaggedError<QuoteApiError>()("QuoteApiError", { code: Schema.String }) {}

const BenchApi = HttpApi.make("bench").add(
  HttpApiGroup.make("bench")
    .add(HttpApiEndpoint.get("getCustomer", "/customers/:id", { params: { id: Schema.String }, success: Customer }))
    .add(
      HttpApiEndpoint.post("createQuote", "/quotes", {
        payload: CreateQuote,
        success: Quote.pipe(HttpApiSchema.status(201))
      })
    )
)

class Rates extends Context.Service<Rates, { readonly rate: (from: string, to: string) => number }>()("bench/Rates") {}

/** The lean listener over a toy API: Basic auth, a Map lookup, and an `Effect.gen` quote handler. */
export const leanListener = (): RequestListener => {
  const customers = new Map([
    ["cus_1", { id: "cus_1", name: "Ada Lovelace", country: "US", status: "ACTIVE" as const }]
  ])
  let sequence = 0
  return makeRequestListener({
    api: BenchApi,
    prefix: "/2025-10-13",
    services: Context.make(Rates, { rate: (from, to) => (from === to ? 1 : 0.9) }),
    authenticate: (authorization: string | undefined) => {
      const credentials = parseBasicAuth(authorization)
      return credentials?.username === "key" && credentials.password === "secret"
        ? { platform: "p_1" }
        : new Error("Invalid credentials")
    },
    handlers: {
      bench: {
        getCustomer: ({ params }) => {
          const customer = customers.get(params.id)
          return customer === undefined
            ? Effect.fail(new QuoteApiError({ code: "CUSTOMER_NOT_FOUND" }))
            : Effect.succeed(customer)
        },
        createQuote: ({ payload }) =>
          Effect.gen(function* () {
            const customer = customers.get(payload.customerId)
            if (customer === undefined) return yield* new QuoteApiError({ code: "CUSTOMER_NOT_FOUND" })
            const rates = yield* Rates
            const rate = rates.rate(payload.sourceCurrency, payload.targetCurrency)
            const fee = Math.ceil(payload.amount / 100)
            return {
              id: `quote_${++sequence}`,
              customerId: customer.id,
              sourceCurrency: payload.sourceCurrency,
              targetCurrency: payload.targetCurrency,
              sendingAmount: payload.amount,
              receivingAmount: Math.floor((payload.amount - fee) * rate),
              rate,
              fee,
              status: "PENDING" as const
            }
          })
      }
    },
    mapError: (error) =>
      error instanceof QuoteApiError ? { status: 404, code: error.code, message: "Not found" } : undefined
  })
}

// -----------------------------------------------------------------------------
// Entry points
// -----------------------------------------------------------------------------

const flag = (name: string, fallback: number): number => {
  const index = process.argv.indexOf(`--${name}`)
  return index < 0 ? fallback : Number(process.argv[index + 1])
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** Medians over rounds (the machine is shared: single runs are noisy). */
const summarize = (runs: ReadonlyArray<RunResult>): RunResult => ({
  requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
  p99Ms: median(runs.map((run) => run.p99Ms)),
  serverUtilization: median(runs.map((run) => run.serverUtilization)),
  capacity: median(runs.map((run) => run.capacity)),
  failures: runs.reduce((total, run) => total + run.failures, 0)
})

const main = async () => {
  const rounds = flag("rounds", 3)
  const common = {
    connections: flag("connections", 32),
    durationSeconds: flag("duration", 5),
    warmupSeconds: flag("warmup", 1)
  }
  const here = new URL(import.meta.url)
  const postBody = JSON.stringify({
    customerId: "cus_1",
    sourceCurrency: "USD",
    targetCurrency: "MXN",
    amount: 125_000,
    lockedSide: "SENDING",
    purpose: "GIFT",
    reference: "order-1234",
    description: "Birthday present"
  })
  const targets = {
    bare: { listener: { module: here, factory: "bareListener" }, getPath: "/x", postPath: "/x", postBody },
    lean: {
      listener: { module: here, factory: "leanListener" },
      getPath: "/2025-10-13/customers/cus_1",
      postPath: "/2025-10-13/quotes",
      postBody,
      headers: { authorization: `Basic ${Buffer.from("key:secret").toString("base64")}` }
    }
  }
  const results = { bare: [] as Array<BenchHttpResult>, lean: [] as Array<BenchHttpResult> }
  // Alternate the servers so drifting background load hits both alike.
  for (let round = 0; round < rounds; round++) {
    results.bare.push(await benchHttp({ ...common, ...targets.bare }))
    results.lean.push(await benchHttp({ ...common, ...targets.lean }))
  }
  const row = (name: string, run: RunResult, baseline: RunResult) =>
    [
      name.padEnd(9),
      `${run.requestsPerSecond.toFixed(0).padStart(6)} req/s`,
      `p99 ${String(run.p99Ms).padStart(3)} ms`,
      `${(run.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)}x`,
      `server CPU ${(run.serverUtilization * 100).toFixed(0).padStart(3)}%`,
      `${run.capacity.toFixed(0).padStart(6)} req/CPU-s`,
      `${(run.capacity / baseline.capacity).toFixed(2)}x`,
      run.failures > 0 ? `(${run.failures} failures!)` : ""
    ].join("  ")
  console.log(
    `node ${process.version}, ${common.connections} connections, ${common.warmupSeconds}s warm-up + ` +
      `${common.durationSeconds}s per run, median of ${rounds} rounds; ratios against bare`
  )
  for (const kind of ["get", "post"] as const) {
    const bare = summarize(results.bare.map((result) => result[kind]))
    const lean = summarize(results.lean.map((result) => result[kind]))
    console.log(row(`bare ${kind.toUpperCase()}`, bare, bare))
    console.log(row(`lean ${kind.toUpperCase()}`, lean, bare))
  }
}

if (import.meta.main) await main()
