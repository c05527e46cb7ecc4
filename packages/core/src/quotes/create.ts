/**
 * Creating a quote (`POST /quotes`), as the steps it takes: resolve the source (and the paying customer), resolve
 * the destination, check the receiver lookup it names (lookups.ts), the currencies' enabled ways, the fees, the price
 * at the market rate, the receiver's and the platform's amount limits, the new quote record, and the store (the quote with its payment, executed at once when asked;
 * see `QuotePayments.place`).
 */
import { Effect, Result } from "effect"
import type { Mutable } from "effect/Types"
import { platformPayeeRefusal } from "../accounts/errors.ts"
import type { ExternalAccount, InternalAccountRecord, PaymentInstructions, PaymentRail } from "../accounts/model.ts"
import { ownershipRefusal } from "../accounts/ownership-rules.ts"
import type { Customer } from "../customers/model.ts"
import { isNotReady } from "../customers/rules.ts"
import { amountRange, isEnabledFor } from "../platform/currencies.ts"
import type { PlatformConfig } from "../platform/model.ts"
import { type InternalAccountWithCustomer, type Store, together } from "../ports/store.ts"
import { isScaSubject } from "../sca/regions.ts"
import { currency, currencyKind } from "../shared/currency.ts"
import type { CommandEnv } from "../shared/engine-config.ts"
import { InvalidInput } from "../shared/errors.ts"
import type { AgentId, QuoteId, TransactionId } from "../shared/ids.ts"
import { isoOf } from "../shared/time.ts"
import type { Steps } from "../shared/tracing.ts"
import {
  amountOutOfRange,
  currencyNotEnabled,
  customerDeleted,
  customerNotFound,
  endUserTermsNotAccepted,
  type QuoteError,
  selfPayment,
  umaNotFound,
  userNotReady
} from "./errors.ts"
import { quoteExpiresAt } from "./expiry.ts"
import {
  defaultRail,
  fundingInstructions,
  paymentReference,
  REALTIME_FUNDING_CURRENCIES,
  UMA_RAIL,
  walletSigningInstructions
} from "./funding.ts"
import { checkLookupSteps } from "./lookups.ts"
import type { CreateQuoteRequest, CryptoNetwork, Quote, QuoteRecord } from "./model.ts"
import { networksOf } from "./networks.ts"
import type { QuoteCreationPorts } from "./ports.ts"
import { type FeeSchedule, feeScheduleFor, type Pricing, platformFeeFor, priceQuote } from "./pricing.ts"
import { rateAt } from "./rates.ts"
import { umaReceiverAt } from "./receivers.ts"
import { refuseUnlinkable } from "./sca-factor.ts"
import { externalAccountRefusal, internalAccountRefusal } from "./usable-accounts.ts"
import { priceWithdrawal, withdrawalNetwork } from "./withdrawal-fees.ts"

export interface CreateOptions {
  /** Deprecated transfer-out: refuse a destination in another currency, and tell the rail it is a transfer (SB-07). */
  readonly transferOut?: boolean
  /** The agent creating the quote: kept on the quote record and copied onto its transaction (AG-38). */
  readonly agentId?: AgentId | undefined
  /**
   * How long the quote can be executed, instead of `EngineConfig.quoteLifetimeSeconds`: an agent's same-currency
   * transfer waits for the platform's approval up to a day (docs/design/agents.md, Q5).
   */
  readonly lifetimeSeconds?: number | undefined
}

// ---- source ----

/** Where the money comes from: the sending currency, the source account (if any) and the paying customer. */
interface ResolvedSource {
  readonly sendingCode: string
  readonly sourceAccount: InternalAccountRecord | undefined
  readonly customer: Customer | undefined
}

/**
 * A customer who can pay: exists, not deleted, KYC neither rejected nor on hold (`isNotReady`), and (on an
 * unregulated platform) accepted the end-user terms.
 */
function* usableCustomer(
  store: Store["Service"],
  customerId: string,
  config: PlatformConfig | undefined,
  read: Customer | undefined
): Steps<Customer, QuoteError> {
  const customer = read?.id === customerId ? read : yield* store.customers.get(customerId)
  if (customer === undefined) return yield* Effect.fail(customerNotFound(customerId))
  if (customer.isDeleted) return yield* Effect.fail(customerDeleted(customerId))
  if (isNotReady(customer)) return yield* Effect.fail(userNotReady(customerId, customer.kycStatus))
  if (config?.isRegulatedFinancialInstitution !== true && customer.endUserTermsConsent === undefined) {
    return yield* Effect.fail(endUserTermsNotAccepted(customerId))
  }
  return customer
}

// ---- the first reads ----

/** The rows a quote reads first, before any check: the platform's configuration and the accounts it names. */
interface FirstReads {
  readonly config: PlatformConfig | undefined
  /** The source account (an ACCOUNT source), as read: the checks come after. */
  readonly source: InternalAccountRecord | undefined
  /** The destination account (an ACCOUNT destination), internal or external, as read. */
  readonly destination: InternalAccountRecord | ExternalAccount | undefined
  /** The customer the source names (`source.customerId`), as read. */
  readonly customer: Customer | undefined
}

/**
 * The first reads, independent of each other: together where the store pipelines (one round trip instead of four),
 * else one after the other; the customer the source names, or else the source account's, with the account. Nothing
 * is checked here, so a quote refused for its source still says so first.
 */
function* firstReads(store: Store["Service"], request: CreateQuoteRequest): Steps<FirstReads, QuoteError> {
  const { source, destination } = request
  const readSource = (): Effect.Effect<Partial<InternalAccountWithCustomer>, QuoteError> =>
    source.sourceType !== "ACCOUNT"
      ? Effect.succeed({})
      : source.customerId === undefined
        ? Effect.map(store.internalAccounts.getWithCustomer(source.accountId), (read) => read ?? {})
        : Effect.map(store.internalAccounts.get(source.accountId), (account) =>
            account === undefined ? {} : { account }
          )
  const readDestination = (): Effect.Effect<FirstReads["destination"], QuoteError> =>
    destination.destinationType !== "ACCOUNT"
      ? Effect.undefined
      : destination.accountId.startsWith("InternalAccount:")
        ? store.internalAccounts.get(destination.accountId)
        : store.externalAccounts.get(destination.accountId)
  const readCustomer = () =>
    source.customerId === undefined ? Effect.undefined : store.customers.get(source.customerId)
  const [[config, namedCustomer], [sourceRead, destinationAccount]] = yield* together(
    store,
    () => together(store, () => store.config.get(), readCustomer),
    () => together(store, readSource, readDestination)
  )
  return {
    config,
    source: sourceRead.account,
    destination: destinationAccount,
    customer: namedCustomer ?? sourceRead.customer
  }
}

/**
 * The source of a quote: an internal account (of the customer named, if one is), or payment instructions in a
 * currency that has them (never executed at once: the deposit executes it).
 */
function* resolveSource(
  store: Store["Service"],
  request: CreateQuoteRequest,
  reads: FirstReads
): Steps<ResolvedSource, QuoteError> {
  const config = reads.config
  let sendingCode: string
  let sourceAccount: InternalAccountRecord | undefined
  let customerId: string | undefined
  const source = request.source
  if (source.sourceType === "ACCOUNT") {
    const refusal = internalAccountRefusal(source.accountId, reads.source)
    if (refusal !== undefined) return yield* Effect.fail(refusal)
    sourceAccount = reads.source!
    sendingCode = sourceAccount.currency
    customerId = sourceAccount.customerId
    if (source.customerId !== undefined && source.customerId !== customerId) {
      return yield* Effect.fail(
        InvalidInput.one(
          "source.customerId",
          { equals: customerId ?? null },
          `Account ${source.accountId} does not belong to customer ${source.customerId}`
        )
      )
    }
    if (request.immediatelyExecute === true && sourceAccount.type === "EMBEDDED_WALLET") {
      return yield* Effect.fail(
        InvalidInput.one(
          "immediatelyExecute",
          { const: false },
          "A quote from an embedded wallet must be executed with the wallet's signature; omit immediatelyExecute"
        )
      )
    }
  } else {
    sendingCode = source.currency
    customerId = source.customerId
    if (!(REALTIME_FUNDING_CURRENCIES as ReadonlyArray<string>).includes(sendingCode)) {
      return yield* Effect.fail(
        InvalidInput.one(
          "source.currency",
          { enum: [...REALTIME_FUNDING_CURRENCIES] },
          `Real-time funding is available for ${REALTIME_FUNDING_CURRENCIES.join(", ")}`
        )
      )
    }
    if (currencyKind(sendingCode) === "CRYPTO" && sendingCode !== "BTC" && source.cryptoNetwork === undefined) {
      return yield* Effect.fail(
        InvalidInput.one("source.cryptoNetwork", { required: true }, `A ${sendingCode} source needs its cryptoNetwork`)
      )
    }
    const networkRefusal = cryptoNetworkRefusal(sendingCode, source.cryptoNetwork)
    if (networkRefusal !== undefined) return yield* Effect.fail(networkRefusal)
    if (request.immediatelyExecute === true) {
      return yield* Effect.fail(
        InvalidInput.one(
          "immediatelyExecute",
          { const: false },
          "A quote funded by payment instructions executes when the deposit arrives; omit immediatelyExecute"
        )
      )
    }
  }
  const customer =
    customerId === undefined ? undefined : yield* usableCustomer(store, customerId, config, reads.customer)
  return { sendingCode, sourceAccount, customer }
}

/** Q-02, V-08: a deposit's `cryptoNetwork` must be one its currency moves on (networks.ts); `undefined` when it is. */
const cryptoNetworkRefusal = (code: string, network: CryptoNetwork | undefined): InvalidInput | undefined => {
  if (network === undefined) return undefined
  const networks = networksOf(code)
  if (networks.includes(network)) return undefined
  return InvalidInput.one(
    "source.cryptoNetwork",
    { enum: networks },
    networks.length === 0
      ? `${code} is not deposited on a crypto network; omit cryptoNetwork`
      : `${code} is deposited on ${networks.join(", ")}, not ${network}`
  )
}

// ---- destination ----

/** Where the money goes: the receiving currency, the rail, and the receiver's amount limits (UMA). */
interface ResolvedDestination {
  readonly receivingCode: string
  readonly rail: PaymentRail
  readonly receiverLimits: { readonly min: number; readonly max: number } | undefined
  /** The external account paid, if one is (its ownership may need verifying first: AC-24). */
  readonly payee?: ExternalAccount
}

/**
 * The destination of a quote: another internal account (the INTERNAL rail; never the source itself), an external
 * account on one of its rails (the one asked for, else the `RailSelection` port's choice), or an UMA address in a currency it receives.
 */
function* resolveDestination(
  { directory, railSelection }: QuoteCreationPorts,
  destination: CreateQuoteRequest["destination"],
  sourceAccount: InternalAccountRecord | undefined,
  read: FirstReads["destination"]
): Steps<ResolvedDestination, QuoteError> {
  if (destination.destinationType === "ACCOUNT") {
    if (destination.accountId.startsWith("InternalAccount:")) {
      const refusal = internalAccountRefusal(destination.accountId, read as InternalAccountRecord | undefined)
      if (refusal !== undefined) return yield* Effect.fail(refusal)
      const target = read as InternalAccountRecord
      if (target.id === sourceAccount?.id) return yield* Effect.fail(selfPayment(target.id))
      if (destination.paymentRail !== undefined && destination.paymentRail !== "INTERNAL") {
        return yield* Effect.fail(
          InvalidInput.one(
            "destination.paymentRail",
            { enum: ["INTERNAL"] },
            "A transfer between internal accounts uses the INTERNAL rail"
          )
        )
      }
      return { receivingCode: target.currency, rail: "INTERNAL", receiverLimits: undefined }
    }
    const refusal = externalAccountRefusal(destination.accountId, read as ExternalAccount | undefined)
    if (refusal !== undefined) return yield* Effect.fail(refusal)
    const target = read as ExternalAccount
    const platformPayee = platformPayeeRefusal(target, sourceAccount)
    if (platformPayee !== undefined) return yield* Effect.fail(platformPayee)
    const rails = target.paymentRails.length > 0 ? target.paymentRails : [defaultRail(target.currency)]
    const wanted = destination.paymentRail ?? railSelection.choose(rails)
    if (!rails.includes(wanted)) {
      return yield* Effect.fail(
        InvalidInput.one(
          "destination.paymentRail",
          { enum: rails },
          `External account ${target.id} can be paid on ${rails.join(", ")}`
        )
      )
    }
    return { receivingCode: target.currency, rail: wanted, receiverLimits: undefined, payee: target }
  }
  const receiver = yield* umaReceiverAt(directory, destination.umaAddress, "quote")
  if (receiver.currencies.length === 0) return yield* Effect.fail(umaNotFound(destination.umaAddress))
  const code = destination.currency ?? receiver.currencies[0]!
  if (!receiver.currencies.includes(code)) {
    return yield* Effect.fail(
      InvalidInput.one(
        "destination.currency",
        { enum: receiver.currencies },
        `${destination.umaAddress} receives ${receiver.currencies.join(", ")}`
      )
    )
  }
  return { receivingCode: code, rail: UMA_RAIL, receiverLimits: { min: receiver.minAmount, max: receiver.maxAmount } }
}

/** Deprecated transfer-out moves money within one currency. */
export const sameCurrencyRefusal = (sendingCode: string, receivingCode: string): InvalidInput =>
  InvalidInput.one(
    "destination.accountId",
    { currency: sendingCode },
    `transfer-out is same-currency (${sendingCode} → ${receivingCode}); use POST /quotes for a conversion`
  )

// ---- limits ----

/**
 * The amounts a quote may carry: an UMA receiver takes amounts between its minimum and maximum only, and the
 * platform's currencies bound what is sent and received in each (`supportedCurrencies[].minAmount/maxAmount`, L-19).
 */
const amountRefusal = (
  pricing: Pricing,
  source: ResolvedSource,
  destination: ResolvedDestination,
  config: PlatformConfig | undefined
) => {
  const received = pricing.totalReceivingAmount
  const limits = destination.receiverLimits
  if (limits !== undefined && (received < limits.min || received > limits.max)) {
    return amountOutOfRange(received, destination.receivingCode, limits.min, limits.max)
  }
  const sent = pricing.totalSendingAmount
  const sending = amountRange(config, source.sendingCode)
  if (sending !== undefined && (sent < sending.min || sent > sending.max)) {
    return amountOutOfRange(sent, source.sendingCode, sending.min, sending.max, "platform")
  }
  const receiving = amountRange(config, destination.receivingCode)
  if (receiving !== undefined && (received < receiving.min || received > receiving.max)) {
    return amountOutOfRange(received, destination.receivingCode, receiving.min, receiving.max, "platform")
  }
  return undefined
}

/**
 * The ways a quote's currencies must be enabled (`supportedCurrencies[].enabledTransactionTypes`, L-19): OUTGOING for
 * what is sent, and INCOMING for what another internal account receives.
 */
const currencyRefusal = (
  source: ResolvedSource,
  destination: ResolvedDestination,
  config: PlatformConfig | undefined
) => {
  if (!isEnabledFor(config, source.sendingCode, "OUTGOING")) {
    return currencyNotEnabled(source.sendingCode, "OUTGOING", "source")
  }
  if (destination.rail === "INTERNAL" && !isEnabledFor(config, destination.receivingCode, "INCOMING")) {
    return currencyNotEnabled(destination.receivingCode, "INCOMING", "destination")
  }
  return undefined
}

// ---- the record ----

/**
 * Where to send the money for a quote funded by payment instructions (none for an account source); refused for
 * a stablecoin network without a deposit wallet.
 */
const paymentInstructionsFor = (
  source: CreateQuoteRequest["source"],
  sendingCode: string,
  transactionId: string
): Result.Result<ReadonlyArray<PaymentInstructions>, InvalidInput> => {
  if (source.sourceType !== "REALTIME_FUNDING") return Result.succeed([])
  const instructions = fundingInstructions(sendingCode, paymentReference(transactionId), source.cryptoNetwork)
  if (instructions !== undefined) return Result.succeed(instructions)
  const networks = networksOf(sendingCode)
  return Result.fail(
    InvalidInput.one(
      "source.cryptoNetwork",
      { enum: networks },
      `${sendingCode} can be deposited on ${networks.join(", ")}`
    )
  )
}

/** What the new quote is made of: its ids, where it pays from and to, its price and fees. */
interface QuoteParts {
  readonly id: QuoteId
  readonly transactionId: TransactionId
  readonly source: ResolvedSource
  readonly destination: ResolvedDestination
  readonly pricing: Pricing
  readonly fees: FeeSchedule
  /** The market rate as a display number. */
  readonly multiplier: number
  readonly paymentInstructions: ReadonlyArray<PaymentInstructions>
}

/** The new quote, PENDING until `options.lifetimeSeconds` (or `EngineConfig.quoteLifetimeSeconds`) from now (pure). */
const newQuoteRecord = (
  request: CreateQuoteRequest,
  parts: QuoteParts,
  env: CommandEnv,
  options: CreateOptions
): QuoteRecord => {
  const { id, pricing, fees } = parts
  const { receivingCode, rail } = parts.destination
  const requestDestination = request.destination
  const quoteDestination: Quote["destination"] =
    requestDestination.destinationType === "ACCOUNT"
      ? { ...requestDestination, paymentRail: rail }
      : {
          ...requestDestination,
          currency: receivingCode as typeof requestDestination.currency & string,
          paymentRail: rail
        }
  const totalVariableBps = fees.serviceBps + fees.platformBps
  // Optional fields are assigned when present rather than spread in: a spread of a literal takes V8's slow
  // copy path, and this runs once per quote.
  const quote: Mutable<Quote> = {
    id,
    status: "PENDING",
    createdAt: isoOf(env.nowMs),
    expiresAt: quoteExpiresAt(env.nowMs, env.settings, options.lifetimeSeconds),
    source: request.source,
    destination: quoteDestination,
    sendingCurrency: currency(parts.source.sendingCode),
    receivingCurrency: currency(receivingCode),
    totalSendingAmount: pricing.totalSendingAmount,
    totalReceivingAmount: pricing.totalReceivingAmount,
    exchangeRate: pricing.exchangeRate,
    feesIncluded: pricing.feesIncluded,
    platformFeesIncluded: pricing.platformFeesIncluded,
    transactionId: parts.transactionId,
    paymentInstructions: parts.paymentInstructions,
    rateDetails: {
      counterpartyMultiplier: parts.multiplier,
      counterpartyFixedFee: 0,
      serviceApiMultiplier: (10_000 - totalVariableBps) / 10_000,
      serviceApiFixedFee: fees.platformFixed,
      serviceApiVariableFeeRate: totalVariableBps / 10_000,
      serviceApiVariableFeeAmount: pricing.serviceVariableFee + pricing.platformVariableFee
    }
  }
  const customer = parts.source.customer
  if (customer !== undefined) quote.customerId = customer.id
  if (request.description !== undefined) quote.description = request.description
  if (request.remittanceInformation !== undefined) quote.remittanceInformation = request.remittanceInformation
  if (request.purposeOfPayment !== undefined) quote.purposeOfPayment = request.purposeOfPayment
  const wallet = parts.source.sourceAccount
  if (wallet?.type === "EMBEDDED_WALLET") quote.paymentInstructions = walletSigningInstructions(quote, wallet.id)
  const record: Mutable<QuoteRecord> = {
    id,
    quote,
    pricing: {
      netSendingAmount: pricing.netSendingAmount,
      serviceFee: pricing.serviceFee,
      platformFee: pricing.platformFee,
      minorRate: pricing.minorRate
    }
  }
  if (options.agentId !== undefined) record.agentId = options.agentId
  return record
}

// ---- the command ----

/**
 * Creates a quote: the steps above in order, each failing the call with its own error (source, destination,
 * lookup, fees, the price at the market rate, the receiver's limits, the record), then the store, where the quote's
 * payment is opened with it and, with `immediatelyExecute`, executed at once. The pure steps are plain functions
 * (they cost nothing to call); only those that read a port are generators. A unique violation on the fresh ids
 * is a bug: a defect.
 */
export const createQuote = Effect.fnUntraced(
  function* (ports: QuoteCreationPorts, request: CreateQuoteRequest, env: CommandEnv, options: CreateOptions) {
    const { store } = ports
    const unlinkable = refuseUnlinkable(request.scaFactor)
    if (unlinkable !== undefined) return yield* Effect.fail(unlinkable)
    const reads = yield* firstReads(store, request)
    const config = reads.config
    const source = yield* resolveSource(store, request, reads)
    const destination = yield* resolveDestination(ports, request.destination, source.sourceAccount, reads.destination)
    yield* checkLookupSteps(store, request, isoOf(env.nowMs))
    const { sendingCode } = source
    const { receivingCode } = destination
    if (options.transferOut === true && receivingCode !== sendingCode) {
      return yield* Effect.fail(sameCurrencyRefusal(sendingCode, receivingCode))
    }
    const disabled = currencyRefusal(source, destination, config)
    if (disabled !== undefined) return yield* Effect.fail(disabled)
    const platformFee = yield* Effect.fromResult(
      platformFeeFor(sendingCode, receivingCode, config, request.platformFeeOverride)
    )
    const fees = feeScheduleFor(sendingCode, receivingCode, env.settings.serviceFeeBps, platformFee)
    const market = yield* rateAt(ports.rates, sendingCode, receivingCode, env)
    const priced = yield* Effect.fromResult(
      priceQuote({
        sendingCurrency: sendingCode,
        receivingCurrency: receivingCode,
        lockedCurrencySide: request.lockedCurrencySide,
        lockedCurrencyAmount: request.lockedCurrencyAmount,
        marketRate: market.rate,
        fees
      })
    )
    // Q5: an on-chain withdrawal is charged what POST /crypto/estimate-withdrawal-fee says.
    const network = withdrawalNetwork(sendingCode, receivingCode, destination.rail, destination.payee !== undefined)
    const pricing =
      network === undefined
        ? priced
        : yield* priceWithdrawal(
            ports.networkFees,
            network,
            request.lockedCurrencySide,
            request.lockedCurrencyAmount,
            priced,
            sendingCode
          )
    const outOfRange = amountRefusal(pricing, source, destination, config)
    if (outOfRange !== undefined) return yield* Effect.fail(outOfRange)
    if (destination.payee !== undefined) {
      const unverified = ownershipRefusal(
        destination.payee,
        pricing.totalReceivingAmount,
        receivingCode,
        env.settings.travelRule
      )
      if (unverified !== undefined) return yield* Effect.fail(unverified)
    }
    const id = yield* ports.ids.make("Quote")
    const transactionId = yield* ports.ids.make("Transaction")
    const instructions = paymentInstructionsFor(request.source, sendingCode, transactionId)
    if (Result.isFailure(instructions)) return yield* Effect.fail(instructions.failure)
    const record = newQuoteRecord(
      request,
      {
        id,
        transactionId,
        source,
        destination,
        pricing,
        fees,
        multiplier: market.multiplier,
        paymentInstructions: instructions.success
      },
      env,
      options
    )
    const railChosen =
      request.destination.destinationType === "ACCOUNT" && request.destination.paymentRail !== undefined
    const customer = source.customer
    return yield* ports.payments.place(
      request.scaFactor === undefined ? record : { ...record, scaFactor: request.scaFactor },
      {
        platformCustomerId: customer?.platformCustomerId,
        rail: destination.rail,
        railSelectionMode: railChosen ? "MANUAL" : "AUTO",
        customer,
        scaSettings: customer !== undefined && isScaSubject(customer, env.settings) ? env.settings : undefined,
        ...(options.transferOut === true ? { transfer: "OUT" as const } : {})
      },
      request.immediatelyExecute === true,
      config,
      env.clock
    )
  },
  Effect.catchTag("UniqueViolation", (e) => Effect.die(e))
)
