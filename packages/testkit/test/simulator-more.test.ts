/**
 * The second half of the memory store's fault simulation (sequences 5,000 to 9,999 of the CI seed), so that vitest
 * runs the two halves on two workers: see simulator.test.ts.
 */
import { describe, it } from "vitest"
import { memoryRun, ONLY, TIMEOUT } from "./simulator-setup.ts"

describe("seeded fault simulation, memory store (second half)", () => {
  it.skipIf(ONLY !== undefined)(
    "conserves money, loses no acknowledged write and delivers every committed event, through faults and crashes",
    () => memoryRun("second", "simulator.test.ts"),
    TIMEOUT
  )
})
