/**
 * A host's own `node:http` server with paycore inside it: the HTTP binding mounted under `/payments` behind the host's
 * own bearer-token check, the host's routes beside it, the worker and the webhook dispatcher in the same process, and
 * a graceful shutdown.
 */
import { timingSafeEqual } from "node:crypto"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, ManagedRuntime } from "effect"
import {
  type DatabaseConfig,
  type EngineOptions,
  migrateDatabase,
  openDatabase,
  PaycoreHttp,
  paycoreLayer,
  platformAuthorization
} from "./paycore.ts"

export interface HostConfig extends DatabaseConfig, EngineOptions {
  /** Listen on 127.0.0.1 at this port (0: a free one). */
  readonly port: number
  /** The bearer token the host's callers present: your own authentication stands here. */
  readonly apiToken: string
  /** The client secret of the platform token the host speaks to paycore with (see `platformAuthorization`). */
  readonly paycoreSecret: string
  /** Apply the migrations at start: for an in-memory PGlite, which starts empty. A server is migrated per deployment. */
  readonly migrateAtStart?: boolean | undefined
}

export interface RunningHost {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  /** The graceful shutdown: requests in flight finish, the workers stop, the pool closes. */
  readonly close: () => Promise<void>
}

/** Where the host mounts paycore: its API is at `/payments/2025-10-13/…`. */
export const PREFIX = "/payments"

/** The host's check of a caller: here one static bearer token, compared in constant time. */
const authorized = (req: IncomingMessage, apiToken: string): boolean => {
  const given = Buffer.from(req.headers.authorization ?? "")
  const expected = Buffer.from(`Bearer ${apiToken}`)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

export const startHost = async (config: HostConfig): Promise<RunningHost> => {
  const db = openDatabase(config)
  if (config.migrateAtStart === true) await migrateDatabase(db, config.schema)
  const runtime = ManagedRuntime.make(paycoreLayer(db, config))
  const paycore = await runtime.runPromise(Effect.service(PaycoreHttp))
  const paycoreAuthorization = await platformAuthorization(runtime, config.paycoreSecret)

  const server = createServer((req, res) => {
    const url = req.url ?? "/"
    if (url === PREFIX || url.startsWith(`${PREFIX}/`)) {
      if (!authorized(req, config.apiToken)) {
        res.writeHead(401, { "content-type": "application/json", "www-authenticate": 'Bearer realm="host"' })
        res.end(JSON.stringify({ error: "unauthorized", by: "host" }))
        return
      }
      req.url = url.slice(PREFIX.length) || "/" // the binding routes /2025-10-13/…
      req.headers.authorization = paycoreAuthorization // the caller passed your check: it acts as your platform
      paycore.listener(req, res)
      return
    }
    if (req.method === "GET" && url === "/health") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true }))
      return
    }
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found", by: "host" }))
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(config.port, "127.0.0.1", resolve)
  })

  const close = async () => {
    // 1. No new connections; requests in flight finish. Open event streams (GET /webhooks/stream) are cut after 10 s.
    const deadline = setTimeout(() => server.closeAllConnections(), 10_000)
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeIdleConnections()
    })
    clearTimeout(deadline)
    // 2. The worker and the dispatcher stop: a step cut short rolls back and stays due for the next pass, anywhere.
    await runtime.dispose()
    // 3. The pool closes.
    await db.destroy()
  }
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close }
}
