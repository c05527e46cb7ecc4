/**
 * Receiver lookups (`GET /receiver/...`): which currencies a receiver takes, at what estimated rate, and what it asks
 * of the payer. Each lookup is stored under the `lookupId` it answers (lookups.ts), for the quote that follows.
 */
import { BigDecimal, Effect, Result } from "effect"
import { amountRange, supportedCodes } from "../platform/currencies.ts"
import type { PlatformConfig } from "../platform/model.ts"
import type { Directory, UmaReceiverStep } from "../ports/directory.ts"
import type { Store } from "../ports/store.ts"
import { currency } from "../shared/currency.ts"
import { MAX_AMOUNT } from "../shared/money.ts"
import {
  accountNotFound,
  counterpartyFailed,
  counterpartyNotAllowed,
  customerNotFound,
  quoteRequestFailed,
  umaNotFound
} from "./errors.ts"
import { recordLookup } from "./lookups.ts"
import type { CurrencyPreference, ExternalAccountLookup, ReceiverLookupQuery, UmaLookup } from "./model.ts"
import type { ReceiverLookupPorts } from "./ports.ts"
import { type Rates, rateFor } from "./rates.ts"

/** The sender's currency for receiver lookups: the customer's first currency, else the platform's, else USD. */
const senderCurrency = Effect.fnUntraced(function* (
  store: Store["Service"],
  config: PlatformConfig | undefined,
  query: ReceiverLookupQuery | undefined,
  fallbackCustomer?: string
) {
  const customerId = query?.customerId ?? fallbackCustomer
  if (customerId !== undefined) {
    const customer = yield* store.customers.get(customerId)
    if (customer === undefined) {
      if (query?.customerId !== undefined) return yield* Effect.fail(customerNotFound(customerId))
    } else if (customer.currencies[0] !== undefined) return customer.currencies[0]
  }
  return supportedCodes(config)[0] ?? "USD"
})

/**
 * The receiver behind an UMA address, as the counterparty answers at `step` (C-49, C-50): 404 `UMA_NOT_FOUND` when it
 * has none, 403 `COUNTERPARTY_NOT_ALLOWED` when its provider is not on the allow list, 412 or 424 when the
 * counterparty cannot be dealt with.
 */
export const umaReceiverAt = Effect.fnUntraced(function* (
  directory: Directory["Service"],
  address: string,
  step: UmaReceiverStep
) {
  const receiver = yield* directory
    .umaReceiver(address, step)
    .pipe(Effect.catchTag("CounterpartyFailure", (failure) => Effect.fail(counterpartyFailed(failure))))
  if (receiver === undefined) return yield* Effect.fail(umaNotFound(address))
  if (receiver.allowed === false) return yield* Effect.fail(counterpartyNotAllowed(address))
  return receiver
})

/** One currency a receiver takes, with the market rate from the sender's currency. */
const preference = Effect.fnUntraced(function* (rates: Rates, from: string, to: string, min: number, max: number) {
  const { rate } = yield* rateFor(rates, from, to)
  return {
    currency: currency(to),
    estimatedExchangeRate: BigDecimal.toNumberUnsafe(rate),
    min,
    max
  } satisfies CurrencyPreference
})

/**
 * `GET /receiver/external-account/{accountId}`: the account's currency, with the amounts the platform allows in it
 * (`supportedCurrencies[].minAmount/maxAmount`, L-19; 404 for a missing or deleted account). An
 * account asks nothing of the payer; its lookup is stored all the same, for a quote that names it.
 */
export const lookupExternalAccount = Effect.fnUntraced(function* (
  ports: ReceiverLookupPorts,
  accountId: string,
  query?: ReceiverLookupQuery
) {
  const account = yield* ports.store.externalAccounts.get(accountId)
  if (account === undefined || account.status === "INACTIVE") return yield* Effect.fail(accountNotFound(accountId))
  const config = yield* ports.store.config.get()
  const from = yield* senderCurrency(ports.store, config, query, account.customerId)
  const range = amountRange(config, account.currency) ?? { min: 1, max: MAX_AMOUNT }
  const supportedCurrencies = [yield* preference(ports.rates, from, account.currency, range.min, range.max)]
  const lookup = yield* recordLookup(ports, "ACCOUNT", account.id, [], query?.customerId)
  return {
    accountId: account.id,
    lookupId: lookup.id,
    supportedCurrencies,
    requiredPayerDataFields: lookup.requiredPayerDataFields
  } satisfies ExternalAccountLookup
})

/**
 * `GET /receiver/uma/{receiverUmaAddress}`: the currencies with a rate (404 `UMA_NOT_FOUND`) and the payer data the
 * receiver's institution asks for (the `Directory`'s `requiredPayerDataFields`), stored for the quote that follows.
 */
export const lookupUma = Effect.fnUntraced(function* (
  ports: ReceiverLookupPorts,
  address: string,
  query?: ReceiverLookupQuery
) {
  const receiver = yield* umaReceiverAt(ports.directory, address, "lookup")
  const config = yield* ports.store.config.get()
  const from = yield* senderCurrency(ports.store, config, query)
  const supportedCurrencies: Array<CurrencyPreference> = []
  for (const code of receiver.currencies) {
    // What both the receiver and the platform allow in the currency (L-19).
    const platform = amountRange(config, code)
    const min = Math.max(receiver.minAmount, platform?.min ?? 0)
    const max = Math.min(receiver.maxAmount, platform?.max ?? MAX_AMOUNT)
    const pref = yield* Effect.result(preference(ports.rates, from, code, min, max))
    if (Result.isSuccess(pref)) supportedCurrencies.push(pref.success)
  }
  if (supportedCurrencies.length === 0 && receiver.currencies[0] !== undefined) {
    return yield* Effect.fail(quoteRequestFailed(from, receiver.currencies[0]))
  }
  const fields = receiver.requiredPayerDataFields ?? []
  const lookup = yield* recordLookup(ports, "UMA_ADDRESS", address, fields, query?.customerId)
  return {
    receiverUmaAddress: address,
    lookupId: lookup.id,
    supportedCurrencies,
    requiredPayerDataFields: lookup.requiredPayerDataFields
  } satisfies UmaLookup
})
