/**
 * A wallet client's session key and the `Service-Wallet-Signature` stamps it makes (W-37, FEATURES "Signed-retry
 * stamp"): base64url (no padding) of `{"publicKey": <compressed hex>, "scheme": "SIGNATURE_SCHEME_TK_API_P256",
 * "signature": <DER ECDSA-SHA256 hex over the exact payloadToSign>}`.
 */
import { p256 } from "@noble/curves/nist.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { base64urlnopad } from "@scure/base"

export const STAMP_SCHEME = "SIGNATURE_SCHEME_TK_API_P256"

const utf8 = new TextEncoder()

export interface SessionKey {
  /** The `clientPublicKey` to send: compressed hex (66), or uncompressed (130) for the legacy flow. */
  readonly publicKey: string
  /** The 32-byte P-256 scalar; never leaves the client. */
  readonly privateKey: Uint8Array
  /** The exact `Service-Wallet-Signature` header value for `payloadToSign`. */
  stamp(payloadToSign: string, options?: StampOptions): string
}

export interface StampOptions {
  /**
   * Mix fresh randomness into the signature's nonce (RFC 6979 with extra entropy), as Web Crypto signers do: each
   * stamp of one payload by one key then differs. Without it, signatures are deterministic (RFC 6979).
   */
  readonly hedged?: boolean
}

export interface SessionKeyOptions {
  /** Send the uncompressed public key (the deprecated flow that returns `encryptedSessionSigningKey`, W-16). */
  readonly legacy?: boolean
}

/** The stamp of `payloadToSign` by `privateKey` (a DER signature over its UTF-8 bytes, SHA-256 prehash). */
export const stampWith = (privateKey: Uint8Array, payloadToSign: string, options: StampOptions = {}): string => {
  const signature = p256.sign(utf8.encode(payloadToSign), privateKey, {
    format: "der",
    extraEntropy: options.hedged === true
  })
  const stamp = JSON.stringify({
    publicKey: bytesToHex(p256.getPublicKey(privateKey, true)),
    scheme: STAMP_SCHEME,
    signature: bytesToHex(signature)
  })
  return base64urlnopad.encode(utf8.encode(stamp))
}

/** A session key over a given scalar (an opened `encryptedSessionSigningKey`, an OTP target key, …). */
export const sessionKeyFrom = (privateKey: Uint8Array, options: SessionKeyOptions = {}): SessionKey => ({
  publicKey: bytesToHex(p256.getPublicKey(privateKey, options.legacy !== true)),
  privateKey,
  stamp: (payloadToSign, stampOptions) => stampWith(privateKey, payloadToSign, stampOptions)
})

/** A fresh P-256 session key. */
export const sessionKey = (options: SessionKeyOptions = {}): SessionKey =>
  sessionKeyFrom(p256.utils.randomSecretKey(), options)
