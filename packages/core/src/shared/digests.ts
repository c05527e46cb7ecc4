import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js"
import { constantTimeEqual } from "./constant-time.ts"

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`. */
export const sha256Hex = (text: string): string => bytesToHex(sha256(utf8ToBytes(text)))

/**
 * What the store keeps of a one-time code: the hex SHA-256 of `<scope>:<code>`, `scope` being what the code was
 * issued for (a challenge, a credential, a factor), so one code's hash says nothing about another's.
 */
export const codeDigest = (scope: string, code: string): string => sha256Hex(`${scope}:${code}`)

/** Whether `code` is the one `stored` (a `codeDigest` of `scope`) was made from; compared in constant time. */
export const codeMatches = (scope: string, code: string, stored: string): boolean =>
  constantTimeEqual(sha256(utf8ToBytes(`${scope}:${code}`)), hexToBytes(stored))
