/**
 * Seeded fault simulation on the PostgreSQL store (PGlite, and a PostgreSQL server when DATABASE_URL is set): the
 * sequences of simulator.test.ts, fewer of them, each on an emptied database, a restart opening a new Store (on
 * PostgreSQL a new pool). And the proof that the simulator can fail: planted faults it must catch, each with the seed
 * and steps that replay it. Rows: L-08, L-10, I-01..I-04, WH-01, WH-03, WH-19, T-05, T-07.
 *
 * Replay a failure: PAYCORE_SIM_SEED=<seed> PAYCORE_SIM_SEQUENCE=<index> npx vitest run packages/testkit/test/simulator-stores.test.ts
 */
import type { OutboxRecord, Store } from "@paycore/core"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { drawProfile, NO_FAULTS, runSimulation, type SimRandom, SimulationFailure } from "../src/simulator/index.ts"
import {
  memoryDatabase,
  ONLY,
  pgliteDatabases,
  postgresDatabases,
  replayCommand,
  SECONDS,
  SEED,
  SEQUENCES,
  simPorts,
  summary,
  TIMEOUT
} from "./simulator-setup.ts"

const REPLAY = replayCommand("simulator-stores.test.ts")
/** Few sequences run on a database: each with faults, at the higher intensities. */
const heavy = (random: SimRandom) => drawProfile(random, { heavy: true })
const url = process.env.DATABASE_URL
const count = (ci: number) =>
  ONLY !== undefined
    ? 1
    : SEQUENCES !== undefined
      ? Math.ceil(SEQUENCES / 10)
      : SECONDS === undefined
        ? ci
        : Number.MAX_SAFE_INTEGER

describe("seeded fault simulation, PostgreSQL store", () => {
  const pglite = pgliteDatabases()
  const server = url === undefined || url === "" ? undefined : postgresDatabases(url)
  beforeAll(async () => {
    await pglite.open()
    await server?.open()
  }, 120_000)
  afterAll(async () => {
    await pglite.close()
    await server?.close()
  })

  it(
    "on PGlite: the same invariants through faults and crashes",
    async () => {
      const report = await runSimulation({
        ports: simPorts,
        database: pglite.database,
        seed: SEED,
        sequences: count(60),
        first: ONLY,
        seconds: SECONDS ?? 12,
        steps: { min: 2, max: 12 },
        profile: heavy,
        replay: REPLAY
      })
      console.log(summary("PGlite", report))
      expect(report.sequences).toBeGreaterThan(0)
    },
    TIMEOUT
  )

  it.skipIf(server === undefined)(
    "on PostgreSQL (DATABASE_URL): the same invariants through faults and crashes",
    async () => {
      const report = await runSimulation({
        ports: simPorts,
        database: server!.database,
        seed: SEED,
        sequences: count(60),
        first: ONLY,
        seconds: SECONDS ?? 12,
        steps: { min: 2, max: 12 },
        profile: heavy,
        replay: REPLAY
      })
      console.log(summary("PostgreSQL", report))
      expect(report.sequences).toBeGreaterThan(0)
    },
    TIMEOUT
  )
})

/** Runs the memory simulation over a sabotaged store until it fails; answers the failure. */
const caught = async (wrapStore: (store: Store["Service"]) => Store["Service"]): Promise<SimulationFailure> => {
  const options = { ports: simPorts, database: memoryDatabase, seed: 7, sequences: 400, wrapStore, replay: REPLAY }
  const failure = await runSimulation(options).then(
    () => undefined,
    (error: unknown) => error
  )
  if (!(failure instanceof SimulationFailure)) throw new Error(`the sabotage was not caught: ${String(failure)}`)
  // The seed and index replay it: the same sequence fails again, the same way, alone.
  const again = await runSimulation({ ...options, first: failure.sequence, sequences: 1 }).then(
    () => undefined,
    (error: unknown) => error
  )
  expect(again).toBeInstanceOf(SimulationFailure)
  expect((again as SimulationFailure).steps).toEqual(failure.steps)
  expect((again as SimulationFailure).message).toBe(failure.message)
  return failure
}

describe("the simulator catches planted faults, with a seed that replays them", () => {
  it("a rail whose every submission answer is lost: no payout the rail took is refunded (T-07)", async () => {
    // Before the fix of issue 33 the engine failed and refunded such a payment after MAX_SUBMIT_ATTEMPTS: seed 1,
    // sequence 13 here broke "rail: … was taken by the rail, the engine failed it without asking".
    const report = await runSimulation({
      ports: simPorts,
      database: memoryDatabase,
      seed: 1,
      sequences: 16,
      steps: { min: 40, max: 60 },
      profile: () => ({ ...NO_FAULTS, name: "lost answers", rail: { submitLostAnswer: 1 } }),
      replay: REPLAY
    })
    expect(report.faults["rail.submitLostAnswer"]).toBeGreaterThan(0)
    expect(report.stalledResumed).toBeGreaterThan(0)
  }, 120_000)

  it("a store whose transactions are not atomic: a crash leaves half a command committed", async () => {
    const failure = await caught((store) => ({ ...store, transaction: (effect) => effect }))
    console.log(failure.message.split("\n").slice(0, 3).join("\n"))
    expect(failure.message).toMatch(/replay: PAYCORE_SIM_SEED=7 PAYCORE_SIM_SEQUENCE=\d+/)
    expect(failure.message).toMatch(/lost|not on record|ledger|rolled back|outbox/)
  }, 120_000)

  it("a dispatcher that skips an event: it is marked delivered and never sent", async () => {
    const failure = await caught((store) => ({
      ...store,
      outbox: {
        ...store.outbox,
        claimDue: (now, limit, leaseUntil) =>
          Effect.flatMap(store.outbox.claimDue(now, limit, leaseUntil), (rows) => {
            // One event in sixteen (by its id, so that a replay skips the same): marked delivered, never sent.
            const skipped = rows.filter((row) => row.id.endsWith("0"))
            if (skipped.length === 0) return Effect.succeed(rows)
            const marked = skipped.map((row): OutboxRecord => ({ ...row, status: "DELIVERED", leaseUntil: undefined }))
            return Effect.as(
              Effect.forEach(marked, (row) => store.outbox.save(row)),
              rows.filter((row) => !row.id.endsWith("0"))
            )
          })
      }
    }))
    console.log(failure.message.split("\n").slice(0, 3).join("\n"))
    expect(failure.message).toMatch(/marked DELIVERED, the receiver never took it|never delivered/)
  }, 120_000)
})
