/**
 * What the simulator's tests share: the sandbox ports, the databases (memory, PGlite, PostgreSQL), the settings read
 * from the environment, and the line each run prints.
 */
import { readFileSync } from "node:fs"
import { WebhookSigner } from "@paycore/core"
import * as Sandbox from "@paycore/sandbox"
import * as MemoryStore from "@paycore/store-memory"
import {
  type Database,
  MIGRATION_TABLE,
  makePgKysely,
  makePgliteKysely,
  makePostgresStore,
  migrate
} from "@paycore/store-postgres"
import { Effect, Layer } from "effect"
import { type Kysely, sql } from "kysely"
import { expect, inject } from "vitest"
import { runSimulation, type SimulatedDatabase, type SimulationReport } from "../src/simulator/index.ts"

const envSeed = process.env.PAYCORE_SIM_SEED
/** The run's seed: fixed in CI; `PAYCORE_SIM_SEED=random` draws one (printed). */
export const SEED = envSeed === "random" ? Math.floor(Math.random() * 2 ** 31) : Number(envSeed ?? 20261129)
/** `PAYCORE_SIM_SEQUENCE=<index>`: replay that sequence alone. */
export const ONLY =
  process.env.PAYCORE_SIM_SEQUENCE === undefined ? undefined : Number(process.env.PAYCORE_SIM_SEQUENCE)
/** `PAYCORE_SIM_SECONDS`: a time budget per store instead of a count (a long run). */
export const SECONDS =
  process.env.PAYCORE_SIM_SECONDS === undefined ? undefined : Number(process.env.PAYCORE_SIM_SECONDS)
/** A test's timeout: its time budget and a margin, or ten minutes for a count. */
export const TIMEOUT = SECONDS === undefined ? 600_000 : (SECONDS + 300) * 1000

/** `PAYCORE_SIM_SEQUENCES`: how many sequences on the memory store (the database stores run a tenth). */
export const SEQUENCES =
  process.env.PAYCORE_SIM_SEQUENCES === undefined ? undefined : Number(process.env.PAYCORE_SIM_SEQUENCES)

export const replayCommand = (file: string) =>
  `PAYCORE_SIM_SEED={seed} PAYCORE_SIM_SEQUENCE={sequence} npx vitest run packages/testkit/test/${file}`

// Deliveries are signed by a fixed stand-in: signatures are the conformance tests' matter, and P-256 signing of every
// delivery would be a fifth of the simulation's time.
const keys = Effect.runSync(
  Effect.provide(
    Effect.gen(function* () {
      return yield* WebhookSigner
    }),
    WebhookSigner.layerGenerated
  )
)

/** The ports of every sequence's world: the sandbox's (rail, FX, KYC, card issuer...), documents, a signer. */
export const simPorts = Layer.mergeAll(
  Sandbox.layer({ speedUp: 1 }),
  MemoryStore.documentStoreLayer,
  Layer.succeed(WebhookSigner, { ...keys, sign: () => "c2lnbmVk" })
)

/** The memory store: one per sequence; a restart reconnects to the same store, its data kept. */
export const memoryDatabase = async (): Promise<SimulatedDatabase> => {
  const store = Effect.runSync(MemoryStore.makeMemoryStore)
  return { connect: async () => ({ store, close: async () => undefined }) }
}

/**
 * Every table but the migrations' emptied: the next sequence starts from an empty database. Deletes, not TRUNCATE: a
 * truncate of every table takes a second or two on a busy server, the deletes of a few rows milliseconds.
 */
const emptier = () => {
  let tables: ReadonlyArray<string> | undefined
  return async (db: Kysely<Database>) => {
    tables ??= (
      await sql<{ tablename: string }>`
        select tablename from pg_tables where schemaname = current_schema() and tablename <> ${MIGRATION_TABLE}`.execute(
        db
      )
    ).rows.map((row) => row.tablename)
    await db.transaction().execute(async (tx) => {
      for (const table of tables!) await sql.raw(`delete from "${table}"`).execute(tx)
    })
  }
}

/** The run's PGlite template (the global setup's dump), so a PGlite does not run initdb. */
const pgliteTemplate = (): { template?: Blob } => {
  try {
    const file = inject("paycorePgliteTemplate")
    return file === undefined ? {} : { template: new Blob([new Uint8Array(readFileSync(file))]) }
  } catch {
    return {}
  }
}

/**
 * PGlite: one database for the file, emptied before each sequence; a restart makes a new Store (statements,
 * executor, group commit) over the same database (PGlite has one connection).
 */
export const pgliteDatabases = () => {
  let db: Kysely<Database> | undefined
  const truncateAll = emptier()
  const open = async () => {
    if (db === undefined) {
      db = makePgliteKysely(pgliteTemplate())
      await migrate(db)
    }
    return db
  }
  return {
    /** Starts PGlite and migrates (seconds: before a run's time budget starts). */
    open,
    database: async (): Promise<SimulatedDatabase> => {
      const opened = await open()
      await truncateAll(opened)
      return {
        connect: async () => ({ store: Effect.runSync(makePostgresStore(opened)), close: async () => undefined })
      }
    },
    close: async () => db?.destroy()
  }
}

/**
 * PostgreSQL (DATABASE_URL): a schema of the file's own, emptied before each sequence; a restart opens a new pool on
 * it (the old one closed, as a crashed process's connections are).
 */
export const postgresDatabases = (url: string) => {
  const schema = `sim_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  let admin: Kysely<Database> | undefined
  const truncateAll = emptier()
  const open = async () => {
    if (admin === undefined) {
      const bootstrap = makePgKysely({ connectionString: url, max: 1 })
      await sql.raw(`create schema ${schema}`).execute(bootstrap)
      await bootstrap.destroy()
      admin = makePgKysely({ connectionString: url, schema, max: 2 })
      await migrate(admin)
    }
    return admin
  }
  return {
    open,
    database: async (): Promise<SimulatedDatabase> => {
      await truncateAll(await open())
      return {
        connect: async () => {
          const db = makePgKysely({ connectionString: url, schema, max: 4 })
          return { store: Effect.runSync(makePostgresStore(db)), close: () => db.destroy() }
        }
      }
    },
    close: async () => {
      if (admin === undefined) return
      await sql.raw(`drop schema ${schema} cascade`).execute(admin)
      await admin.destroy()
    }
  }
}

/** The line a run prints: the figures docs/reliability.md quotes. */
export const summary = (label: string, r: SimulationReport) =>
  `${label}: seed ${r.seed}, ${r.sequences} sequences, ${r.steps} steps, ${r.crashes} crashes, ${r.restarts} restarts, ` +
  `${r.payments} payments (${r.paymentsEnded} ended, ${r.stalledResumed} stalled and resumed), ${r.authorizations} card authorizations, ` +
  `${r.acknowledged} acknowledged writes checked (0 lost), ${r.eventsCommitted} events committed, ` +
  `${r.eventsTaken} delivered (0 lost), ${r.eventsRolledBack} rolled back (0 delivered), ` +
  `outcomes ${JSON.stringify(r.outcomes)}, faults ${JSON.stringify(r.faults)}, ${r.wallSeconds.toFixed(1)} s`

/** Sequences per CI run on the memory store, in two halves (two files, two workers). */
export const CI_SEQUENCES = 10_000

/**
 * One half of the memory store's run: in CI sequences 0..4,999 or 5,000..9,999 of the seed; `PAYCORE_SIM_SEQUENCE`
 * replays one (the first half's file runs it); `PAYCORE_SIM_SEQUENCES` and `PAYCORE_SIM_SECONDS` are split in halves
 * (the second starting at index 1,000,000,000).
 */
export const memoryRun = async (half: "first" | "second", file: string) => {
  const long = SEQUENCES !== undefined || SECONDS !== undefined
  const count = ONLY !== undefined ? 1 : Math.ceil((SEQUENCES ?? (long ? Number.MAX_SAFE_INTEGER : CI_SEQUENCES)) / 2)
  const first = ONLY ?? (half === "first" ? 0 : long ? 1_000_000_000 : CI_SEQUENCES / 2)
  const report = await runSimulation({
    ports: simPorts,
    database: memoryDatabase,
    seed: SEED,
    sequences: count,
    first,
    seconds: SECONDS,
    steps: { min: 2, max: 10 },
    replay: replayCommand(file)
  })
  console.log(summary(`memory (${half} half)`, report))
  if (!long && ONLY === undefined) {
    expect(report.sequences).toBe(CI_SEQUENCES / 2)
    // The runs reach what they are meant to: crashes survived, faults of every adapter, payments, deliveries.
    expect(report.crashes).toBeGreaterThan(0)
    expect(report.payments).toBeGreaterThan(0)
    expect(report.authorizations).toBeGreaterThan(0)
    expect(report.eventsTaken).toBeGreaterThan(0)
    for (const kind of [
      "store.crash",
      "store.commitTimeout",
      "rail.submitLostAnswer",
      "kyc.unavailable",
      "webhook.slow",
      "network.duplicated"
    ]) {
      expect(report.faults[kind], kind).toBeGreaterThan(0)
    }
  }
}
