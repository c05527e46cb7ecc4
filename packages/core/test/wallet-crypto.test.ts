/**
 * The wallet's pure cryptography (packages/core/src/wallet-auth: stamp, hpke, passkey, oidc), against the client kit
 * of @paycore/testkit and, where a second opinion helps, node:crypto and @hpke/core used by hand.
 */
import { createHash, createPrivateKey, createSign } from "node:crypto"
import { assert, describe, expect, it } from "@effect/vitest"
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from "@hpke/core"
import { encodeCBOR } from "@levischuck/tiny-cbor"
import { p256 } from "@noble/curves/nist.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js"
import * as kit from "@paycore/testkit/wallet-client"
import { base64urlnopad, createBase58check } from "@scure/base"
import { Effect, Exit, Result } from "effect"
import {
  encryptedSessionSigningKey,
  encryptedWalletCredentials,
  generateTargetKeyPair,
  HPKE_INFO,
  openFrom,
  openOtpBundle,
  otpEncryptionTargetBundle,
  readTargetBundle,
  sealTo
} from "../src/shared/hpke.ts"
import { parseP256PublicKey } from "../src/shared/p256.ts"
import { checkOidcClaims, nonceFor, type OidcRefused, verifyOidcToken } from "../src/wallet-auth/oidc.ts"
import {
  originAllowed,
  type PasskeyRegistration,
  verifyPasskeyAssertion,
  verifyPasskeyRegistration
} from "../src/wallet-auth/passkey.ts"
import { parseStamp, STAMP_SCHEME, verifyStamp } from "../src/wallet-auth/stamp.ts"

const utf8 = new TextEncoder()
const fromUtf8 = new TextDecoder()
const run = <A, E>(effect: Effect.Effect<A, E>): Promise<Result.Result<A, E>> =>
  Effect.runPromise(Effect.result(effect))
const value = <A>(effect: Effect.Effect<A>): Promise<A> => Effect.runPromise(effect)
const succeeded = async <A, E>(effect: Effect.Effect<A, E>): Promise<A> => {
  const result = await run(effect)
  if (Result.isFailure(result)) throw new Error(`expected a success, got ${JSON.stringify(result.failure)}`)
  return result.success
}
const failed = async <A, E>(effect: Effect.Effect<A, E>): Promise<E> => {
  const result = await run(effect)
  if (Result.isSuccess(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.success)}`)
  return result.failure
}

const headerOf = (json: unknown): string => base64urlnopad.encode(utf8.encode(JSON.stringify(json)))
const stampJson = (header: string): Record<string, string> => JSON.parse(fromUtf8.decode(base64urlnopad.decode(header)))

const PAYLOAD =
  '{"type":"WALLET_EXPORT","requestId":"Request:019542f5-b3e7-1d02-0000-000000000001","parameters":{},"timestampMs":"1775681700000"}'
const N = p256.Point.Fn.ORDER

/** An x coordinate with no point of P-256 above it. */
const offCurveX = (() => {
  for (let x = 1; ; x++) {
    const hex = x.toString(16).padStart(64, "0")
    if (parseP256PublicKey(`02${hex}`) === undefined) return hex
  }
})()

describe("Signed-retry stamp (stamp.ts)", () => {
  // A fixed key: ECDSA here is deterministic (RFC 6979), so the header's length, and its need of padding, are fixed.
  const key = kit.sessionKeyFrom(hexToBytes("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"))
  const header = key.stamp(PAYLOAD)

  it("W-37 a stamp of the client kit parses to its compressed key and a 64-byte r ‖ s, and verifies over the exact payloadToSign", async () => {
    const stamp = parseStamp(header)
    assert.isDefined(stamp)
    assert.strictEqual(stamp!.publicKey, key.publicKey)
    assert.strictEqual(stamp!.signature.length, 64)
    assert.isTrue(await value(verifyStamp(stamp!, PAYLOAD)))
    // Verified again from the cached key.
    assert.isTrue(await value(verifyStamp(stamp!, PAYLOAD)))
  })

  it("W-37 verifies false over any other payload: a changed character, a trailing space, re-serialized JSON", async () => {
    const stamp = parseStamp(header)!
    for (const other of [
      PAYLOAD.replace("EXPORT", "EXPORt"),
      `${PAYLOAD} `,
      JSON.stringify(JSON.parse(PAYLOAD), null, 1),
      ""
    ])
      assert.isFalse(await value(verifyStamp(stamp, other)))
  })

  it("Signed-retry stamp: a signature checked under another key's publicKey is false", async () => {
    const other = kit.sessionKey()
    const swapped = headerOf({ ...stampJson(header), publicKey: other.publicKey })
    assert.isFalse(await value(verifyStamp(parseStamp(swapped)!, PAYLOAD)))
  })

  it("Signed-retry stamp: signatures from another signer (node:crypto, DER, high S) verify; low S is not required", async () => {
    const jwk = {
      kty: "EC",
      crv: "P-256",
      d: Buffer.from(key.privateKey).toString("base64url"),
      x: Buffer.from(hexToBytes(kit.sessionKeyFrom(key.privateKey, { legacy: true }).publicKey).slice(1, 33)).toString(
        "base64url"
      ),
      y: Buffer.from(hexToBytes(kit.sessionKeyFrom(key.privateKey, { legacy: true }).publicKey).slice(33)).toString(
        "base64url"
      )
    }
    const der = createSign("SHA256")
      .update(PAYLOAD)
      .sign(createPrivateKey({ key: jwk, format: "jwk" }))
    const fromNode = headerOf({ publicKey: key.publicKey, scheme: STAMP_SCHEME, signature: der.toString("hex") })
    assert.isTrue(await value(verifyStamp(parseStamp(fromNode)!, PAYLOAD)))

    const low = p256.Signature.fromBytes(hexToBytes(stampJson(header).signature!), "der")
    const high = new p256.Signature(low.r, N - low.s)
    const highHeader = headerOf({ ...stampJson(header), signature: bytesToHex(high.toBytes("der")) })
    assert.isTrue(await value(verifyStamp(parseStamp(highHeader)!, PAYLOAD)))
  })

  it("Signed-retry stamp: parseStamp refuses every malformed header (W-37 format), without throwing", () => {
    const good = stampJson(header)
    const derOf = (r: bigint, s: bigint) => {
      const int = (n: bigint) => {
        let hex = n.toString(16)
        if (hex.length % 2) hex = `0${hex}`
        if (Number.parseInt(hex[0]!, 16) >= 8) hex = `00${hex}`
        return `02${(hex.length / 2).toString(16).padStart(2, "0")}${hex}`
      }
      const body = int(r) + int(s)
      return `30${(body.length / 2).toString(16).padStart(2, "0")}${body}`
    }
    const padded = Buffer.from(JSON.stringify(good)).toString("base64url")
    const withPadding = `${padded}${"=".repeat((4 - (padded.length % 4)) % 4)}`
    assert.notStrictEqual(withPadding, padded, "the fixture must need padding")
    const refused: Record<string, string> = {
      empty: "",
      "padded base64url": withPadding,
      "standard base64": Buffer.from(JSON.stringify(good)).toString("base64"),
      "too long": "A".repeat(2_000),
      "not JSON": base64urlnopad.encode(utf8.encode("publicKey=02…")),
      "not UTF-8": base64urlnopad.encode(Uint8Array.of(0x7b, 0xff, 0x7d)),
      "a JSON array": headerOf([good.publicKey, good.scheme, good.signature]),
      "a JSON string": headerOf("stamp"),
      "an extra key": headerOf({ ...good, requestId: "Request:1" }),
      "a missing key": headerOf({ publicKey: good.publicKey, scheme: good.scheme }),
      "a number signature": headerOf({ ...good, signature: 12 }),
      "another scheme": headerOf({ ...good, scheme: "SIGNATURE_SCHEME_TK_API_ED25519" }),
      "uppercase publicKey": headerOf({ ...good, publicKey: good.publicKey!.toUpperCase() }),
      "uncompressed publicKey": headerOf({
        ...good,
        publicKey: kit.sessionKeyFrom(key.privateKey, { legacy: true }).publicKey
      }),
      "publicKey off the curve": headerOf({ ...good, publicKey: `02${offCurveX}` }),
      "publicKey of 65 hex": headerOf({ ...good, publicKey: good.publicKey!.slice(0, 65) }),
      "signature not hex": headerOf({ ...good, signature: "30zz" }),
      "uppercase signature": headerOf({ ...good, signature: good.signature!.toUpperCase() }),
      "compact signature": headerOf({
        ...good,
        signature: bytesToHex(p256.Signature.fromBytes(hexToBytes(good.signature!), "der").toBytes("compact"))
      }),
      "DER with trailing bytes": headerOf({ ...good, signature: `${good.signature}00` }),
      "DER with r = 0": headerOf({ ...good, signature: derOf(0n, 1n) }),
      "DER with s = n": headerOf({ ...good, signature: derOf(1n, N) })
    }
    for (const [name, bad] of Object.entries(refused)) assert.isUndefined(parseStamp(bad), name)
    assert.isUndefined(parseStamp(undefined as unknown as string))
    assert.isUndefined(parseStamp(42 as unknown as string))
  })

  it("Signed-retry stamp: verifyStamp on a hand-made Stamp with a bad key or signature length is false, not a defect", async () => {
    const stamp = parseStamp(header)!
    assert.isFalse(await value(verifyStamp({ ...stamp, publicKey: "zz" }, PAYLOAD)))
    assert.isFalse(await value(verifyStamp({ ...stamp, publicKey: `02${offCurveX}` }, PAYLOAD)))
    assert.isFalse(
      await value(verifyStamp({ ...stamp, signature: new Uint8Array(3), der: new Uint8Array(3) }, PAYLOAD))
    )
  })

  it("parseP256PublicKey reads compressed and uncompressed keys in either case, and refuses the rest", () => {
    const legacy = kit.sessionKeyFrom(key.privateKey, { legacy: true }).publicKey
    const expected = { compressed: key.publicKey, uncompressed: legacy }
    assert.deepStrictEqual(parseP256PublicKey(key.publicKey), expected)
    assert.deepStrictEqual(parseP256PublicKey(legacy.toUpperCase()), expected)
    for (const bad of [
      "",
      "04",
      `02${offCurveX}`,
      `05${key.publicKey.slice(2)}`,
      `${legacy}00`,
      `04${"00".repeat(64)}`
    ])
      assert.isUndefined(parseP256PublicKey(bad), bad)
  })
})

describe("HPKE (hpke.ts)", () => {
  const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() })

  it("W-13 the target bundle is the upstream envelope whose hex data is JSON {targetPublic}", async () => {
    const target = await value(generateTargetKeyPair())
    assert.strictEqual(target.privateKey.length, 32)
    assert.match(target.publicKey, /^04[0-9a-f]{128}$/)
    const bundle = otpEncryptionTargetBundle(target.publicKey)
    const envelope = JSON.parse(bundle)
    assert.deepStrictEqual(Object.keys(envelope), ["version", "data", "dataSignature", "enclaveQuorumPublic"])
    assert.deepStrictEqual(
      { ...envelope, data: undefined },
      {
        version: "v1.0.0",
        data: undefined,
        dataSignature: "",
        enclaveQuorumPublic: ""
      }
    )
    assert.strictEqual(fromUtf8.decode(hexToBytes(envelope.data)), JSON.stringify({ targetPublic: target.publicKey }))
    assert.strictEqual(readTargetBundle(bundle), target.publicKey)
  })

  it("W-13 readTargetBundle refuses malformed bundles", async () => {
    const target = await value(generateTargetKeyPair())
    const withData = (data: unknown) => JSON.stringify({ data, dataSignature: "", enclaveQuorumPublic: "" })
    const hexOf = (json: unknown) => bytesToHex(utf8.encode(JSON.stringify(json)))
    const compressed = parseP256PublicKey(target.publicKey)!.compressed
    for (const bad of [
      "",
      "not json",
      "[]",
      withData(12),
      withData("zz"),
      withData(hexOf([target.publicKey])),
      withData(hexOf({ target: target.publicKey })),
      withData(hexOf({ targetPublic: compressed })),
      withData(hexOf({ targetPublic: `04${offCurveX}${"00".repeat(32)}` }))
    ])
      assert.isUndefined(readTargetBundle(bad), bad)
    // Without `version` (FEATURES' shape) it reads too.
    assert.strictEqual(readTargetBundle(withData(hexOf({ targetPublic: target.publicKey }))), target.publicKey)
  })

  it("W-18 an OTP bundle sealed by the client kit opens to the code and the client key as sent (compressed or uncompressed)", async () => {
    const target = await value(generateTargetKeyPair())
    const bundle = otpEncryptionTargetBundle(target.publicKey)
    for (const client of [kit.sessionKey(), kit.sessionKey({ legacy: true })]) {
      const sealed = await kit.sealOtpBundle(bundle, "000000", client.publicKey)
      assert.deepStrictEqual(Object.keys(JSON.parse(sealed)), ["encappedPublic", "ciphertext"])
      assert.deepStrictEqual(await value(openOtpBundle(sealed, target)), {
        otpCode: "000000",
        publicKey: client.publicKey
      })
    }
  })

  it("W-18 openOtpBundle answers undefined, never a defect, for every malformed or foreign bundle", async () => {
    const target = await value(generateTargetKeyPair())
    const other = await value(generateTargetKeyPair())
    const client = kit.sessionKey()
    const good = JSON.parse(
      await kit.sealOtpBundle(otpEncryptionTargetBundle(target.publicKey), "123456", client.publicKey)
    )
    const sealedTo = async (plaintext: string) =>
      JSON.stringify(await value(sealTo(target.publicKey, utf8.encode(plaintext))))
    const compressedEnc = bytesToHex(p256.Point.fromHex(good.encappedPublic).toBytes(true))
    const bad: Record<string, string> = {
      "not JSON": "{",
      "a JSON array": "[]",
      "no ciphertext": JSON.stringify({ encappedPublic: good.encappedPublic }),
      "ciphertext not hex": JSON.stringify({ ...good, ciphertext: "xyz" }),
      "odd-length hex": JSON.stringify({ ...good, ciphertext: `${good.ciphertext}0` }),
      "compressed encappedPublic": JSON.stringify({ ...good, encappedPublic: compressedEnc }),
      "encappedPublic off the curve": JSON.stringify({ ...good, encappedPublic: `04${offCurveX}${"00".repeat(32)}` }),
      "sealed to another target": await kit.sealOtpBundle(
        otpEncryptionTargetBundle(other.publicKey),
        "123456",
        client.publicKey
      ),
      "too long": JSON.stringify({ ...good, ciphertext: "00".repeat(4_096) }),
      "plaintext not JSON": await sealedTo("123456"),
      "plaintext without otp_code": await sealedTo(JSON.stringify({ public_key: client.publicKey })),
      "otp_code a number": await sealedTo(JSON.stringify({ otp_code: 123456, public_key: client.publicKey })),
      "public_key off the curve": await sealedTo(JSON.stringify({ otp_code: "1", public_key: `02${offCurveX}` })),
      "public_key not hex": await sealedTo(JSON.stringify({ otp_code: "1", public_key: "me" }))
    }
    for (const [name, bundle] of Object.entries(bad))
      assert.isUndefined(await value(openOtpBundle(bundle, target)), name)
  })

  it("HPKE: info turnkey_hpke and AAD enc ‖ recipient are both bound: a message sealed without either does not open", async () => {
    const target = await value(generateTargetKeyPair())
    const recipient = hexToBytes(target.publicKey)
    const plaintext = utf8.encode(JSON.stringify({ otp_code: "000000", public_key: kit.sessionKey().publicKey }))
    const sealBy = async (info: string, aad: (enc: Uint8Array) => Uint8Array) => {
      const sender = await suite.createSenderContext({
        recipientPublicKey: await suite.kem.deserializePublicKey(recipient),
        info: utf8.encode(info)
      })
      const enc = new Uint8Array(sender.enc)
      const ciphertext = new Uint8Array(await sender.seal(plaintext, aad(enc)))
      return JSON.stringify({ encappedPublic: bytesToHex(enc), ciphertext: bytesToHex(ciphertext) })
    }
    const both = (enc: Uint8Array) => new Uint8Array([...enc, ...recipient])
    assert.strictEqual(HPKE_INFO, "turnkey_hpke")
    assert.isDefined(await value(openOtpBundle(await sealBy(HPKE_INFO, both), target)))
    assert.isUndefined(await value(openOtpBundle(await sealBy("other_info", both), target)))
    assert.isUndefined(await value(openOtpBundle(await sealBy(HPKE_INFO, () => new Uint8Array(0)), target)))
    assert.isUndefined(await value(openOtpBundle(await sealBy(HPKE_INFO, (enc) => enc), target)))
  })

  it("HPKE: sealTo a compressed or uncompressed key opens with openFrom; another key opens nothing", async () => {
    const recipient = kit.sessionKey()
    const plaintext = utf8.encode("secret")
    for (const publicKey of [
      recipient.publicKey,
      kit.sessionKeyFrom(recipient.privateKey, { legacy: true }).publicKey
    ]) {
      const sealed = await value(sealTo(publicKey, plaintext))
      assert.match(sealed.encappedPublic, /^04[0-9a-f]{128}$/)
      assert.deepStrictEqual(await value(openFrom(sealed, recipient.privateKey)), plaintext)
      assert.isUndefined(await value(openFrom(sealed, kit.sessionKey().privateKey)))
    }
  })

  it("HPKE: sealing to a key that is not a P-256 point is a defect (callers check clientPublicKey first)", async () => {
    const exit = await Effect.runPromise(Effect.exit(sealTo(`02${offCurveX}`, new Uint8Array(1))))
    assert.isTrue(Exit.isFailure(exit) && Exit.hasDies(exit))
  })

  it("W-16 encryptedSessionSigningKey is base58check(compressed enc ‖ ciphertext) the client kit opens to the session scalar", async () => {
    const client = kit.sessionKey({ legacy: true })
    const session = kit.sessionKey()
    const encrypted = await value(encryptedSessionSigningKey(client.publicKey, session.privateKey))
    const payload = createBase58check(sha256).decode(encrypted)
    assert.strictEqual(payload.length, 33 + 32 + 16)
    assert.include([2, 3], payload[0])
    assert.deepStrictEqual(await kit.openSessionSigningKey(encrypted, client.privateKey), session.privateKey)
    // The opened scalar stamps as the session's key.
    const stamp = parseStamp(kit.stampWith(await kit.openSessionSigningKey(encrypted, client.privateKey), PAYLOAD))!
    assert.strictEqual(stamp.publicKey, session.publicKey)
    await expect(kit.openSessionSigningKey(encrypted, kit.sessionKey().privateKey)).rejects.toThrow()
  })

  it("W-33 encryptedWalletCredentials is the v1.0.0 envelope over hex JSON {encappedPublic, ciphertext, organizationId}, opened by the kit", async () => {
    const client = kit.sessionKey({ legacy: true })
    const mnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
    const encrypted = await value(encryptedWalletCredentials(client.publicKey, mnemonic, "InternalAccount:x"))
    const envelope = JSON.parse(encrypted)
    assert.deepStrictEqual(Object.keys(envelope), ["version", "data", "dataSignature", "enclaveQuorumPublic"])
    assert.strictEqual(envelope.version, "v1.0.0")
    assert.strictEqual(envelope.dataSignature, "")
    assert.strictEqual(envelope.enclaveQuorumPublic, "")
    const data = JSON.parse(fromUtf8.decode(hexToBytes(envelope.data)))
    assert.deepStrictEqual(Object.keys(data), ["encappedPublic", "ciphertext", "organizationId"])
    assert.strictEqual(data.organizationId, "InternalAccount:x")
    assert.strictEqual(await kit.openWalletCredentials(encrypted, client.privateKey), mnemonic)
    // Each export seals afresh.
    const again = JSON.parse(
      fromUtf8.decode(
        hexToBytes(
          JSON.parse(await value(encryptedWalletCredentials(client.publicKey, mnemonic, "InternalAccount:x"))).data
        )
      )
    )
    assert.notStrictEqual(again.encappedPublic, data.encappedPublic)
  })
})

describe("Passkeys (passkey.ts)", () => {
  const RP_ID = "localhost"
  const ORIGINS = ["http://localhost", "https://localhost"]
  const CHALLENGE = base64urlnopad.encode(utf8.encode("registration challenge of the platform"))
  const HEX_CHALLENGE = bytesToHex(sha256(utf8.encode("session-creation body")))
  const registration = (
    attestation: kit.PasskeyAttestation,
    overrides: Partial<{ challenge: string; rpId: string; origins: Array<string> }> = {}
  ) =>
    verifyPasskeyRegistration({
      ...attestation,
      expectedChallenge: overrides.challenge ?? CHALLENGE,
      rpId: overrides.rpId ?? RP_ID,
      origins: overrides.origins ?? ORIGINS
    })
  const assertion = (assertion: kit.PasskeyAssertion, stored: PasskeyRegistration, hexChallenge = HEX_CHALLENGE) =>
    verifyPasskeyAssertion({ ...assertion, expectedHexChallenge: hexChallenge, rpId: RP_ID, origins: ORIGINS, stored })
  const reasonOf = async (effect: Effect.Effect<unknown, { reason: string }>) => (await failed(effect)).reason

  it("W-05 a `none` registration yields the credential id, its COSE P-256 key, count 0 and the transports", async () => {
    const authenticator = kit.softwareAuthenticator({ rpId: RP_ID, origin: "http://localhost:5173" })
    const attestation = await authenticator.register(CHALLENGE)
    const registered = await succeeded(registration(attestation))
    assert.strictEqual(registered.credentialId, authenticator.credentialId)
    assert.strictEqual(registered.signCount, 0)
    assert.deepStrictEqual(registered.transports, ["internal", "hybrid"])
    assert.match(registered.publicKey, /^[A-Za-z0-9_-]+$/)
    assert.deepStrictEqual(await succeeded(registration({ ...attestation, transports: [] })), {
      ...registered,
      transports: []
    })
  })

  it("W-05 a `packed` self-attested registration verifies; its attestation over other client data does not", async () => {
    const authenticator = kit.softwareAuthenticator({ rpId: RP_ID, origin: "https://localhost", format: "packed" })
    const attestation = await authenticator.register(CHALLENGE)
    assert.strictEqual((await succeeded(registration(attestation))).credentialId, authenticator.credentialId)
    const other = await authenticator.register(CHALLENGE, { origin: "https://localhost:8443" })
    assert.match(await reasonOf(registration({ ...attestation, clientDataJson: other.clientDataJson })), /attestation/)
  })

  it("W-05 user verification is not required; user presence is", async () => {
    const authenticator = kit.softwareAuthenticator({ rpId: RP_ID, origin: "http://localhost" })
    await succeeded(registration(await authenticator.register(CHALLENGE, { userVerified: false })))
    assert.match(
      await reasonOf(registration(await authenticator.register(CHALLENGE, { userPresent: false }))),
      /presen/i
    )
  })

  it("W-05 registration refusals: RP id hash, challenge, client data type, origin, credential id, encoding", async () => {
    const authenticator = kit.softwareAuthenticator({ rpId: RP_ID, origin: "http://localhost:3000", format: "packed" })
    const good = await authenticator.register(CHALLENGE)
    const stranger = kit.softwareAuthenticator({ rpId: RP_ID, origin: "http://localhost" }).credentialId
    const cases: Array<[string, Effect.Effect<unknown, { reason: string }>, RegExp]> = [
      [
        "rpId hash of another site",
        registration(await authenticator.register(CHALLENGE, { rpId: "evil.example" })),
        /RP ID/
      ],
      ["rpId expected elsewhere", registration(good, { rpId: "wallet.example" }), /RP ID/],
      [
        "another challenge",
        registration(good, { challenge: base64urlnopad.encode(utf8.encode("other")) }),
        /challenge/
      ],
      ["type webauthn.get", registration(await authenticator.register(CHALLENGE, { type: "webauthn.get" })), /type/],
      [
        "origin not allowed",
        registration(await authenticator.register(CHALLENGE, { origin: "https://evil.example" })),
        /origin/
      ],
      ["origins without localhost", registration(good, { origins: ["https://wallet.example"] }), /origin/],
      ["credentialId of another credential", registration({ ...good, credentialId: stranger }), /credential id/],
      [
        "attestationObject not base64url",
        registration({ ...good, attestationObject: `${good.attestationObject}+` }),
        /base64url/
      ],
      ["clientDataJson not base64url", registration({ ...good, clientDataJson: "%%%" }), /base64url/]
    ]
    for (const [name, effect, reason] of cases) assert.match(await reasonOf(effect), reason, name)
  })

  it("W-05 only EC2 P-256 ES256 credential keys register (P-384, Ed25519, RS256 and a point off the curve are refused)", async () => {
    const authenticator = kit.softwareAuthenticator({ rpId: RP_ID, origin: "http://localhost" })
    const p384 = (await import("@noble/curves/nist.js")).p384
    const p384Point = p384.getPublicKey(p384.utils.randomSecretKey(), false)
    const keys: Record<string, Uint8Array> = {
      "EC2 P-384 with alg -7": encodeCBOR(
        new Map<number, number | Uint8Array>([
          [1, 2],
          [3, -7],
          [-1, 2],
          [-2, p384Point.slice(1, 49)],
          [-3, p384Point.slice(49)]
        ])
      ),
      "OKP Ed25519": encodeCBOR(
        new Map<number, number | Uint8Array>([
          [1, 1],
          [3, -8],
          [-1, 6],
          [-2, new Uint8Array(32)]
        ])
      ),
      "RSA RS256": encodeCBOR(
        new Map<number, number | Uint8Array>([
          [1, 3],
          [3, -257],
          [-1, new Uint8Array(256).fill(0xc1)],
          [-2, Uint8Array.of(1, 0, 1)]
        ])
      ),
      "EC2 P-256 off the curve": encodeCBOR(
        new Map<number, number | Uint8Array>([
          [1, 2],
          [3, -7],
          [-1, 1],
          [-2, hexToBytes(offCurveX)],
          [-3, new Uint8Array(32)]
        ])
      )
    }
    for (const [name, cosePublicKey] of Object.entries(keys))
      assert.match(
        await reasonOf(registration(await authenticator.register(CHALLENGE, { cosePublicKey }))),
        /key|alg/,
        name
      )
  })

  it("originAllowed: exact entries, and http(s)://localhost on any port for the sandbox entries", () => {
    assert.isTrue(originAllowed("https://wallet.example", ["https://wallet.example"]))
    assert.isFalse(originAllowed("https://wallet.example:8443", ["https://wallet.example"]))
    assert.isTrue(originAllowed("http://localhost", ["http://localhost"]))
    assert.isTrue(originAllowed("http://localhost:5173", ["http://localhost"]))
    assert.isTrue(originAllowed("https://localhost:8443", ["https://localhost"]))
    assert.isFalse(originAllowed("https://localhost:8443", ["http://localhost"]))
    assert.isFalse(originAllowed("http://localhost:5173", ["http://localhost:3000"]))
    assert.isFalse(originAllowed("http://localhost.evil.example", ["http://localhost"]))
    assert.isFalse(originAllowed("http://127.0.0.1:5173", ["http://localhost"]))
    assert.isFalse(originAllowed("http://localhost:99999", ["http://localhost"]))
    assert.isFalse(originAllowed("http://localhost:05173", ["http://localhost"]))
    assert.isFalse(originAllowed("http://localhost/", ["http://localhost"]))
  })

  describe("assertions", () => {
    const setup = async () => {
      const authenticator = kit.softwareAuthenticator({
        rpId: RP_ID,
        origin: "http://localhost:5173",
        format: "packed"
      })
      const stored = await succeeded(registration(await authenticator.register(CHALLENGE)))
      return { authenticator, stored }
    }

    it("W-22 W-23 an assertion over base64url(UTF-8(hex challenge)) verifies and its count grows", async () => {
      const { authenticator, stored } = await setup()
      const first = await succeeded(assertion(await authenticator.assert(HEX_CHALLENGE), stored))
      assert.deepStrictEqual(first, { signCount: 1 })
      const second = await succeeded(assertion(await authenticator.assert(HEX_CHALLENGE), { ...stored, signCount: 1 }))
      assert.deepStrictEqual(second, { signCount: 2 })
      const { userHandle: _, ...withoutHandle } = await authenticator.assert(HEX_CHALLENGE)
      await succeeded(assertion(withoutHandle, { ...stored, signCount: 2 }))
    })

    it("W-22 a counter that does not grow is refused, unless the authenticator keeps 0 and so does the credential", async () => {
      const { authenticator, stored } = await setup()
      assert.match(
        await reasonOf(
          assertion(await authenticator.assert(HEX_CHALLENGE, { signCount: 3 }), { ...stored, signCount: 5 })
        ),
        /counter/
      )
      assert.isString(
        await reasonOf(
          assertion(await authenticator.assert(HEX_CHALLENGE, { signCount: 5 }), { ...stored, signCount: 5 })
        )
      )
      assert.isString(
        await reasonOf(
          assertion(await authenticator.assert(HEX_CHALLENGE, { signCount: 0 }), { ...stored, signCount: 5 })
        )
      )
      assert.deepStrictEqual(
        await succeeded(
          assertion(await authenticator.assert(HEX_CHALLENGE, { signCount: 0 }), { ...stored, signCount: 0 })
        ),
        { signCount: 0 }
      )
    })

    it("W-22 W-23 assertion refusals: challenge, its raw hex, origin, RP id, presence, type, credential, signature", async () => {
      const { authenticator, stored } = await setup()
      const other = kit.softwareAuthenticator({ rpId: RP_ID, origin: "http://localhost:5173" })
      const good = await authenticator.assert(HEX_CHALLENGE)
      const asserted = (overrides: kit.CeremonyOverrides) => authenticator.assert(HEX_CHALLENGE, overrides)
      const anotherBody = bytesToHex(sha256(utf8.encode("another body")))
      // The same r and s under a context-specific tag (0xb0) instead of SEQUENCE (0x30): the library's ASN.1 reader
      // takes it, so without the strict DER check one signature would have many spellings.
      const retagged = base64urlnopad.decode(good.signature)
      retagged[0] = 0xb0
      const cases: Array<[string, Effect.Effect<unknown, { reason: string }>, RegExp]> = [
        ["another challenge", assertion(good, stored, anotherBody), /challenge/],
        [
          "signature DER under another tag",
          assertion({ ...good, signature: base64urlnopad.encode(retagged) }, stored),
          /DER/
        ],
        ["the hex itself as challenge", assertion(await asserted({ challenge: HEX_CHALLENGE }), stored), /challenge/],
        ["origin not allowed", assertion(await asserted({ origin: "https://evil.example" }), stored), /origin/],
        ["rpId hash of another site", assertion(await asserted({ rpId: "evil.example" }), stored), /RP ID/],
        ["user not present", assertion(await asserted({ userPresent: false }), stored), /present/],
        ["type webauthn.create", assertion(await asserted({ type: "webauthn.create" }), stored), /type/],
        [
          "credentialId not the stored one",
          assertion({ ...good, credentialId: other.credentialId }, stored),
          /credentialId/
        ],
        [
          "signature by another key",
          assertion({ ...good, signature: (await other.assert(HEX_CHALLENGE)).signature }, stored),
          /signature/
        ],
        ["signature not base64url", assertion({ ...good, signature: "***" }, stored), /base64url/]
      ]
      for (const [name, effect, reason] of cases) assert.match(await reasonOf(effect), reason, name)
      // User verification is not required at login either.
      await succeeded(assertion(await authenticator.assert(HEX_CHALLENGE, { userVerified: false }), stored))
    })
  })
})

describe("OIDC (oidc.ts)", () => {
  const ISS = "https://accounts.example"
  const AUD = "wallet-client-id"
  const NOW = new Date("2026-04-09T15:00:00.000Z")
  const now = NOW.getTime() / 1000
  const expected = { iss: ISS, aud: AUD, sub: "user-1" }
  const issuer = kit.oidcIssuer({ iss: ISS, aud: AUD })
  const reason = async (effect: Effect.Effect<unknown, OidcRefused>) => (await failed(effect)).reason

  it("W-19 W-20 a signed token of the issuer verifies to its identity, email and nonce", async () => {
    const provider = await issuer
    const client = kit.sessionKey()
    const token = await provider.mint({
      sub: "user-1",
      email: "user@example.com",
      nonce: nonceFor(client.publicKey),
      iat: now
    })
    assert.deepStrictEqual(
      await succeeded(
        verifyOidcToken(token, { keys: provider.keys, now: NOW, expected, nonce: nonceFor(client.publicKey) })
      ),
      {
        ...expected,
        email: "user@example.com",
        nonce: nonceFor(client.publicKey)
      }
    )
    // Create: no expected identity; it is the token's.
    assert.deepStrictEqual(await succeeded(verifyOidcToken(token, { keys: provider.keys, now: NOW })), {
      ...expected,
      email: "user@example.com",
      nonce: nonceFor(client.publicKey)
    })
  })

  it("L-07, W-20 iat may be 60 s old plus 5 s of skew, not a second more; and 5 s in the future, not 6 (both paths)", async () => {
    const provider = await issuer
    for (const keys of [provider.keys, undefined]) {
      const mint = (iat: number) =>
        keys === undefined
          ? Promise.resolve(provider.mintUnsigned({ sub: "user-1", iat }))
          : provider.mint({ sub: "user-1", iat })
      await succeeded(verifyOidcToken(await mint(now - 65), { keys, now: NOW, expected }))
      assert.strictEqual(await reason(verifyOidcToken(await mint(now - 66), { keys, now: NOW, expected })), "INVALID")
      assert.strictEqual(
        await reason(verifyOidcToken(await mint(now - 61 - 60), { keys, now: NOW, expected })),
        "INVALID"
      )
      await succeeded(verifyOidcToken(await mint(now + 5), { keys, now: NOW, expected }))
      assert.strictEqual(await reason(verifyOidcToken(await mint(now + 6), { keys, now: NOW, expected })), "INVALID")
    }
  })

  it("W-20 exp must be after now − 5 s (both paths)", async () => {
    const provider = await issuer
    for (const keys of [provider.keys, undefined]) {
      const mint = (exp: number) =>
        keys === undefined
          ? Promise.resolve(provider.mintUnsigned({ sub: "user-1", iat: now - 10, exp }))
          : provider.mint({ sub: "user-1", iat: now - 10, exp })
      await succeeded(verifyOidcToken(await mint(now - 4), { keys, now: NOW, expected }))
      assert.strictEqual(await reason(verifyOidcToken(await mint(now - 5), { keys, now: NOW, expected })), "INVALID")
    }
  })

  it("W-20 iss, aud and sub must be the credential's; aud may be an array containing it", async () => {
    const provider = await issuer
    for (const keys of [provider.keys, undefined]) {
      const mint = (claims: kit.IdTokenClaims) =>
        keys === undefined ? Promise.resolve(provider.mintUnsigned(claims)) : provider.mint(claims)
      for (const claims of [
        { sub: "user-2", iat: now },
        { sub: "user-1", iss: "https://other.example", iat: now },
        { sub: "user-1", aud: "other-client", iat: now },
        { sub: "user-1", aud: ["other-client", "third"], iat: now },
        { sub: "user-1", aud: [], iat: now }
      ])
        assert.strictEqual(
          await reason(verifyOidcToken(await mint(claims), { keys, now: NOW, expected })),
          "INVALID",
          JSON.stringify(claims)
        )
      const many = await mint({ sub: "user-1", aud: ["other-client", AUD], iat: now })
      assert.strictEqual((await succeeded(verifyOidcToken(many, { keys, now: NOW, expected }))).aud, AUD)
      // Without an expected identity, the audience must be one.
      assert.strictEqual(await reason(verifyOidcToken(many, { keys, now: NOW })), "INVALID")
      const single = await mint({ sub: "user-1", aud: [AUD], iat: now })
      assert.strictEqual((await succeeded(verifyOidcToken(single, { keys, now: NOW }))).aud, AUD)
    }
  })

  it("W-21 nonce: SHA-256 hex of the exact clientPublicKey string, required equal when asked", async () => {
    const provider = await issuer
    const client = kit.sessionKey()
    assert.strictEqual(nonceFor(client.publicKey), createHash("sha256").update(client.publicKey).digest("hex"))
    assert.notStrictEqual(nonceFor(client.publicKey), nonceFor(client.publicKey.toUpperCase()))
    const nonce = nonceFor(client.publicKey)
    for (const keys of [provider.keys, undefined]) {
      const mint = (claims: kit.IdTokenClaims) =>
        keys === undefined ? Promise.resolve(provider.mintUnsigned(claims)) : provider.mint(claims)
      await succeeded(
        verifyOidcToken(await mint({ sub: "user-1", iat: now, nonce }), { keys, now: NOW, expected, nonce })
      )
      const wrong = await mint({ sub: "user-1", iat: now, nonce: nonceFor(kit.sessionKey().publicKey) })
      assert.strictEqual(await reason(verifyOidcToken(wrong, { keys, now: NOW, expected, nonce })), "INVALID")
      const none = await mint({ sub: "user-1", iat: now })
      assert.strictEqual(await reason(verifyOidcToken(none, { keys, now: NOW, expected, nonce })), "INVALID")
    }
  })

  it("W-06 a token that is not three base64url segments with JSON header and claims is MALFORMED on both paths", async () => {
    const provider = await issuer
    const good = provider.mintUnsigned({ sub: "user-1", iat: now })
    const [header, claims] = good.split(".")
    const b64 = (text: string) => base64urlnopad.encode(utf8.encode(text))
    for (const token of [
      "",
      "sandbox-valid-oidc-token",
      `${header}.${claims}`,
      `${header}.${claims}.sig.extra`,
      `${header}.${claims}.a.b`,
      `${b64("not json")}.${claims}.sig`,
      `${header}.${b64("not json")}.sig`,
      `${header}.${b64("[1,2]")}.sig`,
      `${header}.${claims}.sig+nature`,
      `${header}.${claims}.${"A".repeat(20_000)}`
    ]) {
      assert.strictEqual(await reason(verifyOidcToken(token, { keys: provider.keys, now: NOW })), "MALFORMED", token)
      assert.strictEqual(await reason(verifyOidcToken(token, { keys: undefined, now: NOW })), "MALFORMED", token)
    }
    // The sandbox guide's dummy signature segment is JWT-shaped.
    await succeeded(verifyOidcToken(`${header}.${claims}.sandbox-signature`, { keys: undefined, now: NOW, expected }))
  })

  it("W-20 W-21 signatures: another key's token is INVALID; an unsigned token passes the sandbox path only", async () => {
    const provider = await issuer
    const impostor = await kit.oidcIssuer({ iss: ISS, aud: AUD })
    const forged = await impostor.mint({ sub: "user-1", iat: now })
    assert.strictEqual(await reason(verifyOidcToken(forged, { keys: provider.keys, now: NOW, expected })), "INVALID")
    const [header, claims] = (await provider.mint({ sub: "user-1", iat: now })).split(".")
    const resigned = `${header}.${claims}.${forged.split(".")[2]}`
    assert.strictEqual(await reason(verifyOidcToken(resigned, { keys: provider.keys, now: NOW, expected })), "INVALID")
    const unsigned = provider.mintUnsigned({ sub: "user-1", iat: now })
    assert.strictEqual(await reason(verifyOidcToken(unsigned, { keys: provider.keys, now: NOW, expected })), "INVALID")
    await succeeded(verifyOidcToken(unsigned, { keys: undefined, now: NOW, expected }))
    const failingKeys = () => Promise.reject(new Error("JWKS unreachable"))
    assert.strictEqual(
      await reason(verifyOidcToken(await provider.mint({ sub: "user-1", iat: now }), { keys: failingKeys, now: NOW })),
      "INVALID"
    )
  })

  it("W-20 checkOidcClaims refuses missing or ill-typed claims", () => {
    const base = { iss: ISS, aud: AUD, sub: "user-1", iat: now, exp: now + 300 }
    assert.isTrue(Result.isSuccess(checkOidcClaims(base, { now: NOW, expected })))
    const without = (key: keyof typeof base) => Object.fromEntries(Object.entries(base).filter(([k]) => k !== key))
    for (const claims of [
      without("iss"),
      without("aud"),
      without("sub"),
      without("iat"),
      without("exp"),
      { ...base, iat: String(now) },
      { ...base, exp: Number.POSITIVE_INFINITY },
      { ...base, sub: "" },
      { ...base, aud: [AUD, 7] },
      { ...base, nbf: now + 6 },
      { ...base, nbf: "soon" },
      null,
      [base]
    ]) {
      const result = checkOidcClaims(claims, { now: NOW })
      assert.isTrue(Result.isFailure(result) && result.failure.reason === "INVALID", JSON.stringify(claims))
    }
    assert.isTrue(Result.isSuccess(checkOidcClaims({ ...base, nbf: now + 5, email: 7 }, { now: NOW })))
  })
})
