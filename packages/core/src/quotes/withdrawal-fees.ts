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
 * network is one of the currency's, the address fits the network (each a 400 on its field), then 400
 * `AMOUNT_OUT_OF_RANGE` when the fees take the whole amount. Reads only: nothing is stored or held.
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
  const expected = addressMismatch(cryptoNetwork, destinationAddress)
  if (expected !== undefined) {
    return yield* invalidField(
      "destinationAddress",
      { network: cryptoNetwork, expected },
      `A ${cryptoNetwork} address is ${expected}`
    )
  }
  const estimate = yield* fees.estimate({ network: cryptoNetwork, currency, amount })
  const totalFee = estimate.networkFeeInCurrency + estimate.applicationFee
  if (amount <= totalFee) return yield* withdrawalBelowFees(amount, currency, totalFee)
  return {
    networkFee: estimate.networkFee,
    networkFeeAsset: estimate.networkFeeAsset,
    applicationFee: estimate.applicationFee,
    totalFee,
    netAmount: amount - totalFee
  } satisfies EstimateWithdrawalFeeResponse
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
    network: estimate.networkFeeInCurrency,
    application: estimate.applicationFee,
    total: estimate.networkFeeInCurrency + estimate.applicationFee
  }
})

/** At most this many estimates to find the total of a receiving-locked withdrawal (each step adds the fee's growth). */
const MAX_FEE_STEPS = 64

/**
 * The smallest total whose net after its own fees covers `received`, with those fees: from below, total = received +
 * the fees at the previous total until it covers (the fees grow with the total, so this is the least such total).
 */
const totalFor = Effect.fnUntraced(function* (
  fees: NetworkFeesService,
  network: CryptoNetwork,
  code: string,
  received: number
) {
  let gross = received
  let charged = yield* feesAt(fees, network, code, gross)
  for (let step = 0; gross - charged.total < received && step < MAX_FEE_STEPS; step++) {
    gross = received + charged.total
    charged = yield* feesAt(fees, network, code, gross)
  }
  return { gross, charged }
})

/**
 * Q5 (issue 17 plan, section 5): a same-currency quote to an external wallet is charged the `NetworkFees` estimate
 * of its total, so `POST /crypto/estimate-withdrawal-fee` for that amount predicts it exactly: `feesIncluded` =
 * `totalFee`, `totalReceivingAmount` = `netAmount`. The network fee (in the currency) is booked as the service's fee,
 * the application fee as the platform's (`platformFeesIncluded`). SENDING locked: the total is the locked amount;
 * RECEIVING locked: the smallest total whose net covers it (`totalFor`). 400 on `lockedCurrencyAmount` when the fees
 * take it all (with the smallest amount that nets one unit).
 */
export const priceWithdrawal = Effect.fnUntraced(function* (
  fees: NetworkFeesService,
  network: CryptoNetwork,
  side: LockedCurrencySide,
  locked: number,
  pricing: Pricing,
  code: string
) {
  const { gross, charged } =
    side === "SENDING"
      ? { gross: locked, charged: yield* feesAt(fees, network, code, locked) }
      : yield* totalFor(fees, network, code, locked)
  const received = gross - charged.total
  if (received <= 0 || (side === "RECEIVING" && received < locked)) {
    const minimum = (yield* totalFor(fees, network, code, side === "SENDING" ? 1 : locked)).gross
    return yield* invalidField(
      "lockedCurrencyAmount",
      side === "SENDING" ? { minimum } : { valid: true },
      `${locked} ${code} (smallest unit) does not cover the ${network} withdrawal fees of ${charged.total}`
    )
  }
  if (gross > MAX_AMOUNT) {
    return yield* invalidField(
      "lockedCurrencyAmount",
      { maximum: MAX_AMOUNT },
      "The amounts of this quote would exceed 9000000000000000"
    )
  }
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
