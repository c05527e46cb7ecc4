/**
 * What a developer's tools read of the API (issue 18, docs/design/dashboard-cli.md section 2): the calling token
 * (`GET /tokens/me`), its request log (`GET /request-log`), the receiver's answer on each delivery attempt
 * (`responseBody`), and the events as Server-Sent Events (`GET /webhooks/stream`), on every store.
 */
import { expect, it } from "vitest"
import { agentOf, asAgent } from "./agent-kit.ts"
import {
  type Credentials,
  expectError,
  expectUnauthorized,
  onboardCustomer,
  startTestServer,
  type TestServer,
  useTestServer
} from "./harness.ts"
import { onEveryStore } from "./stores.ts"

const ENDPOINT = "https://platform.example/hooks"
const OTHER_ENDPOINT = "https://platform.example/other-hooks"

const basic = (auth: Credentials) => `Basic ${Buffer.from(`${auth.clientId}:${auth.clientSecret}`).toString("base64")}`

interface StreamEvent {
  readonly id: string
  readonly event: string
  readonly data: string
}

/** An open `GET /webhooks/stream`: its events one by one as they arrive (comments skipped). */
const openStream = async (
  server: TestServer,
  options: { readonly query?: string; readonly lastEventId?: string } = {}
) => {
  const aborted = new AbortController()
  const response = await fetch(`${server.baseUrl}/webhooks/stream${options.query ?? ""}`, {
    headers: {
      authorization: basic(server.admin),
      ...(options.lastEventId === undefined ? {} : { "last-event-id": options.lastEventId })
    },
    signal: aborted.signal
  })
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toBe("text/event-stream")
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ""
  /** The next block up to a blank line, or `undefined` when the stream ended. */
  const nextBlock = async (): Promise<string | undefined> => {
    while (!buffer.includes("\n\n")) {
      const { done, value } = await reader.read()
      if (done) return undefined
      buffer += value
    }
    const end = buffer.indexOf("\n\n")
    const block = buffer.slice(0, end)
    buffer = buffer.slice(end + 2)
    return block
  }
  return {
    next: async (): Promise<StreamEvent> => {
      while (true) {
        const block = await nextBlock()
        if (block === undefined) throw new Error("the stream ended")
        const fields: Record<string, string> = {}
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue
          const colon = line.indexOf(": ")
          fields[line.slice(0, colon)] = line.slice(colon + 2)
        }
        if (fields.id !== undefined) return { id: fields.id, event: fields.event!, data: fields.data! }
      }
    },
    /** Resolves when the server ends the stream (every event after it is read and dropped). */
    ended: async (): Promise<void> => {
      while ((await nextBlock()) !== undefined) {}
    },
    close: () => aborted.abort()
  }
}

/** A change of the webhook endpoint emits a `TEST` event (P-01); alternating two URLs makes one each time. */
let flips = 0
const emitTestEvent = async (server: TestServer) => {
  flips++
  const patched = await server.call("PATCH", "/config", {
    webhookEndpoint: flips % 2 === 0 ? ENDPOINT : OTHER_ENDPOINT
  })
  expect(patched.status).toBe(200)
}

onEveryStore("issue 18's observation endpoints", "observe_http", (stores) => {
  const server = useTestServer(async () => {}, stores())

  it("GET /tokens/me: the calling token as GET /tokens/{id} shows it, never its secret; agents and no credentials 401", async () => {
    const viewer = await server.token(["VIEW"], "PRODUCTION")
    const me = await server.call("GET", "/tokens/me", undefined, { auth: viewer })
    expect(me.status).toBe(200)
    expect(me.json).toMatchObject({ clientId: viewer.clientId, permissions: ["VIEW"], environment: "PRODUCTION" })
    expect(me.json.clientSecret).toBeUndefined()
    expect(JSON.stringify(me.json)).not.toContain(viewer.clientSecret)
    expect((await server.call("GET", `/tokens/${me.json.id}`)).json).toEqual(me.json)
    const admin = await server.call("GET", "/tokens/me")
    expect(admin.json).toMatchObject({ clientId: server.admin.clientId, permissions: ["VIEW", "TRANSACT", "MANAGE"] })

    expectUnauthorized(await server.call("GET", "/tokens/me", undefined, { auth: null }))
    const customer = await onboardCustomer(server)
    const agent = await agentOf(server, customer.id)
    expectUnauthorized(await asAgent(server, agent)("GET", "/tokens/me"))
  })

  it("GET /request-log: the caller's own requests, newest first, as answered; never a body, query or secret", async () => {
    const writer = await server.token(["TRANSACT"])
    const other = await server.token(["VIEW"])
    const asWriter = { auth: writer }
    // The token's secret sent in a body, a query string and an Idempotency-Key'd write: none of it may be kept.
    const created = await server.call(
      "POST",
      "/customers",
      { customerType: "INDIVIDUAL", fullName: writer.clientSecret, currencies: ["USD"] },
      { ...asWriter, headers: { "idempotency-key": "log-key-1" } }
    )
    expect(created.status).toBe(201)
    const refused = await server.call("POST", "/customers", { customerType: writer.clientSecret }, asWriter)
    expectError(refused, 400, "INVALID_INPUT")
    const query = `/customers?platformCustomerId=${writer.clientSecret}`
    expect((await server.call("GET", query, undefined, asWriter)).status).toBe(200)
    expect((await server.call("GET", "/config", undefined, { auth: other })).status).toBe(200)
    expect((await server.call("GET", "/config", undefined, { auth: null })).status).toBe(401)

    const log = await server.call("GET", "/request-log", undefined, asWriter)
    expect(log.status).toBe(200)
    expect(JSON.stringify(log.json)).not.toContain(writer.clientSecret)
    expect(
      log.json.data.map((e: { method: string; path: string; status: number }) => [e.method, e.path, e.status])
    ).toEqual([
      ["GET", "/2025-10-13/customers", 200],
      ["POST", "/2025-10-13/customers", 400],
      ["POST", "/2025-10-13/customers", 201]
    ])
    const [read, invalid, write] = log.json.data
    expect(read.error).toBeUndefined()
    expect(invalid.error).toEqual(refused.json)
    expect(write).toMatchObject({ idempotencyKey: "log-key-1" })
    expect(write.error).toBeUndefined()
    for (const entry of log.json.data) {
      expect(Date.parse(entry.at)).not.toBeNaN()
      expect(entry.durationMs).toBeGreaterThanOrEqual(0)
    }
    expect(Date.parse(write.at)).toBeLessThanOrEqual(Date.parse(invalid.at))

    // Another token sees its own only; reading the log is not logged; `limit` takes the newest.
    const others = await server.call("GET", "/request-log", undefined, { auth: other })
    expect(others.json.data).toEqual([
      expect.objectContaining({ method: "GET", path: "/2025-10-13/config", status: 200 })
    ])
    expect((await server.call("GET", "/request-log?limit=1", undefined, asWriter)).json.data).toEqual([read])
    expectError(await server.call("GET", "/request-log?limit=0", undefined, asWriter), 400, "INVALID_INPUT")
    expectError(await server.call("GET", "/request-log?limit=201", undefined, asWriter), 400, "INVALID_INPUT")
    expectUnauthorized(await server.call("GET", "/request-log", undefined, { auth: null }))
  })

  it("GET /request-log keeps the last 200 requests of a token", async () => {
    const busy = await server.token(["VIEW"])
    for (let i = 0; i < 205; i++) await server.call("GET", `/tokens/me?n=${i}`, undefined, { auth: busy })
    await server.call("GET", "/config", undefined, { auth: busy })
    const log = await server.call("GET", "/request-log?limit=200", undefined, { auth: busy })
    expect(log.json.data).toHaveLength(200)
    expect(log.json.data[0].path).toBe("/2025-10-13/config")
    expect((await server.call("GET", "/request-log", undefined, { auth: busy })).json.data).toHaveLength(50)
  })

  it("DeliveryAttempt.responseBody: the first 2 KB of the receiver's answer, on each attempt", async () => {
    const long = "é".repeat(1500) // 3000 bytes of UTF-8
    server.webhooks.setResponder(() => ({ status: 500, body: long }))
    await emitTestEvent(server)
    await server.dispatch()
    // A NUL (which PostgreSQL's jsonb refuses) is kept as U+FFFD.
    server.webhooks.setResponder(() => ({ status: 200, body: "ok\u0000" }))
    await emitTestEvent(server)
    await server.dispatch()
    const deliveries = await server.call("GET", "/webhooks/deliveries?type=TEST&limit=2")
    const [answered, refused] = deliveries.json.data
    expect(answered.attempts).toEqual([expect.objectContaining({ responseStatus: 200, responseBody: "ok\ufffd" })])
    expect(refused.attempts).toEqual([expect.objectContaining({ responseStatus: 500, responseBody: "é".repeat(1024) })])
    server.webhooks.setResponder(() => 200)
  })

  it("GET /webhooks/stream: each event as committed, with the exact body delivered; Last-Event-ID resumes", async () => {
    const stream = await openStream(server)
    await emitTestEvent(server)
    const first = await stream.next()
    await emitTestEvent(server)
    const second = await stream.next()
    stream.close()
    expect([first.event, second.event]).toEqual(["TEST", "TEST"])
    expect(first.id < second.id).toBe(true)

    // `data` is the body the webhook URL receives, byte for byte.
    await server.dispatch()
    const delivered = server.webhooks.requests().find((r) => r.headers["webhook-id"] === first.id)
    expect(delivered?.body).toBe(first.data)
    expect(JSON.parse(first.data)).toMatchObject({ id: first.id, type: "TEST" })

    // Resuming after the first sends the second at once, then the live ones.
    const resumed = await openStream(server, { lastEventId: first.id })
    expect(await resumed.next()).toEqual(second)
    await emitTestEvent(server)
    const third = await resumed.next()
    resumed.close()
    expect(third.id > second.id).toBe(true)
    // `?after=` does the same; Last-Event-ID (a reconnecting client's) wins over it.
    const after = await openStream(server, { query: `?after=${encodeURIComponent(second.id)}` })
    expect(await after.next()).toEqual(third)
    after.close()
    const both = await openStream(server, { query: `?after=${encodeURIComponent(first.id)}`, lastEventId: second.id })
    expect(await both.next()).toEqual(third)
    both.close()
  })

  it("GET /webhooks/stream refuses bad input, no credentials and agents", async () => {
    const bad = await server.call("GET", "/webhooks/stream", undefined, { headers: { "last-event-id": "nope" } })
    expectError(bad, 400, "INVALID_INPUT")
    expectError(await server.call("GET", "/webhooks/stream?after=Customer:1"), 400, "INVALID_INPUT")
    expectUnauthorized(await server.call("GET", "/webhooks/stream", undefined, { auth: null }))
    const customer = await onboardCustomer(server)
    const agent = await agentOf(server, customer.id)
    expectUnauthorized(await asAgent(server, agent)("GET", "/webhooks/stream"))
  })

  it("GET /webhooks/stream ends when the server stops, and the server closes", async () => {
    const own = await startTestServer(stores())
    const stream = await openStream(own)
    await emitTestEvent(own)
    expect((await stream.next()).event).toBe("TEST")
    await own.close()
    await stream.ended()
  })
})
