/**
 * Seeded fault simulation on the memory store (issue 33, item 1; docs/reliability.md, "Fault simulation"): random
 * command sequences across customers, KYC, external accounts, quotes and executes under idempotency keys, settlement
 * through the sandbox rail, incoming payments, cards and the card network, webhook delivery; faults injected into the
 * store, the rail, the KYC provider, the card network and the webhook receiver; crashes and restarts. Rows: L-08, L-10
 * (money conserved), I-01..I-04 (idempotency), WH-01, WH-03, WH-19 (events delivered at least once, in order), T-05,
 * T-07 (settlement, failure and refund). Sequences 0 to 4,999 here, 5,000 to 9,999 in simulator-more.test.ts.
 *
 * Replay a failure: PAYCORE_SIM_SEED=<seed> PAYCORE_SIM_SEQUENCE=<index> npx vitest run packages/testkit/test/simulator.test.ts
 * A longer run: PAYCORE_SIM_SEQUENCES=<n> or PAYCORE_SIM_SECONDS=<s>, with PAYCORE_SIM_SEED=random for a new seed.
 */
import { describe, it } from "vitest"
import { memoryRun, TIMEOUT } from "./simulator-setup.ts"

describe("seeded fault simulation, memory store", () => {
  it(
    "conserves money, loses no acknowledged write and delivers every committed event, through faults and crashes",
    () => memoryRun("first", "simulator.test.ts"),
    TIMEOUT
  )
})
