/**
 * Incoming approvals (WH-21, design Q4; on when `EngineSettings.incomingApproval` is set): an UMA payment received
 * waits in `AWAITING_APPROVAL` (public `PENDING`, `INCOMING_PAYMENT.PENDING`, no money moved) for the platform's
 * decision, which comes from one of three places, each applied under the row's lock to a row still awaiting it:
 *
 * - its reply to the `INCOMING_PAYMENT.PENDING` webhook (`approvalReplies`, a `WebhookReplies` handler): 200
 *   approves; 403 rejects (`COMPLIANCE_REJECTED`, the body's `reason` kept); 202 means "decision to follow through
 *   the API" (the deadline becomes the reply + `replySeconds`); 422 fails it `MISSING_MANDATORY_PAYEE_DATA`; 409
 *   changes nothing; any other status or no answer fails it `PAYMENT_APPROVAL_WEBHOOK_ERROR` (never credits);
 * - `POST /transactions/{id}/approve` or `/reject` (409 `TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL` otherwise);
 * - the worker, at the deadline (`dueAt`): `PAYMENT_APPROVAL_TIMED_OUT`.
 *
 * Approval credits the account exactly once: the posted transfer `system:deposits:<ccy>` → account is written by the
 * `APPROVE` move only, which the lock and the state check let happen once.
 */
import { type Clock, Effect, Layer } from "effect"
import { recordSteps } from "../accounts/balance-updates.ts"
import { Ids } from "../ports/ids.ts"
import { Rail } from "../ports/rail.ts"
import { Screening } from "../ports/screening.ts"
import { Store } from "../ports/store.ts"
import { EngineConfig, type IncomingApprovalSettings, sandboxIncomingApproval } from "../shared/engine-config.ts"
import type { Refused } from "../shared/errors.ts"
import { addSeconds } from "../shared/time.ts"
import type { Steps } from "../shared/tracing.ts"
import { WebhookReplies, type WebhookReply, type WebhookReplyHandler } from "../webhooks/model.ts"
import { transactionNotFound, transactionNotPendingApproval } from "./errors.ts"
import { depositLeg } from "./legs.ts"
import type {
  ApproveTransactionRequest,
  TransactionFailureReason,
  TransactionReasonRequest,
  TransactionRecord
} from "./model.ts"
import { dieOnUnique, type MoveError, moveTransactionSteps, nowOf, saveRecordSteps } from "./moves.ts"
import type { PaymentPorts } from "./ports.ts"

/** The state an incoming payment waits for the platform's decision in. */
export const AWAITING_APPROVAL = "AWAITING_APPROVAL"

/** The event whose replies decide: the upstream's incoming-payment webhook. */
export const APPROVAL_EVENT = "INCOMING_PAYMENT.PENDING"

/** Moves a just-inserted incoming payment to await approval (inside its store transaction): no money moves. */
export function* awaitApprovalSteps(
  ports: PaymentPorts,
  pending: TransactionRecord,
  settings: IncomingApprovalSettings,
  now: string
): Steps<TransactionRecord, MoveError> {
  return yield* moveTransactionSteps(
    ports,
    pending,
    "AWAIT_APPROVAL",
    { record: { dueAt: addSeconds(now, settings.decisionSeconds) } },
    now
  )
}

/** `APPROVE`: the deposit posted into the account, the payment `COMPLETED`. */
function* approveSteps(
  ports: PaymentPorts,
  current: TransactionRecord,
  now: string
): Steps<TransactionRecord, MoveError | Refused> {
  const { amount, currency } = current.transaction.receivedAmount
  yield* recordSteps(ports, current.id, [depositLeg(current.accountId!, amount, currency.code)], "POSTED", now)
  return yield* moveTransactionSteps(
    ports,
    current,
    "APPROVE",
    { transaction: { settledAt: now }, record: { dueAt: undefined } },
    now
  )
}

/** `REJECT` or `APPROVAL_FAIL`: the payment `FAILED` with `reason`; nothing was credited, nothing moves. */
function* declineSteps(
  ports: PaymentPorts,
  current: TransactionRecord,
  event: "REJECT" | "APPROVAL_FAIL",
  reason: TransactionFailureReason,
  now: string,
  decisionReason?: string
): Steps<TransactionRecord, MoveError> {
  return yield* moveTransactionSteps(
    ports,
    current,
    event,
    {
      transaction: { failureReason: reason },
      record: { dueAt: undefined, ...(decisionReason === undefined ? {} : { decisionReason }) }
    },
    now
  )
}

type Decision =
  | { readonly _tag: "Approve" }
  | { readonly _tag: "Reject"; readonly reason?: string | undefined }
  | { readonly _tag: "Fail"; readonly reason: TransactionFailureReason }
  | { readonly _tag: "Wait" }
  | { readonly _tag: "Ignore" }

/** The `reason` of a 403 reply's JSON body, if it has one (at most 1 000 characters kept). */
const replyReason = (body: string): string | undefined => {
  try {
    const parsed: unknown = JSON.parse(body)
    if (typeof parsed === "object" && parsed !== null && "reason" in parsed && typeof parsed.reason === "string") {
      return parsed.reason.slice(0, 1000)
    }
  } catch {
    // Not JSON: no reason.
  }
  return undefined
}

/** What a webhook reply decides (pure; the table of the module's comment). */
export const replyDecision = (reply: WebhookReply): Decision => {
  if (reply._tag === "TransportError") return { _tag: "Fail", reason: "PAYMENT_APPROVAL_WEBHOOK_ERROR" }
  switch (reply.status) {
    case 200:
      return { _tag: "Approve" }
    case 202:
      return { _tag: "Wait" }
    case 403:
      return { _tag: "Reject", reason: replyReason(reply.body) }
    case 409:
      return { _tag: "Ignore" }
    case 422:
      return { _tag: "Fail", reason: "MISSING_MANDATORY_PAYEE_DATA" }
    default:
      return { _tag: "Fail", reason: "PAYMENT_APPROVAL_WEBHOOK_ERROR" }
  }
}

const replyInStore = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  id: string,
  decision: Decision,
  settings: IncomingApprovalSettings,
  clock: Clock.Clock
) {
  const current = yield* ports.store.transactions.getForUpdate(id)
  // Decided already (the API, the deadline, an earlier attempt): a late reply changes nothing.
  if (current === undefined || current.state !== AWAITING_APPROVAL) return
  const now = nowOf(clock)
  switch (decision._tag) {
    case "Approve":
      yield* approveSteps(ports, current, now)
      return
    case "Reject":
      yield* declineSteps(ports, current, "REJECT", "COMPLIANCE_REJECTED", now, decision.reason)
      return
    case "Fail":
      yield* declineSteps(ports, current, "APPROVAL_FAIL", decision.reason, now)
      return
    case "Wait":
      yield* saveRecordSteps(ports, current, { record: { dueAt: addSeconds(now, settings.replySeconds) } }, now)
      return
    case "Ignore":
      return
  }
})

/**
 * The `WebhookReplies` handler of incoming approvals: the platform's reply to `INCOMING_PAYMENT.PENDING` decides
 * the payment (see the module's comment). A ledger refusal cannot happen (the deposits account may go negative);
 * a store error is logged by the dispatcher and the deadline then decides.
 */
export const approvalReplies = (ports: PaymentPorts): WebhookReplyHandler => ({
  types: [APPROVAL_EVENT],
  onReply: (event, reply) =>
    Effect.gen(function* () {
      const settings = (yield* EngineConfig).incomingApproval ?? sandboxIncomingApproval
      const clock = yield* Effect.clockWith(Effect.succeed)
      yield* dieOnUnique(
        ports.store.transaction(replyInStore(ports, event.subject, replyDecision(reply), settings, clock))
      ).pipe(
        Effect.catchTag("Refused", (e) => Effect.die(e)),
        Effect.catchTag("IllegalTransition", (e) => Effect.die(e))
      )
    })
})

/** The layer giving the webhook dispatcher the approvals' reply handler (engine.ts). */
export const approvalRepliesLayer: Layer.Layer<never, never, Store | Ids | Rail> = Layer.effect(
  WebhookReplies,
  Effect.gen(function* () {
    const ports: PaymentPorts = { store: yield* Store, ids: yield* Ids, rail: yield* Rail, screening: yield* Screening }
    return [approvalReplies(ports)]
  })
)

const decideInStore = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  id: string,
  decide: (current: TransactionRecord, now: string) => Steps<TransactionRecord, MoveError | Refused>,
  clock: Clock.Clock
) {
  const current = yield* ports.store.transactions.getForUpdate(id)
  if (current === undefined) return yield* Effect.fail(transactionNotFound(id))
  if (current.state !== AWAITING_APPROVAL) return yield* Effect.fail(transactionNotPendingApproval(current))
  return yield* decide(current, nowOf(clock))
})

/** `POST /transactions/{id}/approve`: credits the payment (`COMPLETED`). */
export const approveIncoming = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  id: string,
  _request: ApproveTransactionRequest | undefined,
  clock: Clock.Clock
) {
  const decided = yield* dieOnUnique(
    ports.store.transaction(decideInStore(ports, id, (current, now) => approveSteps(ports, current, now), clock))
  )
  return decided.transaction
})

/** `POST /transactions/{id}/reject`: fails the payment `COMPLIANCE_REJECTED`, keeping the platform's `reason`. */
export const rejectIncoming = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  id: string,
  request: TransactionReasonRequest | undefined,
  clock: Clock.Clock
) {
  const decided = yield* dieOnUnique(
    ports.store.transaction(
      decideInStore(
        ports,
        id,
        (current, now) => declineSteps(ports, current, "REJECT", "COMPLIANCE_REJECTED", now, request?.reason),
        clock
      )
    )
  )
  return decided.transaction
})

/** The worker's step for a payment awaiting approval at its deadline: `PAYMENT_APPROVAL_TIMED_OUT`. */
export const expireApprovalInStore = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  record: TransactionRecord,
  clock: Clock.Clock
) {
  const current = yield* ports.store.transactions.getForUpdate(record.id)
  if (current === undefined || current.state !== AWAITING_APPROVAL) return current ?? record
  const now = nowOf(clock)
  // A 202 reply may have moved the deadline after the worker listed the row.
  if (current.dueAt !== undefined && current.dueAt > now) return current
  return yield* declineSteps(ports, current, "APPROVAL_FAIL", "PAYMENT_APPROVAL_TIMED_OUT", now)
})
