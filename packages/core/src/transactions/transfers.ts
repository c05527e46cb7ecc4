/**
 * The deprecated transfer endpoints: `POST /transfer-in` (a pull from a customer's external account into their
 * internal account, PENDING until the rail settles it) and `POST /transfer-out` (a same-currency quote locked on
 * the sending side, executed at once).
 */
import { Effect } from "effect"
import { recordSteps } from "../accounts/balance-updates.ts"
import type { ExternalAccount } from "../accounts/model.ts"
import type { UniqueViolation } from "../ports/store.ts"
import { customerDeleted, customerNotFound, type QuoteError } from "../quotes/errors.ts"
import type { CreateQuoteRequest } from "../quotes/model.ts"
import type { Quotes } from "../quotes/service.ts"
import { usableExternalAccount, usableInternalAccount } from "../quotes/usable-accounts.ts"
import { InvalidInput, type StoreError } from "../shared/errors.ts"
import type { AgentId } from "../shared/ids.ts"
import { amountOf } from "../shared/money.ts"
import { addSeconds, nowIso } from "../shared/time.ts"
import type { Steps } from "../shared/tracing.ts"
import { depositLeg } from "./legs.ts"
import type { TransactionRecord, TransferInRequest, TransferOutRequest } from "./model.ts"
import { currentClock, dieOnUnique, insertTransactionSteps } from "./moves.ts"
import type { PaymentPorts } from "./ports.ts"
import { getPayment } from "./reads.ts"
import { SUBMIT_GRACE_SECONDS, submitSteps } from "./submission.ts"

/** An external account a transfer-in can pull from: US bank accounts (ACH debit) in this engine. */
export const isPullable = (account: ExternalAccount): boolean =>
  account.accountInfo.accountType === "US_ACCOUNT" || account.accountInfo.accountType === "USD_ACCOUNT"

/** The checks of a transfer-in: a pullable account, and an internal account of the same customer and currency. */
export function* transferInAccountsSteps(ports: PaymentPorts, request: TransferInRequest) {
  const external = yield* usableExternalAccount(ports.store, request.source.accountId)
  if (!isPullable(external)) {
    return yield* Effect.fail(
      InvalidInput.one(
        "source.accountId",
        { accountType: ["US_ACCOUNT", "USD_ACCOUNT"] },
        "Only US bank accounts can be pulled from (ACH debit); fund other accounts through their payment instructions"
      )
    )
  }
  const account = yield* usableInternalAccount(ports.store, request.destination.accountId)
  if (account.currency !== external.currency) {
    return yield* Effect.fail(
      InvalidInput.one(
        "destination.accountId",
        { currency: external.currency },
        `Transfer-in is same-currency: the internal account holds ${account.currency}, the external account ${external.currency}`
      )
    )
  }
  if (account.customerId !== undefined && account.customerId !== external.customerId) {
    return yield* Effect.fail(
      InvalidInput.one(
        "destination.accountId",
        { customerId: external.customerId },
        "The internal account belongs to another customer than the external account"
      )
    )
  }
  return { external, account }
}

/** Who asked for a transfer, when not the platform itself. */
export interface TransferOptions {
  /** The agent that initiated it: carried on its transaction (AG-38). */
  readonly agentId?: AgentId | undefined
}

/**
 * The store part of a transfer-in, inside the caller's store transaction: the accounts checked, the INCOMING
 * transaction PENDING with its pending deposit and `INCOMING_PAYMENT.PENDING`. After the commit, `submitSteps`
 * hands the pull to its rail.
 */
export function* transferInStoreSteps(
  ports: PaymentPorts,
  request: TransferInRequest,
  options: TransferOptions = {}
): Steps<TransactionRecord, QuoteError | InvalidInput | StoreError | UniqueViolation> {
  const { store, ids } = ports
  const { external, account } = yield* transferInAccountsSteps(ports, request)
  const customerId = external.customerId
  if (customerId === undefined) {
    return yield* Effect.fail(
      InvalidInput.one(
        "source.accountId",
        { owner: "CUSTOMER" },
        "A platform-owned external account is not pulled from: fund platform accounts through their payment instructions"
      )
    )
  }
  const customer = yield* store.customers.get(customerId)
  if (customer === undefined) return yield* Effect.fail(customerNotFound(customerId))
  if (customer.isDeleted) return yield* Effect.fail(customerDeleted(customer.id))
  const id = yield* ids.make("Transaction")
  const now = yield* nowIso
  const code = account.currency
  const rail = external.paymentRails.includes("ACH") ? "ACH" : (external.paymentRails[0] ?? "ACH")
  const record: TransactionRecord = {
    id,
    state: "PENDING",
    accountId: account.id,
    dueAt: addSeconds(now, SUBMIT_GRACE_SECONDS),
    transfer: "IN",
    transaction: {
      id,
      status: "PENDING",
      type: "INCOMING",
      direction: "CREDIT",
      source: { sourceType: "ACCOUNT", accountId: external.id, currency: code },
      destination: { destinationType: "ACCOUNT", accountId: account.id, currency: code },
      customerId: customer.id,
      platformCustomerId: customer.platformCustomerId,
      ...(options.agentId === undefined ? {} : { agentId: options.agentId }),
      sentAmount: amountOf(request.amount, code),
      receivedAmount: amountOf(request.amount, code),
      exchangeRate: 1,
      paymentRail: rail,
      railSelectionMode: "AUTO",
      createdAt: now,
      updatedAt: now
    }
  }
  yield* insertTransactionSteps(ports, record, ["INCOMING_PAYMENT.PENDING"], now)
  yield* recordSteps(ports, id, [depositLeg(account.id, request.amount, code)], "PENDING", now)
  return record
}

/**
 * Deprecated `POST /transfer-in`: pulls `amount` from a pull-capable external account into an
 * internal account of the same customer and currency. The transaction is INCOMING and PENDING
 * (a pending ledger transfer deposits → account, `INCOMING_PAYMENT.PENDING`) until the rail
 * settles the pull (COMPLETED, posted) or fails it (FAILED, voided).
 */
export const transferIn = Effect.fnUntraced(function* (ports: PaymentPorts, request: TransferInRequest) {
  const created = yield* ports.store.transaction(Effect.gen(() => transferInStoreSteps(ports, request)))
  const next = yield* submitSteps(ports, created, yield* currentClock)
  return next.transaction
}, dieOnUnique)

/**
 * The quote a transfer-out is made of: locked on the sending side, to be created with `transferOut`;
 * executed at once when `immediatelyExecute` (the platform's transfer-out), else by a later execute (an agent's).
 */
export const transferOutQuoteRequest = (
  request: TransferOutRequest,
  immediatelyExecute: boolean
): CreateQuoteRequest => ({
  source: { sourceType: "ACCOUNT", accountId: request.source.accountId },
  destination: {
    destinationType: "ACCOUNT",
    accountId: request.destination.accountId,
    ...(request.destination.paymentRail === undefined ? {} : { paymentRail: request.destination.paymentRail })
  },
  lockedCurrencySide: "SENDING",
  lockedCurrencyAmount: request.amount,
  immediatelyExecute,
  ...(request.remittanceInformation === undefined ? {} : { remittanceInformation: request.remittanceInformation }),
  ...(request.purposeOfPayment === undefined ? {} : { purposeOfPayment: request.purposeOfPayment })
})

/** Deprecated `POST /transfer-out`: a same-currency quote locked on the sending side, executed at once. */
export const transferOut = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  quotes: Quotes["Service"],
  request: TransferOutRequest
) {
  const quote = yield* quotes.create(transferOutQuoteRequest(request, true), { transferOut: true })
  return yield* getPayment(ports, quote.transactionId)
})
