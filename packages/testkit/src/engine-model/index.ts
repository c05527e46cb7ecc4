/**
 * `@paycore/testkit/engine-model`: a model-based test harness over an embedded engine (docs/testing.md). Random
 * sequences of commands (`fc.commands`) run against paycore on your ports, with a model of what the engine must
 * hold; the ledger, balance, outbox and idempotency invariants are checked after every step. Add commands and
 * invariants of your own.
 */
export {
  builtInCommands,
  type EngineCommand,
  type ExecuteResponse,
  engineCommand,
  executeUnderKey,
  IDEMPOTENCY_SCOPE
} from "./commands.ts"
export {
  type EngineContext,
  type EnginePorts,
  MODEL_EPOCH,
  type ModelEngine,
  type ModelPorts,
  startModelEngine
} from "./engine.ts"
export {
  balancesInvariant,
  type EngineInvariant,
  engineInvariants,
  idempotencyInvariant,
  ledgerInvariant,
  outboxInvariant
} from "./invariants.ts"
export {
  type EngineModel,
  initialModel,
  type ModelCustomer,
  type ModelPayees,
  type ModelPayment,
  type PaymentFate,
  sandboxPayees
} from "./model.ts"
export { checkEngineModel, type EngineModelOptions, engineModelProperty } from "./run.ts"
