/**
 * `@paycore/testkit/simulator`: seeded fault simulation of an embedded engine, in the manner of TigerBeetle's VOPR.
 * Random command sequences across the contexts, faults injected into the store and every external port, crashes and
 * restarts by reopening the store, invariants after every step; a failing sequence prints its seed and steps and
 * replays from them. docs/reliability.md ("Fault simulation") describes it.
 */

export type { EnginePorts, ModelPorts } from "../engine-model/engine.ts"
export type {
  DeliveryFaultRates,
  KycFaultRates,
  RailFaultRates,
  SimRandom,
  StoreFaultRates,
  WebhookFaultRates
} from "../faults/index.ts"
export {
  SIM_EPOCH,
  SIM_WEBHOOK_ENDPOINT,
  type SimulatedConnection,
  type SimulatedDatabase,
  type WorldPorts
} from "./process.ts"
export { drawProfile, type FaultProfile, NO_FAULTS } from "./profile.ts"
export { runSimulation, SimulationFailure, type SimulationOptions, type SimulationReport } from "./run.ts"
export type { SimStats } from "./sim.ts"
