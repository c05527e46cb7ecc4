/** `GET /exchange-rates`: market rates from the cache, priced for a sending amount with every fee included. */
import { BigDecimal, Effect, Result } from "effect"
import { amountRange, supportedCodes } from "../platform/currencies.ts"
import type { ExchangeRate, ExchangeRatesQuery } from "../platform/model.ts"
import type { Store } from "../ports/store.ts"
import { currency, currencyCodes } from "../shared/currency.ts"
import { EngineConfig } from "../shared/engine-config.ts"
import { MAX_AMOUNT } from "../shared/money.ts"
import { defaultRail } from "./funding.ts"
import {
  displayRatio,
  feeScheduleFor,
  feesOn,
  minimumSendingAmount,
  platformFeeFor,
  pow10,
  priceQuote
} from "./pricing.ts"
import { type Rates, rateFor } from "./rates.ts"

/**
 * The rates from `query.sourceCurrency` to each destination currency asked for (default: every supported one).
 * A pair without a rate is left out, unless it was asked for by name (then the call fails).
 */
export const exchangeRates = Effect.fnUntraced(function* (
  store: Store["Service"],
  rates: Rates,
  query: ExchangeRatesQuery
) {
  const settings = yield* EngineConfig
  const config = yield* store.config.get()
  const source = query.sourceCurrency
  const amount = query.sendingAmount ?? 10_000
  const explicit = query.destinationCurrency !== undefined
  const wanted =
    query.destinationCurrency === undefined
      ? (config === undefined ? currencyCodes : supportedCodes(config)).filter((c) => c !== source)
      : typeof query.destinationCurrency === "string"
        ? [query.destinationCurrency]
        : query.destinationCurrency
  const limit = config?.transactionLimits.find((l) => l.currency === source)
  // L-19: the platform's range for the sending currency bounds what may be sent.
  const range = amountRange(config, source)
  const out: Array<ExchangeRate> = []
  for (const destination of [...new Set(wanted)]) {
    const found = yield* Effect.result(rateFor(rates, source, destination))
    if (Result.isFailure(found)) {
      if (explicit) return yield* Effect.fail(found.failure)
      continue
    }
    const { rate, fetchedAtMs } = found.success
    const platform = Result.getOrElse(platformFeeFor(source, destination, config, undefined), () => ({
      bps: 0,
      fixed: 0
    }))
    const fees = feeScheduleFor(source, destination, settings.serviceFeeBps, platform)
    const base = { sendingCurrency: source, receivingCurrency: destination, marketRate: rate, fees }
    const priced =
      amount > 0 ? priceQuote({ ...base, lockedCurrencySide: "SENDING", lockedCurrencyAmount: amount }) : undefined
    const ok = priced !== undefined && Result.isSuccess(priced) ? priced.success : undefined
    const send = currency(source)
    const receive = currency(destination)
    const receivingAmount = ok?.totalReceivingAmount ?? 0
    // Effective rate: receiving major units per sending major unit, every fee included.
    const effective =
      receivingAmount > 0
        ? displayRatio(BigInt(receivingAmount) * pow10(send.decimals), BigInt(amount) * pow10(receive.decimals))
        : BigDecimal.toNumberUnsafe(rate)
    const feeTotal = ok?.feesIncluded ?? Number(feesOn(BigInt(amount), fees).total)
    out.push({
      sourceCurrency: send,
      destinationCurrency: receive,
      destinationPaymentRail: defaultRail(destination),
      sendingAmount: amount,
      minSendingAmount: Math.max(minimumSendingAmount(base), range?.min ?? 0),
      maxSendingAmount: Math.min(limit?.maxTransactionAmount ?? MAX_AMOUNT, range?.max ?? MAX_AMOUNT),
      receivingAmount,
      exchangeRate: effective,
      fees: { fixed: fees.platformFixed, total: feeTotal },
      updatedAt: new Date(fetchedAtMs).toISOString()
    })
  }
  return out
})
