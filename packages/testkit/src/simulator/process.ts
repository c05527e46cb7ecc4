/**
 * The simulated world of one sequence and the engine processes that run in it. The world (the rail, the KYC provider,
 * the card network, the webhook receiver, the database, simulated time) outlives a crash; a process (the engine's
 * layers over a fresh connection to the database) does not: a crash disposes it and a restart builds another.
 */
import {
  Accounts,
  CardsLayer,
  Customers,
  Ids,
  KycProvider,
  type NetworkEvent,
  Onboarding,
  PaymentsLayer,
  PlatformConfigService,
  Rail,
  Store,
  WebhookDispatcher,
  WebhookTransport
} from "@paycore/core"
import { Context, Effect, Exit, Layer, Logger, ManagedRuntime, Random, Scope } from "effect"
import { TestClock } from "effect/testing"
import type { ModelPorts } from "../engine-model/engine.ts"
import { type FaultLog, type FaultSwitch, makeFaultLog } from "../faults/log.ts"
import {
  type FaultyRail,
  type FaultyWebhookReceiver,
  faultyKycProvider,
  faultyRail,
  faultyWebhookReceiver
} from "../faults/ports.ts"
import type { SimRandom } from "../faults/random.ts"
import { type FaultyStore, faultyStore } from "../faults/store.ts"
import { makeWebhookRecorder, type WebhookRecorder } from "../webhook-recorder.ts"
import type { FaultProfile } from "./profile.ts"

/** One connection to a simulated database: a Store over it, and how to close it (a crash closes it). */
export interface SimulatedConnection {
  readonly store: Store["Service"]
  readonly close: () => Promise<void>
}

/** A database for one sequence: empty at first; every `connect` opens a new connection to the same data. */
export interface SimulatedDatabase {
  readonly connect: () => Promise<SimulatedConnection>
  /** Called when the sequence ends (drop or empty the data). */
  readonly dispose?: (() => Promise<void>) | undefined
}

/** The ports the simulator takes from its caller: every port but the Store, Ids and the webhook transport. */
export type WorldPorts = Exclude<ModelPorts, Store | Ids>

/** The instant every sequence starts at (a Monday, noon UTC). */
export const SIM_EPOCH = Date.parse("2026-01-05T12:00:00.000Z")

export const SIM_WEBHOOK_ENDPOINT = "https://receiver.example/paycore/webhooks"

/** What outlives a crash: the external systems, their faults, the database, time. */
export interface World {
  readonly random: SimRandom
  readonly log: FaultLog
  readonly faults: FaultSwitch
  readonly profile: FaultProfile
  readonly database: SimulatedDatabase
  readonly context: Context.Context<WorldPorts | Ids | WebhookTransport>
  readonly rail: FaultyRail
  readonly receiver: FaultyWebhookReceiver
  readonly recorder: WebhookRecorder
  /** Ids of events appended in transactions that never committed. */
  readonly rolledBackEvents: Set<string>
  /** Simulated time, in ms since the epoch. */
  nowMs: number
  /** Card network events the network holds back, to deliver later (out of order). */
  readonly heldNetworkEvents: Array<NetworkEvent>
  readonly close: () => Promise<void>
}

/** Builds the world of one sequence: the caller's ports once, behind the fault adapters. */
export const makeWorld = async (
  ports: Layer.Layer<WorldPorts, unknown>,
  database: SimulatedDatabase,
  random: SimRandom,
  profile: FaultProfile,
  idSeed: number
): Promise<World> => {
  const log = makeFaultLog()
  const faults: FaultSwitch = { healed: false }
  const scope = Effect.runSync(Scope.make())
  const built = await Effect.runPromise(Layer.buildWithScope(Layer.merge(ports, Ids.layerSeeded(idSeed)), scope))
  const recorder = makeWebhookRecorder()
  const rail = faultyRail(Context.get(built, Rail), { random: random.fork(), rates: profile.rail, log, faults })
  const kyc = faultyKycProvider(Context.get(built, KycProvider), {
    random: random.fork(),
    rates: profile.kyc,
    log,
    faults
  })
  const receiver = faultyWebhookReceiver(recorder.transport, {
    random: random.fork(),
    rates: profile.webhook,
    log,
    faults
  })
  const context = built.pipe(
    Context.add(Rail, rail.rail),
    Context.add(KycProvider, kyc),
    Context.add(WebhookTransport, receiver.transport)
  ) as Context.Context<WorldPorts | Ids | WebhookTransport>
  return {
    random,
    log,
    faults,
    profile,
    database,
    context,
    rail,
    receiver,
    recorder,
    rolledBackEvents: new Set(),
    nowMs: SIM_EPOCH,
    heldNetworkEvents: [],
    close: async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      await database.dispose?.()
    }
  }
}

/** A running engine: its services over a faulty connection, on a TestClock set to the world's time. */
export interface SimProcess {
  readonly connection: SimulatedConnection
  readonly faulty: FaultyStore
  /** Runs `effect` in the process (seeded randomness), answering its exit. */
  readonly exit: <A, E>(effect: Effect.Effect<A, E, SimContext>) => Promise<Exit.Exit<A, E>>
  /** Runs `effect` against the raw connection (no faults): the simulator's own reads. */
  readonly read: <A, E>(effect: Effect.Effect<A, E, Store>) => Promise<A>
  readonly advance: (seconds: number) => Promise<void>
  readonly stop: () => Promise<void>
}

const quiet = Logger.layer([])

/**
 * The engine's layers the simulation drives, composed as `EngineLayer` composes them (payments, cards, onboarding,
 * the dispatcher, over customers, accounts and the platform config): what a host runs for these contexts, rebuilt at
 * every restart. The contexts it does not drive are left out, which halves the cost of a restart.
 */
export const SimEngineLayer = Layer.mergeAll(PaymentsLayer, CardsLayer, Onboarding.layer, WebhookDispatcher.layer).pipe(
  Layer.provideMerge(Customers.layer),
  Layer.provideMerge(Accounts.layer),
  Layer.provideMerge(PlatformConfigService.layer)
)

/** What a command of the simulation runs against. */
export type SimContext = Layer.Success<typeof SimEngineLayer> | ModelPorts | WebhookTransport

/**
 * Starts a process: connects, builds the engine over the connection behind `faultyStore` (with `wrapStore`, a
 * sabotage of the test's, in between) and sets its clock and webhook endpoint. Startup itself runs without faults.
 */
export const startProcess = async (
  world: World,
  wrapStore: (store: Store["Service"]) => Store["Service"] = (s) => s,
  first = false
): Promise<SimProcess> => {
  const connection = await world.database.connect()
  const faulty = faultyStore(wrapStore(connection.store), {
    random: world.random.fork(),
    rates: world.profile.store,
    log: world.log,
    faults: world.faults,
    rolledBackEvents: world.rolledBackEvents
  })
  const runtime = ManagedRuntime.make(
    SimEngineLayer.pipe(
      Layer.provideMerge(Layer.merge(Layer.succeedContext(world.context), Layer.succeed(Store, faulty.store))),
      Layer.provideMerge(TestClock.layer()),
      Layer.provideMerge(quiet),
      // One seeded source for the process (the dispatcher's jitter, ...): a run replays from its seed.
      Layer.provideMerge(
        Layer.effect(
          Random.Random,
          Random.withSeed(
            Effect.gen(function* () {
              return yield* Random.Random
            }),
            world.random.int(2 ** 31)
          )
        )
      )
    )
  )
  const healed = world.faults.healed
  world.faults.healed = true
  try {
    // The endpoint is configured once, by the first process of the sequence: a restart finds it in the store.
    await runtime.runPromise(
      first
        ? Effect.andThen(
            TestClock.setTime(world.nowMs),
            Effect.flatMap(PlatformConfigService, (config) => config.update({ webhookEndpoint: SIM_WEBHOOK_ENDPOINT }))
          )
        : TestClock.setTime(world.nowMs)
    )
  } finally {
    world.faults.healed = healed
  }
  const raw = Layer.succeed(Store, connection.store)
  return {
    connection,
    faulty,
    exit: <A, E>(effect: Effect.Effect<A, E, SimContext>) => runtime.runPromiseExit(effect) as Promise<Exit.Exit<A, E>>,
    read: (effect) => Effect.runPromise(Effect.provide(effect, raw)).then((a) => a),
    advance: async (seconds) => {
      world.nowMs += seconds * 1000
      await runtime.runPromise(TestClock.setTime(world.nowMs))
    },
    stop: async () => {
      await runtime.dispose().catch(() => undefined)
      await connection.close()
    }
  }
}
