/**
 * The server's life outside the API (issue 33 items 5 and 6): `/healthz` and `/readyz` for a load balancer or an
 * orchestrator, and the graceful stop (SIGTERM, SIGINT) within a deadline. docs/operations.md, "Health checks" and
 * "Stopping".
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { Server as NetServer } from "node:net"
import type { Store } from "@paycore/core"
import { type AuthFailureLimit, parseLimitPair, type RateLimit } from "@paycore/http"
import { Config, Effect, Fiber, Option } from "effect"

/** How long idle keep-alive connections stay open once a stop began (below). */
const IDLE_GRACE_MILLIS = 1_000

const netClose = NetServer.prototype.close

/** How long `/readyz` waits for the store's answer. */
export const STORE_PROBE_MILLIS = 2_000

/** `PAYCORE_SHUTDOWN_SECONDS`' default: below Kubernetes' default `terminationGracePeriodSeconds` (30). */
export const DEFAULT_SHUTDOWN_SECONDS = 25

/** The default `PAYCORE_RATE_LIMIT` (`<per second>:<burst>` per credential) and `PAYCORE_AUTH_FAILURE_LIMIT`. */
export const DEFAULT_RATE_LIMIT = "1000:2000"
export const DEFAULT_AUTH_FAILURE_LIMIT = "20:60"

/** `PAYCORE_SHUTDOWN_SECONDS`: how long a stop may take, from the signal to the exit. */
export const shutdownSecondsConfig = Config.Number("PAYCORE_SHUTDOWN_SECONDS").pipe(
  Config.withDefault(DEFAULT_SHUTDOWN_SECONDS)
)

/** The rate limits `serve` runs with (C-43): `PAYCORE_RATE_LIMIT` and `PAYCORE_AUTH_FAILURE_LIMIT`, `off` for none. */
export const rateLimitsConfig = Effect.gen(function* () {
  const rate = yield* Config.String("PAYCORE_RATE_LIMIT").pipe(Config.withDefault(DEFAULT_RATE_LIMIT))
  const failures = yield* Config.String("PAYCORE_AUTH_FAILURE_LIMIT").pipe(
    Config.withDefault(DEFAULT_AUTH_FAILURE_LIMIT)
  )
  const ratePair = parseLimitPair("PAYCORE_RATE_LIMIT", rate)
  const failurePair = parseLimitPair("PAYCORE_AUTH_FAILURE_LIMIT", failures)
  return {
    rateLimit:
      ratePair === undefined ? undefined : ({ perSecond: ratePair[0], burst: ratePair[1] } satisfies RateLimit),
    authFailureLimit:
      failurePair === undefined
        ? undefined
        : ({ failures: failurePair[0], windowSeconds: failurePair[1] } satisfies AuthFailureLimit)
  }
})

const sendJson = (req: IncomingMessage, res: ServerResponse, status: number, body: unknown): void => {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store"
  })
  res.end(req.method === "HEAD" ? undefined : text)
}

/** What `/readyz` finds missing, by check; empty when the server is ready. */
type NotReady = Record<string, string>

/**
 * The server's life cycle: `answer` takes every request first (it answers the health routes, and keeps count of the
 * requests in flight), `stop` drains them when the server stops.
 */
export const makeLifecycle = (store: Store["Service"]) => {
  let draining = false
  const inFlight = new Set<ServerResponse>()
  // One store probe at a time, shared by the probes that come meanwhile.
  let probe: Promise<NotReady> | undefined
  const probeStore = (): Promise<NotReady> => {
    probe ??= Effect.runPromise(
      store.config.get().pipe(
        Effect.timeoutOption(STORE_PROBE_MILLIS),
        Effect.map(
          (answered): NotReady =>
            Option.isSome(answered) ? {} : { store: `no answer within ${STORE_PROBE_MILLIS} ms` }
        ),
        // The error's text may name the database's host or user: it goes to the log, not to the caller.
        Effect.catchCause((cause) =>
          Effect.as(Effect.logWarning("readiness: the store failed", cause), {
            store: "the store failed (see the log)"
          })
        )
      )
    ).finally(() => {
      probe = undefined
    })
    return probe
  }

  const readiness = (): Promise<NotReady> | NotReady =>
    draining ? { draining: "the server is stopping: it answers what it has and takes no new work" } : probeStore()

  /**
   * Answers `/healthz` (alias `/health`: the process is up) and `/readyz` (ready for traffic: the store answers, and
   * the server is not stopping), without credentials; `true` when it answered. Any other request is counted in flight
   * until its answer is sent; once the server stops, its answer closes its connection.
   */
  const answer = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (draining) res.setHeader("connection", "close")
    if (req.method === "GET" || req.method === "HEAD") {
      const url = req.url ?? "/"
      const query = url.indexOf("?")
      const path = query === -1 ? url : url.slice(0, query)
      if (path === "/healthz" || path === "/health") {
        sendJson(req, res, 200, { ok: true })
        return true
      }
      if (path === "/readyz") {
        const reply = (notReady: NotReady) =>
          Object.keys(notReady).length === 0
            ? sendJson(req, res, 200, { ok: true })
            : sendJson(req, res, 503, { ok: false, notReady })
        const found = readiness()
        if (found instanceof Promise) found.then(reply)
        else reply(found)
        return true
      }
    }
    inFlight.add(res)
    res.once("close", () => inFlight.delete(res))
    return false
  }

  /**
   * The graceful stop: `/readyz` turns 503 at once; the server takes no new connection and closes its idle ones (after
   * a second); the
   * requests in flight are answered, each with `Connection: close`; meanwhile `app.drain` lets the worker finish its
   * pass and the webhook attempts in flight finish. Past `budgetMillis` the connections left are cut (their commands
   * commit or roll back whole: each is one transaction).
   */
  const stop = (server: Server, drainApp: Effect.Effect<void>, budgetMillis: number) =>
    Effect.gen(function* () {
      draining = true
      for (const res of inFlight) if (!res.headersSent) res.setHeader("connection", "close")
      const httpDrained = Effect.callback<void>((resume) => {
        // No new connection. The idle keep-alive ones are closed after a moment, not at once as `http.Server.close`
        // does: a request a client sent on one just before the signal may not be read yet, and would be reset. One
        // that arrives meanwhile is answered, with `Connection: close`.
        netClose.call(server, () => resume(Effect.void))
        const grace = setTimeout(() => server.closeIdleConnections(), Math.min(IDLE_GRACE_MILLIS, budgetMillis / 2))
        return Effect.sync(() => clearTimeout(grace))
      })
      const drained = yield* Effect.forkDetach(Effect.all([httpDrained, drainApp], { concurrency: 2, discard: true }))
      const done = yield* Fiber.await(drained).pipe(Effect.timeoutOption(budgetMillis))
      if (Option.isSome(done)) return
      const cut = inFlight.size
      server.closeAllConnections()
      yield* Effect.sync(() =>
        process.stderr.write(
          `paycore: the stop took longer than ${Math.round(budgetMillis / 1000)} s: ${cut} request(s) cut, background work abandoned\n`
        )
      )
    })

  return { answer, stop }
}
