/**
 * The external accounts' variant rules, pure: the currencies and rails of each `accountInfo` variant, and what makes
 * two accounts the same account.
 */
import type { AccountInfo, PaymentRail } from "./model.ts"

const WALLET_CURRENCIES = ["USDC", "USDT"]

/** The currencies an `accountInfo` variant can hold (aliases share a row). */
export const variantCurrencies: Readonly<Record<AccountInfo["accountType"], ReadonlyArray<string>>> = {
  US_ACCOUNT: ["USD"],
  USD_ACCOUNT: ["USD"],
  CLABE: ["MXN"],
  MXN_ACCOUNT: ["MXN"],
  IBAN: ["EUR"],
  EUR_ACCOUNT: ["EUR"],
  PIX: ["BRL"],
  BRL_ACCOUNT: ["BRL"],
  SOLANA_WALLET: WALLET_CURRENCIES,
  ETHEREUM_WALLET: WALLET_CURRENCIES,
  BASE_WALLET: WALLET_CURRENCIES,
  POLYGON_WALLET: WALLET_CURRENCIES,
  TRON_WALLET: WALLET_CURRENCIES,
  PLASMA_WALLET: ["USDT"],
  SPARK_WALLET: ["BTC"],
  LIGHTNING: ["BTC"]
}

/** The rails an external account of this variant is paid on; the first is the default. */
export const variantRails: Readonly<Record<AccountInfo["accountType"], ReadonlyArray<PaymentRail>>> = {
  US_ACCOUNT: ["ACH", "WIRE", "RTP", "FEDNOW"],
  USD_ACCOUNT: ["ACH", "WIRE", "RTP", "FEDNOW"],
  CLABE: ["SPEI"],
  MXN_ACCOUNT: ["SPEI"],
  IBAN: ["SEPA", "SEPA_INSTANT"],
  EUR_ACCOUNT: ["SEPA", "SEPA_INSTANT"],
  PIX: ["PIX"],
  BRL_ACCOUNT: ["PIX"],
  SOLANA_WALLET: ["SOLANA"],
  ETHEREUM_WALLET: ["ETHEREUM"],
  BASE_WALLET: ["BASE"],
  POLYGON_WALLET: ["POLYGON"],
  TRON_WALLET: ["TRON"],
  PLASMA_WALLET: ["PLASMA"],
  SPARK_WALLET: ["SPARK"],
  LIGHTNING: ["LIGHTNING"]
}

/** What makes two external accounts the same account: the variant family and its number or address. */
export const accountIdentity = (info: AccountInfo): string => {
  switch (info.accountType) {
    case "US_ACCOUNT":
    case "USD_ACCOUNT":
      return `US:${info.routingNumber}:${info.accountNumber}`
    case "CLABE":
    case "MXN_ACCOUNT":
      return `CLABE:${info.clabeNumber}`
    case "IBAN":
    case "EUR_ACCOUNT":
      return `IBAN:${info.iban.toUpperCase()}`
    case "PIX":
    case "BRL_ACCOUNT":
      return `PIX:${info.pixKeyType}:${info.pixKey}`
    case "LIGHTNING":
      return `LIGHTNING:${(info.lightningAddress ?? info.invoice ?? "").toLowerCase()}`
    default:
      // EVM addresses are case-insensitive hex; base58 addresses are case-sensitive.
      return `${info.accountType}:${info.address.startsWith("0x") ? info.address.toLowerCase() : info.address}`
  }
}
