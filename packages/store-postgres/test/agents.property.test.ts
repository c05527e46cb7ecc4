import { describe, expect, it } from "vitest"
import { checkAgentsProperty } from "../../core/test/agents-property.ts"
import { emptyPgliteStore } from "./helpers.ts"

// The agents' property of the core (answers, actions, usage counters, transactions and the ledger follow the model)
// on PGlite: the SQL store's agent lock, counters and action slots under the memory store's commands, fewer runs.
const store = emptyPgliteStore()

describe("agents (property) on PGlite", () => {
  it("AG-03, AG-05, AG-06, AG-10, AG-19 … AG-23, AG-33, AG-38: answers, actions, usage counters and transactions follow the model over random sequences of two agents' commands", async () => {
    const met = await checkAgentsProperty({ numRuns: 15, maxCommands: 40, seed: 20_260_331, store })
    // The runs reach runs, holds, limits and approvals (the memory store's many runs reach every answer).
    for (const key of [
      "execute APPROVED",
      "execute PENDING_APPROVAL",
      "execute DAILY_LIMIT_EXCEEDED",
      "approve APPROVED"
    ]) {
      expect(met.get(key), key).toBeGreaterThan(0)
    }
  }, 60_000)
})
