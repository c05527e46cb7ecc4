/**
 * Actions on transactions over HTTP (issue 17 slice D; docs/design/invitations-stablecoins.md sections 1 and 3,
 * docs/transactions.md), on every store:
 * - `POST /transactions/{id}/confirm`: receipt delivery, default now, again = update, 400s, 404;
 * - `POST /transactions/{id}/cancel` (WH-07): an unsettled ACH payout fails with a `USER_CANCELLATION` refund, its
 *   holds voided, three events in order; RTP, settled, incoming, already cancelled → 409;
 * - `POST /sandbox/transactions/{id}/return` (WH-08): a returned deposit's two refund events, the balance down;
 *   409 when the account no longer holds it; 403 with a production token;
 * - incoming approvals (WH-21, Q-37): the reply to `INCOMING_PAYMENT.PENDING` decides (200, 403, 422, 500, no
 *   answer, 202 then the API), the deadline fails it; approve / reject of a decided payment 409 with
 *   `details.status`; credited exactly once or never.
 *
 * Two servers per store: the harness's (the sandbox rail settles at once: settled payouts) and one whose rail keeps
 * the spec's timing (an ACH payout stays unsettled for two days: cancellable) with incoming approvals on.
 */
import { SandboxRail } from "@paycore/sandbox"
import type { RecorderAnswer } from "@paycore/testkit"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { eventsAbout } from "./agent-actions-kit.ts"
import {
  addUsPayee,
  balanceIn,
  expectError,
  fundAccount,
  type Onboarded,
  onboardCustomer,
  quoteBody,
  type TestServer,
  useTestServer
} from "./harness.ts"
import { onEveryStore } from "./stores.ts"

const APPROVAL = { replySeconds: 5, decisionSeconds: 60 }
const UNKNOWN_TRANSACTION = "Transaction:01234567-89ab-7def-8123-456789abcdef"

const getTx = async (server: TestServer, id: string) => {
  const r = await server.call("GET", `/transactions/${id}`)
  expect(r.status).toBe(200)
  return r.json
}

const eventTypes = async (server: TestServer, id: string) => (await eventsAbout(server, id)).map((e) => e.type)

/** Executes a payout of `amount` from the customer's USD account to `payee` (ACH unless `paymentRail`); its id. */
const payOut = async (server: TestServer, payer: Onboarded, payee: string, amount: number, paymentRail = "ACH") => {
  // The rail is named: left to the sandbox, a US payee is paid over RTP (its fastest rail), which nothing can cancel.
  const quote = await server.call(
    "POST",
    "/quotes",
    quoteBody(payer.accounts.USD!, payee, amount, {
      immediatelyExecute: true,
      destination: { destinationType: "ACCOUNT", accountId: payee, paymentRail }
    })
  )
  expect(quote.status).toBe(201)
  return quote.json.transactionId as string
}

/** The newest incoming payment into an account. */
const lastIncoming = async (server: TestServer, accountId: string) => {
  const r = await server.call("GET", `/transactions?accountIdentifier=${accountId}&type=INCOMING&limit=1`)
  expect(r.status).toBe(200)
  return r.json.data[0] as { id: string; status: string }
}

onEveryStore("transaction actions", "transaction_actions_http", (stores) => {
  describe("the sandbox rail settling at once", () => {
    let payer: Onboarded
    let payee: string
    const server = useTestServer(async (s) => {
      payer = await onboardCustomer(s)
      payee = await addUsPayee(s, payer.id)
      await fundAccount(s, payer.accounts.USD!, 100_000)
    }, stores())

    // ---- confirm (Q-32) ----

    it("Q-32: confirm sets receiptDeliveryConfirmedAt (default now), a second confirm updates it; no event", async () => {
      const id = await payOut(server, payer, payee, 1_000)
      const before = Date.now()
      const first = await server.call("POST", `/transactions/${id}/confirm`)
      expect(first.status).toBe(200)
      const at = Date.parse(first.json.receiptDeliveryConfirmedAt)
      expect(at).toBeGreaterThanOrEqual(before - 1000)
      expect(at).toBeLessThanOrEqual(Date.now())
      expect(first.json.updatedAt).toBe(first.json.receiptDeliveryConfirmedAt)
      const events = await eventTypes(server, id)
      const earlier = "2025-08-15T14:31:00Z"
      const second = await server.call("POST", `/transactions/${id}/confirm`, { receiptDeliveryConfirmedAt: earlier })
      expect(second.status).toBe(200)
      expect(second.json.receiptDeliveryConfirmedAt).toBe("2025-08-15T14:31:00.000Z")
      expect((await getTx(server, id)).receiptDeliveryConfirmedAt).toBe("2025-08-15T14:31:00.000Z")
      expect(await eventTypes(server, id)).toEqual(events)
    })

    it("Q-32: confirm of a future instant or a card transaction 400, of an unknown payment 404", async () => {
      const id = await payOut(server, payer, payee, 1_000)
      const future = new Date(Date.now() + 3_600_000).toISOString()
      const r = await server.call("POST", `/transactions/${id}/confirm`, { receiptDeliveryConfirmedAt: future })
      expectError(r, 400, "INVALID_INPUT")
      expect(r.json.details.errors[0].field).toBe("receiptDeliveryConfirmedAt")
      expect((await getTx(server, id)).receiptDeliveryConfirmedAt).toBeUndefined()
      const card = await server.call(
        "POST",
        "/transactions/CardTransaction:01234567-89ab-7def-8123-456789abcdef/confirm"
      )
      expectError(card, 400, "INVALID_INPUT")
      expectError(
        await server.call("POST", `/transactions/${UNKNOWN_TRANSACTION}/confirm`),
        404,
        "TRANSACTION_NOT_FOUND"
      )
    })

    // ---- cancel: what cannot be cancelled (WH-07) ----

    it("WH-07: a settled ACH payout, an RTP payout, an incoming payment → 409 TRANSACTION_NOT_CANCELLABLE; unknown 404", async () => {
      const settled = await payOut(server, payer, payee, 1_000)
      await server.processDue()
      expect((await getTx(server, settled)).status).toBe("COMPLETED")
      const r = await server.call("POST", `/transactions/${settled}/cancel`)
      expectError(r, 409, "TRANSACTION_NOT_CANCELLABLE")
      expect(r.json.details).toEqual({ status: "COMPLETED", paymentRail: "ACH" })

      const rtp = await payOut(server, payer, payee, 1_000, "RTP")
      const rtpCancel = await server.call("POST", `/transactions/${rtp}/cancel`, { reason: "REQUESTED_AFTER_HOURS" })
      expectError(rtpCancel, 409, "TRANSACTION_NOT_CANCELLABLE")
      expect(rtpCancel.json.details.paymentRail).toBe("RTP")

      const incoming = await lastIncoming(server, payer.accounts.USD!)
      const inCancel = await server.call("POST", `/transactions/${incoming.id}/cancel`)
      expectError(inCancel, 409, "TRANSACTION_NOT_CANCELLABLE")
      expect(inCancel.json.details).toEqual({ status: "COMPLETED" })
      expectError(
        await server.call("POST", `/transactions/${UNKNOWN_TRANSACTION}/cancel`),
        404,
        "TRANSACTION_NOT_FOUND"
      )
    })

    it("WH-07: an ACH payout the rail has processed (not yet polled) → 409; the payment then settles as usual", async () => {
      const before = await balanceIn(server, payer.id)
      const id = await payOut(server, payer, payee, 1_000)
      const r = await server.call("POST", `/transactions/${id}/cancel`)
      expectError(r, 409, "TRANSACTION_NOT_CANCELLABLE")
      expect(r.json.details).toEqual({ status: "PROCESSING", paymentRail: "ACH" })
      await server.processDue()
      expect((await getTx(server, id)).status).toBe("COMPLETED")
      expect(await balanceIn(server, payer.id)).toBe(before - 1_000)
    })

    // ---- returned deposits (WH-08) ----

    it("WH-08: a returned deposit: COMPLETED with refund PENDING, the amount held at once, then REFUND_COMPLETED", async () => {
      const customer = await onboardCustomer(server)
      await fundAccount(server, customer.accounts.USD!, 7_000)
      const deposit = await lastIncoming(server, customer.accounts.USD!)
      const r = await server.call("POST", `/sandbox/transactions/${deposit.id}/return`)
      expect(r.status).toBe(200)
      expect(r.json).toMatchObject({
        id: deposit.id,
        status: "COMPLETED",
        refund: { reference: `${deposit.id}:refund`, status: "PENDING", reason: "TRANSACTION_FAILED" }
      })
      expect(await balanceIn(server, customer.id)).toBe(0)
      await server.processDue()
      const after = await getTx(server, deposit.id)
      expect(after).toMatchObject({ status: "COMPLETED", refund: { status: "COMPLETED" } })
      expect(after.refund.settledAt).toEqual(expect.any(String))
      expect(await balanceIn(server, customer.id)).toBe(0)
      expect(await eventTypes(server, deposit.id)).toEqual([
        "INCOMING_PAYMENT.COMPLETED",
        "INCOMING_PAYMENT.REFUND_PENDING",
        "INCOMING_PAYMENT.REFUND_COMPLETED"
      ])
      // Returned once: a second return is a conflict.
      const again = await server.call("POST", `/sandbox/transactions/${deposit.id}/return`)
      expectError(again, 409, "CONFLICT")
      expect(again.json.details).toEqual({ status: "COMPLETED" })
    })

    it("WH-08: the account no longer holds the deposit → 409 and nothing moves; a payout → 409; production 403; 404", async () => {
      const customer = await onboardCustomer(server)
      const own = await addUsPayee(server, customer.id)
      await fundAccount(server, customer.accounts.USD!, 1_000)
      await fundAccount(server, customer.accounts.USD!, 1_000)
      const deposit = await lastIncoming(server, customer.accounts.USD!)
      const payout = await payOut(server, customer, own, 1_500)
      expect(await balanceIn(server, customer.id)).toBe(500)
      const r = await server.call("POST", `/sandbox/transactions/${deposit.id}/return`)
      expectError(r, 409, "CONFLICT")
      expect(await balanceIn(server, customer.id)).toBe(500)
      expect((await getTx(server, deposit.id)).refund).toBeUndefined()
      expectError(await server.call("POST", `/sandbox/transactions/${payout}/return`), 409, "CONFLICT")
      const production = await server.token(["VIEW", "TRANSACT", "MANAGE"], "PRODUCTION")
      const refused = await server.call("POST", `/sandbox/transactions/${deposit.id}/return`, undefined, {
        auth: production
      })
      expect(refused.status).toBe(403)
      expectError(
        await server.call("POST", `/sandbox/transactions/${UNKNOWN_TRANSACTION}/return`),
        404,
        "TRANSACTION_NOT_FOUND"
      )
    })

    it("WH-21: approvals off (the default): an UMA payment credits at once; approve / reject → 409 with details.status", async () => {
      const customer = await onboardCustomer(server)
      const r = await server.call("POST", "/sandbox/uma/receive", {
        senderUmaAddress: "$alice@sandbox.uma.money",
        customerId: customer.id,
        receivingCurrencyCode: "USD",
        receivingCurrencyAmount: 1_234
      })
      expect(r.status).toBe(200)
      expect(r.json.status).toBe("COMPLETED")
      expect(await balanceIn(server, customer.id)).toBe(1_234)
      for (const action of ["approve", "reject"]) {
        const refused = await server.call("POST", `/transactions/${r.json.id}/${action}`)
        expectError(refused, 409, "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
        expect(refused.json.details).toEqual({ status: "COMPLETED" })
      }
    })
  })

  describe("a rail on the spec's timing, incoming approvals on", () => {
    let payer: Onboarded
    let payee: string
    const server = useTestServer(
      async (s) => {
        payer = await onboardCustomer(s)
        payee = await addUsPayee(s, payer.id)
        await fundAccount(s, payer.accounts.USD!, 100_000)
        const config = await s.call("PATCH", "/config", { webhookEndpoint: "https://platform.example/hooks" })
        expect(config.status).toBe(200)
      },
      { ...stores(), extraLayer: SandboxRail({ speedUp: 1 }), settings: { incomingApproval: APPROVAL } }
    )

    // ---- cancel (WH-07) ----

    it("WH-07: cancel of an unsettled ACH payout: FAILED, refund USER_CANCELLATION COMPLETED, holds voided, three events in order", async () => {
      const before = await balanceIn(server, payer.id)
      const id = await payOut(server, payer, payee, 2_500)
      expect(await balanceIn(server, payer.id)).toBe(before - 2_500)
      expect((await getTx(server, id)).status).toBe("PROCESSING")
      const r = await server.call("POST", `/transactions/${id}/cancel`, { reason: "REQUESTED_AFTER_HOURS" })
      expect(r.status).toBe(200)
      expect(r.json).toMatchObject({
        id,
        status: "FAILED",
        failureReason: "QUOTE_EXECUTION_FAILED",
        refund: { reference: `${id}:refund`, status: "COMPLETED", reason: "USER_CANCELLATION" }
      })
      expect(await balanceIn(server, payer.id)).toBe(before)
      const transfers = await Effect.runPromise(server.store.ledger.transfers(id))
      expect(transfers.length).toBeGreaterThan(0)
      expect(transfers.every((t) => t.state === "VOIDED")).toBe(true)
      expect(await eventTypes(server, id)).toEqual([
        "OUTGOING_PAYMENT.PENDING",
        "OUTGOING_PAYMENT.PROCESSING",
        "OUTGOING_PAYMENT.FAILED",
        "OUTGOING_PAYMENT.REFUND_PENDING",
        "OUTGOING_PAYMENT.REFUND_COMPLETED"
      ])
      const quote = await server.call("GET", `/quotes/${r.json.quoteId}`)
      expect(quote.json.status).toBe("FAILED")
      // Cancelled once: again → 409, nothing moves; the worker leaves it alone.
      const again = await server.call("POST", `/transactions/${id}/cancel`)
      expectError(again, 409, "TRANSACTION_NOT_CANCELLABLE")
      expect(again.json.details).toEqual({ status: "FAILED", paymentRail: "ACH" })
      await server.processDue()
      expect(await balanceIn(server, payer.id)).toBe(before)
      expect((await eventTypes(server, id)).length).toBe(5)
    })

    // ---- incoming approvals (WH-21) ----

    const receive = async (amount: number) => {
      const customer = await onboardCustomer(server)
      const r = await server.call("POST", "/sandbox/uma/receive", {
        senderUmaAddress: "$alice@sandbox.uma.money",
        customerId: customer.id,
        receivingCurrencyCode: "USD",
        receivingCurrencyAmount: amount
      })
      expect(r.status).toBe(200)
      expect(r.json.status).toBe("PENDING")
      expect(await balanceIn(server, customer.id)).toBe(0)
      return { customer, id: r.json.id as string }
    }

    /** Delivers the due webhooks; the payment's INCOMING_PAYMENT.PENDING gets `answer`, the others 200. */
    const replyWith = async (id: string, answer: RecorderAnswer) => {
      server.webhooks.setResponder((request) => {
        const event = JSON.parse(request.body) as { type: string; data: { id?: string } }
        return event.type === "INCOMING_PAYMENT.PENDING" && event.data.id === id ? answer : 200
      })
      await server.dispatch()
      server.webhooks.setResponder(() => 200)
    }

    it("WH-21: reply 200 approves: COMPLETED, credited once; INCOMING_PAYMENT.PENDING then COMPLETED; approve again 409", async () => {
      const { customer, id } = await receive(4_200)
      expect(await eventTypes(server, id)).toEqual(["INCOMING_PAYMENT.PENDING"])
      await replyWith(id, 200)
      expect(await getTx(server, id)).toMatchObject({ status: "COMPLETED", settledAt: expect.any(String) })
      expect(await balanceIn(server, customer.id)).toBe(4_200)
      expect(await eventTypes(server, id)).toEqual(["INCOMING_PAYMENT.PENDING", "INCOMING_PAYMENT.COMPLETED"])
      const again = await server.call("POST", `/transactions/${id}/approve`)
      expectError(again, 409, "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
      expect(again.json.details).toEqual({ status: "COMPLETED" })
      await server.dispatch()
      expect(await balanceIn(server, customer.id)).toBe(4_200)
    })

    it("WH-21, Q-37: replies 403, 422, 500 and no answer fail the payment with their reasons; nothing is credited", async () => {
      const cases = [
        [{ status: 403, body: JSON.stringify({ reason: "RESTRICTED_JURISDICTION" }) }, "COMPLIANCE_REJECTED"],
        [422, "MISSING_MANDATORY_PAYEE_DATA"],
        [500, "PAYMENT_APPROVAL_WEBHOOK_ERROR"],
        [{ error: "connection refused" }, "PAYMENT_APPROVAL_WEBHOOK_ERROR"]
      ] as const
      for (const [answer, reason] of cases) {
        const { customer, id } = await receive(900)
        await replyWith(id, answer)
        expect(await getTx(server, id)).toMatchObject({ status: "FAILED", failureReason: reason })
        expect(await balanceIn(server, customer.id)).toBe(0)
        expect(await eventTypes(server, id)).toEqual(["INCOMING_PAYMENT.PENDING", "INCOMING_PAYMENT.FAILED"])
        const approve = await server.call("POST", `/transactions/${id}/approve`)
        expectError(approve, 409, "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
        expect(approve.json.details).toEqual({ status: "FAILED" })
      }
    })

    it("WH-21: reply 202 waits for the API: approve credits it; reject of another fails it COMPLIANCE_REJECTED", async () => {
      const one = await receive(3_000)
      await replyWith(one.id, 202)
      expect((await getTx(server, one.id)).status).toBe("PENDING")
      const approved = await server.call("POST", `/transactions/${one.id}/approve`, {
        receiverCustomerInfo: { FULL_NAME: "Ada Lovelace" }
      })
      expect(approved.status).toBe(200)
      expect(approved.json).toMatchObject({ id: one.id, status: "COMPLETED", type: "INCOMING" })
      expect(await balanceIn(server, one.customer.id)).toBe(3_000)

      const two = await receive(3_000)
      await replyWith(two.id, 202)
      const rejected = await server.call("POST", `/transactions/${two.id}/reject`, {
        reason: "RESTRICTED_JURISDICTION"
      })
      expect(rejected.status).toBe(200)
      expect(rejected.json).toMatchObject({ status: "FAILED", failureReason: "COMPLIANCE_REJECTED" })
      expect(await balanceIn(server, two.customer.id)).toBe(0)
      const late = await server.call("POST", `/transactions/${two.id}/approve`)
      expectError(late, 409, "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
      expect(late.json.details).toEqual({ status: "FAILED" })
    })

    it("WH-21: no decision by the deadline: the worker fails it PAYMENT_APPROVAL_TIMED_OUT; a later approve 409", async () => {
      const { customer, id } = await receive(1_100)
      await replyWith(id, 202)
      // The server runs on the real clock: the deadline is moved into the past in the store.
      const record = (await Effect.runPromise(server.store.transactions.get(id)))!
      const past = new Date(Date.now() - 1000).toISOString()
      await Effect.runPromise(server.store.transactions.update({ ...record, dueAt: past }))
      await server.processDue()
      expect(await getTx(server, id)).toMatchObject({ status: "FAILED", failureReason: "PAYMENT_APPROVAL_TIMED_OUT" })
      expect(await balanceIn(server, customer.id)).toBe(0)
      expectError(
        await server.call("POST", `/transactions/${id}/approve`),
        409,
        "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL"
      )
    })

    it("WH-21: approve / reject of an outgoing payment or an unknown id: 409 / 404", async () => {
      const id = await payOut(server, payer, payee, 100)
      const r = await server.call("POST", `/transactions/${id}/reject`)
      expectError(r, 409, "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
      expect(r.json.details).toEqual({ status: "PROCESSING" })
      expectError(
        await server.call("POST", `/transactions/${UNKNOWN_TRANSACTION}/approve`),
        404,
        "TRANSACTION_NOT_FOUND"
      )
    })
  })
})
