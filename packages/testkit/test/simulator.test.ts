/**
 * Seeded fault simulation on the memory store (issue 33, item 1; docs/reliability.md, "Fault simulation"): random
 * command sequences across customers, KYC, external accounts, quotes and executes under idempotency keys, settlement
 * through the sandbox rail, incoming payments, cards and the card network, webhook delivery; faults injected into the
 * store, the rail, the KYC provider, the card network and the webhook receiver; crashes and restarts. Rows: L-08, L-10
 * (money conserved), I-01..I-04 (idempotency), WH-01, WH-03, WH-19 (events delivered at least once, in order), T-05,
 * T-07 (settlement, failure and refund).
 *
 * Replay a failure: PAYCORE_SIM_SEED=<seed> PAYCORE_SIM_SEQUENCE=<index> npx vitest run packages/testkit/test/simulator.test.ts
 * A longer run: PAYCORE_SIM_SEQUENCES=<n> or PAYCORE_SIM_SECONDS=<s>, with PAYCORE_SIM_SEED=random for a new seed.
 */
import { describe, expect, it } from "vitest"
import { runSimulation } from "../src/simulator/index.ts"
import { memoryDatabase, ONLY, replayCommand, SECONDS, SEED, SEQUENCES, simPorts, summary } from "./simulator-setup.ts"

describe("seeded fault simulation, memory store", () => {
  it("conserves money, loses no acknowledged write and delivers every committed event, through faults and crashes", async () => {
    const report = await runSimulation({
      ports: simPorts,
      database: memoryDatabase,
      seed: SEED,
      sequences: ONLY !== undefined ? 1 : (SEQUENCES ?? (SECONDS === undefined ? 10_000 : Number.MAX_SAFE_INTEGER)),
      first: ONLY,
      seconds: SECONDS,
      steps: { min: 2, max: 12 },
      replay: replayCommand("simulator.test.ts")
    })
    console.log(summary("memory", report))
    expect(report.sequences).toBe(ONLY !== undefined || SEQUENCES !== undefined || SECONDS !== undefined ? report.sequences : 10_000)
    // The runs reach what they are meant to: crashes survived, faults of every adapter, payments, deliveries.
    if (ONLY === undefined) {
      expect(report.crashes).toBeGreaterThan(0)
      for (const kind of ["store.crash", "store.commitTimeout", "rail.submitLostAnswer", "kyc.unavailable", "webhook.slow", "network.duplicated"]) {
        expect(report.faults[kind], kind).toBeGreaterThan(0)
      }
      expect(report.eventsTaken).toBeGreaterThan(0)
    }
  }, 600_000)
})
