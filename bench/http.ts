/**
 * HTTP load harness: serves a listener from a worker thread and drives it with autocannon.
 *
 * Each server runs alone in a worker thread (one core) while autocannon drives it from the main thread (the other
 * core), so load generation does not steal the server's event loop; bare and lean use the same arrangement.
 * Besides req/s (bounded by autocannon itself when the server is fast), it reports req per CPU-second of the server
 * thread, which stays comparable when the client or other processes are the bottleneck.
 * `bench/run.ts` uses it to compare the paycore server with the bare `node:http` baseline below.
 */
import { spawn } from "node:child_process"
import { readFile } from "node:fs/promises"
import type { RequestListener } from "node:http"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { Worker } from "node:worker_threads"
import { median, SOURCE_CONDITION } from "./figures.ts"

// -----------------------------------------------------------------------------
// autocannon (untyped CommonJS package)
// -----------------------------------------------------------------------------

interface Histogram {
  readonly average: number
  readonly p99: number
}

interface AutocannonResult {
  readonly requests: Histogram & { readonly total: number }
  readonly "2xx": number
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

export interface BenchTargets {
  readonly getPath: string
  readonly postPath: string
  readonly postBody: string
}

export interface BenchHttpOptions extends BenchTargets {
  /** The server: a listener served from a worker thread, or a server started otherwise (`startProcess`). */
  readonly listener: ListenerFactory | (() => Promise<ServerHandle>)
  /** Which requests to load (both by default). */
  readonly kinds?: ReadonlyArray<"get" | "post"> | undefined
  /** Runs after the load, before the server stops (the invariants): throws when one is broken. */
  readonly check?: ((baseUrl: string, result: BenchHttpResult) => Promise<void>) | undefined
  /** Runs once the server listens (e.g. to look up the ids the paths need); its targets override the options'. */
  readonly prepare?: ((baseUrl: string) => Promise<Partial<BenchTargets>>) | undefined
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
  /** 2xx answers of the whole run, warm-up and probe included (what a POST created). */
  readonly answered: number
}

export interface BenchHttpResult {
  readonly get: RunResult | undefined
  readonly post: RunResult | undefined
}

export interface ServerHandle {
  readonly url: string
  /** CPU microseconds the server thread has used so far. */
  readonly cpuMicros: () => Promise<number>
  readonly stop: () => Promise<number>
}

/**
 * `BENCH_CPU_PROFILES=<folder>`: each server thread writes a V8 CPU profile of its whole life there (`.cpuprofile`,
 * opened by Chrome's DevTools), to see where a server's time goes; its start is in it too.
 */
const CPU_PROFILES = process.env.BENCH_CPU_PROFILES || undefined

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
      // The worker imports the listener's module from the workspace's sources, as its parent does (said here, so it
      // does not depend on the flags the parent happened to get).
      execArgv: [
        SOURCE_CONDITION,
        ...(CPU_PROFILES === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${CPU_PROFILES}`])
      ],
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

/** CPU microseconds process `pid` has used so far, from `/proc` (Linux); NaN elsewhere. */
const processCpuMicros = async (pid: number): Promise<number> => {
  try {
    // Fields 14 and 15 (utime, stime) after the command's parenthesis, in clock ticks (100 per second on Linux).
    const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).replace(/^.*\) /s, "").split(" ")
    return ((Number(fields[11]) + Number(fields[12])) / 100) * 1e6
  } catch {
    return Number.NaN
  }
}

/**
 * A server run as a process of its own (`npm start`, or the bare server beside it): `node <args>` from the workspace
 * root with `env` added, its base URL read from its output by `urlPattern`; its CPU time read from /proc.
 */
export const startProcess = (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>,
  urlPattern: RegExp
): Promise<ServerHandle> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    const onExit = (code: number | null) =>
      reject(new Error(`The server process exited (${code}) before listening:\n${output}`))
    child.once("exit", onExit)
    child.once("error", reject)
    const read = (chunk: Buffer) => {
      if (output.length < 100_000) output += chunk.toString("utf8")
      const match = urlPattern.exec(output)
      if (match === null || child.pid === undefined) return
      child.off("exit", onExit)
      child.stdout.off("data", read)
      // Keep draining its output (request logs, the worker's lines), so a full pipe never stalls the server.
      child.stdout.resume()
      const pid = child.pid
      resolve({
        url: match[1]!,
        cpuMicros: () => processCpuMicros(pid),
        stop: () =>
          new Promise<number>((done) => {
            child.once("exit", (code) => done(code ?? 0))
            child.kill("SIGTERM")
          })
      })
    }
    child.stdout.on("data", read)
    child.stderr.on("data", (chunk: Buffer) => {
      if (output.length < 100_000) output += chunk.toString("utf8")
    })
  })

/** Load-tests GET `getPath` and POST `postPath` on the server (a listener served from a worker thread by default). */
export const benchHttp = async (options: BenchHttpOptions): Promise<BenchHttpResult> => {
  const server = typeof options.listener === "function" ? await options.listener() : await startServer(options.listener)
  const targets = { ...options, ...(await options.prepare?.(server.url)) }
  const connections = options.connections ?? 32
  const run = async (method: string, path: string, body: string | undefined): Promise<RunResult> => {
    const headers = { ...options.headers, ...(body === undefined ? {} : { "content-type": "application/json" }) }
    const target = { url: server.url + path, connections, method, headers, body }
    const probe = await fetch(target.url, { method, headers, ...(body === undefined ? {} : { body }) })
    if (!probe.ok) throw new Error(`${method} ${path} answered ${probe.status}: ${await probe.text()}`)
    const warmup = await autocannon({ ...target, duration: options.warmupSeconds ?? 1 })
    const duration = options.durationSeconds ?? 5
    const cpuBefore = await server.cpuMicros()
    const result = await autocannon({ ...target, duration })
    const cpuSeconds = ((await server.cpuMicros()) - cpuBefore) / 1e6
    return {
      requestsPerSecond: result.requests.average,
      p99Ms: result.latency.p99,
      serverUtilization: cpuSeconds / duration,
      capacity: result.requests.total / cpuSeconds,
      failures: result.non2xx + result.errors,
      answered: 1 + warmup["2xx"] + result["2xx"]
    }
  }
  const kinds = options.kinds ?? ["get", "post"]
  try {
    const result = {
      get: kinds.includes("get") ? await run("GET", targets.getPath, undefined) : undefined,
      post: kinds.includes("post") ? await run("POST", targets.postPath, targets.postBody) : undefined
    }
    await options.check?.(server.url, result)
    return result
  } finally {
    await server.stop()
  }
}

// -----------------------------------------------------------------------------
// The two servers under test
// -----------------------------------------------------------------------------

/** The baseline: no routing, no validation. */
// What paycore answers for the benched requests (recorded), so the baseline writes the same bytes:
// the ratio then measures what paycore adds (routing, auth, validation, pricing, storing, events).
export const BENCH_CUSTOMER = "bench-customer"

/** The customer the benches read and pay from (`POST /customers`' body). */
export const BENCH_CUSTOMER_INPUT = {
  customerType: "INDIVIDUAL",
  platformCustomerId: BENCH_CUSTOMER,
  fullName: "Ada Lovelace",
  email: "ada@example.com",
  currencies: ["USD", "MXN"],
  endUserTermsConsent: {
    acceptedAt: "2026-01-01T00:00:00Z",
    ipAddress: "203.0.113.7",
    termsVersion: "2025-10-13",
    acceptanceMethod: "CHECKBOX"
  }
} as const

const customerJson = JSON.stringify({
  ...BENCH_CUSTOMER_INPUT,
  id: "Customer:01a1fe3a-57b7-77a4-9835-61eadc71022c",
  umaAddress: "$u01a1fe3a57b777a4983561eadc71022c@sandbox.paycore.dev",
  contactVerification: { email: "PENDING", phone: "PENDING" },
  isDeleted: false,
  createdAt: "2026-11-21T13:09:58.839Z",
  updatedAt: "2026-11-21T13:09:58.839Z",
  kycStatus: "UNVERIFIED"
})
const quoteJson = JSON.stringify({
  id: "Quote:01a1fe3a-5e54-75c0-8714-5996cfc7dcb7",
  status: "PENDING",
  createdAt: "2026-11-21T13:10:00.530Z",
  expiresAt: "2026-11-21T13:15:00.530Z",
  customerId: "Customer:01a1fe3a-57b7-77a4-9835-61eadc71022c",
  source: { sourceType: "ACCOUNT", accountId: "InternalAccount:01a1fe3a-57b7-77a4-9835-61ebfa901181" },
  destination: {
    destinationType: "ACCOUNT",
    accountId: "ExternalAccount:01a1fe3a-5d64-7630-873d-975a31d6af8c",
    paymentRail: "SPEI"
  },
  sendingCurrency: { code: "USD", name: "United States Dollar", symbol: "$", decimals: 2 },
  receivingCurrency: { code: "MXN", name: "Mexican Peso", symbol: "$", decimals: 2 },
  totalSendingAmount: 125000,
  totalReceivingAmount: 2145468,
  exchangeRate: 17.2499939698,
  feesIncluded: 625,
  platformFeesIncluded: 0,
  transactionId: "Transaction:01a1fe3a-5e54-75c0-8714-59971d13cbc9",
  paymentInstructions: [],
  rateDetails: {
    counterpartyMultiplier: 17.25,
    counterpartyFixedFee: 0,
    serviceApiMultiplier: 0.995,
    serviceApiFixedFee: 0,
    serviceApiVariableFeeRate: 0.005,
    serviceApiVariableFeeAmount: 625
  }
})

/** The baseline: no routing, no validation, no work; parses a POST body and answers responses of paycore's size. */
export const bareListener = (): RequestListener => (req, res) => {
  if (req.method === "GET") {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(customerJson) })
    res.end(customerJson)
    return
  }
  const chunks: Array<Buffer> = []
  req.on("data", (chunk: Buffer) => chunks.push(chunk))
  req.on("end", () => {
    JSON.parse(Buffer.concat(chunks).toString("utf8"))
    res.writeHead(201, { "content-type": "application/json", "content-length": Buffer.byteLength(quoteJson) })
    res.end(quoteJson)
  })
}

// -----------------------------------------------------------------------------
// Entry points
// -----------------------------------------------------------------------------

/** A request body like paycore's `POST /quotes` (ids differ; the bare server only parses it). */
export const BARE_POST_BODY = JSON.stringify({
  source: { sourceType: "ACCOUNT", accountId: "InternalAccount:01a1fe0e-a767-761e-9f28-a43c3c4d01a5" },
  destination: {
    destinationType: "ACCOUNT",
    accountId: "ExternalAccount:01a1fe0e-a767-761e-9f28-a43c3c4d01a6",
    paymentRail: "SPEI"
  },
  lockedCurrencySide: "SENDING",
  lockedCurrencyAmount: 125_000,
  description: "Invoice 1234",
  remittanceInformation: "INV-1234",
  purposeOfPayment: "GOODS_OR_SERVICES"
})

/** One line of a figure: req/s, p99, and the ratios to `baseline` (req/s, and req per CPU-second of the server). */
export const formatHttpRow = (name: string, run: RunResult, baseline: RunResult): string =>
  [
    name.padEnd(40),
    `${run.requestsPerSecond.toFixed(0).padStart(6)} req/s`,
    `p99 ${String(run.p99Ms).padStart(3)} ms`,
    `${(run.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)}x`,
    `${run.capacity.toFixed(0).padStart(6)} req/CPU-s`,
    `${(run.capacity / baseline.capacity).toFixed(2)}x`,
    run.failures > 0 ? `(${run.failures} failures!)` : ""
  ].join("  ")

/** Medians over rounds (the machine is shared: single runs are noisy). */
export const summarize = (runs: ReadonlyArray<RunResult>): RunResult => ({
  requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
  p99Ms: median(runs.map((run) => run.p99Ms)),
  serverUtilization: median(runs.map((run) => run.serverUtilization)),
  capacity: median(runs.map((run) => run.capacity)),
  failures: runs.reduce((total, run) => total + run.failures, 0),
  answered: runs.reduce((total, run) => total + run.answered, 0)
})
