/**
 * Device codes and access tokens (docs/design/agents.md, section 2 "Numbers"; A-06, C-06): pure. Randomness comes in
 * as the hex of the `Ids` port (`ids.randomHex(…_RANDOM_BYTES)`), the way SCA recovery codes are made, so the same
 * rules run on a seeded source in tests. The store keeps only SHA-256 digests: of the normalized code, and of the
 * token's verifier (compared in constant time); neither the code nor the token is ever stored or logged.
 */
import { sha256 } from "@noble/hashes/sha2.js"
import { hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js"
import { constantTimeEqual } from "../shared/constant-time.ts"
import { sha256Hex } from "../shared/digests.ts"

// ---- device codes ----

/** RFC 8628 §6.1: no vowels (no words), none of 0/O, 1/I/L (no look-alikes). 27 symbols. */
export const DEVICE_CODE_ALPHABET = "23456789BCDFGHJKMNPQRSTVWXZ"
const PREFIX = "PAYCORE-AGENT-"
/** Symbols a code carries: 27^8 ≈ 2.8·10^11 codes. */
const SYMBOLS = 8
const BASE = BigInt(DEVICE_CODE_ALPHABET.length)
const CODE_SPACE = BASE ** BigInt(SYMBOLS)
/** Random bytes per code: 128 bits reduced modulo 27^8, so no code is likelier than another by more than 2^-88. */
export const DEVICE_CODE_RANDOM_BYTES = 16

const format = (symbols: string): string => `${PREFIX}${symbols.slice(0, 4)}-${symbols.slice(4)}`

/** A new code `PAYCORE-AGENT-XXXX-XXXX` from `DEVICE_CODE_RANDOM_BYTES` random bytes as hex, and what is stored of it. */
export const newDeviceCode = (randomHex: string): { readonly code: string; readonly codeSha256: string } => {
  let n = BigInt(`0x${randomHex}`) % CODE_SPACE
  let symbols = ""
  for (let i = 0; i < SYMBOLS; i++) {
    symbols = DEVICE_CODE_ALPHABET[Number(n % BASE)] + symbols
    n /= BASE
  }
  const code = format(symbols)
  return { code, codeSha256: deviceCodeDigest(code) }
}

const SYMBOL = new RegExp(`^[${DEVICE_CODE_ALPHABET}]{${SYMBOLS}}$`)
const PREFIX_SYMBOLS = PREFIX.replaceAll("-", "")

/**
 * The canonical form of a code as a person may type it (C-06): case, spaces and dashes do not matter, the
 * `PAYCORE-AGENT` prefix is optional. `undefined` when it cannot be a code (then no lookup is needed).
 */
export const normalizeDeviceCode = (input: string): string | undefined => {
  let symbols = input.toUpperCase().replace(/[\s-]+/g, "")
  if (symbols.length > SYMBOLS && symbols.startsWith(PREFIX_SYMBOLS)) symbols = symbols.slice(PREFIX_SYMBOLS.length)
  return SYMBOL.test(symbols) ? format(symbols) : undefined
}

/** What `agent_device_codes.code_sha256` holds: the hex SHA-256 of the normalized code. */
export const deviceCodeDigest = (normalizedCode: string): string => sha256Hex(normalizedCode)

/** The redeem-miss counter's minute (`YYYY-MM-DDTHH:MM`, UTC) of an ISO instant (`agentCounters.redeemMisses`). */
export const redeemMinute = (iso: string): string => iso.slice(0, 16)

/** `Retry-After` for a 429 on redeem: whole seconds to the next UTC minute, at least 1. */
export const secondsToNextMinute = (nowMs: number): number => Math.max(1, Math.ceil((60_000 - (nowMs % 60_000)) / 1000))

// ---- access tokens ----

const TOKEN_PREFIX = "gat_"
const SELECTOR_HEX = 16
const VERIFIER_HEX = 48
/** Random bytes per token: an 8-byte selector (looked up) and a 24-byte verifier (192 bits, only its digest stored). */
export const ACCESS_TOKEN_RANDOM_BYTES = (SELECTOR_HEX + VERIFIER_HEX) / 2
const TOKEN = /^gat_([0-9a-f]{16})([0-9a-f]{48})$/

/** The two parts of an access token. */
export interface AccessTokenParts {
  /** 16 hex: stored in clear and looked up (`agents.token_selector`, unique). */
  readonly selector: string
  /** 48 hex: only its SHA-256 is stored. */
  readonly verifier: string
}

/**
 * A new Bearer token `gat_<selector><verifier>` from `ACCESS_TOKEN_RANDOM_BYTES` random bytes as hex: the token is
 * answered once (redeem); `selector` and `verifierSha256` are what the agent's row keeps.
 */
export const newAccessToken = (
  randomHex: string
): { readonly token: string; readonly selector: string; readonly verifierSha256: string } => {
  const hex = randomHex.toLowerCase()
  const selector = hex.slice(0, SELECTOR_HEX)
  const verifier = hex.slice(SELECTOR_HEX, SELECTOR_HEX + VERIFIER_HEX)
  return { token: `${TOKEN_PREFIX}${selector}${verifier}`, selector, verifierSha256: verifierDigest(verifier) }
}

/** The parts of a `gat_<64 lowercase hex>` token; `undefined` for anything else (401 without a lookup). */
export const parseAccessToken = (token: string): AccessTokenParts | undefined => {
  const match = TOKEN.exec(token)
  return match === null ? undefined : { selector: match[1]!, verifier: match[2]! }
}

/** What `agents.token_verifier_sha256` holds: the hex SHA-256 of the verifier. */
export const verifierDigest = (verifier: string): string => sha256Hex(verifier)

/** Whether `verifier` is the one `storedSha256` was made from, compared in constant time. */
export const verifierMatches = (verifier: string, storedSha256: string): boolean =>
  constantTimeEqual(sha256(utf8ToBytes(verifier)), hexToBytes(storedSha256))
