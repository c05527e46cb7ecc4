import { describe, expect, it } from "vitest"
import { checkStablecoinsProperty } from "./stablecoins-property.ts"

// P-13 … P-18, design section 4 (property B): random link/register/mint/burn/outage/time/worker sequences keep the
// ledger balanced, the supply equal to completed mints minus burns, terminal operations holding nothing, and outages
// storing nothing. Fixed seed; memory store; TestClock.
describe("stablecoins (property)", () => {
  it("the ledger, the supply and the holds stay consistent over random command sequences", async () => {
    const reached = await checkStablecoinsProperty({ numRuns: 40, seed: 20_261_126 })
    // The runs reached every end: completed, failed (…002) and expired (…003) operations, and refusals in outages.
    expect(reached.completed).toBeGreaterThan(0)
    expect(reached.failed).toBeGreaterThan(0)
    expect(reached.expired).toBeGreaterThan(0)
    expect(reached.refusedInOutage).toBeGreaterThan(0)
  }, 60_000)
})
