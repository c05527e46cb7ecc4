import { createVerify } from "node:crypto"
import { beforeAll, describe, expect, it } from "vitest"
import { addUsPayee, expectError, fundAccount, onboardCustomer, quoteBody, useTestServer } from "./harness.ts"

// The webhooks group over the real server: signed deliveries of payment events, the public key, the test send,
// the delivery log and replay. `dispatch()` runs the dispatcher once; the recorder answers 200 unless told otherwise.

const ENDPOINT = "https://platform.example/webhooks"
const UNKNOWN_UUID = "00000000-0000-4000-8000-000000000000"

const server = useTestServer()

const verify = (pem: string, message: string, signatureBase64: string): boolean =>
  createVerify("SHA256").update(message).verify(pem, Buffer.from(signatureBase64, "base64"))

const typeOf = (body: string): string => (JSON.parse(body) as { type: string }).type

describe("Before an endpoint is configured", () => {
  it("WH-23: POST /sandbox/webhooks/test → 400 WEBHOOK_ENDPOINT_NOT_SET", async () => {
    expectError(await server.call("POST", "/sandbox/webhooks/test"), 400, "WEBHOOK_ENDPOINT_NOT_SET")
    expect(server.webhooks.requests()).toHaveLength(0)
  })
})

describe("PATCH /config webhookEndpoint", () => {
  it("WH-03 P-01: sets the endpoint; a non-http URL → 400; a VIEW token → 403", async () => {
    const bad = await server.call("PATCH", "/config", { webhookEndpoint: "ftp://platform.example" })
    expectError(bad, 400, "INVALID_INPUT")
    expect(bad.json.details.errors[0].field).toBe("webhookEndpoint")
    const viewer = await server.token(["VIEW"])
    expectError(
      await server.call("PATCH", "/config", { webhookEndpoint: ENDPOINT }, { auth: viewer }),
      403,
      "FORBIDDEN"
    )
    // The first TEST event (sent because the endpoint changed) is answered 500: TEST is never retried.
    server.webhooks.setResponder((request) => (typeOf(request.body) === "TEST" ? 500 : 200))
    const patched = await server.call("PATCH", "/config", { webhookEndpoint: ENDPOINT })
    expect(patched.status).toBe(200)
    expect(patched.json.webhookEndpoint).toBe(ENDPOINT)
    expect((await server.call("GET", "/config")).json.webhookEndpoint).toBe(ENDPOINT)
    await server.dispatch()
    const tests = server.webhooks.requests().filter((r) => typeOf(r.body) === "TEST")
    expect(tests).toHaveLength(1)
    expect(tests[0]!.url).toBe(ENDPOINT)
    server.webhooks.setResponder(() => 200)
  })
})

describe("GET /webhooks/deliveries and replay", () => {
  it("WH-19: a TEST delivery answered 500 is DEAD after its single attempt, with the attempt logged", async () => {
    const dead = await server.call("GET", "/webhooks/deliveries?status=DEAD&type=TEST")
    expect(dead.status).toBe(200)
    expect(dead.json.totalCount).toBe(1)
    const row = dead.json.data[0]
    expect(row).toMatchObject({ type: "TEST", status: "DEAD", event: { type: "TEST", id: row.id } })
    expect(row.attempts).toEqual([expect.objectContaining({ url: ENDPOINT, responseStatus: 500 })])
  })

  it("replay of a DEAD delivery → PENDING, due now; the next dispatch delivers it", async () => {
    const dead = (await server.call("GET", "/webhooks/deliveries?status=DEAD&type=TEST")).json.data[0]
    const replayed = await server.call("POST", `/webhooks/deliveries/${dead.id}/replay`)
    expect(replayed.status).toBe(200)
    expect(replayed.json).toMatchObject({ id: dead.id, status: "PENDING" })
    expect(Date.parse(replayed.json.nextAttemptAt)).toBeLessThanOrEqual(Date.now())
    // Replaying a PENDING delivery leaves it as it is.
    const again = await server.call("POST", `/webhooks/deliveries/${dead.id}/replay`)
    expect(again.status).toBe(200)
    expect(again.json.status).toBe("PENDING")
    await server.dispatch()
    const delivered = await server.call("GET", `/webhooks/deliveries?status=DELIVERED&type=TEST`)
    const row = delivered.json.data.find((d: { id: string }) => d.id === dead.id)
    expect(row.status).toBe("DELIVERED")
    expect(row.attempts.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([500, 200])
    // A delivered event is not replayable.
    expectError(await server.call("POST", `/webhooks/deliveries/${dead.id}/replay`), 409, "WEBHOOK_NOT_DEAD")
  })

  it("replay: unknown id → 404 WEBHOOK_NOT_FOUND; malformed id → 400; VIEW token → 403; no credentials → 401", async () => {
    expectError(
      await server.call("POST", `/webhooks/deliveries/Webhook:${UNKNOWN_UUID}/replay`),
      404,
      "WEBHOOK_NOT_FOUND"
    )
    expectError(await server.call("POST", "/webhooks/deliveries/nope/replay"), 400, "INVALID_INPUT")
    const viewer = await server.token(["VIEW"])
    expectError(
      await server.call("POST", `/webhooks/deliveries/Webhook:${UNKNOWN_UUID}/replay`, undefined, { auth: viewer }),
      403,
      "FORBIDDEN"
    )
    for (const [method, path] of [
      ["GET", "/webhooks/public-key"],
      ["GET", "/webhooks/deliveries"],
      ["POST", `/webhooks/deliveries/Webhook:${UNKNOWN_UUID}/replay`]
    ] as const) {
      const anonymous = await server.call(method, path, undefined, { auth: null })
      expect({ path, status: anonymous.status, code: anonymous.json.code }).toEqual({
        path,
        status: 401,
        code: "UNAUTHORIZED"
      })
    }
  })

  it("deliveries: bad status filter or foreign cursor → 400", async () => {
    expectError(await server.call("GET", "/webhooks/deliveries?status=LOST"), 400, "INVALID_INPUT")
    expectError(await server.call("GET", "/webhooks/deliveries?cursor=bogus"), 400, "INVALID_INPUT")
  })
})

describe("A payment's webhooks", () => {
  let transactionId: string
  let fundingId: string
  beforeAll(async () => {
    server.webhooks.reset()
    const customer = await onboardCustomer(server)
    const account = customer.accounts.USD!
    await fundAccount(server, account, 10_000)
    const incoming = await server.call("GET", `/transactions?customerId=${customer.id}&type=INCOMING`)
    fundingId = incoming.json.data[0].id
    const payee = await addUsPayee(server, customer.id)
    const quote = await server.call("POST", "/quotes", quoteBody(account, payee, 2_500))
    transactionId = quote.json.transactionId
    expect((await server.call("POST", `/quotes/${quote.json.id}/execute`)).status).toBe(200)
    await server.processDue()
    await server.dispatch()
  })

  const requestsFor = (id: string) =>
    server.webhooks.requests().filter((r) => (JSON.parse(r.body) as { data: { id?: string } }).data.id === id)

  it("WH-06 Q-28 Q-29: OUTGOING_PAYMENT.PENDING, .PROCESSING, .COMPLETED for the transaction, in that order", async () => {
    const events = requestsFor(transactionId).map((r) => JSON.parse(r.body))
    expect(events.map((e) => e.type)).toEqual([
      "OUTGOING_PAYMENT.PENDING",
      "OUTGOING_PAYMENT.PROCESSING",
      "OUTGOING_PAYMENT.COMPLETED"
    ])
    expect(events.map((e) => e.data.status)).toEqual(["PENDING", "PROCESSING", "COMPLETED"])
    for (const e of events) {
      expect(e.id).toMatch(/^Webhook:[0-9a-f-]{36}$/)
      expect(Date.parse(e.timestamp)).not.toBeNaN()
      expect(e.data.sentAmount.amount).toBe(2_500)
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(3)
    expect(Date.parse(events[2].data.settledAt)).not.toBeNaN()
    expect(requestsFor(fundingId).map((r) => typeOf(r.body))).toEqual(["INCOMING_PAYMENT.COMPLETED"])
  })

  it("WH-04: GET /webhooks/public-key is the signer's PEM; X-Service-Signature verifies over the exact body", async () => {
    const key = await server.call("GET", "/webhooks/public-key")
    expect(key.status).toBe(200)
    expect(key.json.publicKey).toBe(server.publicKeyPem)
    expect(key.json.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n$/)
    const requests = requestsFor(transactionId)
    expect(requests).toHaveLength(3)
    for (const r of requests) {
      expect(r.headers["Content-Type"]).toBe("application/json")
      const signature = r.headers["X-Service-Signature"]!
      expect(verify(key.json.publicKey, r.body, signature)).toBe(true)
      // Any change to the body breaks it.
      const tampered = r.body.replace('"amount":2500', '"amount":2501')
      expect(tampered).not.toBe(r.body)
      expect(verify(key.json.publicKey, tampered, signature)).toBe(false)
      expect(verify(key.json.publicKey, `${r.body} `, signature)).toBe(false)
    }
  })

  // The v1 signatures are checked in standard-webhooks.http.test.ts (this server has no signing secret yet).
  it("WH-20, WH-04: Standard Webhooks headers: webhook-id is the event id, webhook-timestamp the send time", async () => {
    for (const r of requestsFor(transactionId)) {
      expect(r.headers["webhook-id"]).toBe(JSON.parse(r.body).id)
      const timestamp = r.headers["webhook-timestamp"]!
      expect(timestamp).toMatch(/^\d+$/)
      expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(300)
      expect(r.headers["webhook-signature"]).toBeUndefined()
    }
  })

  it("GET /webhooks/deliveries lists the transaction's deliveries with their attempts", async () => {
    const listed = await server.call("GET", `/webhooks/deliveries?subject=${encodeURIComponent(transactionId)}`)
    expect(listed.status).toBe(200)
    expect(listed.json.totalCount).toBe(3)
    const rows = [...listed.json.data].sort((a, b) => a.sequence - b.sequence)
    expect(rows.map((d) => [d.sequence, d.type, d.status])).toEqual([
      [1, "OUTGOING_PAYMENT.PENDING", "DELIVERED"],
      [2, "OUTGOING_PAYMENT.PROCESSING", "DELIVERED"],
      [3, "OUTGOING_PAYMENT.COMPLETED", "DELIVERED"]
    ])
    for (const d of rows) {
      expect(d.subject).toBe(transactionId)
      expect(d.attempts).toEqual([expect.objectContaining({ url: ENDPOINT, responseStatus: 200 })])
      const sent = requestsFor(transactionId).find((r) => JSON.parse(r.body).id === d.id)!
      expect(d.event).toEqual(JSON.parse(sent.body))
    }
    const paged = await server.call("GET", `/webhooks/deliveries?subject=${encodeURIComponent(transactionId)}&limit=2`)
    expect(paged.json).toMatchObject({ hasMore: true, totalCount: 3 })
    expect(paged.json.data).toHaveLength(2)
    const rest = await server.call(
      "GET",
      `/webhooks/deliveries?subject=${encodeURIComponent(transactionId)}&limit=2&cursor=${encodeURIComponent(paged.json.nextCursor)}`
    )
    expect(rest.json.data).toHaveLength(1)
    const byType = await server.call("GET", "/webhooks/deliveries?type=OUTGOING_PAYMENT.COMPLETED")
    expect(byType.json.data.every((d: { type: string }) => d.type === "OUTGOING_PAYMENT.COMPLETED")).toBe(true)
    expect(byType.json.data.map((d: { subject: string }) => d.subject)).toContain(transactionId)
  })

  it("WH-19: a dispatch with nothing due sends nothing more", async () => {
    const before = server.webhooks.requests().length
    await server.dispatch()
    expect(server.webhooks.requests()).toHaveLength(before)
  })
})

describe("Failure and transfer-in webhooks", () => {
  it("Q-30 WH-07: a failed payout (…002) → PENDING, PROCESSING, FAILED, REFUND_PENDING, REFUND_COMPLETED with refund data", async () => {
    const customer = await onboardCustomer(server)
    const account = customer.accounts.USD!
    await fundAccount(server, account, 10_000)
    const failing = await addUsPayee(server, customer.id, { accountNumber: "777000002" })
    const quote = await server.call("POST", "/quotes", quoteBody(account, failing, 1_000, { immediatelyExecute: true }))
    expect(quote.status).toBe(201)
    await server.processDue()
    await server.dispatch()
    const events = server.webhooks
      .events()
      .filter((e) => (e.data as { id: string }).id === quote.json.transactionId) as Array<{
      type: string
      data: { status: string; failureReason?: string; refund?: { status: string } }
    }>
    expect(events.map((e) => e.type)).toEqual([
      "OUTGOING_PAYMENT.PENDING",
      "OUTGOING_PAYMENT.PROCESSING",
      "OUTGOING_PAYMENT.FAILED",
      "OUTGOING_PAYMENT.REFUND_PENDING",
      "OUTGOING_PAYMENT.REFUND_COMPLETED"
    ])
    expect(events[2]!.data).toMatchObject({ status: "FAILED", failureReason: "QUOTE_EXECUTION_FAILED" })
    expect(events[3]!.data.refund?.status).toBe("PENDING")
    expect(events[4]!.data.refund?.status).toBe("COMPLETED")
  })

  it("WH-05: a transfer-in → INCOMING_PAYMENT.PENDING then INCOMING_PAYMENT.COMPLETED", async () => {
    const customer = await onboardCustomer(server)
    const source = await addUsPayee(server, customer.id, { fullName: "Ada Lovelace" })
    const pulled = await server.call("POST", "/transfer-in", {
      source: { accountId: source },
      destination: { accountId: customer.accounts.USD! },
      amount: 4_000
    })
    expect(pulled.status).toBe(201)
    await server.processDue()
    await server.dispatch()
    const types = server.webhooks
      .events()
      .filter((e) => (e.data as { id: string }).id === pulled.json.id)
      .map((e) => e.type)
    expect(types).toEqual(["INCOMING_PAYMENT.PENDING", "INCOMING_PAYMENT.COMPLETED"])
  })

  it("WH-03: PATCH /config with the same endpoint sends no new TEST event", async () => {
    const before = (await server.call("GET", "/webhooks/deliveries?type=TEST")).json.totalCount
    expect((await server.call("PATCH", "/config", { webhookEndpoint: ENDPOINT })).status).toBe(200)
    expect((await server.call("GET", "/webhooks/deliveries?type=TEST")).json.totalCount).toBe(before)
  })
})

describe("POST /sandbox/webhooks/test", () => {
  it("WH-23: sends a signed TEST event and reports {url, response_status, response_body}", async () => {
    server.webhooks.reset()
    server.webhooks.enqueue({ status: 202, body: "thanks" })
    const sent = await server.call("POST", "/sandbox/webhooks/test")
    expect(sent.status).toBe(200)
    expect(sent.json).toEqual({ url: ENDPOINT, response_status: 202, response_body: "thanks" })
    const [request] = server.webhooks.requests()
    expect(request!.url).toBe(ENDPOINT)
    expect(JSON.parse(request!.body)).toMatchObject({ type: "TEST", data: {} })
    expect(verify(server.publicKeyPem, request!.body, request!.headers["X-Service-Signature"]!)).toBe(true)
    // Not stored: the delivery log has no row for it.
    const id = JSON.parse(request!.body).id
    const listed = await server.call("GET", "/webhooks/deliveries?type=TEST")
    expect(listed.json.data.map((d: { id: string }) => d.id)).not.toContain(id)
  })

  it("WH-23: a receiver error status is reported, not raised; a transport failure → 400 WEBHOOK_DELIVERY_ERROR", async () => {
    server.webhooks.enqueue({ status: 500, body: "boom" })
    const failed = await server.call("POST", "/sandbox/webhooks/test")
    expect(failed.status).toBe(200)
    expect(failed.json).toEqual({ url: ENDPOINT, response_status: 500, response_body: "boom" })
    server.webhooks.enqueue({ error: "connection refused" })
    const unreachable = await server.call("POST", "/sandbox/webhooks/test")
    expectError(unreachable, 400, "WEBHOOK_DELIVERY_ERROR")
    expect(unreachable.json.details).toEqual({ url: ENDPOINT, reason: "connection refused" })
  })

  it("SB-02: a PRODUCTION token → 403; a VIEW token → 403; nothing sent", async () => {
    const before = server.webhooks.requests().length
    const production = await server.token(["VIEW", "TRANSACT", "MANAGE"], "PRODUCTION")
    expectError(await server.call("POST", "/sandbox/webhooks/test", undefined, { auth: production }), 403, "FORBIDDEN")
    const viewer = await server.token(["VIEW"])
    expectError(await server.call("POST", "/sandbox/webhooks/test", undefined, { auth: viewer }), 403, "FORBIDDEN")
    expect(server.webhooks.requests()).toHaveLength(before)
  })
})
