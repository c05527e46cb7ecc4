/**
 * The miss budgets per caller (IN-11, A-08, AG-15; issue 31 item 7) on PGlite, and on PostgreSQL with DATABASE_URL:
 * the counters are the store's, so each store keeps one caller's misses apart from another's.
 */
import { describe, it } from "vitest"
import { invitationBudgetPerCaller, redeemBudgetPerCaller, runWithBudgets } from "../../core/test/miss-budgets.ts"
import { testDatabase } from "./helpers.ts"

const db = testDatabase("miss_budgets")

describe(`miss budgets per caller (${db.kind})`, () => {
  it("IN-11 issue 31 item 7: caller A past its invitation-code misses is 429 until the minute ends; caller B claims", () =>
    runWithBudgets(311, invitationBudgetPerCaller, db.layer()))
  it("A-08 AG-15 issue 31 item 7: caller A past its device-code misses is 429 until the minute ends; caller B redeems", () =>
    runWithBudgets(312, redeemBudgetPerCaller, db.layer()))
})
