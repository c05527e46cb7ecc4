import { describe, expect, it } from "vitest"
import { checkCardsProperty } from "../../core/test/cards-property.ts"
import { emptyPgliteStore } from "./helpers.ts"

// The card property of the core (ledger, holds, limits and events consistent; returns complete after the close) over
// random command sequences, on PGlite: the SQL store's locks, counters and ledger under the same commands as the
// memory store.
const store = emptyPgliteStore()

describe("card transactions (property) on PGlite", () => {
  it("CD-11, CD-12, CD-13, CD-22, CD-24, CD-29, CD-36 … CD-40, CD-49, CD-51, L-13, WH-13 … WH-16: ledger, holds, limits and events stay consistent over random card command sequences; in-flight returns complete after the close", async () => {
    const met = await checkCardsProperty({ numRuns: 5, maxCommands: 40, seed: 20_260_302, store })
    expect(met.get("return on EXPIRED (cleared in part): Applied")).toBeGreaterThan(0)
  }, 300_000)
})
