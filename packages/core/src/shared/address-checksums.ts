/**
 * The checksums chain addresses carry (pure): a typo in an address the shape check lets through is caught here, so
 * a client is told the address is mistyped rather than sending money nowhere. Each function answers `true` when the
 * address (already of its network's shape) carries no checksum or a right one.
 */
import { sha256 } from "@noble/hashes/sha2.js"
import { keccak_256 } from "@noble/hashes/sha3.js"
import { utf8ToBytes } from "@noble/hashes/utils.js"
import { bech32, bech32m, createBase58check } from "@scure/base"

const base58check = createBase58check(sha256)

/**
 * EIP-55: a mixed-case `0x` address spells its checksum in the case of its letters (a letter is upper case when the
 * matching nibble of keccak-256 of the lower-case hex is 8 or more). All lower or all upper case carries none.
 */
export const eip55ChecksumHolds = (address: string): boolean => {
  const hex = address.slice(2)
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return true
  const lower = hex.toLowerCase()
  const hash = keccak_256(utf8ToBytes(lower))
  for (let i = 0; i < lower.length; i++) {
    const char = lower.charAt(i)
    if (char < "a") continue
    const nibble = ((hash[i >> 1] ?? 0) >> (i % 2 === 0 ? 4 : 0)) & 0xf
    if ((nibble >= 8 ? char.toUpperCase() : char) !== hex.charAt(i)) return false
  }
  return true
}

/** Base58Check (Tron, Bitcoin's `1…` and `3…`): the last 4 bytes are the double SHA-256 of the rest. */
export const base58CheckHolds = (address: string): boolean => {
  try {
    base58check.decode(address)
    return true
  } catch {
    return false
  }
}

/**
 * A segwit address (`bc1…`, `tb1…`, `bcrt1…`, BIP 173 / 350): bech32 for witness version 0, bech32m for 1 and above.
 * Mixed case is no address.
 */
export const segwitChecksumHolds = (address: string): boolean => {
  if (address !== address.toLowerCase() && address !== address.toUpperCase()) return false
  const lower = address.toLowerCase() as `${string}1${string}`
  for (const [codec, fits] of [
    [bech32, (version: number) => version === 0],
    [bech32m, (version: number) => version >= 1]
  ] as const) {
    const decoded = codec.decodeUnsafe(lower)
    if (decoded !== undefined && decoded.words.length > 0 && fits(decoded.words[0] ?? -1)) return true
  }
  return false
}
