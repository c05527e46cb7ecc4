/**
 * Compliance holds over HTTP (issue 30 item 5, SB-05; docs/transactions.md "Compliance holds"), on every
 * store: the sandbox's `Screening` holds a payout to a destination whose identifier ends in `010` as it is executed:
 * `PROCESSING` with `pendingReason: COMPLIANCE_REVIEW`, its money held, nothing sent to the rail (a worker pass changes
 * nothing), announced by `OUTGOING_PAYMENT.PROCESSING`. `POST /sandbox/transactions/{id}/compliance/release` sends it on
 * to its rail; `/reject` fails it `COMPLIANCE_REJECTED` and refunds it at once. No money is created or lost on any path.
 */
import { Store } from "@paycore/core"
import { ledgerViolations } from "@paycore/testkit"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { eventsAbout } from "./agent-actions-kit.ts"
import {
  expectError,
  fundedPayer,
  lookupUma,
  type Onboarded,
  quoteBody,
  type TestServer,
  useTestServer
} from "./harness.ts"
import { onEveryStore } from "./stores.ts"

const UNKNOWN_TRANSACTION = "Transaction:01234567-89ab-7def-8123-456789abcdef"

const getTx = async (server: TestServer, id: string) => {
  const r = await server.call("GET", `/transactions/${id}`)
  expect(r.status).toBe(200)
  return r.json
}

/** The customer's USD internal account: available `balance` and `totalBalance` (holds included). */
const balances = async (server: TestServer, payer: Onboarded) => {
  const r = await server.call("GET", `/internal-account?customerId=${payer.id}&currency=USD`)
  expect(r.status).toBe(200)
  return { balance: r.json.data[0].balance.amount, total: r.json.data[0].totalBalance.amount }
}

const noViolations = async (server: TestServer) =>
  expect(
    await Effect.runPromise(ledgerViolations.pipe(Effect.provideService(Store, server.store), Effect.orDie))
  ).toEqual([])

const release = (server: TestServer, id: string) =>
  server.call("POST", `/sandbox/transactions/${id}/compliance/release`)
const reject = (server: TestServer, id: string, body?: unknown) =>
  server.call("POST", `/sandbox/transactions/${id}/compliance/reject`, body)

onEveryStore("compliance holds", "compliance_holds_http", (stores) => {
  let payer: Onboarded
  let held: string
  let clear: string
  const server = useTestServer(async (s) => {
    const funded = await fundedPayer(s, 100_000, ["555000010", "555000011"])
    payer = funded.payer
    held = funded.payees[0]!
    clear = funded.payees[1]!
  }, stores())

  /** Pays `amount` from the USD account to `payee` at once (RTP: a few seconds); the transaction id. */
  const pay = async (payee: string, amount: number) => {
    const quote = await server.call(
      "POST",
      "/quotes",
      quoteBody(payer.accounts.USD!, payee, amount, {
        destination: { destinationType: "ACCOUNT", accountId: payee, paymentRail: "RTP" },
        immediatelyExecute: true
      })
    )
    expect(quote.status, JSON.stringify(quote.json)).toBe(201)
    expect(quote.json.status).toBe("PROCESSING")
    return { transactionId: quote.json.transactionId as string, quoteId: quote.json.id as string }
  }

  describe("Q-38: the hold", () => {
    it("Q-38: a payout to …010 waits PROCESSING with pendingReason COMPLIANCE_REVIEW, money held, nothing sent", async () => {
      const before = await balances(server, payer)
      const { transactionId, quoteId } = await pay(held, 1_000)
      const tx = await getTx(server, transactionId)
      expect(tx).toMatchObject({ status: "PROCESSING", pendingReason: "COMPLIANCE_REVIEW", paymentRail: "RTP" })
      // Nothing was sent to the rail: no expected settlement; a worker pass leaves it as it is.
      expect(tx.expectedSettlementAt).toBeUndefined()
      await server.processDue()
      expect(await getTx(server, transactionId)).toEqual(tx)
      expect((await server.call("GET", `/quotes/${quoteId}`)).json.status).toBe("PROCESSING")
      // The usual hold: out of the available balance, still in the total.
      expect(await balances(server, payer)).toEqual({ balance: before.balance - 1_000, total: before.total })
      // The platform is told by OUTGOING_PAYMENT.PROCESSING, its data carrying the reason.
      const events = await eventsAbout(server, transactionId)
      expect(events.map((e) => e.type)).toEqual(["OUTGOING_PAYMENT.PENDING", "OUTGOING_PAYMENT.PROCESSING"])
      expect(events[1]!.data).toMatchObject({ status: "PROCESSING", pendingReason: "COMPLIANCE_REVIEW" })
      const timeline = await server.call("GET", `/transactions/${transactionId}/timeline`)
      expect(timeline.json.data.map((e: { state: string }) => e.state)).toEqual(["PENDING", "COMPLIANCE_REVIEW"])
      await noViolations(server)
    })

    it("Q-38: another destination is not held; an UMA address's user part …010 is", async () => {
      const { transactionId } = await pay(clear, 500)
      await server.processDue()
      const settled = await getTx(server, transactionId)
      expect(settled.status).toBe("COMPLETED")
      expect(settled.pendingReason).toBeUndefined()
      const address = "$ada010@kestrel.example"
      const quote = await server.call("POST", "/quotes", {
        lookupId: await lookupUma(server, address),
        source: { sourceType: "ACCOUNT", accountId: payer.accounts.USD! },
        destination: { destinationType: "UMA_ADDRESS", umaAddress: address, currency: "USD" },
        lockedCurrencySide: "SENDING",
        lockedCurrencyAmount: 700,
        immediatelyExecute: true
      })
      expect(quote.status, JSON.stringify(quote.json)).toBe(201)
      expect(await getTx(server, quote.json.transactionId)).toMatchObject({
        status: "PROCESSING",
        pendingReason: "COMPLIANCE_REVIEW"
      })
      expect((await reject(server, quote.json.transactionId)).status).toBe(200)
    })

    it("WH-07: a held ACH payout cannot be cancelled: 409 TRANSACTION_NOT_CANCELLABLE", async () => {
      const quote = await server.call(
        "POST",
        "/quotes",
        quoteBody(payer.accounts.USD!, held, 300, {
          immediatelyExecute: true,
          destination: { destinationType: "ACCOUNT", accountId: held, paymentRail: "ACH" }
        })
      )
      expect(quote.status).toBe(201)
      const cancel = await server.call("POST", `/transactions/${quote.json.transactionId}/cancel`)
      expectError(cancel, 409, "TRANSACTION_NOT_CANCELLABLE")
      expect(cancel.json.message).toContain("compliance review")
      expect((await reject(server, quote.json.transactionId)).status).toBe(200)
    })
  })

  describe("Q-38: the decision", () => {
    it("Q-38: released → PROCESSING without pendingReason, sent to its rail and settled; the money leaves once", async () => {
      const before = await balances(server, payer)
      const { transactionId, quoteId } = await pay(held, 2_000)
      const released = await release(server, transactionId)
      expect(released.status, JSON.stringify(released.json)).toBe(200)
      expect(released.json.status).toBe("PROCESSING")
      expect(released.json.pendingReason).toBeUndefined()
      expect(released.json.expectedSettlementAt).toBeTypeOf("string")
      await server.processDue()
      const settled = await getTx(server, transactionId)
      expect(settled.status).toBe("COMPLETED")
      expect((await server.call("GET", `/quotes/${quoteId}`)).json.status).toBe("COMPLETED")
      expect(await balances(server, payer)).toEqual({ balance: before.balance - 2_000, total: before.total - 2_000 })
      const events = await eventsAbout(server, transactionId)
      expect(events.map((e) => [e.type, e.data.pendingReason])).toEqual([
        ["OUTGOING_PAYMENT.PENDING", undefined],
        ["OUTGOING_PAYMENT.PROCESSING", "COMPLIANCE_REVIEW"],
        ["OUTGOING_PAYMENT.PROCESSING", undefined],
        ["OUTGOING_PAYMENT.COMPLETED", undefined]
      ])
      // Decided already: 409 with its status, for either decision.
      const again = await release(server, transactionId)
      expectError(again, 409, "CONFLICT")
      expect(again.json.details).toEqual({ status: "COMPLETED" })
      expectError(await reject(server, transactionId), 409, "CONFLICT")
      await noViolations(server)
    })

    it("Q-38 Q-35: rejected → FAILED COMPLIANCE_REJECTED, the hold released at once (refund COMPLETED), quote FAILED", async () => {
      const before = await balances(server, payer)
      const { transactionId, quoteId } = await pay(held, 3_000)
      const rejected = await reject(server, transactionId, { reason: "sanctions list match" })
      expect(rejected.status, JSON.stringify(rejected.json)).toBe(200)
      expect(rejected.json).toMatchObject({
        status: "FAILED",
        failureReason: "COMPLIANCE_REJECTED",
        refund: { status: "COMPLETED", reason: "TRANSACTION_FAILED" }
      })
      expect(rejected.json.pendingReason).toBeUndefined()
      expect((await server.call("GET", `/quotes/${quoteId}`)).json.status).toBe("FAILED")
      expect(await balances(server, payer)).toEqual(before)
      expect((await eventsAbout(server, transactionId)).map((e) => e.type)).toEqual([
        "OUTGOING_PAYMENT.PENDING",
        "OUTGOING_PAYMENT.PROCESSING",
        "OUTGOING_PAYMENT.FAILED",
        "OUTGOING_PAYMENT.REFUND_PENDING",
        "OUTGOING_PAYMENT.REFUND_COMPLETED"
      ])
      const again = await release(server, transactionId)
      expectError(again, 409, "CONFLICT")
      expect(again.json.details).toEqual({ status: "FAILED", failureReason: "COMPLIANCE_REJECTED" })
      await server.processDue()
      expect(await balances(server, payer)).toEqual(before)
      await noViolations(server)
    })

    it("Q-38: a real-time-funded payout held when its deposit arrives, then rejected: the deposit's hold is released", async () => {
      const funding = { sourceType: "REALTIME_FUNDING", currency: "USD", customerId: payer.id }
      const quote = await server.call("POST", "/quotes", quoteBody("", held, 1_200, { source: funding }))
      expect(quote.status, JSON.stringify(quote.json)).toBe(201)
      const sent = await server.call("POST", "/sandbox/send", { quoteId: quote.json.id, currencyCode: "USD" })
      expect(sent.status, JSON.stringify(sent.json)).toBe(200)
      expect(sent.json).toMatchObject({ status: "PROCESSING", pendingReason: "COMPLIANCE_REVIEW" })
      const rejected = await reject(server, quote.json.transactionId)
      expect(rejected.json).toMatchObject({ status: "FAILED", failureReason: "COMPLIANCE_REJECTED" })
      await noViolations(server)
    })

    it("Q-38: 404 for an unknown payment; 409 for one never held; 403 with a production token; 400 a malformed id", async () => {
      expectError(await release(server, UNKNOWN_TRANSACTION), 404, "TRANSACTION_NOT_FOUND")
      expectError(await reject(server, UNKNOWN_TRANSACTION), 404, "TRANSACTION_NOT_FOUND")
      const { transactionId } = await pay(clear, 100)
      const notHeld = await release(server, transactionId)
      expectError(notHeld, 409, "CONFLICT")
      expect(notHeld.json.details.status).toBe("PROCESSING")
      const production = await server.token(["VIEW", "TRANSACT"], "PRODUCTION")
      const refused = await server.call(
        "POST",
        `/sandbox/transactions/${transactionId}/compliance/release`,
        undefined,
        {
          auth: production
        }
      )
      expect(refused.status).toBe(403)
      expectError(await release(server, "Transaction:nope"), 400, "INVALID_INPUT")
      await server.processDue()
      expect((await getTx(server, transactionId)).status).toBe("COMPLETED")
    })
  })
})
