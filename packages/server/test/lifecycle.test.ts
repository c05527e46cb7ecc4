/**
 * The server's life outside the API (issue 33 items 5 and 6), in process: `/healthz` and `/readyz` without
 * credentials, and the graceful stop's steps on a real `node:http` server (the whole process, signal to exit code, is
 * examples/server/test/shutdown.test.ts).
 */
import { Agent, createServer, request, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { Store } from "@paycore/core"
import { Effect } from "effect"
import { afterEach, describe, expect, it, vi } from "vitest"
import { makeLifecycle } from "../src/lifecycle.ts"

type Answer = { status: number; body: any; connection: string | undefined }

const get = (origin: string, path: string, agent?: Agent) =>
  new Promise<Answer>((resolve, reject) => {
    const req = request(`${origin}${path}`, agent === undefined ? {} : { agent }, (res) => {
      let body = ""
      res.on("data", (chunk) => {
        body += chunk
      })
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          body: body === "" ? undefined : JSON.parse(body),
          connection: res.headers.connection
        })
      )
    })
    req.on("error", reject)
    req.end()
  })

/** A store whose `config.get` answers as told: only what `/readyz` asks of it. */
const storeAnswering = (config: () => Effect.Effect<unknown, unknown>) =>
  ({ config: { get: config } }) as unknown as Store["Service"]

const servers: Array<Server> = []
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    server.close()
  }
})

/** A server answering the lifecycle's routes, and anything else 200 after `holdMillis` (never for `Infinity`). */
const start = async (store: Store["Service"], holdMillis = 0) => {
  const lifecycle = makeLifecycle(store)
  const server = createServer((req, res) => {
    if (lifecycle.answer(req, res)) return
    if (!Number.isFinite(holdMillis)) return
    setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end('{"done":true}'), holdMillis)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { lifecycle, server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

describe("health checks (issue 33 item 5)", () => {
  it("/healthz and /health answer 200 {ok:true} without credentials; /readyz 200 when the store answers", async () => {
    const { origin } = await start(storeAnswering(() => Effect.succeed(undefined)))
    for (const path of ["/healthz", "/health", "/readyz", "/readyz?verbose=1"]) {
      expect(await get(origin, path), path).toMatchObject({ status: 200, body: { ok: true } })
    }
  })

  it("/readyz is 503 naming the store when the store fails, without the store's error text", async () => {
    const { origin } = await start(
      storeAnswering(() => Effect.fail(new Error("connect ECONNREFUSED db.internal:5432 user=paycore")))
    )
    const answer = await get(origin, "/readyz")
    expect(answer.status).toBe(503)
    expect(answer.body).toEqual({ ok: false, notReady: { store: "the store failed (see the log)" } })
    expect(JSON.stringify(answer.body)).not.toContain("db.internal")
    // The process is up all the same.
    expect((await get(origin, "/healthz")).status).toBe(200)
  })
})

describe("the graceful stop (issue 33 item 6)", () => {
  it("readiness turns 503 at once; a request in flight is answered with Connection: close; the app drains; the server closes", async () => {
    const { lifecycle, server, origin } = await start(
      storeAnswering(() => Effect.succeed(undefined)),
      300
    )
    const agent = new Agent({ keepAlive: true, maxSockets: 2 })
    expect((await get(origin, "/readyz", agent)).connection).toBe("keep-alive")
    const inFlight = get(origin, "/customers", agent)
    await new Promise((r) => setTimeout(r, 50))
    let appDrained = false
    const stopped = Effect.runPromise(
      lifecycle.stop(
        server,
        Effect.sync(() => (appDrained = true)),
        10_000
      )
    )
    const readiness = await get(origin, "/readyz", agent)
    expect(readiness).toEqual({
      status: 503,
      body: { ok: false, notReady: { draining: expect.any(String) } },
      connection: "close"
    })
    expect(await inFlight).toEqual({ status: 200, body: { done: true }, connection: "close" })
    await stopped
    expect(appDrained).toBe(true)
    expect(server.listening).toBe(false)
    await expect(get(origin, "/healthz")).rejects.toThrow()
  })

  it("past its budget the stop cuts the requests left and says how many", async () => {
    const { lifecycle, server, origin } = await start(
      storeAnswering(() => Effect.succeed(undefined)),
      Number.POSITIVE_INFINITY
    )
    const hanging = get(origin, "/hangs").then(
      () => "answered",
      () => "cut"
    )
    await new Promise((r) => setTimeout(r, 50))
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true)
    try {
      await Effect.runPromise(lifecycle.stop(server, Effect.void, 200))
      expect(await hanging).toBe("cut")
      expect(stderr.mock.calls.map(([text]) => String(text)).join("")).toContain("1 request(s) cut")
    } finally {
      stderr.mockRestore()
    }
  })
})
