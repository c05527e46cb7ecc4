/**
 * Issue 31, embedded-wallet details: outside the sandbox (a PRODUCTION token) the OTP target bundle (W-13) and the
 * export bundle (W-33) carry `dataSignature` and `enclaveQuorumPublic` by the service key `GET
 * /auth/bundle-signing-key` publishes, so the upstream's client helpers (`@turnkey/crypto`'s
 * `encryptOtpCodeToBundle` and `decryptExportBundle`, the key pinned) accept them; the sandbox keeps them empty, as
 * the upstream does. The client kit of `@paycore/testkit/wallet-client` works on both.
 */

import { bytesToHex } from "@noble/hashes/utils.js"
import { openWalletCredentials, sealOtpBundle, sessionKey } from "@paycore/testkit/wallet-client"
import { describe, expect, it } from "vitest"
import type { Credentials } from "./harness.ts"
import { useTestServer } from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"
import { retry, SANDBOX_OTP, walletKit } from "./wallet-kit.ts"

/** The two helpers of `@turnkey/crypto` used here, as its declarations give them. */
interface TurnkeyCrypto {
  encryptOtpCodeToBundle(
    otpCode: string,
    otpEncryptionTargetBundle: string,
    publicKey: string,
    dangerouslyOverrideSignerPublicKey?: string
  ): Promise<string>
  decryptExportBundle(params: {
    exportBundle: string
    organizationId: string
    embeddedKey: string
    dangerouslyOverrideSignerPublicKey?: string
    returnMnemonic: boolean
  }): Promise<string>
}

// Its declarations carry `/// <reference lib="dom" />`, which would bring the DOM's globals into every file the
// typecheck sees: the module is imported by a name TypeScript does not resolve, and typed by the interface above.
const TURNKEY_CRYPTO = "@turnkey/crypto"
const { decryptExportBundle, encryptOtpCodeToBundle } = (await import(TURNKEY_CRYPTO)) as TurnkeyCrypto

const UNCOMPRESSED = /^04[0-9a-f]{128}$/

const bundlesSuite = (stores: () => StoresUnderTest) => {
  let production: Credentials
  const server = useTestServer(async (s) => {
    expect((await s.call("PATCH", "/config", { supportedCurrencies: ["USD", "USDB"] })).status).toBe(200)
    production = await s.token(["VIEW", "TRANSACT", "MANAGE"], "PRODUCTION")
  }, stores())
  const { newWallet, signedInWallet, allowResend } = walletKit(server)

  /** The key production bundles are signed with, as the platform fetches it. */
  const signingKey = async (auth?: Credentials): Promise<string> => {
    const r = await server.call("GET", "/auth/bundle-signing-key", undefined, auth === undefined ? {} : { auth })
    expect(r.status, JSON.stringify(r.json)).toBe(200)
    expect(r.json.publicKey).toMatch(UNCOMPRESSED)
    return r.json.publicKey
  }

  /** An OTP challenge of `credentialId` with `auth`'s token: its `otpEncryptionTargetBundle`. */
  const targetBundle = async (credentialId: string, auth: Credentials | undefined): Promise<string> => {
    await allowResend(credentialId)
    const challenge = await server.call(
      "POST",
      `/auth/credentials/${credentialId}/challenge`,
      undefined,
      auth === undefined ? {} : { auth }
    )
    expect(challenge.status, JSON.stringify(challenge.json)).toBe(200)
    return challenge.json.otpEncryptionTargetBundle
  }

  it("W-13, W-17, W-18, issue 31: a production OTP target is signed; encryptOtpCodeToBundle accepts it and signs in", async () => {
    const pinned = await signingKey()
    // One key, whichever environment asks.
    expect(await signingKey(production)).toBe(pinned)
    const w = await newWallet()
    const bundle = await targetBundle(w.emailCredentialId, production)
    const envelope = JSON.parse(bundle)
    expect(envelope).toEqual({
      version: "v1.0.0",
      data: expect.stringMatching(/^[0-9a-f]+$/),
      dataSignature: expect.stringMatching(/^30[0-9a-f]+$/),
      enclaveQuorumPublic: pinned
    })
    const key = sessionKey()
    const body = {
      type: "EMAIL_OTP",
      encryptedOtpBundle: await encryptOtpCodeToBundle(SANDBOX_OTP, bundle, key.publicKey, pinned)
    }
    const path = `/auth/credentials/${w.emailCredentialId}/verify`
    const first = await server.call("POST", path, body, { auth: production })
    expect(first.status, JSON.stringify(first.json)).toBe(202)
    const session = await server.call("POST", path, body, { auth: production, headers: retry(first, key) })
    expect(session.status, JSON.stringify(session.json)).toBe(200)
    expect(session.json).toMatchObject({ type: "EMAIL_OTP", credentialId: w.emailCredentialId })

    // The helper refuses a bundle whose data was changed, or signed by a key the client did not pin.
    const forged = JSON.stringify({ ...envelope, data: `${envelope.data.slice(0, -2)}00` })
    await expect(encryptOtpCodeToBundle(SANDBOX_OTP, forged, key.publicKey, pinned)).rejects.toThrow()
    const otherKey = `04${bytesToHex(crypto.getRandomValues(new Uint8Array(64)))}`
    await expect(encryptOtpCodeToBundle(SANDBOX_OTP, bundle, key.publicKey, otherKey)).rejects.toThrow()
    // The client kit reads a signed bundle as it reads a sandbox one.
    await allowResend(w.emailCredentialId)
    const again = await targetBundle(w.emailCredentialId, production)
    const kitBody = { type: "EMAIL_OTP", encryptedOtpBundle: await sealOtpBundle(again, SANDBOX_OTP, key.publicKey) }
    expect((await server.call("POST", path, kitBody, { auth: production })).status).toBe(202)
  })

  it("W-07, issue 31: a re-added OTP credential's first target is signed for a production token, not for a sandbox one", async () => {
    const pinned = await signingKey()
    const w = await signedInWallet({ phoneNumber: "+14155550177" })
    const body = { type: "SMS_OTP", accountId: w.accountId }
    const first = await server.call("POST", "/auth/credentials", body, { auth: production })
    expect(first.status).toBe(202)
    const added = await server.call("POST", "/auth/credentials", body, {
      auth: production,
      headers: retry(first, w.key)
    })
    expect(added.status, JSON.stringify(added.json)).toBe(201)
    expect(JSON.parse(added.json.otpEncryptionTargetBundle)).toMatchObject({ enclaveQuorumPublic: pinned })
    // The sandbox keeps both fields empty (W-13, as the upstream's sandbox).
    const sandbox = JSON.parse(await targetBundle(added.json.id, undefined))
    expect(sandbox).toMatchObject({ dataSignature: "", enclaveQuorumPublic: "" })
  })

  describe("W-33: the export", () => {
    const exportWith = async (auth: Credentials | undefined) => {
      const w = await signedInWallet()
      const exportKey = sessionKey({ legacy: true })
      const path = `/internal-accounts/${w.accountId}/export`
      const body = { clientPublicKey: exportKey.publicKey }
      const options = auth === undefined ? {} : { auth }
      const first = await server.call("POST", path, body, options)
      expect(first.status, JSON.stringify(first.json)).toBe(202)
      const done = await server.call("POST", path, body, { ...options, headers: retry(first, w.key) })
      expect(done.status, JSON.stringify(done.json)).toBe(200)
      return { w, exportKey, bundle: done.json.encryptedWalletCredentials as string }
    }

    it("W-33, issue 31: a production export is signed; decryptExportBundle (the wallet's id as organizationId) opens it", async () => {
      const pinned = await signingKey()
      const { w, exportKey, bundle } = await exportWith(production)
      expect(JSON.parse(bundle)).toMatchObject({
        version: "v1.0.0",
        dataSignature: expect.stringMatching(/^30[0-9a-f]+$/),
        enclaveQuorumPublic: pinned
      })
      const mnemonic = await decryptExportBundle({
        exportBundle: bundle,
        embeddedKey: bytesToHex(exportKey.privateKey),
        organizationId: w.accountId,
        dangerouslyOverrideSignerPublicKey: pinned,
        returnMnemonic: true
      })
      expect(mnemonic.split(" ")).toHaveLength(12)
      // The kit opens it too, to the same words.
      expect(await openWalletCredentials(bundle, exportKey.privateKey)).toBe(mnemonic)
      // Another wallet's id, or another pinned key, is refused.
      const options = { exportBundle: bundle, embeddedKey: bytesToHex(exportKey.privateKey), returnMnemonic: true }
      await expect(
        decryptExportBundle({
          ...options,
          organizationId: "InternalAccount:other",
          dangerouslyOverrideSignerPublicKey: pinned
        })
      ).rejects.toThrow()
      await expect(
        decryptExportBundle({
          ...options,
          organizationId: w.accountId,
          dangerouslyOverrideSignerPublicKey: `04${"ab".repeat(64)}`
        })
      ).rejects.toThrow()
    })

    it("W-33, issue 31: a sandbox export keeps dataSignature and enclaveQuorumPublic empty, as the upstream's", async () => {
      const { exportKey, bundle } = await exportWith(undefined)
      expect(JSON.parse(bundle)).toMatchObject({ dataSignature: "", enclaveQuorumPublic: "" })
      expect((await openWalletCredentials(bundle, exportKey.privateKey)).split(" ")).toHaveLength(12)
    })
  })
}

onEveryStore("embedded-wallet signed bundles (issue 31)", "wallet_bundles_http", bundlesSuite)
