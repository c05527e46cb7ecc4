/**
 * The wallet client kit checked from outside: stamps verified by node:crypto, authenticator output decoded with the
 * CBOR codec and verified by node:crypto, HPKE messages built or opened with @hpke/core by hand, tokens checked by
 * jose. (Round trips against the engine's own verifiers are in packages/core/test/wallet-crypto*.test.ts.)
 */
import { createPublicKey, verify } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from "@hpke/core"
import { type CBORType, decodeCBOR } from "@levischuck/tiny-cbor"
import { p256 } from "@noble/curves/nist.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, concatBytes, hexToBytes } from "@noble/hashes/utils.js"
import { base64urlnopad, createBase58check } from "@scure/base"
import { decodeJwt, decodeProtectedHeader, jwtVerify } from "jose"
import { walletClient } from "../src/index.ts"
import {
  HPKE_INFO,
  oidcIssuer,
  openSessionSigningKey,
  openWalletCredentials,
  STAMP_SCHEME,
  sealOtpBundle,
  sessionKey,
  sessionKeyFrom,
  softwareAuthenticator,
  stampWith
} from "../src/wallet-client/index.ts"

const utf8 = new TextEncoder()
const fromUtf8 = new TextDecoder()
const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() })
const info = utf8.encode("turnkey_hpke")

/** node:crypto's view of a P-256 public key given as SEC1 bytes. */
const nodeKey = (sec1: Uint8Array) => {
  const point = p256.Point.fromBytes(sec1).toBytes(false)
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url")
  return createPublicKey({
    key: { kty: "EC", crv: "P-256", x: b64(point.slice(1, 33)), y: b64(point.slice(33)) },
    format: "jwk"
  })
}

describe("wallet client kit: session keys and stamps", () => {
  it("W-37 stamp() is base64url (no padding) of {publicKey, scheme, signature}; node:crypto verifies the DER signature over the exact bytes", () => {
    const key = sessionKey()
    for (const payload of ['{"type":"WALLET_EXPORT","parameters":{}}', "héllo 🌍\n", ""]) {
      const header = key.stamp(payload)
      assert.match(header, /^[A-Za-z0-9_-]+$/)
      const stamp = JSON.parse(fromUtf8.decode(base64urlnopad.decode(header)))
      assert.deepStrictEqual(Object.keys(stamp), ["publicKey", "scheme", "signature"])
      assert.strictEqual(stamp.scheme, STAMP_SCHEME)
      assert.strictEqual(stamp.scheme, "SIGNATURE_SCHEME_TK_API_P256")
      assert.strictEqual(stamp.publicKey, key.publicKey)
      assert.match(stamp.signature, /^30[0-9a-f]+$/)
      const signature = Buffer.from(stamp.signature, "hex")
      const key_ = nodeKey(hexToBytes(stamp.publicKey))
      assert.isTrue(verify("sha256", Buffer.from(payload, "utf8"), key_, signature))
      assert.isFalse(verify("sha256", Buffer.from(`${payload} `, "utf8"), key_, signature))
    }
  })

  it("W-16 session keys are compressed (66 hex) by default and uncompressed (130 hex) when legacy; stamps carry the compressed key", () => {
    const key = sessionKey()
    assert.match(key.publicKey, /^0[23][0-9a-f]{64}$/)
    assert.strictEqual(key.privateKey.length, 32)
    const legacy = sessionKey({ legacy: true })
    assert.match(legacy.publicKey, /^04[0-9a-f]{128}$/)
    const stamp = JSON.parse(fromUtf8.decode(base64urlnopad.decode(legacy.stamp("x"))))
    assert.strictEqual(stamp.publicKey, bytesToHex(p256.getPublicKey(legacy.privateKey, true)))
  })

  it("sessionKeyFrom and stampWith sign as the key they are given", () => {
    const key = sessionKey()
    assert.strictEqual(sessionKeyFrom(key.privateKey).publicKey, key.publicKey)
    // RFC 6979: one key, one payload, one signature.
    assert.strictEqual(stampWith(key.privateKey, "payload"), key.stamp("payload"))
    assert.notStrictEqual(sessionKey().privateKey, key.privateKey)
    assert.strictEqual(walletClient.sessionKeyFrom(key.privateKey).publicKey, key.publicKey)
  })
})

describe("wallet client kit: HPKE messages", () => {
  const targetBundle = (targetPublic: string) =>
    JSON.stringify({
      version: "v1.0.0",
      data: bytesToHex(utf8.encode(JSON.stringify({ targetPublic }))),
      dataSignature: "",
      enclaveQuorumPublic: ""
    })

  it("W-18 sealOtpBundle seals {otp_code, public_key} to targetPublic: info turnkey_hpke, AAD enc ‖ target", async () => {
    assert.strictEqual(HPKE_INFO, "turnkey_hpke")
    const target = await suite.kem.generateKeyPair()
    const targetPublic = new Uint8Array(await suite.kem.serializePublicKey(target.publicKey))
    const client = sessionKey()
    const bundle = await sealOtpBundle(targetBundle(bytesToHex(targetPublic)), "000000", client.publicKey)
    const { encappedPublic, ciphertext } = JSON.parse(bundle)
    assert.match(encappedPublic, /^04[0-9a-f]{128}$/)
    const enc = hexToBytes(encappedPublic)
    const recipient = await suite.createRecipientContext({ recipientKey: target, enc, info })
    const plaintext = await recipient.open(hexToBytes(ciphertext), concatBytes(enc, targetPublic))
    assert.deepStrictEqual(JSON.parse(fromUtf8.decode(plaintext)), { otp_code: "000000", public_key: client.publicKey })
  })

  const sealTo = async (recipient: Uint8Array, plaintext: Uint8Array) => {
    const sender = await suite.createSenderContext({
      recipientPublicKey: await suite.kem.deserializePublicKey(recipient),
      info
    })
    const enc = new Uint8Array(sender.enc)
    return { enc, ct: new Uint8Array(await sender.seal(plaintext, concatBytes(enc, recipient))) }
  }

  it("W-16 openSessionSigningKey opens base58check(compressed enc ‖ ciphertext) to the 32-byte scalar", async () => {
    const client = sessionKey({ legacy: true })
    const scalar = p256.utils.randomSecretKey()
    const { enc, ct } = await sealTo(hexToBytes(client.publicKey), scalar)
    const wire = createBase58check(sha256).encode(concatBytes(p256.Point.fromBytes(enc).toBytes(true), ct))
    assert.deepStrictEqual(await openSessionSigningKey(wire, client.privateKey), scalar)
    let refused = false
    await openSessionSigningKey(wire, sessionKey().privateKey).catch(() => {
      refused = true
    })
    assert.isTrue(refused)
  })

  it("W-33 openWalletCredentials opens the v1.0.0 envelope whose data is hex JSON {encappedPublic, ciphertext}", async () => {
    const client = sessionKey({ legacy: true })
    const mnemonic = "legal winner thank year wave sausage worth useful legal winner thank yellow"
    const { enc, ct } = await sealTo(hexToBytes(client.publicKey), utf8.encode(mnemonic))
    const data = bytesToHex(
      utf8.encode(JSON.stringify({ encappedPublic: bytesToHex(enc), ciphertext: bytesToHex(ct) }))
    )
    const envelope = JSON.stringify({ version: "v1.0.0", data, dataSignature: "", enclaveQuorumPublic: "" })
    assert.strictEqual(await openWalletCredentials(envelope, client.privateKey), mnemonic)
  })
})

describe("wallet client kit: software authenticator", () => {
  const asMap = (value: CBORType): Map<string | number, CBORType> => {
    assert.instanceOf(value, Map)
    return value as Map<string | number, CBORType>
  }
  const bytes = (value: CBORType | undefined): Uint8Array => {
    assert.instanceOf(value, Uint8Array)
    return value as Uint8Array
  }
  /** authData = rpIdHash ‖ flags ‖ signCount ‖ [AAGUID ‖ credIdLen ‖ credId ‖ COSE key]. */
  const parseAuthData = (authData: Uint8Array) => {
    const view = new DataView(authData.buffer, authData.byteOffset, authData.byteLength)
    const parsed = { rpIdHash: authData.slice(0, 32), flags: authData[32]!, signCount: view.getUint32(33) }
    if (authData.length === 37) return { ...parsed, attested: undefined }
    const idLength = view.getUint16(53)
    return {
      ...parsed,
      attested: {
        aaguid: authData.slice(37, 53),
        credentialId: authData.slice(55, 55 + idLength),
        coseKey: asMap(decodeCBOR(authData.slice(55 + idLength)))
      }
    }
  }
  const coseToNodeKey = (cose: Map<string | number, CBORType>) =>
    nodeKey(concatBytes(Uint8Array.of(4), bytes(cose.get(-2)), bytes(cose.get(-3))))

  for (const format of ["none", "packed"] as const)
    it(`W-05 register (${format}): client data, authData (rpIdHash, UP|UV|AT, count 0, zero AAGUID, credential id, COSE EC2 P-256 ES256) and the statement`, async () => {
      const authenticator = softwareAuthenticator({ rpId: "wallet.example", origin: "https://wallet.example", format })
      const challenge = base64urlnopad.encode(utf8.encode("platform challenge"))
      const attestation = await authenticator.register(challenge)
      assert.strictEqual(attestation.credentialId, authenticator.credentialId)
      assert.deepStrictEqual(attestation.transports, ["internal", "hybrid"])
      const clientDataJson = base64urlnopad.decode(attestation.clientDataJson)
      assert.deepStrictEqual(JSON.parse(fromUtf8.decode(clientDataJson)), {
        type: "webauthn.create",
        challenge,
        origin: "https://wallet.example",
        crossOrigin: false
      })
      const object = asMap(decodeCBOR(base64urlnopad.decode(attestation.attestationObject)))
      assert.deepStrictEqual([...object.keys()], ["fmt", "attStmt", "authData"])
      assert.strictEqual(object.get("fmt"), format)
      const authData = bytes(object.get("authData"))
      const parsed = parseAuthData(authData)
      assert.deepStrictEqual(parsed.rpIdHash, sha256(utf8.encode("wallet.example")))
      assert.strictEqual(parsed.flags, 0x01 | 0x04 | 0x40)
      assert.strictEqual(parsed.signCount, 0)
      assert.deepStrictEqual(parsed.attested!.aaguid, new Uint8Array(16))
      assert.strictEqual(base64urlnopad.encode(parsed.attested!.credentialId), authenticator.credentialId)
      const cose = parsed.attested!.coseKey
      assert.deepStrictEqual(
        [cose.get(1), cose.get(3), cose.get(-1), bytes(cose.get(-2)).length, bytes(cose.get(-3)).length],
        [2, -7, 1, 32, 32]
      )
      const statement = asMap(object.get("attStmt")!)
      if (format === "none") assert.strictEqual(statement.size, 0)
      else {
        assert.strictEqual(statement.get("alg"), -7)
        const signed = concatBytes(authData, sha256(clientDataJson))
        assert.isTrue(verify("sha256", signed, coseToNodeKey(cose), bytes(statement.get("sig"))))
      }
    })

  it("W-22 W-23 assert: challenge base64url(UTF-8(hex)), count 1, 2, 3, a signature over authData ‖ SHA-256(clientDataJSON)", async () => {
    const authenticator = softwareAuthenticator({ rpId: "localhost", origin: "http://localhost:5173" })
    const attestation = await authenticator.register("Y2hhbGxlbmdl")
    const object = asMap(decodeCBOR(base64urlnopad.decode(attestation.attestationObject)))
    const publicKey = coseToNodeKey(parseAuthData(bytes(object.get("authData"))).attested!.coseKey)
    const hexChallenge = "0123456789abcdef".repeat(4)
    for (const expectedCount of [1, 2, 3]) {
      const assertion = await authenticator.assert(hexChallenge)
      assert.strictEqual(assertion.credentialId, authenticator.credentialId)
      assert.match(assertion.userHandle!, /^[A-Za-z0-9_-]+$/)
      const clientDataJson = base64urlnopad.decode(assertion.clientDataJson)
      const clientData = JSON.parse(fromUtf8.decode(clientDataJson))
      assert.strictEqual(clientData.type, "webauthn.get")
      assert.strictEqual(fromUtf8.decode(base64urlnopad.decode(clientData.challenge)), hexChallenge)
      const authData = base64urlnopad.decode(assertion.authenticatorData)
      const parsed = parseAuthData(authData)
      assert.strictEqual(parsed.attested, undefined)
      assert.strictEqual(parsed.flags, 0x01 | 0x04)
      assert.strictEqual(parsed.signCount, expectedCount)
      const signature = base64urlnopad.decode(assertion.signature)
      assert.isTrue(verify("sha256", concatBytes(authData, sha256(clientDataJson)), publicKey, signature))
    }
  })

  it("overrides break one thing each: presence, verification, RP id, origin, type, challenge, a reported count that leaves the own count alone", async () => {
    const authenticator = softwareAuthenticator({ rpId: "localhost", origin: "http://localhost" })
    const hex = "ff".repeat(32)
    const flagsOf = async (overrides: Parameters<typeof authenticator.assert>[1]) =>
      parseAuthData(base64urlnopad.decode((await authenticator.assert(hex, overrides)).authenticatorData))
    assert.strictEqual((await flagsOf({ userPresent: false })).flags, 0x04)
    assert.strictEqual((await flagsOf({ userVerified: false })).flags, 0x01)
    assert.deepStrictEqual((await flagsOf({ rpId: "evil.example" })).rpIdHash, sha256(utf8.encode("evil.example")))
    assert.strictEqual((await flagsOf({ signCount: 0 })).signCount, 0)
    assert.strictEqual((await flagsOf({})).signCount, 4)
    const clientData = async (overrides: Parameters<typeof authenticator.assert>[1]) =>
      JSON.parse(fromUtf8.decode(base64urlnopad.decode((await authenticator.assert(hex, overrides)).clientDataJson)))
    assert.strictEqual((await clientData({ origin: "https://evil.example" })).origin, "https://evil.example")
    assert.strictEqual((await clientData({ type: "webauthn.create" })).type, "webauthn.create")
    assert.strictEqual((await clientData({ challenge: hex })).challenge, hex)
    const registered = await authenticator.register("Y2g", { signCount: 7, userPresent: false })
    const authData = bytes(asMap(decodeCBOR(base64urlnopad.decode(registered.attestationObject))).get("authData"))
    assert.deepStrictEqual([parseAuthData(authData).signCount, parseAuthData(authData).flags], [7, 0x04 | 0x40])
  })
})

describe("wallet client kit: OIDC issuer", () => {
  it("W-19 mint signs ES256 ID tokens with the provider's kid that jose verifies against its JWKS; defaults iat now, exp + 300 s", async () => {
    const issuer = await oidcIssuer({ iss: "https://accounts.example", aud: "client-1" })
    assert.strictEqual(issuer.jwks.keys.length, 1)
    const [jwk] = issuer.jwks.keys
    assert.deepStrictEqual([jwk!.kty, jwk!.crv, jwk!.alg, jwk!.d], ["EC", "P-256", "ES256", undefined])
    const before = Math.floor(Date.now() / 1000)
    const token = await issuer.mint({ sub: "user-1", email: "user@example.com", nonce: "n" })
    assert.deepStrictEqual<object>(decodeProtectedHeader(token), { alg: "ES256", kid: jwk!.kid, typ: "JWT" })
    const { payload } = await jwtVerify(token, issuer.keys, {
      issuer: "https://accounts.example",
      audience: "client-1"
    })
    assert.deepInclude(payload, { sub: "user-1", email: "user@example.com", nonce: "n", aud: "client-1" })
    assert.isAtLeast(payload.iat!, before)
    assert.strictEqual(payload.exp, payload.iat! + 300)
    const other = await issuer.mint({ sub: "u", iat: 1_000, exp: 2_000, iss: "https://x.example", aud: ["a", "b"] })
    assert.deepInclude<Record<string, unknown>>(decodeJwt(other), {
      iat: 1_000,
      exp: 2_000,
      iss: "https://x.example",
      aud: ["a", "b"]
    })
  })

  it("W-21 mintUnsigned is a JWT-shaped alg none token with the same claims and an empty signature segment", async () => {
    const issuer = await oidcIssuer({ iss: "https://accounts.example", aud: "client-1" })
    const token = issuer.mintUnsigned({ sub: "user-1", iat: 1_700_000_000, nonce: "n" })
    const segments = token.split(".")
    assert.strictEqual(segments.length, 3)
    assert.strictEqual(segments[2], "")
    assert.strictEqual(decodeProtectedHeader(token).alg, "none")
    assert.deepStrictEqual(decodeJwt(token), {
      iss: "https://accounts.example",
      aud: "client-1",
      sub: "user-1",
      iat: 1_700_000_000,
      exp: 1_700_000_300,
      nonce: "n"
    })
  })
})
