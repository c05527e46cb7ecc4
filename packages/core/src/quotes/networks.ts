/** The chains each on-chain currency moves on, and what an address on each looks like (pure). */
import { base58CheckHolds, eip55ChecksumHolds, segwitChecksumHolds } from "../shared/address-checksums.ts"
import { sparkIdentityKey } from "../shared/spark-address.ts"
import type { CryptoNetwork } from "./model.ts"

/** The networks of each on-chain currency (Q-02, V-08; issue 17 plan, section 2); other currencies have none. */
export const NETWORKS_BY_CURRENCY: Readonly<Record<string, ReadonlyArray<CryptoNetwork>>> = {
  USDC: ["SOLANA", "ETHEREUM", "BASE", "POLYGON"],
  USDT: ["TRON", "ETHEREUM", "PLASMA"],
  BTC: ["LIGHTNING", "BITCOIN"]
}

export const networksOf = (currency: string): ReadonlyArray<CryptoNetwork> => NETWORKS_BY_CURRENCY[currency] ?? []

/** What an address on a network looks like, and the checksum it carries (`shared/address-checksums.ts`), if any. */
interface AddressFormat {
  readonly expected: string
  readonly fits: (address: string) => boolean
  readonly checksum?: { readonly name: string; readonly holds: (address: string) => boolean }
}

const evm: AddressFormat = {
  expected: "0x and 40 hex digits",
  fits: (a) => /^0x[0-9a-fA-F]{40}$/.test(a),
  checksum: { name: "EIP-55 (the case of its letters)", holds: eip55ChecksumHolds }
}

const isSegwit = (a: string) => /^(bc1|tb1|bcrt1)[02-9ac-hj-np-z]{8,87}$/.test(a.toLowerCase())

/** A destination on each network: its shape, then its checksum where the chain's addresses carry one. */
const ADDRESSES: Readonly<Record<CryptoNetwork, AddressFormat>> = {
  // A Solana address is a bare public key: no checksum.
  SOLANA: { expected: "32-44 base58 characters", fits: (a) => /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(a) },
  ETHEREUM: evm,
  BASE: evm,
  POLYGON: evm,
  PLASMA: evm,
  TRON: {
    expected: "T and 33 base58 characters",
    fits: (a) => /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(a),
    checksum: { name: "Base58Check", holds: base58CheckHolds }
  },
  // The bech32m checksum is part of the shape: `sparkIdentityKey` decodes it.
  SPARK: { expected: "a Spark address (bech32m, spark1…)", fits: (a) => sparkIdentityKey(a) !== undefined },
  BITCOIN: {
    expected: "a bech32 (bc1…) or base58 (1…, 3…) Bitcoin address",
    fits: (a) => isSegwit(a) || /^[13mn2][1-9A-HJ-NP-Za-km-z]{25,34}$/.test(a),
    checksum: {
      name: "bech32 / bech32m (bc1…) or Base58Check (1…, 3…)",
      holds: (a) => (isSegwit(a) ? segwitChecksumHolds(a) : base58CheckHolds(a))
    }
  },
  // As a LIGHTNING external account takes them: a lightning address or a BOLT11 invoice.
  LIGHTNING: {
    expected: "a lightning address (name@domain) or a BOLT11 invoice (ln…)",
    fits: (a) => /^[^\s@]+@[^\s@]+$/.test(a) || /^ln[a-z0-9]+$/i.test(a)
  }
}

/** Why `address` is no address on `network`: not its shape, or a wrong checksum (a typo); `undefined` when it is one. */
export type AddressMismatch =
  | { readonly kind: "SHAPE"; readonly expected: string }
  | { readonly kind: "CHECKSUM"; readonly expected: string; readonly checksum: string }

export const addressMismatch = (network: CryptoNetwork, address: string): AddressMismatch | undefined => {
  const format = ADDRESSES[network]
  if (!format.fits(address)) return { kind: "SHAPE", expected: format.expected }
  if (format.checksum !== undefined && !format.checksum.holds(address)) {
    return { kind: "CHECKSUM", expected: format.expected, checksum: format.checksum.name }
  }
  return undefined
}
