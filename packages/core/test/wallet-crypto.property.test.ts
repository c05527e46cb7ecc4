/**
 * Properties of the wallet's cryptography: whatever single byte an attacker changes in a stamp, a payload, an OTP
 * bundle or a passkey assertion, the change is refused (and never thrown); `parseStamp` never throws.
 */
import { describe, it } from "@effect/vitest"
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js"
import * as kit from "@paycore/testkit/wallet-client"
import { base64urlnopad } from "@scure/base"
import { Effect, Result } from "effect"
import fc from "fast-check"
import { expect } from "vitest"
import { generateTargetKeyPair, openOtpBundle, otpEncryptionTargetBundle } from "../src/shared/hpke.ts"
import { verifyPasskeyAssertion, verifyPasskeyRegistration } from "../src/wallet-auth/passkey.ts"
import { parseStamp, verifyStamp } from "../src/wallet-auth/stamp.ts"

const NUM_RUNS = 200
const utf8 = new TextEncoder()
const PAYLOAD =
  '{"type":"WALLET_REVOKE_SESSION","requestId":"Request:019542f5-b3e7-1d02-0000-000000000001","accountId":"InternalAccount:019542f5-b3e7-1d02-0000-000000000002","parameters":{},"timestampMs":"1775681700000"}'
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** `bytes` with the byte at `index` (modulo the length) XOR-ed with a non-zero `mask`. */
const flipped = (bytes: Uint8Array, index: number, mask: number): Uint8Array => {
  const out = Uint8Array.from(bytes)
  out[index % out.length] = out[index % out.length]! ^ mask
  return out
}
const byteChange = fc.record({ index: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) })

/** A stamp is accepted only when it parses and verifies. */
const accepted = async (header: string, payload: string): Promise<boolean> => {
  const stamp = parseStamp(header)
  return stamp !== undefined && (await Effect.runPromise(verifyStamp(stamp, payload)))
}

describe("Signed-retry stamp (property)", () => {
  const key = kit.sessionKey()
  const header = key.stamp(PAYLOAD)

  it("W-37 a stamp of any payloadToSign (any Unicode) is accepted over exactly that payload", async () => {
    expect(await accepted(header, PAYLOAD)).toBe(true)
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "grapheme", maxLength: 300 }), async (payload) => {
        expect(await accepted(key.stamp(payload), payload)).toBe(true)
      }),
      { numRuns: NUM_RUNS / 2 }
    )
  })

  it("Signed-retry stamp: any single character of the header replaced → refused, never thrown", async () => {
    const replacement = fc.oneof(fc.constantFrom(...BASE64URL), fc.constantFrom("=", "+", "/", ".", " ", "é", "\u0000"))
    await fc.assert(
      fc.asyncProperty(fc.nat(), replacement, async (index, char) => {
        const at = index % header.length
        fc.pre(header[at] !== char)
        const changed = header.slice(0, at) + char + header.slice(at + 1)
        expect(await accepted(changed, PAYLOAD)).toBe(false)
      }),
      { numRuns: NUM_RUNS }
    )
  })

  it("Signed-retry stamp: any single byte of the decoded stamp JSON changed → refused, never thrown", async () => {
    const json = base64urlnopad.decode(header)
    await fc.assert(
      fc.asyncProperty(byteChange, async ({ index, mask }) => {
        const changed = base64urlnopad.encode(flipped(json, index, mask))
        expect(await accepted(changed, PAYLOAD)).toBe(false)
      }),
      { numRuns: NUM_RUNS }
    )
  })

  it("W-37 any single byte of the payloadToSign changed → the stamp does not verify", async () => {
    const bytes = utf8.encode(PAYLOAD)
    const fatal = new TextDecoder("utf-8", { fatal: false })
    await fc.assert(
      fc.asyncProperty(byteChange, async ({ index, mask }) => {
        const payload = fatal.decode(flipped(bytes, index, mask))
        expect(await accepted(header, payload)).toBe(false)
      }),
      { numRuns: NUM_RUNS }
    )
  })

  it("Signed-retry stamp: parseStamp never throws, whatever the header (strings, base64url of any JSON)", () => {
    const anyJsonHeader = fc.jsonValue().map((json) => base64urlnopad.encode(utf8.encode(JSON.stringify(json))))
    const stampLike = fc
      .record({
        publicKey: fc.oneof(fc.constant(key.publicKey), fc.string(), fc.stringMatching(/^0[23][0-9a-f]{64}$/)),
        scheme: fc.constantFrom("SIGNATURE_SCHEME_TK_API_P256", "", "X"),
        signature: fc.oneof(fc.stringMatching(/^30[0-9a-f]{10,140}$/), fc.string())
      })
      .map((json) => base64urlnopad.encode(utf8.encode(JSON.stringify(json))))
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), anyJsonHeader, stampLike), (input) => {
        const stamp = parseStamp(input)
        if (stamp !== undefined) expect(stamp.signature.length).toBe(64)
      }),
      { numRuns: NUM_RUNS * 2 }
    )
  })
})

describe("OTP bundle (property)", () => {
  it("W-18 any single byte of encappedPublic or ciphertext changed → the bundle does not open, never thrown", async () => {
    const target = await Effect.runPromise(generateTargetKeyPair())
    const client = kit.sessionKey()
    const sealed = JSON.parse(
      await kit.sealOtpBundle(otpEncryptionTargetBundle(target.publicKey), "000000", client.publicKey)
    )
    const intact = await Effect.runPromise(openOtpBundle(JSON.stringify(sealed), target))
    expect(intact).toEqual({ otpCode: "000000", publicKey: client.publicKey })
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("encappedPublic", "ciphertext"), byteChange, async (field, { index, mask }) => {
        const changed = { ...sealed, [field]: bytesToHex(flipped(hexToBytes(sealed[field]), index, mask)) }
        expect(await Effect.runPromise(openOtpBundle(JSON.stringify(changed), target))).toBeUndefined()
      }),
      { numRuns: NUM_RUNS }
    )
  })
})

describe("Passkey assertion (property)", () => {
  it("W-22 any single byte of authenticatorData, clientDataJson or signature changed → refused, never thrown", async () => {
    const rpId = "localhost"
    const origins = ["http://localhost"]
    const authenticator = kit.softwareAuthenticator({ rpId, origin: "http://localhost:5173" })
    const challenge = base64urlnopad.encode(utf8.encode("registration"))
    const stored = await Effect.runPromise(
      verifyPasskeyRegistration({
        ...(await authenticator.register(challenge)),
        expectedChallenge: challenge,
        rpId,
        origins
      })
    )
    const hexChallenge = "5a".repeat(32)
    const assertion = await authenticator.assert(hexChallenge)
    const verify = (changed: kit.PasskeyAssertion) =>
      Effect.runPromise(
        Effect.result(verifyPasskeyAssertion({ ...changed, expectedHexChallenge: hexChallenge, rpId, origins, stored }))
      )
    expect(Result.isSuccess(await verify(assertion))).toBe(true)
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("authenticatorData", "clientDataJson", "signature"),
        byteChange,
        async (field, { index, mask }) => {
          const bytes = base64urlnopad.decode(assertion[field])
          const changed = { ...assertion, [field]: base64urlnopad.encode(flipped(bytes, index, mask)) }
          const result = await verify(changed)
          expect(Result.isFailure(result) && result.failure._tag === "PasskeyRefused").toBe(true)
        }
      ),
      { numRuns: NUM_RUNS }
    )
  })
})
