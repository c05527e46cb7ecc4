/** `POST /crypto/estimate-withdrawal-fee`: what an on-chain withdrawal costs and what arrives. */
import { Effect } from "effect"
import type { NetworkFeesService } from "../ports/network-fees.ts"
import type { Store } from "../ports/store.ts"
import { accountNotFound, invalidField, withdrawalBelowFees } from "./errors.ts"
import type { EstimateWithdrawalFeeRequest, EstimateWithdrawalFeeResponse } from "./model.ts"
import { addressMismatch, networksOf } from "./networks.ts"

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
