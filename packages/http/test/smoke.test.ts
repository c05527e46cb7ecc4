import { describe, expect, it } from "vitest"
import { addUsPayee, balanceIn, fundAccount, onboardCustomer, quoteBody, useTestServer } from "./harness.ts"

const server = useTestServer()

describe("a first payment over HTTP", () => {
  it("onboards, funds, quotes, executes and settles", async () => {
    const customer = await onboardCustomer(server)
    const account = customer.accounts.USD!
    expect(await fundAccount(server, account, 10_000)).toBe(10_000)
    const payee = await addUsPayee(server, customer.id)
    const quote = await server.call("POST", "/quotes", quoteBody(account, payee, 2_500))
    expect(quote.status).toBe(201)
    const executed = await server.call("POST", `/quotes/${quote.json.id}/execute`)
    expect(executed.json.status).toBe("PROCESSING")
    await server.processDue()
    const tx = await server.call("GET", `/transactions/${quote.json.transactionId}`)
    expect(tx.json.status).toBe("COMPLETED")
    expect(tx.json.settledAt).toBeTypeOf("string")
    expect(await balanceIn(server, customer.id)).toBe(7_500)
  })
})
