import { type BigDecimal, Context, Effect, Layer } from "effect"
import type { ExchangeRate, ExchangeRatesQuery } from "../platform/model.ts"
import { Directory } from "../ports/directory.ts"
import { FxRates } from "../ports/fx.ts"
import { Ids } from "../ports/ids.ts"
import { NetworkFees } from "../ports/network-fees.ts"
import { RailSelection } from "../ports/rail.ts"
import { Store } from "../ports/store.ts"
import type { NotFound, StoreError } from "../shared/errors.ts"
import { command, operation } from "../shared/tracing.ts"
import { type CreateOptions, createQuote } from "./create.ts"
import { exchangeRates } from "./exchange-rates.ts"
import type {
  CreateQuoteRequest,
  EstimateWithdrawalFeeRequest,
  EstimateWithdrawalFeeResponse,
  ExternalAccountLookup,
  Quote,
  ReceiverLookupQuery,
  UmaLookup
} from "./model.ts"
import { type ExecuteRequest, QuotePayments, type QuotesError } from "./ports.ts"
import { rateCache, rateFor } from "./rates.ts"
import { getQuote } from "./reads.ts"
import { lookupExternalAccount, lookupUma } from "./receivers.ts"
import { estimateWithdrawalFee } from "./withdrawal-fees.ts"

export type { QuotesError } from "./ports.ts"

/**
 * Quotes: creation (create.ts), execution through the payments context (`QuotePayments`), reads, exchange rates
 * and receiver lookups. The layer keeps the market rates it fetched (rates.ts).
 */
export class Quotes extends Context.Service<
  Quotes,
  {
    /**
     * `POST /quotes` (201); with `immediatelyExecute` the quote comes back executed. For a customer subject to SCA,
     * a quote executed at once or funded by payment instructions comes back PENDING_AUTHORIZATION with its
     * `scaChallenge` (S-06: without payment instructions until authorized). `options.transferOut`:
     * deprecated transfer-out, which refuses a destination in another currency.
     *
     * Receiver lookups (Q-03, C-23, Q-48): a quote to an UMA address names the `lookupId` of a lookup of that
     * address (400 on `lookupId` without one); a named lookup must be live (404 `LOOKUP_REQUEST_NOT_FOUND` when
     * unknown or expired), of the quote's destination (400 on `lookupId`), and `senderCustomerInfo` must carry every
     * mandatory field of its `requiredPayerDataFields` (400 `MISSING_MANDATORY_USER_INFO`, `details.errors` naming
     * each `senderCustomerInfo.<NAME>`).
     */
    readonly create: (request: CreateQuoteRequest, options?: CreateOptions) => Effect.Effect<Quote, QuotesError>
    /** `GET /quotes/{quoteId}` (404 `QUOTE_NOT_FOUND`). */
    readonly get: (id: string) => Effect.Effect<Quote, NotFound | StoreError>
    /**
     * `POST /quotes/{quoteId}/execute`: the quote in PROCESSING (or further, when it settled at once), or, for a
     * customer subject to SCA, in PENDING_AUTHORIZATION with its `scaChallenge` (S-03; `request.scaFactor` picks
     * the factor, TOTP is 400). A quote from an embedded wallet needs `request.walletSignature` (the
     * `Service-Wallet-Signature` header, Q-24); other quotes ignore it.
     */
    readonly execute: (id: string, request?: ExecuteRequest) => Effect.Effect<Quote, QuotesError>
    /**
     * The market rate from `from` to `to`: major units of `to` per major unit of `from`, before fees, exact (1 for
     * one currency); from the layer's cache, as quotes are priced (refreshed after `fxCacheSeconds`). 400
     * `QUOTE_REQUEST_FAILED` when no rate is available. `minorUnitRate` (pricing.ts) turns it into minor units.
     */
    readonly marketRate: (from: string, to: string) => Effect.Effect<BigDecimal.BigDecimal, QuotesError>
    /** `GET /exchange-rates`: rates from the cache (refreshed after `fxCacheSeconds`), fees included. */
    readonly exchangeRates: (query: ExchangeRatesQuery) => Effect.Effect<ReadonlyArray<ExchangeRate>, QuotesError>
    /**
     * `GET /receiver/external-account/{accountId}`: the account's currency with an estimated rate; the lookup is
     * stored for `LOOKUP_LIFETIME_SECONDS` under its `lookupId`.
     */
    readonly lookupExternalAccount: (
      accountId: string,
      query?: ReceiverLookupQuery
    ) => Effect.Effect<ExternalAccountLookup, QuotesError>
    /**
     * `GET /receiver/uma/{receiverUmaAddress}` (404 `UMA_NOT_FOUND`): the receiver's currencies with estimated rates
     * and limits, and the payer data its institution asks for (`requiredPayerDataFields`, from the `Directory`); the
     * lookup is stored for `LOOKUP_LIFETIME_SECONDS` under its `lookupId`, which a quote to the address names.
     */
    readonly lookupUma: (address: string, query?: ReceiverLookupQuery) => Effect.Effect<UmaLookup, QuotesError>
    /** `POST /crypto/estimate-withdrawal-fee`: the `NetworkFees` port's fees; changes nothing. */
    readonly estimateWithdrawalFee: (
      request: EstimateWithdrawalFeeRequest
    ) => Effect.Effect<EstimateWithdrawalFeeResponse, QuotesError>
  }
>()("paycore/quotes/Quotes") {
  static readonly layer: Layer.Layer<Quotes, never, Store | Ids | FxRates | Directory | QuotePayments> = Layer.effect(
    Quotes,
    Effect.gen(function* () {
      const store = yield* Store
      const ids = yield* Ids
      const directory = yield* Directory
      const payments = yield* QuotePayments
      const rates = rateCache(yield* FxRates)
      const networkFees = yield* NetworkFees
      const railSelection = yield* RailSelection
      const creation = { store, ids, directory, rates, payments, networkFees, railSelection }
      const lookups = { store, ids, directory, rates }

      return Quotes.of({
        // The two hot commands of the payment path: `command`, not `Effect.fn` (see shared/tracing.ts).
        create: (request, options = {}) =>
          command("Quotes.create", (env) => createQuote(creation, request, env, options)),
        execute: (id, request = {}) => command("Quotes.execute", (env) => payments.execute(id, env, request)),
        get: operation("Quotes.get")(function* (id: string) {
          return yield* getQuote(store, id)
        }),
        marketRate: operation("Quotes.marketRate")(function* (from: string, to: string) {
          return (yield* rateFor(rates, from, to)).rate
        }),
        exchangeRates: operation("Quotes.exchangeRates")(function* (query: ExchangeRatesQuery) {
          return yield* exchangeRates(store, rates, query)
        }),
        lookupExternalAccount: operation("Quotes.lookupExternalAccount")(function* (
          accountId: string,
          query?: ReceiverLookupQuery
        ) {
          return yield* lookupExternalAccount(lookups, accountId, query)
        }),
        lookupUma: operation("Quotes.lookupUma")(function* (address: string, query?: ReceiverLookupQuery) {
          return yield* lookupUma(lookups, address, query)
        }),
        estimateWithdrawalFee: operation("Quotes.estimateWithdrawalFee")(function* (
          request: EstimateWithdrawalFeeRequest
        ) {
          return yield* estimateWithdrawalFee(store, networkFees, request)
        })
      })
    })
  )
}
