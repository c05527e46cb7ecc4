/**
 * `POST /crypto/estimate-withdrawal-fee`: what an on-chain withdrawal costs and what arrives; and the same
 * fees charged by a same-currency quote to an external wallet (Q5).
 */
import { Effect } from "effect"
import type { NetworkFeesService } from "../ports/network-fees.ts"
import type { Store } from "../ports/store.ts"
import { MAX_AMOUNT } from "../shared/money.ts"
import { accountNotFound, invalidField, withdrawalBelowFees } from "./errors.ts"
import type {
  CryptoNetwork,
  EstimateWithdrawalFeeRequest,
  EstimateWithdrawalFeeResponse,
  LockedCurrencySide
} from "./model.ts"
import { addressMismatch, networksOf } from "./networks.ts"
import type { Pricing } from "./pricing.ts"

/** The internal account types that hold on-chain money. */
const CRYPTO_ACCOUNT_TYPES = ["INTERNAL_CRYPTO", "EMBEDDED_WALLET"]

/**
 * Checks in order: the account (404 `NOT_FOUND`), the currency is the account's, the account holds crypto, the
 * network is one of the currency's, the address fits the network, its checksum holds (each a 400 on its field), then
 * 400 `AMOUNT_OUT_OF_RANGE` when the fees take the whole amount. Reads only: nothing is stored or held.
 */
export const estimateWithdrawalFee = Effect.fnUntraced(function* (
  store: Store["Service"],
  fees: NetworkFeesService,
  request: EstimateWithdrawalFeeRequest
) {
  const { internalAccountId, currency, cryptoNetwork, amount, destinationAddress } = request
  const account = yield* store.internalAccounts.get(internalAccountId)
  if (account === undefined) return yield* accountNotFound(internalAccountId)
  if (account.currency !== currency) {
    return yield* invalidField(
      "currency",
      { enum: [account.currency] },
      `Account ${account.id} holds ${account.currency}, not ${currency}`
    )
  }
  if (!CRYPTO_ACCOUNT_TYPES.includes(account.type)) {
    return yield* invalidField(
      "internalAccountId",
      { accountType: CRYPTO_ACCOUNT_TYPES },
      `Account ${account.id} is ${account.type}: only a crypto account withdraws on chain`
    )
  }
  const networks = networksOf(currency)
  if (!networks.includes(cryptoNetwork)) {
    return yield* invalidField(
      "cryptoNetwork",
      { enum: networks },
      networks.length === 0
        ? `${currency} moves on no network this service withdraws to`
        : `${currency} moves on ${networks.join(", ")}, not ${cryptoNetwork}`
    )
  }
  const mismatch = addressMismatch(cryptoNetwork, destinationAddress)
  if (mismatch?.kind === "SHAPE") {
    return yield* invalidField(
      "destinationAddress",
      { network: cryptoNetwork, expected: mismatch.expected },
      `A ${cryptoNetwork} address is ${mismatch.expected}`
    )
  }
  if (mismatch?.kind === "CHECKSUM") {
    return yield* invalidField(
      "destinationAddress",
      { network: cryptoNetwork, checksum: mismatch.checksum },
      `The ${cryptoNetwork} address's checksum is wrong (${mismatch.checksum}): it is mistyped`
    )
  }
  return yield* withdrawalFees(fees, cryptoNetwork, currency, amount)
})

/**
 * The estimate's answer for `amount` on `network`, or 400 `AMOUNT_OUT_OF_RANGE` when its fees take it all: with
 * those fees (`networkFee`, `networkFeeAsset`, `applicationFee`, `totalFee`) and `min`, the least amount that nets 1
 * (`leastTotal`: the fees grow with the amount, so it is not just `totalFee + 1`; the quote path's `minimum` is the
 * same number).
 */
export const withdrawalFees = Effect.fnUntraced(function* (
  fees: NetworkFeesService,
  network: CryptoNetwork,
  currency: string,
  amount: number
) {
  const charged = yield* feesAt(fees, network, currency, amount)
  const charge = {
    networkFee: charged.estimate.networkFee,
    networkFeeAsset: charged.estimate.networkFeeAsset,
    applicationFee: charged.application,
    totalFee: charged.total
  }
  if (amount <= charged.total) {
    const least = yield* leastTotal(fees, network, currency, 1)
    return yield* withdrawalBelowFees(amount, currency, charge, least?.gross)
  }
  return { ...charge, netAmount: amount - charged.total } satisfies EstimateWithdrawalFeeResponse
})

// ---- quotes to external wallets (Q5) ----

/**
 * The network a quote withdraws on, when it is an on-chain withdrawal: same currency, to an external account, on
 * one of that currency's networks (its rail). `undefined` for anything else (a conversion, an internal transfer,
 * UMA, a bank rail).
 */
export const withdrawalNetwork = (
  sendingCode: string,
  receivingCode: string,
  rail: string,
  toExternalAccount: boolean
): CryptoNetwork | undefined => {
  if (!toExternalAccount || sendingCode !== receivingCode) return undefined
  return networksOf(receivingCode).find((network) => network === rail)
}

/** The withdrawal's fees on a total of `gross`: what the estimate calls `totalFee`, and its two parts. */
const feesAt = Effect.fnUntraced(function* (
  fees: NetworkFeesService,
  network: CryptoNetwork,
  code: string,
  gross: number
) {
  const estimate = yield* fees.estimate({ network, currency: code, amount: gross })
  return {
    estimate,
    network: estimate.networkFeeInCurrency,
    application: estimate.applicationFee,
    total: estimate.networkFeeInCurrency + estimate.applicationFee
  }
})

/** Steps from below before `leastTotal` bisects (basis-point fees converge in two or three). */
const FROM_BELOW_STEPS = 8

/**
 * The least total (at most `MAX_AMOUNT`) whose net after its own fees covers `received`, with those fees; `undefined`
 * when none does. The port's fees may grow with the amount (basis points, rounded as the adapter charges them), but
 * not faster than it, so a larger total never nets less. From below first: total = received + the fees at the last
 * total, which never passes the answer and lands on it once it covers; if that is slow (fees that grow almost as
 * fast as the amount), bisection between the last total that did not cover and `MAX_AMOUNT`. The fees are the
 * port's own at each total, so the answer is exact whatever their rounding.
 */
export const leastTotal = Effect.fnUntraced(function* (
  fees: NetworkFeesService,
  network: CryptoNetwork,
  code: string,
  received: number
) {
  const covers = (gross: number, charged: { readonly total: number }) => gross - charged.total >= received
  let below = received - 1
  let gross = received
  for (let step = 0; step < FROM_BELOW_STEPS && gross <= MAX_AMOUNT; step++) {
    const charged = yield* feesAt(fees, network, code, gross)
    if (covers(gross, charged)) return { gross, charged }
    below = gross
    gross = received + charged.total
  }
  let above = MAX_AMOUNT
  let atAbove = yield* feesAt(fees, network, code, above)
  if (!covers(above, atAbove)) return undefined
  while (above - below > 1) {
    const middle = below + Math.floor((above - below) / 2)
    const charged = yield* feesAt(fees, network, code, middle)
    if (covers(middle, charged)) {
      above = middle
      atAbove = charged
    } else below = middle
  }
  return { gross: above, charged: atAbove }
})

/** A receiving-locked total past the largest amount. */
const tooLarge = invalidField(
  "lockedCurrencyAmount",
  { maximum: MAX_AMOUNT },
  "The amounts of this quote would exceed 9000000000000000"
)

/**
 * Q5 (issue 17 plan, section 5): a same-currency quote to an external wallet is charged the `NetworkFees` estimate
 * of its total, so `POST /crypto/estimate-withdrawal-fee` for that amount predicts it exactly: `feesIncluded` =
 * `totalFee`, `totalReceivingAmount` = `netAmount`. The network fee (in the currency) is booked as the service's fee,
 * the application fee as the platform's (`platformFeesIncluded`). SENDING locked: the total is the locked amount;
 * RECEIVING locked: the smallest total whose net covers it (`leastTotal`). 400 on `lockedCurrencyAmount` when the
 * fees take it all (`minimum`: the smallest amount that nets one unit, the estimate's `details.min`).
 */
export const priceWithdrawal = Effect.fnUntraced(function* (
  fees: NetworkFeesService,
  network: CryptoNetwork,
  side: LockedCurrencySide,
  locked: number,
  pricing: Pricing,
  code: string
) {
  const found =
    side === "SENDING"
      ? { gross: locked, charged: yield* feesAt(fees, network, code, locked) }
      : yield* leastTotal(fees, network, code, locked)
  if (found === undefined) return yield* tooLarge
  const { gross, charged } = found
  const received = gross - charged.total
  if (received <= 0) {
    const least = yield* leastTotal(fees, network, code, 1)
    return yield* invalidField(
      "lockedCurrencyAmount",
      least === undefined ? { maximum: MAX_AMOUNT } : { minimum: least.gross },
      `${locked} ${code} (smallest unit) does not cover the ${network} withdrawal fees of ${charged.total}`
    )
  }
  if (gross > MAX_AMOUNT) return yield* tooLarge
  return {
    ...pricing,
    totalSendingAmount: gross,
    totalReceivingAmount: received,
    netSendingAmount: received,
    serviceFee: charged.network,
    serviceVariableFee: 0,
    platformFee: charged.application,
    platformVariableFee: charged.application,
    feesIncluded: charged.total,
    platformFeesIncluded: charged.application
  } satisfies Pricing
})
