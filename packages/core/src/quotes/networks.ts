/** The chains each on-chain currency moves on, and what an address on each looks like (pure). */
import { sparkIdentityKey } from "../shared/spark-address.ts"
import type { CryptoNetwork } from "./model.ts"

/** The networks of each on-chain currency (Q-02, V-08; issue 17 plan, section 2); other currencies have none. */
export const NETWORKS_BY_CURRENCY: Readonly<Record<string, ReadonlyArray<CryptoNetwork>>> = {
  USDC: ["SOLANA", "ETHEREUM", "BASE", "POLYGON"],
  USDT: ["TRON", "ETHEREUM", "PLASMA"],
  BTC: ["LIGHTNING", "BITCOIN"]
}

export const networksOf = (currency: string): ReadonlyArray<CryptoNetwork> => NETWORKS_BY_CURRENCY[currency] ?? []

const evm = { expected: "0x and 40 hex digits", fits: (a: string) => /^0x[0-9a-fA-F]{40}$/.test(a) }

/** A destination on each network: its format, checked by shape (checksums are the chain's business). */
const ADDRESSES: Readonly<Record<CryptoNetwork, { readonly expected: string; readonly fits: (a: string) => boolean }>> =
  {
    SOLANA: { expected: "32-44 base58 characters", fits: (a) => /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(a) },
    ETHEREUM: evm,
    BASE: evm,
    POLYGON: evm,
    PLASMA: evm,
    TRON: { expected: "T and 33 base58 characters", fits: (a) => /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(a) },
    SPARK: { expected: "a Spark address (bech32m, spark1…)", fits: (a) => sparkIdentityKey(a) !== undefined },
    BITCOIN: {
      expected: "a bech32 (bc1…) or base58 (1…, 3…) Bitcoin address",
      fits: (a) =>
        /^(bc1|tb1|bcrt1)[02-9ac-hj-np-z]{8,87}$/.test(a.toLowerCase()) ||
        /^[13mn2][1-9A-HJ-NP-Za-km-z]{25,34}$/.test(a)
    },
    // As a LIGHTNING external account takes them: a lightning address or a BOLT11 invoice.
    LIGHTNING: {
      expected: "a lightning address (name@domain) or a BOLT11 invoice (ln…)",
      fits: (a) => /^[^\s@]+@[^\s@]+$/.test(a) || /^ln[a-z0-9]+$/i.test(a)
    }
  }

/** `undefined` when `address` fits `network`, else what an address there looks like. */
export const addressMismatch = (network: CryptoNetwork, address: string): string | undefined =>
  ADDRESSES[network].fits(address) ? undefined : ADDRESSES[network].expected
