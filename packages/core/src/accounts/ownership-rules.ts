/**
 * The Travel Rule's rules about self-custody wallets, pure (AC-24, AC-25, AC-26; docs/ownership-verification.md):
 * which accounts start `PENDING_OWNERSHIP_VERIFICATION`, which can be verified, the message a wallet signs, and the
 * threshold a payment to an unverified wallet may not reach.
 */
import type { TravelRuleSettings } from "../shared/engine-config.ts"
import { ownershipVerificationRequired } from "./errors.ts"
import type { AccountInfo, ExternalAccount, OwnershipVerificationMethod } from "./model.ts"
import type { SignableWallet } from "./wallet-signatures.ts"

/** A self-custody wallet: an on-chain address the customer holds the key of (not a Lightning invoice or a bank). */
export const selfCustodyWallet = (info: AccountInfo): SignableWallet | undefined =>
  "address" in info ? info : undefined

/**
 * AC-25: a `FIRST_PARTY` self-custody wallet of a customer whose region is one where the Travel Rule applies
 * starts `PENDING_OWNERSHIP_VERIFICATION`; every other account starts `ACTIVE`.
 */
export const initialExternalStatus = (
  info: AccountInfo,
  ownershipType: "FIRST_PARTY" | "THIRD_PARTY",
  customerRegion: string | undefined,
  rule: TravelRuleSettings
): "ACTIVE" | "PENDING_OWNERSHIP_VERIFICATION" =>
  selfCustodyWallet(info) !== undefined &&
  ownershipType === "FIRST_PARTY" &&
  customerRegion !== undefined &&
  rule.regions.includes(customerRegion)
    ? "PENDING_OWNERSHIP_VERIFICATION"
    : "ACTIVE"

/**
 * A platform-owned account's first status: the platform has no region, so it is subject wherever the engine applies
 * the Travel Rule at all (`regions` not empty) — its FIRST_PARTY self-custody wallet starts
 * `PENDING_OWNERSHIP_VERIFICATION` until the platform signs (AC-26, AC-27); every other account starts `ACTIVE`.
 */
export const initialPlatformExternalStatus = (
  info: AccountInfo,
  ownershipType: "FIRST_PARTY" | "THIRD_PARTY",
  rule: TravelRuleSettings
): "ACTIVE" | "PENDING_OWNERSHIP_VERIFICATION" => initialExternalStatus(info, ownershipType, rule.regions[0], rule)

/**
 * Why the account's ownership cannot be verified by `method` (409, AC-26), or `undefined` when it can be. A
 * platform-owned wallet (no customer) proves it by WALLET_SIGNATURE only: a liveness check is of a person.
 */
export const notVerifiable = (account: ExternalAccount, method?: OwnershipVerificationMethod): string | undefined => {
  if (selfCustodyWallet(account.accountInfo) === undefined) return "ownership verification is for self-custody wallets"
  if (account.ownershipType !== "FIRST_PARTY") return "ownership verification is for FIRST_PARTY wallets"
  if (method === "LIVENESS" && account.customerId === undefined) {
    return "a platform-owned wallet proves its ownership by WALLET_SIGNATURE; LIVENESS checks a customer"
  }
  return undefined
}

/** The exact text a wallet signs (AC-26): the account, its address, a single-use nonce and the expiry. */
export const ownershipMessage = (account: ExternalAccount, address: string, nonce: string, expiresAt: string) =>
  [
    "paycore wallet ownership verification",
    "I confirm that I control this wallet.",
    `Account: ${account.id}`,
    `Address: ${address}`,
    `Nonce: ${nonce}`,
    `Expires: ${expiresAt}`
  ].join("\n")

/**
 * AC-24: a payment of `amount` (smallest unit of `currency`) to `account` is refused when the account's ownership
 * is pending and the amount reaches the currency's threshold; `undefined` when it may go.
 */
export const ownershipRefusal = (
  account: ExternalAccount,
  amount: number,
  currency: string,
  rule: TravelRuleSettings
) => {
  if (account.status !== "PENDING_OWNERSHIP_VERIFICATION") return undefined
  const threshold = rule.thresholds[currency]
  return threshold !== undefined && amount >= threshold
    ? ownershipVerificationRequired(account.id, account.status, amount, currency, threshold)
    : undefined
}
