/**
 * Incoming payments that arrive at once (a sandbox funding, an UMA payment received) and the sandbox deposit that
 * executes a quote funded by payment instructions. Transfer-in, an incoming payment that waits for its rail, is
 * in transfers.ts.
 */
import { Effect } from "effect"
import { recordSteps } from "../accounts/balance-updates.ts"
import type { Customer } from "../customers/model.ts"
import { isNotReady } from "../customers/rules.ts"
import { amountRange, currencyConfigOf, isEnabledFor } from "../platform/currencies.ts"
import type { CounterpartyFieldDefinition, PlatformConfig } from "../platform/model.ts"
import {
  amountOutOfRange,
  currencyNotEnabled,
  customerDeleted,
  customerNotFound,
  quoteNotFound,
  senderWithholds,
  umaNotFound,
  userNotReady
} from "../quotes/errors.ts"
import { usableInternalAccount } from "../quotes/usable-accounts.ts"
import { EngineConfig, type IncomingApprovalSettings } from "../shared/engine-config.ts"
import { InvalidInput, type Refused } from "../shared/errors.ts"
import type { CustomerId } from "../shared/ids.ts"
import { amountOf } from "../shared/money.ts"
import { nowIso } from "../shared/time.ts"
import type { Steps } from "../shared/tracing.ts"
import { awaitApprovalSteps } from "./approvals.ts"
import { invalidFundAmount, SANDBOX_FUND_MAX } from "./errors.ts"
import { executeQuote } from "./execute.ts"
import { depositLeg } from "./legs.ts"
import type { SandboxSendRequest, SandboxUmaReceiveRequest, Transaction, TransactionRecord } from "./model.ts"
import { currentClock, dieOnUnique, insertTransactionSteps, type MoveError, moveTransactionSteps } from "./moves.ts"
import type { PaymentPorts, ScaPaymentPorts } from "./ports.ts"

interface IncomingInput {
  readonly accountId: string
  readonly counterpartyInformation?: Readonly<Record<string, string>>
  readonly customerId?: string | undefined
  readonly platformCustomerId?: string | undefined
  readonly currency: string
  readonly amount: number
  readonly source: Transaction["source"]
  readonly description?: string
}

/**
 * An incoming payment that arrived (inside a store transaction): a posted transfer from
 * `system:deposits:<ccy>` to the internal account, and an INCOMING / CREDIT transaction moved
 * PENDING → COMPLETED through its machine (emits `INCOMING_PAYMENT.COMPLETED`).
 */
function* receivePaymentSteps(
  ports: PaymentPorts,
  input: IncomingInput,
  now: string
): Steps<TransactionRecord, MoveError | Refused> {
  const pending = yield* insertIncomingSteps(ports, input, now)
  yield* recordSteps(ports, pending.id, [depositLeg(input.accountId, input.amount, input.currency)], "POSTED", now)
  return yield* moveTransactionSteps(ports, pending, "SETTLE", { transaction: { settledAt: now } }, now)
}

/** Inserts an incoming payment `PENDING` (INCOMING / CREDIT into the account); no money moves yet. */
function* insertIncomingSteps(
  ports: PaymentPorts,
  input: IncomingInput,
  now: string
): Steps<TransactionRecord, MoveError> {
  const id = yield* ports.ids.make("Transaction")
  const pending: TransactionRecord = {
    id,
    state: "PENDING",
    accountId: input.accountId,
    transaction: {
      id,
      status: "PENDING",
      type: "INCOMING",
      direction: "CREDIT",
      source: input.source,
      destination: { destinationType: "ACCOUNT", accountId: input.accountId, currency: input.currency },
      ...(input.customerId === undefined ? {} : { customerId: input.customerId as CustomerId }),
      ...(input.platformCustomerId === undefined ? {} : { platformCustomerId: input.platformCustomerId }),
      sentAmount: amountOf(input.amount, input.currency),
      receivedAmount: amountOf(input.amount, input.currency),
      exchangeRate: 1,
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.counterpartyInformation === undefined
        ? {}
        : { counterpartyInformation: input.counterpartyInformation }),
      createdAt: now,
      updatedAt: now
    }
  }
  yield* insertTransactionSteps(ports, pending, [], now)
  return pending
}

const fundInStore = Effect.fnUntraced(function* (ports: PaymentPorts, accountId: string, amount: number) {
  const now = yield* nowIso
  const account = yield* usableInternalAccount(ports.store, accountId)
  const customer = account.customerId === undefined ? undefined : yield* ports.store.customers.get(account.customerId)
  yield* receivePaymentSteps(
    ports,
    {
      accountId,
      customerId: account.customerId,
      platformCustomerId: customer?.platformCustomerId,
      currency: account.currency,
      amount,
      source: { sourceType: "REALTIME_FUNDING", currency: account.currency },
      description: "Sandbox funding"
    },
    now
  )
  return account.id as string
})

/**
 * Sandbox funding: `amount` (1 to 100 000 000 000, smallest unit) arrives in the internal account
 * as a completed incoming payment (`INCOMING_PAYMENT.COMPLETED`). Returns the account id.
 */
export const fundSandbox = Effect.fnUntraced(function* (ports: PaymentPorts, accountId: string, amount: number) {
  if (!Number.isSafeInteger(amount) || amount < 1 || amount > SANDBOX_FUND_MAX) {
    return yield* Effect.fail(invalidFundAmount(amount))
  }
  return yield* dieOnUnique(ports.store.transaction(fundInStore(ports, accountId, amount)))
})

/** L-19: an UMA payment is received in a currency enabled for INCOMING payments, within its amount range. */
const incomingCurrencyRefusal = (config: PlatformConfig | undefined, code: string, amount: number) => {
  if (!isEnabledFor(config, code, "INCOMING")) return currencyNotEnabled(code, "INCOMING", "receivingCurrencyCode")
  const range = amountRange(config, code)
  return range !== undefined && (amount < range.min || amount > range.max)
    ? amountOutOfRange(amount, code, range.min, range.max, "platform")
    : undefined
}

/**
 * What a sandbox sender's institution tells about its customer, for the fields the platform asks (L-19): made-up
 * values, except that a sender whose name starts with `anonymous` tells nothing.
 */
const sandboxSenderInformation = (
  senderUmaAddress: string,
  asked: ReadonlyArray<CounterpartyFieldDefinition>
): Readonly<Record<string, string>> => {
  if (/^\$?anonymous/i.test(senderUmaAddress)) return {}
  return Object.fromEntries(asked.map((f) => [f.name, SANDBOX_SENDER[f.name]]))
}

const SANDBOX_SENDER: Readonly<Record<CounterpartyFieldDefinition["name"], string>> = {
  FULL_NAME: "Sandbox Sender",
  BIRTH_DATE: "1990-01-01",
  NATIONALITY: "US",
  PHONE_NUMBER: "+15555550100",
  EMAIL: "sender@sandbox.example",
  POSTAL_ADDRESS: "1 Sandbox Way, Springfield, IL 62701, US",
  TAX_ID: "000-00-0000",
  REGISTRATION_NUMBER: "SBX-0001",
  USER_TYPE: "INDIVIDUAL",
  COUNTRY_OF_RESIDENCE: "US",
  ACCOUNT_IDENTIFIER: "sandbox-sender-account",
  FI_LEGAL_ENTITY_NAME: "Sandbox Sending Bank",
  FI_ADDRESS: "2 Sandbox Way, Springfield, IL 62701, US",
  PURPOSE_OF_PAYMENT: "GIFT",
  ULTIMATE_INSTITUTION_COUNTRY: "US",
  IDENTIFIER: "sandbox-sender",
  BUSINESS_TYPE: "FINANCE_AND_INSURANCE",
  COMPANY_LEGAL_NAME: "Sandbox Sender Inc.",
  ID_TYPE: "PASSPORT",
  ID_NUMBER: "X0000000"
}

/** The customer an UMA payment is for: by id, else by UMA address (one of the two is required). */
function* umaRecipientSteps(ports: PaymentPorts, request: SandboxUmaReceiveRequest) {
  let customer: Customer | undefined
  if (request.customerId !== undefined) {
    customer = yield* ports.store.customers.get(request.customerId)
    if (customer === undefined) return yield* Effect.fail(customerNotFound(request.customerId))
  } else if (request.receiverUmaAddress !== undefined) {
    customer = yield* ports.store.customers.findUnique("umaAddress", request.receiverUmaAddress)
    if (customer === undefined) return yield* Effect.fail(umaNotFound(request.receiverUmaAddress))
  } else {
    return yield* Effect.fail(
      InvalidInput.one("receiverUmaAddress", { required: true }, "Provide receiverUmaAddress or customerId")
    )
  }
  if (customer.isDeleted) return yield* Effect.fail(customerDeleted(customer.id))
  if (isNotReady(customer)) return yield* Effect.fail(userNotReady(customer.id, customer.kycStatus))
  return customer
}

const umaReceiveInStore = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  request: SandboxUmaReceiveRequest,
  approval: IncomingApprovalSettings | null
) {
  const now = yield* nowIso
  const customer = yield* umaRecipientSteps(ports, request)
  const code = request.receivingCurrencyCode
  const accounts = yield* ports.store.internalAccounts.list(
    { customerId: customer.id, currency: code },
    { limit: 1, sortOrder: "asc" }
  )
  const account = accounts.data[0]
  if (account === undefined) {
    return yield* Effect.fail(
      InvalidInput.one(
        "receivingCurrencyCode",
        { enum: customer.currencies },
        `Customer ${customer.id} has no internal account in ${code}`
      )
    )
  }
  const config = yield* ports.store.config.get()
  const refused = incomingCurrencyRefusal(config, code, request.receivingCurrencyAmount)
  if (refused !== undefined) return yield* Effect.fail(refused)
  const asked = currencyConfigOf(config, code)?.requiredCounterpartyFields ?? []
  const told = sandboxSenderInformation(request.senderUmaAddress, asked)
  const untold = asked.filter((f) => f.mandatory && told[f.name] === undefined).map((f) => f.name)
  if (untold.length > 0) return yield* Effect.fail(senderWithholds(request.senderUmaAddress, untold))
  const input: IncomingInput = {
    accountId: account.id,
    customerId: customer.id,
    platformCustomerId: customer.platformCustomerId,
    currency: code,
    amount: request.receivingCurrencyAmount,
    ...(asked.length === 0 ? {} : { counterpartyInformation: told }),
    source: { sourceType: "UMA_ADDRESS", umaAddress: request.senderUmaAddress, currency: code },
    description: `UMA payment from ${request.senderUmaAddress}`
  }
  // WH-21: under incoming approvals the payment waits for the platform's decision (approvals.ts).
  if (approval !== null)
    return yield* awaitApprovalSteps(ports, yield* insertIncomingSteps(ports, input, now), approval, now)
  return yield* receivePaymentSteps(ports, input, now)
})

/**
 * Sandbox: an UMA payment arrives for a customer (found by UMA address or id) in their internal account of that
 * currency: `COMPLETED` at once, or, under incoming approvals, `PENDING` until the platform decides (approvals.ts).
 */
export const sandboxUmaReceive = Effect.fnUntraced(function* (ports: PaymentPorts, request: SandboxUmaReceiveRequest) {
  const { incomingApproval } = yield* EngineConfig
  const record = yield* dieOnUnique(ports.store.transaction(umaReceiveInStore(ports, request, incomingApproval)))
  return record.transaction
})

/** Sandbox: the deposit for a quote funded by payment instructions arrives, so the quote executes. */
export const sandboxSend = Effect.fnUntraced(function* (ports: ScaPaymentPorts, request: SandboxSendRequest) {
  const quote = yield* ports.store.quotes.get(request.quoteId)
  if (quote === undefined) return yield* Effect.fail(quoteNotFound(request.quoteId))
  if (quote.quote.source.sourceType !== "REALTIME_FUNDING") {
    return yield* Effect.fail(
      InvalidInput.one(
        "quoteId",
        { sourceType: "REALTIME_FUNDING" },
        `Quote ${request.quoteId} is funded from an account; execute it with POST /quotes/{quoteId}/execute`
      )
    )
  }
  const code = quote.quote.sendingCurrency.code
  if (request.currencyCode !== code) {
    return yield* Effect.fail(InvalidInput.one("currencyCode", { enum: [code] }, `The quote is paid in ${code}`))
  }
  const amount = request.currencyAmount ?? quote.quote.totalSendingAmount
  if (amount !== quote.quote.totalSendingAmount) {
    return yield* Effect.fail(
      InvalidInput.one(
        "currencyAmount",
        { const: quote.quote.totalSendingAmount },
        `The quote expects exactly ${quote.quote.totalSendingAmount} ${code} (smallest unit)`
      )
    )
  }
  const executed = yield* executeQuote(ports, request.quoteId, yield* currentClock, { viaDeposit: true })
  return executed.transaction.transaction
})
