/**
 * `POST /transactions/{transactionId}/confirm`: the platform records when it delivered a payment's receipt to
 * its customer. No money moves, no event; a second call updates the time.
 */
import { type Clock, Effect } from "effect"
import { InvalidInput } from "../shared/errors.ts"
import { isoOf } from "../shared/time.ts"
import { transactionNotFound } from "./errors.ts"
import type { ConfirmTransactionRequest } from "./model.ts"
import { dieOnUnique, saveRecordSteps } from "./moves.ts"
import type { PaymentPorts } from "./ports.ts"

/** A card transaction's id names no payment: its receipts are the card network's (400, not 404). */
const cardTransactionNotConfirmable = (id: string): InvalidInput =>
  InvalidInput.one(
    "transactionId",
    { pattern: "Transaction:<uuid>" },
    `${id} is a card transaction; only a payment's receipt delivery can be confirmed`
  )

const confirmInStore = Effect.fnUntraced(function* (ports: PaymentPorts, id: string, at: string, now: string) {
  const current = yield* ports.store.transactions.getForUpdate(id)
  if (current === undefined) return yield* Effect.fail(transactionNotFound(id))
  return yield* saveRecordSteps(ports, current, { transaction: { receiptDeliveryConfirmedAt: at } }, now)
})

/**
 * Sets `receiptDeliveryConfirmedAt` (default now; an instant after now is 400), `updatedAt` with it. The instant is
 * kept in the engine's ISO form (UTC, milliseconds), as every other instant.
 */
export const confirmReceipt = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  id: string,
  request: ConfirmTransactionRequest | undefined,
  clock: Clock.Clock
) {
  if (id.startsWith("CardTransaction:")) return yield* Effect.fail(cardTransactionNotConfirmable(id))
  const nowMs = clock.currentTimeMillisUnsafe()
  const now = isoOf(nowMs)
  const given = request?.receiptDeliveryConfirmedAt
  const atMs = given === undefined ? nowMs : Date.parse(given)
  if (!Number.isFinite(atMs)) {
    return yield* Effect.fail(
      InvalidInput.one("receiptDeliveryConfirmedAt", { format: "date-time" }, `Expected an ISO 8601 date-time`)
    )
  }
  if (atMs > nowMs) {
    return yield* Effect.fail(
      InvalidInput.one(
        "receiptDeliveryConfirmedAt",
        { maximum: now },
        `The receipt cannot have been delivered after now (${now}), got ${given}`
      )
    )
  }
  const record = yield* dieOnUnique(ports.store.transaction(confirmInStore(ports, id, isoOf(atMs), now)))
  return record.transaction
})
