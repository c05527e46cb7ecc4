/**
 * Slice C's pure rules (issue 15; docs/design/cards.md, sections 1 and 3): which follow-up simulation a card
 * transaction takes in each stored state and amount (CD-48 … CD-51, design Q17), and the merged listing's cursor and
 * merge, over hand-made pages.
 */
import { assert, describe, it } from "@effect/vitest"
import type { CardTransactionRecord, SimulationKind, StoredCardTransactionState } from "../src/cards/model.ts"
import { simulationRefusal } from "../src/cards/simulations.ts"
import { encodeCursor, type Page } from "../src/shared/paging.ts"
import type { TransactionOneOf } from "../src/transactions/model.ts"
import { decodeListingCursor, encodeListingCursor, mergePages } from "../src/transactions/reads.ts"

const STATES: ReadonlyArray<StoredCardTransactionState> = [
  "AUTHORIZED",
  "PARTIALLY_SETTLED",
  "SETTLED",
  "EXPIRED",
  "DECLINED",
  "PULL_FAILED",
  "EXCEPTION"
]

const parent = (state: StoredCardTransactionState, settled: number, refunded = 0) =>
  ({ state, settledAmount: settled, refundedAmount: refunded }) as CardTransactionRecord

describe("which follow-up simulation a parent takes (simulationRefusal)", () => {
  const takes = (kind: SimulationKind, p: CardTransactionRecord, amount: number) =>
    simulationRefusal(kind, p, amount) === undefined

  it("CD-48, CD-50: a clearing and an advice need an open authorization (AUTHORIZED, PARTIALLY_SETTLED)", () => {
    for (const state of STATES) {
      const open = state === "AUTHORIZED" || state === "PARTIALLY_SETTLED"
      assert.strictEqual(takes("CLEARING", parent(state, 0), 0), open, `clearing ${state}`)
      assert.strictEqual(takes("AUTHORIZATION_ADVICE", parent(state, 0), 10), open, `advice ${state}`)
    }
    // The advice's new total may equal what is settled, not go below it.
    assert.isTrue(takes("AUTHORIZATION_ADVICE", parent("PARTIALLY_SETTLED", 600), 600))
    assert.isFalse(takes("AUTHORIZATION_ADVICE", parent("PARTIALLY_SETTLED", 600), 599))
  })

  it("CD-49, CD-24: a return needs a settled clearing (an expiry's cleared part too) and at most the net settled amount", () => {
    for (const state of STATES) {
      const settles = state === "PARTIALLY_SETTLED" || state === "SETTLED" || state === "EXPIRED"
      assert.strictEqual(takes("RETURN", parent(state, 1000), 1), settles, `return ${state}`)
    }
    assert.isFalse(takes("RETURN", parent("SETTLED", 0), 1))
    assert.isTrue(takes("RETURN", parent("SETTLED", 1000, 400), 600))
    assert.isFalse(takes("RETURN", parent("SETTLED", 1000, 400), 601))
    // An authorization the close (or a zero clearing) expired with nothing cleared has nothing to return.
    assert.isFalse(takes("RETURN", parent("EXPIRED", 0), 1))
    assert.isTrue(takes("RETURN", parent("EXPIRED", 1000, 400), 600))
    assert.isFalse(takes("RETURN", parent("EXPIRED", 1000, 400), 601))
  })

  it("CD-51, CD-24: a return reversal needs a posted return", () => {
    for (const state of STATES) {
      const settles = state === "PARTIALLY_SETTLED" || state === "SETTLED" || state === "EXPIRED"
      assert.strictEqual(takes("RETURN_REVERSAL", parent(state, 1000, 100), 0), settles, `reversal ${state}`)
      assert.isFalse(takes("RETURN_REVERSAL", parent(state, 1000, 0), 0), `reversal ${state} without a return`)
    }
  })

  it("CD-46: the authorization family has no parent rule", () => {
    for (const kind of ["AUTHORIZATION", "BALANCE_INQUIRY", "FINANCIAL_CREDIT_AUTHORIZATION"] as const) {
      assert.isTrue(takes(kind, parent("DECLINED", 0), 0))
    }
  })
})

describe("the merged listing (Q-43)", () => {
  const uuid = (n: number) => `01900000-0000-7000-8000-${String(n).padStart(12, "0")}`
  const payment = (n: number) => `Transaction:${uuid(n)}`
  const card = (n: number) => `CardTransaction:${uuid(n)}`

  it("a cursor round-trips, and one not issued here is refused", () => {
    const cursor = { t: payment(3), c: card(4) }
    assert.deepStrictEqual(decodeListingCursor(encodeListingCursor(cursor)), cursor)
    assert.deepStrictEqual(decodeListingCursor(encodeListingCursor({ c: card(4) })), { t: undefined, c: card(4) })
    for (const bad of [
      "",
      "m1.",
      encodeCursor(payment(3)),
      encodeListingCursor({}),
      `m1.${btoa(JSON.stringify({ t: card(1) }))}`,
      `m1.${btoa(JSON.stringify({ c: card(1), x: 1 }))}`,
      `m1.${btoa("[1]")}`,
      "m1.!!"
    ]) {
      assert.isUndefined(decodeListingCursor(bad), bad)
    }
  })

  /** Two sides in time order, paged through `mergePages` as the store would page them. */
  const walk = (payments: ReadonlyArray<number>, cards: ReadonlyArray<number>, limit: number, asc: boolean) => {
    const order = (ns: ReadonlyArray<number>) => [...ns].sort((a, b) => (asc ? a - b : b - a))
    const side = (ids: ReadonlyArray<string>, tag: "t" | "c", after: string | undefined): Page<never> => {
      const from = after === undefined ? 0 : ids.indexOf(after) + 1
      const data = ids.slice(from, from + limit).map((id) => ({ id, side: tag, item: { id } }))
      return { data: data as never, hasMore: from + limit < ids.length, totalCount: ids.length }
    }
    const ps = order(payments).map(payment)
    const cs = order(cards).map(card)
    const seen: Array<string> = []
    let cursor = {}
    for (let i = 0; i < 100; i++) {
      const from = decodeListingCursor(encodeListingCursor(cursor)) ?? {}
      const page = mergePages(
        side(ps, "t", from.t),
        side(cs, "c", from.c),
        { limit, sortOrder: asc ? "asc" : "desc" },
        from
      )
      assert.strictEqual(page.totalCount, ps.length + cs.length)
      seen.push(...page.data.map((t: TransactionOneOf) => t.id))
      if (!page.hasMore) return seen
      cursor = decodeListingCursor(page.nextCursor!)!
    }
    throw new Error("no end")
  }

  it("pages two interleaved sides in time order with no repeat or skip, at every page size and both orders", () => {
    const payments = [1, 2, 6, 7, 8, 12, 15]
    const cards = [3, 4, 5, 9, 10, 11, 13, 14, 16]
    const all = [...payments.map(payment), ...cards.map(card)].sort((a, b) =>
      a.slice(a.indexOf(":")).localeCompare(b.slice(b.indexOf(":")))
    )
    for (let limit = 1; limit <= 18; limit++) {
      assert.deepStrictEqual(walk(payments, cards, limit, true), all, `asc ${limit}`)
      assert.deepStrictEqual(walk(payments, cards, limit, false), [...all].reverse(), `desc ${limit}`)
    }
    assert.deepStrictEqual(walk([], cards, 4, true), cards.map(card))
    assert.deepStrictEqual(walk(payments, [], 4, false), [...payments].reverse().map(payment))
  })
})
