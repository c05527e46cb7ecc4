/** The miss budgets per caller (IN-11, A-08, AG-15; issue 31 item 7) on the memory store; PGlite and PostgreSQL run them in store-postgres. */
import { describe, it } from "vitest"
import { invitationBudgetPerCaller, redeemBudgetPerCaller, runWithBudgets } from "./miss-budgets.ts"

describe("miss budgets per caller (memory store)", () => {
  it("IN-11 issue 31 item 7: caller A past its invitation-code misses is 429 until the minute ends; caller B claims", () =>
    runWithBudgets(311, invitationBudgetPerCaller))
  it("A-08 AG-15 issue 31 item 7: caller A past its device-code misses is 429 until the minute ends; caller B redeems", () =>
    runWithBudgets(312, redeemBudgetPerCaller))
})
