import { createVerify } from "node:crypto"
import { Store } from "@paycore/core"
import { snapshotStore } from "@paycore/testkit"
import { Effect } from "effect"
import { Webhook, WebhookVerificationError } from "standardwebhooks"
import { afterAll, beforeAll, expect, it } from "vitest"
import {
  expectError,
  expectInvalid,
  fundAccount,
  onboardCustomer,
  startTestServer,
  type TestServer
} from "./harness.ts"
import { onEveryStore } from "./stores.ts"

// WH-04 as a receiver sees it: every delivery verifies with the reference `standardwebhooks` package and the
// endpoint's `whsec_` secret (shown once), through a rotation's overlap window, beside the upstream
// `X-Service-Signature`; on every store.

const ENDPOINT = "https://platform.example/webhooks"

const upstreamSignatureValid = (pem: string, body: string, signature: string): boolean =>
  createVerify("SHA256").update(body).verify(pem, Buffer.from(signature, "base64"))

onEveryStore("Standard Webhooks signing secrets", "standard_webhooks", (stores) => {
  let server: TestServer
  let accountId: string
  beforeAll(async () => {
    server = await startTestServer(stores())
    expect((await server.call("PATCH", "/config", { webhookEndpoint: ENDPOINT })).status).toBe(200)
    accountId = (await onboardCustomer(server)).accounts.USD!
  })
  afterAll(() => server.close())

  /** Funds the account (an INCOMING_PAYMENT.COMPLETED event), delivers it; the delivery as the receiver got it. */
  const nextDelivery = async () => {
    const before = server.webhooks.requests().length
    await fundAccount(server, accountId, 100)
    await server.dispatch()
    const sent = server.webhooks.requests().slice(before)
    const delivery = sent.find((r) => JSON.parse(r.body).type === "INCOMING_PAYMENT.COMPLETED")
    expect(delivery, JSON.stringify(sent.map((r) => r.body))).toBeDefined()
    return delivery!
  }

  const receivedBy = (secret: string, delivery: { body: string; headers: Readonly<Record<string, string>> }) =>
    new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>)

  const snapshot = () => Effect.runPromise(snapshotStore({}).pipe(Effect.provideService(Store, server.store)))

  it("WH-04: without a secret, deliveries carry only the upstream signature; GET lists no secret", async () => {
    expect(await server.call("GET", "/webhooks/signing-secrets")).toMatchObject({ status: 200, json: { data: [] } })
    const delivery = await nextDelivery()
    expect(delivery.headers["webhook-signature"]).toBeUndefined()
    expect(upstreamSignatureValid(server.publicKeyPem, delivery.body, delivery.headers["X-Service-Signature"]!)).toBe(
      true
    )
  })

  it("rotate needs MANAGE (403 for VIEW and TRANSACT) and a valid overlap (400); refusals change nothing", async () => {
    const tokens = [await server.token(["VIEW"]), await server.token(["TRANSACT"])]
    const before = await snapshot()
    for (const token of tokens) {
      expectError(await server.call("POST", "/webhooks/signing-secrets/rotate", {}, { auth: token }), 403, "FORBIDDEN")
    }
    for (const overlapSeconds of [-1, 604_801, 1.5, "60"]) {
      expectInvalid(await server.call("POST", "/webhooks/signing-secrets/rotate", { overlapSeconds }), [
        "overlapSeconds"
      ])
    }
    const after = await snapshot()
    expect(after).toEqual(before)
  })

  let first: string
  it("WH-04: the secret is shown once; every delivery verifies with standardwebhooks and with the public key", async () => {
    const created = await server.call("POST", "/webhooks/signing-secrets/rotate", {})
    expect(created.status).toBe(201)
    expect(created.json).toEqual({
      id: expect.stringMatching(/^WebhookSecret:/),
      createdAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/)
    })
    first = created.json.secret
    const listed = await server.call("GET", "/webhooks/signing-secrets")
    expect(listed.json).toEqual({ data: [{ id: created.json.id, createdAt: created.json.createdAt }] })
    expect(JSON.stringify(listed.json)).not.toContain(first.slice(6))

    const delivery = await nextDelivery()
    expect(receivedBy(first, delivery)).toEqual(JSON.parse(delivery.body))
    expect(delivery.headers["webhook-id"]).toBe(JSON.parse(delivery.body).id)
    expect(upstreamSignatureValid(server.publicKeyPem, delivery.body, delivery.headers["X-Service-Signature"]!)).toBe(
      true
    )
    // A changed body, id or timestamp, or another secret, is refused as a receiver would refuse it.
    expect(() => receivedBy(first, { ...delivery, body: `${delivery.body} ` })).toThrow(WebhookVerificationError)
    expect(() =>
      receivedBy(first, { ...delivery, headers: { ...delivery.headers, "webhook-id": "Webhook:other" } })
    ).toThrow(WebhookVerificationError)
    expect(() => receivedBy(`whsec_${Buffer.alloc(32, 3).toString("base64")}`, delivery)).toThrow(
      WebhookVerificationError
    )
  })

  let second: string
  it("WH-04: during a rotation's overlap both secrets verify (deliveries and the sandbox TEST send)", async () => {
    const rotated = await server.call("POST", "/webhooks/signing-secrets/rotate", { overlapSeconds: 3600 })
    expect(rotated.status).toBe(201)
    second = rotated.json.secret
    const listed = (await server.call("GET", "/webhooks/signing-secrets")).json.data
    expect(listed).toHaveLength(2)
    expect(listed[0].id).toBe(rotated.json.id)
    const retiring = Date.parse(listed[1].expiresAt) - Date.parse(rotated.json.createdAt)
    expect(retiring).toBe(3_600_000)

    const delivery = await nextDelivery()
    expect(delivery.headers["webhook-signature"]!.split(" ")).toHaveLength(2)
    expect(receivedBy(first, delivery)).toEqual(JSON.parse(delivery.body))
    expect(receivedBy(second, delivery)).toEqual(JSON.parse(delivery.body))

    const test = await server.call("POST", "/sandbox/webhooks/test")
    expect(test.status).toBe(200)
    const sent = server.webhooks.requests().at(-1)!
    expect(JSON.parse(sent.body).type).toBe("TEST")
    expect(receivedBy(first, sent)).toMatchObject({ type: "TEST" })
    expect(receivedBy(second, sent)).toMatchObject({ type: "TEST" })
  })

  it("WH-04: a rotation without overlap retires the old secrets at once", async () => {
    const rotated = await server.call("POST", "/webhooks/signing-secrets/rotate", { overlapSeconds: 0 })
    expect(rotated.status).toBe(201)
    const third: string = rotated.json.secret
    expect((await server.call("GET", "/webhooks/signing-secrets")).json.data).toEqual([
      { id: rotated.json.id, createdAt: rotated.json.createdAt }
    ])
    const delivery = await nextDelivery()
    expect(receivedBy(third, delivery)).toEqual(JSON.parse(delivery.body))
    for (const retired of [first, second]) {
      expect(() => receivedBy(retired, delivery)).toThrow(WebhookVerificationError)
    }
  })
})
