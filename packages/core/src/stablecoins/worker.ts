import { Effect, Result } from "effect"
import { resolveSteps, writeTransfersSteps } from "../accounts/balance-updates.ts"
import type { ProviderOperationStatus, StablecoinProviderError } from "../ports/stablecoin-provider.ts"
import { walkDue } from "../shared/due-walk.ts"
import type { StoreError } from "../shared/errors.ts"
import { type IllegalTransition, transition } from "../shared/machine.ts"
import { addSeconds, nowIso, pollBackoffSeconds } from "../shared/time.ts"
import { completionLegs } from "./legs.ts"
import type { StablecoinOperationEvent } from "./machine.ts"
import { stablecoinOperationMachine } from "./machine.ts"
import type { StablecoinOperationRecord, StablecoinOperationStatus } from "./model.ts"
import type { StablecoinPorts } from "./ports.ts"
import { credentialsOf, moveLink } from "./provider-accounts.ts"

// The stablecoins worker (design section 3 step 4, `StablecoinsWorker.processDue`): each due operation's provider
// call runs outside any transaction; its answer is applied in a transaction that re-reads the operation under lock
// and does nothing when its state moved meanwhile (a compare-and-set, as the settlement worker's poll), so two passes
// at once complete an operation once.

/** Operations read per page by a pass. */
const PAGE = 100
/** Retryable provider errors before an operation stalls (a `CREATED` one is refused), as `MAX_POLL_ATTEMPTS`. */
export const MAX_PROVIDER_ATTEMPTS = 20
/** How soon an operation waiting on the provider is asked again (seconds). */
const POLL_SECONDS = 5
/** How soon an operation waiting on outside funds is asked again (seconds), unless it expires sooner. */
const FUNDING_POLL_SECONDS = 60

const LIVE_STATES: ReadonlyArray<StablecoinOperationStatus> = [
  "CREATED",
  "PENDING_FUNDING",
  "PENDING_PROVIDER",
  "PROCESSING"
]

/** The provider's word for the status (`providerStatus`, sanitized: the tag only). */
const providerStatusOf: Readonly<Record<ProviderOperationStatus["_tag"], string>> = {
  AwaitingFunds: "AWAITING_FUNDS",
  FundsReceived: "FUNDS_RECEIVED",
  Processing: "PROCESSING",
  Completed: "COMPLETED",
  Failed: "FAILED",
  Expired: "EXPIRED"
}

/** The machine's walk from `from` to what the provider says (a skipped `PROCESSING` is allowed). */
export const walkTo = (
  from: StablecoinOperationStatus,
  answer: ProviderOperationStatus,
  pastExpiry: boolean
): ReadonlyArray<StablecoinOperationEvent> => {
  switch (answer._tag) {
    case "AwaitingFunds":
      return from === "PENDING_FUNDING" && pastExpiry ? ["EXPIRE"] : []
    case "FundsReceived":
      return from === "PENDING_FUNDING" ? ["FUNDS_RECEIVED"] : []
    case "Processing":
      return from === "PENDING_FUNDING" ? ["FUNDS_RECEIVED", "START"] : from === "PENDING_PROVIDER" ? ["START"] : []
    case "Completed":
      return from === "PENDING_FUNDING" ? ["FUNDS_RECEIVED", "COMPLETE"] : from === "CREATED" ? [] : ["COMPLETE"]
    case "Failed":
      return from === "CREATED" ? ["REFUSE"] : ["FAIL"]
    case "Expired":
      return from === "PENDING_FUNDING" ? ["EXPIRE"] : from === "CREATED" ? ["REFUSE"] : ["FAIL"]
  }
}

type Patch = Partial<StablecoinOperationRecord>

/** The state `events` lead to from `from`, each move asked of the machine. */
const stateAfter = (from: StablecoinOperationStatus, events: ReadonlyArray<StablecoinOperationEvent>) => {
  let walked: Result.Result<StablecoinOperationStatus, IllegalTransition> = Result.succeed(from)
  for (const event of events) {
    walked = Result.flatMap(walked, (state) =>
      Result.map(transition(stablecoinOperationMachine, state, event), (move) => move.to)
    )
  }
  return walked
}

const without = (op: StablecoinOperationRecord, ...keys: ReadonlyArray<keyof StablecoinOperationRecord>) => {
  const copy: Record<string, unknown> = { ...op }
  for (const key of keys) delete copy[key]
  return copy as unknown as StablecoinOperationRecord
}

/**
 * Applies `events` to the locked operation and its ledger: `COMPLETE` posts the hold and records the completion legs,
 * `FAIL` / `EXPIRE` / `REFUSE` void the hold. A terminal operation keeps no worker bookkeeping.
 */
function* moveSteps(
  ports: StablecoinPorts,
  op: StablecoinOperationRecord,
  events: ReadonlyArray<StablecoinOperationEvent>,
  patch: Patch,
  now: string
) {
  const walked = stateAfter(op.state, events)
  if (Result.isFailure(walked)) return yield* Effect.die(walked.failure)
  const state = walked.success
  const terminal = stablecoinOperationMachine.terminal.includes(state)
  const { store } = ports
  if (state === "COMPLETED" && op.state !== "COMPLETED") {
    yield* resolveSteps(ports, op.id, "POSTED", now)
    // Completion debits only system accounts (supply, reserve, deposits): nothing to check for funds.
    yield* writeTransfersSteps(ports, op.id, completionLegs(op), "POSTED", now)
  } else if ((state === "FAILED" || state === "EXPIRED") && op.state !== state) {
    yield* resolveSteps(ports, op.id, "VOIDED", now)
  }
  const next = { ...op, ...patch, state, updatedAt: now }
  const saved = terminal ? without(next, "dueAt", "attempts", "stalledAt") : next
  yield* store.stablecoinOperations.update(saved).pipe(Effect.catchTag("UniqueViolation", (e) => Effect.die(e)))
  return saved
}

/** Applies `apply` to the operation under lock when it is still as `seen` (else another pass got there first). */
const underLock = (
  ports: StablecoinPorts,
  seen: StablecoinOperationRecord,
  apply: (
    op: StablecoinOperationRecord
  ) => Generator<Effect.Effect<unknown, StoreError>, StablecoinOperationRecord | undefined, any>
): Effect.Effect<StablecoinOperationRecord | undefined, StoreError> =>
  ports.store.transaction(
    Effect.gen(function* () {
      const op = yield* ports.store.stablecoinOperations.getForUpdate(seen.id)
      if (op === undefined || op.state !== seen.state || op.updatedAt !== seen.updatedAt) return undefined
      return yield* apply(op)
    }) as Effect.Effect<StablecoinOperationRecord | undefined, StoreError>
  )

/** A retryable failure: asked again after the backoff; at the limit a `CREATED` one is refused, another stalls. */
function* retrySteps(ports: StablecoinPorts, op: StablecoinOperationRecord, now: string, why: string) {
  const attempts = (op.attempts ?? 0) + 1
  if (attempts < MAX_PROVIDER_ATTEMPTS) {
    const saved = { ...op, attempts, dueAt: addSeconds(now, pollBackoffSeconds(attempts)), updatedAt: now }
    yield* ports.store.stablecoinOperations.update(saved).pipe(Effect.catchTag("UniqueViolation", (e) => Effect.die(e)))
    return saved
  }
  if (op.state === "CREATED") {
    return yield* moveSteps(ports, op, ["REFUSE"], { failureReason: "PROVIDER_UNAVAILABLE" }, now)
  }
  yield* Effect.logWarning(
    `paycore stablecoins worker: ${why} after ${attempts} attempts for ${op.id}; left ${op.state} for an operator`
  )
  const stalled = { ...without(op, "dueAt"), attempts, stalledAt: now, updatedAt: now }
  yield* ports.store.stablecoinOperations.update(stalled).pipe(Effect.catchTag("UniqueViolation", (e) => Effect.die(e)))
  return stalled
}

/** The provider's answer to a `status` call, applied. */
function* applyStatus(
  ports: StablecoinPorts,
  op: StablecoinOperationRecord,
  answer: ProviderOperationStatus,
  nowMs: number,
  now: string
) {
  const pastExpiry = op.expiresAt !== undefined && nowMs >= Date.parse(op.expiresAt)
  const events = walkTo(op.state, answer, pastExpiry)
  const patch: Patch = {
    providerStatus: providerStatusOf[answer._tag],
    ...(answer._tag === "Failed" ? { failureReason: answer.reason } : {}),
    ...(events.includes("EXPIRE") ? { failureReason: "FUNDS_NOT_RECEIVED" } : {}),
    ...(events.includes("REFUSE") && answer._tag !== "Failed" ? { failureReason: "PROVIDER_REJECTED" } : {})
  }
  const state = Result.getOrElse(stateAfter(op.state, events), () => op.state)
  const waitSeconds = state === "PENDING_FUNDING" ? FUNDING_POLL_SECONDS : POLL_SECONDS
  let dueAt = addSeconds(now, waitSeconds)
  if (state === "PENDING_FUNDING" && op.expiresAt !== undefined && op.expiresAt < dueAt) dueAt = op.expiresAt
  return yield* moveSteps(ports, without(op, "attempts", "stalledAt"), events, { ...patch, dueAt }, now)
}

/** A provider error of the worker's call: the link moved on `Unauthorized` / `Revoked` (the operation waits). */
const onLinkError = (ports: StablecoinPorts, op: StablecoinOperationRecord, e: StablecoinProviderError) =>
  e._tag === "Unauthorized"
    ? moveLink(ports, op.providerAccountLinkId, "INVALIDATE")
    : e._tag === "Revoked"
      ? moveLink(ports, op.providerAccountLinkId, "REVOKE")
      : Effect.void

/** One due operation: `fund` for a `CREATED` one (then its status at once), `status` for the rest. */
const stepOperation = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  seen: StablecoinOperationRecord,
  nowMs: number,
  now: string
): Effect.fn.Return<void, StoreError> {
  const { store, provider } = ports
  const link = yield* store.stablecoinProviderAccounts.get(seen.providerAccountLinkId)
  if (link === undefined) return
  const credentials = yield* Effect.result(credentialsOf(ports, link))
  if (Result.isFailure(credentials)) {
    yield* underLock(ports, seen, (op) => retrySteps(ports, op, now, "the link's credentials did not open"))
    return
  }
  let op: StablecoinOperationRecord | undefined = seen
  if (seen.state === "CREATED") {
    const funded = yield* Effect.result(provider.fund(credentials.success, seen.providerOperationId))
    if (Result.isFailure(funded)) {
      const e = funded.failure
      yield* onLinkError(ports, seen, e)
      yield* underLock(ports, seen, (locked) =>
        e._tag === "Rejected"
          ? moveSteps(ports, locked, ["REFUSE"], { failureReason: "PROVIDER_REJECTED" }, now)
          : retrySteps(ports, locked, now, `the provider did not take the funds (${e._tag})`)
      )
      return
    }
    op = yield* underLock(ports, seen, (locked) =>
      moveSteps(ports, without(locked, "attempts", "stalledAt"), ["FUND"], { dueAt: now }, now)
    )
    if (op === undefined) return
  }
  const current = op
  const answer = yield* Effect.result(provider.status(credentials.success, current.providerOperationId))
  if (Result.isFailure(answer)) {
    yield* onLinkError(ports, current, answer.failure)
    yield* underLock(ports, current, (locked) =>
      retrySteps(ports, locked, now, `the provider did not answer (${answer.failure._tag})`)
    )
    return
  }
  yield* underLock(ports, current, (locked) => applyStatus(ports, locked, answer.success, nowMs, now))
})

/**
 * One pass over the due operations (the worker pass runs it after settlement; tests call `server.processDue()`). A
 * step that fails unexpectedly is logged and retried next pass.
 */
export const processDueOperations = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  nowMs: number,
  now: string
): Effect.fn.Return<{ readonly stepped: number; readonly errors: number }, StoreError> {
  let stepped = 0
  let errors = 0
  yield* walkDue(ports.store.stablecoinOperations, { states: LIVE_STATES, dueBy: now }, PAGE, (operations) =>
    Effect.forEach(operations, (op) =>
      Effect.flatMap(Effect.exit(stepOperation(ports, op, nowMs, now)), (outcome) => {
        if (outcome._tag === "Success") {
          stepped++
          return Effect.void
        }
        errors++
        return Effect.logError(`paycore stablecoins worker: ${op.id} failed`, outcome.cause)
      })
    )
  )
  return { stepped, errors }
})

export interface StablecoinsWorkerReport {
  /** Operations funded or polled. */
  readonly operations: number
  /** Steps that failed unexpectedly (logged; retried next pass). */
  readonly errors: number
}

/** One pass of `StablecoinsWorker.processDue`: nothing without a provider (`ports` is then `undefined`). */
export const processDueStablecoins = Effect.fnUntraced(function* (
  ports: StablecoinPorts | undefined
): Effect.fn.Return<StablecoinsWorkerReport, StoreError> {
  if (ports === undefined) return { operations: 0, errors: 0 }
  const now = yield* nowIso
  const report = yield* processDueOperations(ports, Date.parse(now), now)
  return { operations: report.stepped, errors: report.errors }
})
