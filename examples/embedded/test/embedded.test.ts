import { createVerify } from "node:crypto"
import { Effect } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { EmbeddedEngine, type FirstPaymentsSummary, firstPayments, WEBHOOK_ENDPOINT } from "../src/main.ts"

/** What a receiver does with node:crypto alone: ECDSA P-256 / SHA-256, base64 DER, over the raw body. */
const verifies = (publicKeyPem: string, body: string, signature: string) =>
  createVerify("SHA256").update(body).verify(publicKeyPem, signature, "base64")

describe("examples/embedded: first payments in-process", () => {
  let summary: FirstPaymentsSummary
  beforeAll(async () => {
    summary = await Effect.runPromise(firstPayments.pipe(Effect.provide(EmbeddedEngine)))
  })

  it("settles both payments", () => {
    expect(summary.payments.map((p) => p.transaction.status)).toEqual(["COMPLETED", "COMPLETED"])
    for (const { quote, transaction } of summary.payments) {
      expect(transaction.id).toBe(quote.transactionId)
      expect(transaction.settledAt).toBeTypeOf("string")
    }
  })

  it("prices the same-currency quote without fees and the USD to MXN one with the 50 bps service fee", () => {
    const [domestic, crossBorder] = summary.payments.map((p) => p.quote)
    expect(domestic).toMatchObject({ totalSendingAmount: 2_500, totalReceivingAmount: 2_500, feesIncluded: 0 })
    expect(domestic!.exchangeRate).toBe(1)
    expect(crossBorder!.sendingCurrency.code).toBe("USD")
    expect(crossBorder!.receivingCurrency.code).toBe("MXN")
    // 10 000 cents, 50 cents fee; 9 950 cents at 17.25 MXN per USD = 171 637.5 centavos, rounded down.
    expect(crossBorder).toMatchObject({ totalSendingAmount: 10_000, feesIncluded: 50, totalReceivingAmount: 171_637 })
  })

  it("debits the USD account by exactly the two totalSendingAmounts", () => {
    const sent = summary.payments.reduce((sum, p) => sum + p.quote.totalSendingAmount, 0)
    expect(summary.balanceBefore.amount).toBe(100_000)
    expect(summary.balanceAfter.amount).toBe(summary.balanceBefore.amount - sent)
  })

  it("delivers each payment's webhooks in state order", () => {
    const events = summary.webhooks.map((r) => JSON.parse(r.body) as { type: string; data: { id?: string } })
    for (const { transaction } of summary.payments) {
      expect(events.filter((e) => e.data.id === transaction.id).map((e) => e.type)).toEqual([
        "OUTGOING_PAYMENT.PENDING",
        "OUTGOING_PAYMENT.PROCESSING",
        "OUTGOING_PAYMENT.COMPLETED"
      ])
    }
    expect(summary.webhooks.every((r) => r.url === WEBHOOK_ENDPOINT)).toBe(true)
    expect(summary.dispatch).toMatchObject({ delivered: summary.webhooks.length, retrying: 0, dead: 0 })
  })

  it("signs every webhook so that node:crypto verifies X-Service-Signature against the signer's PEM", () => {
    expect(summary.webhooks.length).toBeGreaterThan(0)
    for (const request of summary.webhooks) {
      const signature = request.headers["X-Service-Signature"]
      expect(signature).toBeTypeOf("string")
      expect(verifies(summary.publicKeyPem, request.body, signature!)).toBe(true)
      expect(verifies(summary.publicKeyPem, `${request.body} `, signature!)).toBe(false)
    }
  })
})
