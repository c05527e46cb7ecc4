/**
 * examples/pay-by-link run against the test server (IN-13, WH-04, WH-11; docs/invitations.md "Pay-by-link"): the
 * platform's webhook endpoint is the program, deliveries go over real HTTP (the fetch transport, each one also kept
 * here so the test can deliver it again or tamper with it). A funded customer invites with an amount, another
 * customer claims with their UMA address, a dispatcher pass delivers `INVITATION.CLAIMED`, and the program pays once.
 */
import { WebhookTransport } from "@paycore/core"
import { makeFetchWebhookTransport } from "@paycore/http"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  balanceIn,
  fundAccount,
  type Onboarded,
  onboardCustomer,
  startTestServer,
  type TestServer
} from "../../../packages/http/test/harness.ts"
import { type PayByLinkServer, startPayByLink } from "../src/pay-by-link.ts"

interface Sent {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

describe("examples/pay-by-link: the platform pays a claimed pay-by-link invitation", () => {
  const sent: Array<Sent> = []
  const fetchTransport = makeFetchWebhookTransport({ timeoutMillis: 10_000 })
  // The engine's deliveries, over HTTP to the program, kept as sent.
  const transport = WebhookTransport.of({
    post: (url, headers, body) =>
      Effect.suspend(() => {
        sent.push({ url, headers: { ...headers }, body })
        return fetchTransport.post(url, headers, body)
      })
  })
  const log: Array<string> = []
  let server: TestServer
  let program: PayByLinkServer
  let inviter: Onboarded
  let invitee: Onboarded
  beforeAll(async () => {
    server = await startTestServer({ extraLayer: Layer.succeed(WebhookTransport, transport) })
    const rotated = await server.call("POST", "/webhooks/signing-secrets/rotate", {})
    expect(rotated.status).toBe(201)
    const token = await server.token(["VIEW", "TRANSACT"])
    program = await startPayByLink({
      baseUrl: server.baseUrl,
      clientId: token.clientId,
      clientSecret: token.clientSecret,
      webhookSecret: rotated.json.secret,
      log: (line) => log.push(line)
    })
    expect((await server.call("PATCH", "/config", { webhookEndpoint: program.url })).status).toBe(200)
    inviter = await onboardCustomer(server)
    invitee = await onboardCustomer(server)
    await fundAccount(server, inviter.accounts.USD!, 100_000)
    await server.dispatch()
  })
  afterAll(async () => {
    await program?.close()
    await server?.close()
  })

  /** The program's outcomes, without the other events it was sent and ignored (`ignored: OUTGOING_PAYMENT.…`). */
  const outcomes = () => log.filter((line) => !/^ignored: [A-Z_]+\.[A-Z_]+$/.test(line))

  const expiresAt = () => new Date(Date.now() + 86_400_000).toISOString()

  /** Creates and claims an invitation of `inviter`, then delivers what is due; the deliveries of its claim. */
  const claimAndDeliver = async (amountToSend?: number, inviteeUma = invitee.umaAddress) => {
    const created = await server.call("POST", "/invitations", {
      inviterUma: inviter.umaAddress,
      expiresAt: expiresAt(),
      ...(amountToSend === undefined ? {} : { amountToSend })
    })
    expect(created.status, JSON.stringify(created.json)).toBe(201)
    const code: string = created.json.code
    const claimed = await server.call("POST", `/invitations/${code}/claim`, { inviteeUma })
    expect(claimed.status, JSON.stringify(claimed.json)).toBe(200)
    const before = sent.length
    log.length = 0
    await server.dispatch()
    const deliveries = sent.slice(before).filter((s) => {
      const event = JSON.parse(s.body)
      return event.type === "INVITATION.CLAIMED" && event.data.code === code
    })
    expect(deliveries).toHaveLength(1)
    return { code, delivery: deliveries[0]! }
  }

  /** POSTs a delivery to the program again, as the engine's at-least-once delivery may. */
  const redeliver = async (delivery: Sent, body = delivery.body) =>
    (await fetch(delivery.url, { method: "POST", headers: delivery.headers, body })).status

  it("IN-13, WH-11: INVITATION.CLAIMED with amountToSend is paid once, to the invitee, whatever the redeliveries", async () => {
    const inviterBefore = await balanceIn(server, inviter.id)
    const inviteeBefore = await balanceIn(server, invitee.id)
    const { code, delivery } = await claimAndDeliver(2_500)
    expect(delivery.headers["webhook-signature"]).toMatch(/^v1,/)
    expect(outcomes()).toEqual([expect.stringMatching(/^paid: quote Quote:\S+, transaction Transaction:\S+$/)])
    await server.processDue()

    const paid = await server.call("GET", `/transactions?customerId=${inviter.id}&type=OUTGOING`)
    const payments = paid.json.data.filter((t: { description?: string }) => t.description?.includes(code))
    expect(payments).toHaveLength(1)
    expect(payments[0]).toMatchObject({ status: "COMPLETED" })
    expect(await balanceIn(server, invitee.id)).toBe(inviteeBefore + 2_500)
    const inviterAfter = await balanceIn(server, inviter.id)
    expect(inviterAfter).toBeLessThanOrEqual(inviterBefore - 2_500)

    // The same event delivered again: the Idempotency-Key replays the first payment, nothing moves.
    log.length = 0
    expect(await redeliver(delivery)).toBe(200)
    expect(outcomes()).toEqual([expect.stringMatching(/\(redelivery\)$/)])
    await server.processDue()
    expect(await balanceIn(server, invitee.id)).toBe(inviteeBefore + 2_500)
    expect(await balanceIn(server, inviter.id)).toBe(inviterAfter)
  })

  it("WH-04: a tampered delivery is refused with 401 and pays nothing", async () => {
    const inviteeBefore = await balanceIn(server, invitee.id)
    const { delivery } = await claimAndDeliver(1_000)
    await server.processDue()
    const paidOnce = await balanceIn(server, invitee.id)
    expect(paidOnce).toBe(inviteeBefore + 1_000)

    log.length = 0
    const event = JSON.parse(delivery.body)
    const tampered = JSON.stringify({
      ...event,
      data: { ...event.data, code: "00000000", amountToSend: { ...event.data.amountToSend, amount: 99_000 } }
    })
    expect(await redeliver(delivery, tampered)).toBe(401)
    const unsigned = { ...delivery, headers: { ...delivery.headers, "webhook-signature": "v1,AAAA" } }
    expect(await redeliver(unsigned)).toBe(401)
    expect(outcomes()).toEqual(["rejected: bad signature", "rejected: bad signature"])
    await server.processDue()
    expect(await balanceIn(server, invitee.id)).toBe(paidOnce)
  })

  it("IN-13, Q-03: an invitee at another VASP is looked up and paid at their UMA address, once", async () => {
    const { code, delivery } = await claimAndDeliver(1_500, "$success.usd@sandbox.uma.money")
    expect(outcomes()).toEqual([expect.stringMatching(/^paid: /)])
    await server.processDue()
    const paidOnce = async () => {
      const paid = await server.call("GET", `/transactions?customerId=${inviter.id}&type=OUTGOING`)
      const payments = paid.json.data.filter((t: { description?: string }) => t.description?.includes(code))
      expect(payments).toHaveLength(1)
      expect(payments[0]).toMatchObject({ status: "COMPLETED" })
      expect(JSON.stringify(payments[0])).toContain("$success.usd@sandbox.uma.money")
    }
    await paidOnce()
    // Delivered again: a new lookup, so the key is reused with another request; nothing is paid twice.
    log.length = 0
    expect(await redeliver(delivery)).toBe(200)
    expect(outcomes()).toEqual(["ignored: paid by an earlier delivery"])
    await server.processDue()
    await paidOnce()
  })

  it("Q-48: a receiver that asks for payer data the program does not hold refuses the payment", async () => {
    await claimAndDeliver(1_500, "$maria@aurorapay.example")
    expect(outcomes()).toEqual(["payment refused: 400 MISSING_MANDATORY_USER_INFO"])
  })

  it("IN-13: an invitation without amountToSend is claimed and nothing is paid", async () => {
    const inviteeBefore = await balanceIn(server, invitee.id)
    await claimAndDeliver()
    expect(outcomes()).toEqual(["ignored: no amountToSend"])
    await server.processDue()
    expect(await balanceIn(server, invitee.id)).toBe(inviteeBefore)
  })
})
