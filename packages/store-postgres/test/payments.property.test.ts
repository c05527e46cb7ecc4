import { describe, it } from "vitest"
import { checkPaymentsProperty } from "../../core/test/payments-property.ts"
import { emptyPgliteStore } from "./helpers.ts"

// The payments property of the core (ledger sums to zero, no overdraft, machine-ordered events, each failed
// payout refunded once) over random command sequences, on PGlite.
const store = emptyPgliteStore()

describe("payments (property) on PGlite", () => {
  it("ledger, events and refunds stay consistent over random command sequences", async () => {
    await checkPaymentsProperty({ numRuns: 25, store })
  }, 300_000)
})
