/**
 * The platform's limits on a payment (L-15): the size of one payment and the customer's volume per currency and
 * UTC day, as `reserveSteps` counts them and as SCA's read-only pre-check reads them (nothing counted there).
 */
import type { PlatformConfig } from "../platform/model.ts"
import { dailyVolumeLimitExceeded, transactionSizeLimitExceeded } from "../quotes/errors.ts"
import type { QuoteRecord } from "../quotes/model.ts"
import type { LimitExceeded, Refused } from "../shared/errors.ts"
import { utcDay } from "../shared/time.ts"

const secondsToUtcMidnight = (iso: string): number => {
  const now = Date.parse(iso)
  const next = Date.parse(`${utcDay(iso)}T00:00:00.000Z`) + 86_400_000
  return Math.max(1, Math.ceil((next - now) / 1000))
}

/** The daily-volume counter key of a customer (or the platform) in one currency on one UTC day. */
export const dailyVolumeKey = (customerId: string | undefined, currencyCode: string, iso: string): string =>
  `daily-volume:${customerId ?? "platform"}:${currencyCode}:${utcDay(iso)}`

/** The platform's limits for the quote's sending currency, when it set any. */
export const limitsOf = (config: PlatformConfig | undefined, quote: QuoteRecord) =>
  config?.transactionLimits.find((l) => l.currency === quote.quote.sendingCurrency.code)

/** 400 `TRANSACTION_SIZE_LIMIT_EXCEEDED` when the quote sends more than one payment may. */
export const sizeLimitRefusal = (config: PlatformConfig | undefined, quote: QuoteRecord): Refused | undefined => {
  const limit = limitsOf(config, quote)
  const amount = quote.quote.totalSendingAmount
  return limit?.maxTransactionAmount !== undefined && amount > limit.maxTransactionAmount
    ? transactionSizeLimitExceeded(quote.quote.sendingCurrency.code, amount, limit.maxTransactionAmount)
    : undefined
}

/** 429 `DAILY_VOLUME_LIMIT_EXCEEDED` when `total` (the day's volume with this quote's amount) is above the limit. */
export const dailyVolumeRefusal = (
  config: PlatformConfig | undefined,
  quote: QuoteRecord,
  total: number,
  now: string
): LimitExceeded | undefined => {
  const limit = limitsOf(config, quote)
  const amount = quote.quote.totalSendingAmount
  return limit?.maxDailyVolume !== undefined && total > limit.maxDailyVolume
    ? dailyVolumeLimitExceeded(
        quote.quote.sendingCurrency.code,
        total - amount,
        amount,
        limit.maxDailyVolume,
        secondsToUtcMidnight(now)
      )
    : undefined
}
