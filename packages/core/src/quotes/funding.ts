/**
 * Rails and funding: the default payout rail per currency, and where the money comes from for a quote funded by
 * payment instructions (the sandbox's clearing accounts, matched by the transaction's payment reference).
 */
import type { PaymentInstructions, PaymentRail } from "../accounts/model.ts"
import { describePayeeType, localPayeeTypes } from "../shared/payee-types.ts"
import type { Quote } from "./model.ts"

/**
 * The default payout rail per receiving currency (exchange rates; accounts that list no rail); a currency not here
 * takes the first rail of its own payee type.
 */
export const DEFAULT_RAIL: Readonly<Record<string, PaymentRail>> = {
  USD: "ACH",
  EUR: "SEPA_INSTANT",
  GBP: "FASTER_PAYMENTS",
  MXN: "SPEI",
  BRL: "PIX",
  INR: "UPI",
  PHP: "INSTAPAY",
  NGN: "BANK_TRANSFER",
  CAD: "BANK_TRANSFER",
  COP: "BRE_B",
  KES: "MOBILE_MONEY",
  JPY: "BANK_TRANSFER",
  USDC: "SOLANA",
  USDT: "TRON",
  BTC: "LIGHTNING"
}
export const defaultRail = (code: string): PaymentRail => {
  const local = localPayeeTypes(code)[0]
  return DEFAULT_RAIL[code] ?? (local === undefined ? "BANK_TRANSFER" : describePayeeType(local).rails[0])
}

/** UMA payments settle between counterparties over Lightning. */
export const UMA_RAIL: PaymentRail = "LIGHTNING"

/** Currencies a quote can be funded in by payment instructions (instant rails and stablecoins). */
export const REALTIME_FUNDING_CURRENCIES = ["USD", "EUR", "MXN", "USDC", "USDT", "BTC"] as const

/** The deposit wallet of a stablecoin per network (every network of USDC and USDT in networks.ts has one). */
export const WALLET_BY_NETWORK: Readonly<
  Record<
    string,
    "SOLANA_WALLET" | "ETHEREUM_WALLET" | "BASE_WALLET" | "POLYGON_WALLET" | "TRON_WALLET" | "PLASMA_WALLET"
  >
> = {
  SOLANA: "SOLANA_WALLET",
  ETHEREUM: "ETHEREUM_WALLET",
  BASE: "BASE_WALLET",
  POLYGON: "POLYGON_WALLET",
  TRON: "TRON_WALLET",
  PLASMA: "PLASMA_WALLET"
}

/** The sandbox's deposit addresses: one per address format (the deposit is matched by amount and address). */
const SANDBOX_DEPOSIT_ADDRESS = {
  SOLANA: "4Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb4xXHzsAbd8Wg",
  TRON: "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf",
  EVM: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
  BITCOIN: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
} as const

/** The reconciliation reference of a transaction: what a depositor writes in the memo. */
export const paymentReference = (transactionId: string): string => {
  // `<Type>:<uuid>`: the uuid's last group is the last 12 hex digits (no regex needed).
  const tail = transactionId.slice(-12)
  return /^[0-9a-f]{12}$/.test(tail) && transactionId.charCodeAt(transactionId.length - 13) === 45
    ? `PAYCORE-${tail.toUpperCase()}`
    : `PAYCORE-${transactionId
        .replace(/[^0-9a-f]/g, "")
        .slice(-12)
        .toUpperCase()}`
}

/**
 * Where to send the money for a quote funded by payment instructions (sandbox clearing accounts;
 * the deposit is matched by `reference`). `undefined` for a currency or network that has none.
 */
export const fundingInstructions = (
  code: string,
  reference: string,
  cryptoNetwork: string | undefined
): ReadonlyArray<PaymentInstructions> | undefined => {
  const notes = `Include the reference ${reference} in the payment memo`
  switch (code) {
    case "USD":
      return [
        {
          instructionsNotes: notes,
          isPlatformAccount: true,
          accountOrWalletInfo: {
            accountType: "US_ACCOUNT",
            reference,
            accountNumber: "9876543210",
            routingNumber: "021000021",
            accountHolderName: "Paycore Sandbox Clearing",
            bankName: "JPMorgan Chase Bank, N.A.",
            paymentRails: ["RTP", "FEDNOW"]
          }
        }
      ]
    case "EUR":
      return [
        {
          instructionsNotes: notes,
          isPlatformAccount: true,
          accountOrWalletInfo: {
            accountType: "EUR_ACCOUNT",
            reference,
            iban: "DE89370400440532013000",
            accountHolderName: "Paycore Sandbox Clearing",
            bankName: "Deutsche Bank AG",
            paymentRails: ["SEPA_INSTANT"]
          }
        }
      ]
    case "MXN":
      return [
        {
          instructionsNotes: notes,
          isPlatformAccount: true,
          accountOrWalletInfo: {
            accountType: "CLABE",
            reference,
            clabeNumber: "002010077777777771",
            accountHolderName: "Paycore Sandbox Clearing",
            bankName: "BBVA México, S.A.",
            paymentRails: ["SPEI"]
          }
        }
      ]
    case "USDC":
    case "USDT": {
      const wallet = WALLET_BY_NETWORK[cryptoNetwork ?? ""]
      if (wallet === undefined) return undefined
      return [
        {
          instructionsNotes: `Send ${code} on ${cryptoNetwork}; the deposit is matched by amount and address`,
          isPlatformAccount: true,
          accountOrWalletInfo: {
            accountType: wallet,
            assetType: code,
            address:
              wallet === "SOLANA_WALLET"
                ? SANDBOX_DEPOSIT_ADDRESS.SOLANA
                : wallet === "TRON_WALLET"
                  ? SANDBOX_DEPOSIT_ADDRESS.TRON
                  : SANDBOX_DEPOSIT_ADDRESS.EVM
          }
        }
      ]
    }
    case "BTC":
      // Lightning unless Bitcoin L1 is asked for (AC-06: `BITCOIN_L1{address, network: BITCOIN}`).
      if (cryptoNetwork === "BITCOIN") {
        return [
          {
            instructionsNotes: `Send BTC on Bitcoin L1; the deposit is matched by amount and address`,
            isPlatformAccount: true,
            accountOrWalletInfo: {
              accountType: "BITCOIN_L1",
              address: SANDBOX_DEPOSIT_ADDRESS.BITCOIN,
              network: "BITCOIN"
            }
          }
        ]
      }
      return [
        {
          instructionsNotes: `Pay the Lightning invoice; reference ${reference}`,
          isPlatformAccount: true,
          accountOrWalletInfo: {
            accountType: "LIGHTNING",
            invoice: `lnbcrt1paycore${reference.toLowerCase().replace(/[^0-9a-z]/g, "")}`
          }
        }
      ]
    default:
      return undefined
  }
}

// ---- embedded wallets (Q-24, AC-07) ----

/**
 * What the wallet signs to execute a quote from it: the quote's terms, as JSON with its keys in this order and no
 * whitespace, built once when the quote is made and kept as it is (the client stamps these bytes; execute verifies
 * over the stored string, never a re-serialization). A stamp over it authorizes this quote, these amounts and this
 * destination only; the quote's state machine makes it single-use.
 */
export const walletPayloadToSign = (quote: Quote, accountId: string): string => {
  const destination = quote.destination
  return JSON.stringify({
    type: "WALLET_EXECUTE_QUOTE",
    quoteId: quote.id,
    accountId,
    sendingAmount: quote.totalSendingAmount,
    sendingCurrency: quote.sendingCurrency.code,
    receivingAmount: quote.totalReceivingAmount,
    receivingCurrency: quote.receivingCurrency.code,
    destination: destination.destinationType === "ACCOUNT" ? destination.accountId : destination.umaAddress,
    paymentRail: destination.paymentRail,
    expiresAt: quote.expiresAt
  })
}

/** AC-07: a quote from an embedded wallet carries what to sign in its payment instructions. */
export const walletSigningInstructions = (quote: Quote, accountId: string): ReadonlyArray<PaymentInstructions> => [
  {
    instructionsNotes:
      "Stamp payloadToSign byte for byte with a session key of the wallet; send the stamp in the Service-Wallet-Signature header of POST /quotes/{quoteId}/execute",
    accountOrWalletInfo: { accountType: "EMBEDDED_WALLET", payloadToSign: walletPayloadToSign(quote, accountId) }
  }
]

/**
 * The wallet signature a quote's execution needs: its source wallet and the `payloadToSign` of its
 * instructions; `undefined` for a quote from anything else (they carry no such instruction: no store read).
 */
export const walletSigningOf = (quote: Quote): { readonly accountId: string; readonly payload: string } | undefined => {
  if (quote.source.sourceType !== "ACCOUNT") return undefined
  for (const instruction of quote.paymentInstructions) {
    const info = instruction.accountOrWalletInfo
    if (info.accountType === "EMBEDDED_WALLET")
      return { accountId: quote.source.accountId, payload: info.payloadToSign }
  }
  return undefined
}
