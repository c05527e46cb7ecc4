/**
 * Card transactions in `GET /transactions` and `GET /transactions/{id}` (issue 15, slice C; docs/design/cards.md,
 * section 3 "Listing"): payments and card transactions in one time order on one cursor, the `type` and `status`
 * filters with the card status enum, and one card transaction by id. The card transactions are written straight to
 * the store (`seedCardTransaction`), so these run before slice B's authorizations exist; the payments are real
 * (sandbox funding).
 */
import { randomUUID } from "node:crypto"
import {
  type CardRecord,
  type CardTransactionRecord,
  encodeCursor,
  Ids,
  type InternalAccountId,
  Store,
  type StoredCardTransactionState
} from "@paycore/core"
import { seedCard, seedCardTransaction } from "@paycore/testkit"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import {
  expectError,
  expectInvalid,
  fundAccount,
  ids,
  type Onboarded,
  onboardCustomer,
  useTestServer
} from "./harness.ts"
import { onEveryStore } from "./stores.ts"

const cardTransactionsSuite = (stores: () => Parameters<typeof useTestServer>[1]) => {
  const server = useTestServer(async () => {}, stores())
  const run = <A, E>(effect: Effect.Effect<A, E, Store | Ids>) =>
    Effect.runPromise(effect.pipe(Effect.provide(Layer.mergeAll(Layer.succeed(Store, server.store), Ids.layer))))

  /** A customer with a card on its USD account. */
  const cardholder = async (): Promise<{ customer: Onboarded; card: CardRecord }> => {
    const customer = await onboardCustomer(server)
    const card = await run(seedCard(customer.id, [customer.accounts.USD as InternalAccountId]))
    return { customer, card }
  }
  const seedTx = (card: CardRecord, overrides: Partial<CardTransactionRecord> = {}) =>
    run(seedCardTransaction(card, overrides))
  /**
   * Waits for the next millisecond. The seeded card transactions take their ids from this process's `Ids`, the
   * payments from the server's: two ids of one millisecond from two generators come in either order, so a test
   * of "newest first" across the two kinds makes each record in a millisecond of its own.
   */
  const nextMillisecond = async () => {
    const now = Date.now()
    while (Date.now() === now) await new Promise((resolve) => setTimeout(resolve, 1))
  }
  const list = async (query: string) => {
    const r = await server.call("GET", `/transactions?${query}`)
    expect(r.status, JSON.stringify(r.json)).toBe(200)
    return r
  }
  /** Every page of a listing, following `nextCursor`; each page's `totalCount` must be the whole count. */
  const allPages = async (query: string, total: number) => {
    const seen: Array<string> = []
    let cursor: string | undefined
    for (let page = 0; page < 100; page++) {
      const r = await list(`${query}${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
      expect(r.json.totalCount).toBe(total)
      seen.push(...ids(r))
      if (!r.json.hasMore) {
        expect(r.json.nextCursor).toBeUndefined()
        return seen
      }
      cursor = r.json.nextCursor
    }
    throw new Error("the listing never ended")
  }

  it("Q-43, Q-34, CD-41: payments and card transactions are listed together, newest first, told apart by type", async () => {
    const { customer, card } = await cardholder()
    await fundAccount(server, customer.accounts.USD!, 10_000)
    await nextMillisecond()
    const authorized = await seedTx(card, { authorizedAmount: 1250 })
    await nextMillisecond()
    await fundAccount(server, customer.accounts.USD!, 20_000)
    await nextMillisecond()
    const settled = await seedTx(card, { state: "SETTLED", authorizedAmount: 900, settledAmount: 900 })
    const r = await list(`customerId=${customer.id}`)
    expect(r.json.totalCount).toBe(4)
    expect(r.json.data.map((t: { type: string }) => t.type)).toEqual(["CARD", "INCOMING", "CARD", "INCOMING"])
    expect(ids(r)[0]).toBe(settled.id)
    expect(ids(r)[2]).toBe(authorized.id)
    // CD-41: the card transaction as the spec shows it, amounts as Amount objects in the card's currency.
    expect(r.json.data[2]).toEqual({
      type: "CARD",
      id: authorized.id,
      cardId: card.id,
      customerId: customer.id,
      platformCustomerId: expect.any(String),
      issuerTransactionToken: authorized.issuerTransactionToken,
      status: "AUTHORIZED",
      direction: "DEBIT",
      merchant: { descriptor: "PAYCORE TEST MERCHANT", mcc: "5814", country: "US" },
      authorizedAmount: { amount: 1250, currency: expect.objectContaining({ code: "USD" }) },
      settledAmount: { amount: 0, currency: expect.objectContaining({ code: "USD" }) },
      refundedAmount: { amount: 0, currency: expect.objectContaining({ code: "USD" }) },
      accountId: customer.accounts.USD,
      pullSummary: { count: 1, totalAmount: 1250, pendingCount: 0 },
      settlementSummary: { count: 0, totalAmount: 0 },
      refundSummary: { count: 0, totalAmount: 0 },
      authorizedAt: authorized.authorizedAt,
      createdAt: authorized.createdAt,
      updatedAt: authorized.updatedAt
    })
    expect(r.json.data[0].settledAmount.amount).toBe(900)
    expect(r.json.data[0].status).toBe("SETTLED")
    // Oldest first on request.
    expect(ids(await list(`customerId=${customer.id}&sortOrder=asc`))).toEqual([...ids(r)].reverse())
  })

  it("Q-43: pages across both kinds in time order on one cursor, with no repeat and no skip, both orders", async () => {
    const { customer, card } = await cardholder()
    // Interleaved runs of each kind, so pages end inside a run of either side and across the two.
    for (const kind of ["P", "C", "C", "P", "C", "C", "C", "P", "P", "C", "P", "C"]) {
      if (kind === "P") await fundAccount(server, customer.accounts.USD!, 1000)
      else await seedTx(card)
    }
    const newestFirst = ids(await list(`customerId=${customer.id}&limit=100`))
    expect(newestFirst).toHaveLength(12)
    const time = (id: string) => id.slice(id.indexOf(":") + 1)
    expect(newestFirst.map(time)).toEqual([...newestFirst.map(time)].sort().reverse())
    for (const limit of [1, 2, 3, 5, 7, 11, 12, 13]) {
      expect(await allPages(`customerId=${customer.id}&limit=${limit}`, 12), `limit ${limit}`).toEqual(newestFirst)
      expect(await allPages(`customerId=${customer.id}&limit=${limit}&sortOrder=asc`, 12), `asc ${limit}`).toEqual(
        [...newestFirst].reverse()
      )
    }
    // A card-only or payment-only listing pages on the same kind of cursor.
    expect(await allPages(`customerId=${customer.id}&type=CARD&limit=2`, 7)).toEqual(
      newestFirst.filter((id) => id.startsWith("CardTransaction:"))
    )
    expect(await allPages(`customerId=${customer.id}&type=INCOMING&limit=2`, 5)).toEqual(
      newestFirst.filter((id) => id.startsWith("Transaction:"))
    )
  })

  it("Q-34, CD-35, CD-37: type=CARD and the card statuses filter card transactions; a stored EXCEPTION reads DECLINED", async () => {
    const { customer, card } = await cardholder()
    await fundAccount(server, customer.accounts.USD!, 5000)
    const byState: Partial<Record<StoredCardTransactionState, CardTransactionRecord>> = {}
    for (const state of [
      "AUTHORIZED",
      "PARTIALLY_SETTLED",
      "SETTLED",
      "EXPIRED",
      "DECLINED",
      "PULL_FAILED",
      "EXCEPTION"
    ] as const) {
      byState[state] = await seedTx(card, {
        state,
        ...(state === "DECLINED" ? { declineReason: "INSUFFICIENT_FUNDS" as const } : {}),
        ...(state === "PARTIALLY_SETTLED" ? { settledAmount: 400 } : {})
      })
    }
    const q = `customerId=${customer.id}&limit=100`
    const cards = await list(`${q}&type=CARD`)
    expect(cards.json.totalCount).toBe(7)
    expect(new Set(cards.json.data.map((t: { type: string }) => t.type))).toEqual(new Set(["CARD"]))
    const statusOf = (r: Awaited<ReturnType<typeof list>>) =>
      Object.fromEntries(r.json.data.map((t: { id: string; status: string }) => [t.id, t.status]))
    // CD-37, design section 2: PULL_FAILED and a legacy EXCEPTION read DECLINED; an expired authorization SETTLED.
    expect(statusOf(cards)).toEqual({
      [byState.AUTHORIZED!.id]: "AUTHORIZED",
      [byState.PARTIALLY_SETTLED!.id]: "PARTIALLY_SETTLED",
      [byState.SETTLED!.id]: "SETTLED",
      [byState.EXPIRED!.id]: "SETTLED",
      [byState.DECLINED!.id]: "DECLINED",
      [byState.PULL_FAILED!.id]: "DECLINED",
      [byState.EXCEPTION!.id]: "DECLINED"
    })
    const declined = await list(`${q}&status=DECLINED`)
    expect(new Set(ids(declined))).toEqual(
      new Set([byState.DECLINED!.id, byState.PULL_FAILED!.id, byState.EXCEPTION!.id])
    )
    expect(declined.json.data.find((t: { id: string }) => t.id === byState.DECLINED!.id).declineReason).toBe(
      "INSUFFICIENT_FUNDS"
    )
    expect(new Set(ids(await list(`${q}&status=SETTLED&type=CARD`)))).toEqual(
      new Set([byState.SETTLED!.id, byState.EXPIRED!.id])
    )
    expect(ids(await list(`${q}&status=AUTHORIZED`))).toEqual([byState.AUTHORIZED!.id])
    expect(ids(await list(`${q}&status=PARTIALLY_SETTLED`))).toEqual([byState.PARTIALLY_SETTLED!.id])
    // A payment type or status lists payments only; a type and a status of the other kind match nothing.
    const incoming = await list(`${q}&type=INCOMING`)
    expect(incoming.json.data.map((t: { type: string }) => t.type)).toEqual(["INCOMING"])
    expect(ids(await list(`${q}&status=COMPLETED`))).toEqual(ids(incoming))
    expect((await list(`${q}&type=INCOMING&status=SETTLED`)).json).toEqual({ data: [], hasMore: false, totalCount: 0 })
    expect((await list(`${q}&type=CARD&status=COMPLETED`)).json).toEqual({ data: [], hasMore: false, totalCount: 0 })
  })

  it("V-04, V-05, CD-35: status=EXCEPTION and status=REFUNDED are 400, as is a type we do not have", async () => {
    expectInvalid(await server.call("GET", "/transactions?status=EXCEPTION"), ["query.status"])
    expectInvalid(await server.call("GET", "/transactions?status=REFUNDED"), ["query.status"])
    expectInvalid(await server.call("GET", "/transactions?type=CARDS"), ["query.type"])
  })

  it("Q-43: reference finds a card transaction by its issuerTransactionToken; accountIdentifier and dates filter it", async () => {
    const { customer, card } = await cardholder()
    const other = await cardholder()
    const mine = await seedTx(card)
    await seedTx(other.card)
    const byToken = await list(`reference=${encodeURIComponent(mine.issuerTransactionToken)}`)
    expect(ids(byToken)).toEqual([mine.id])
    expect(ids(await list(`accountIdentifier=${encodeURIComponent(customer.accounts.USD!)}`))).toEqual([mine.id])
    expect(ids(await list(`platformCustomerId=${encodeURIComponent(mine.platformCustomerId)}&type=CARD`))).toEqual([
      mine.id
    ])
    expect((await list(`customerId=${customer.id}&startDate=2999-01-01T00:00:00Z`)).json.totalCount).toBe(0)
    expect((await list(`customerId=${customer.id}&endDate=2000-01-01T00:00:00Z`)).json.totalCount).toBe(0)
    expect((await list(`customerId=${customer.id}&startDate=2000-01-01T00:00:00Z`)).json.totalCount).toBe(1)
  })

  it("Q-43: a cursor not issued by this listing is 400 naming the cursor", async () => {
    for (const cursor of [
      "nope",
      encodeCursor(`Transaction:${randomUUID()}`),
      "m1.e30",
      "m1.eyJ0IjoiQ3VzdG9tZXI6MSJ9"
    ]) {
      const r = await server.call("GET", `/transactions?cursor=${encodeURIComponent(cursor)}`)
      expect(r.status, cursor).toBe(400)
      expect(r.json.details.errors.map((e: { field: string }) => e.field)).toEqual(["cursor"])
    }
  })

  describe("one card transaction", () => {
    it("Q-44, CD-41: GET /transactions/{CardTransaction id} answers it; an unknown one is 404 TRANSACTION_NOT_FOUND", async () => {
      const { card } = await cardholder()
      const tx = await seedTx(card, { state: "SETTLED", settledAmount: 1000, refundedAmount: 250 })
      const r = await server.call("GET", `/transactions/${tx.id}`)
      expect(r.status).toBe(200)
      expect(r.json).toMatchObject({
        type: "CARD",
        id: tx.id,
        status: "SETTLED",
        settledAmount: { amount: 1000 },
        refundedAmount: { amount: 250 }
      })
      expectError(
        await server.call("GET", `/transactions/CardTransaction:${randomUUID()}`),
        404,
        "TRANSACTION_NOT_FOUND"
      )
      expectError(await server.call("GET", `/transactions/Transaction:${randomUUID()}`), 404, "TRANSACTION_NOT_FOUND")
      expectInvalid(await server.call("GET", "/transactions/Card:1"), ["path.transactionId"])
    })
  })
}

onEveryStore("card transactions in GET /transactions", "card_transactions_http", cardTransactionsSuite)
