/**
 * The SCA property test (issue 14, Proof; docs/design/sca.md, section 4): random sequences of execute, authorize
 * (right, wrong, stale, late, two at once), resend, trust and untrust, logins and lapsed sessions, password resets,
 * real-time-funded quotes and their deposits, clock moves and worker passes, for an EEA and a US customer. The
 * sequences and the checks after every step are in sca-property.ts. CI runs 500 sequences of a fixed seed (about
 * 4 s); `PAYCORE_PROPERTY_RUNS=5000` runs more, another `PAYCORE_PROPERTY_SEED` explores others; `PAYCORE_STATS=1`
 * prints how often each answer occurred.
 */
import { describe, it } from "vitest"
import { checkScaProperty } from "./sca-property.ts"

const numRuns = Number(process.env.PAYCORE_PROPERTY_RUNS ?? 500)
const seed = Number(process.env.PAYCORE_PROPERTY_SEED ?? 20_260_302)

describe("payments under SCA (property)", () => {
  it(
    "S-01, S-03 … S-11, S-13, AC-31 … AC-39, L-09, L-14, C-41: money moves only for authorized or trusted sends (or a customer outside the SCA regions); the ledger, the daily volume and the events stay consistent after every step",
    async () => {
      await checkScaProperty({ numRuns, seed })
    },
    60_000 + numRuns * 100
  )
})
