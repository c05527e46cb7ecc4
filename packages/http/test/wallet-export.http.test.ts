/**
 * The embedded wallet's export and privacy (W-33, W-34, AC-01), and the 200 PROCESSING path of the signed retry
 * (W-39 … W-41) with a vault that is not done yet (`deferredVault` from the testkit), over HTTP on every store. The
 * client side is the client kit: OTP sign-in, stamps, and opening the export with the export key's private half.
 */
import { DEFERRED_VAULT_MESSAGE, deferredVault } from "@paycore/testkit"
import { openWalletCredentials, sessionKey } from "@paycore/testkit/wallet-client"
import { validateMnemonic } from "@scure/bip39"
import { wordlist } from "@scure/bip39/wordlists/english.js"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { type CallResult, expectError, expectInvalid, useTestServer } from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"
import { ensureUsdb, expectChallenge, retry, walletKit } from "./wallet-kit.ts"

const UNKNOWN_ACCOUNT = "InternalAccount:01234567-89ab-7def-8123-456789abcdef"

const exportPath = (accountId: string) => `/internal-accounts/${accountId}/export`
const accountPath = (accountId: string) => `/internal-accounts/${accountId}`

/** A fresh export key: an uncompressed P-256 key pair, used once (the upstream's advice). */
const exportKey = () => sessionKey({ legacy: true })

/** The mnemonic an export answer opens to with the export key's private half. */
const opened = (r: CallResult, privateKey: Uint8Array) =>
  openWalletCredentials(r.json.encryptedWalletCredentials, privateKey)

const exportSuite = (stores: () => StoresUnderTest) => {
  // Not done with an export while armed (`vault.defer(n)`); otherwise the in-process vault.
  const vault = deferredVault(0)
  const server = useTestServer(ensureUsdb, { ...stores(), extraLayer: vault.layer })
  // A signed-in wallet's session is the signer of its exports and privacy updates.
  const { newWallet, signIn, signedInWallet, signedCall, snapshot, expire } = walletKit(server)

  const signedRequest = (requestId: string) => Effect.runPromise(server.store.signedRequests.get(requestId))

  describe("export", () => {
    it("W-33, W-35, W-36: a signed retry answers the wallet's mnemonic sealed to the bound key: 12 BIP-39 words", async () => {
      const { key, ...wallet } = await signedInWallet()
      const target = exportKey()
      const body = { clientPublicKey: target.publicKey }
      const first = await server.call("POST", exportPath(wallet.accountId), body)
      // The payload names the action, the wallet and the key the credentials will be sealed to.
      expect(expectChallenge(first)).toMatchObject({
        type: "WALLET_EXPORT_WALLET",
        requestId: first.json.requestId,
        accountId: wallet.accountId,
        parameters: { clientPublicKey: target.publicKey }
      })

      const done = await server.call("POST", exportPath(wallet.accountId), body, { headers: retry(first, key) })
      expect(done.status, JSON.stringify(done.json)).toBe(200)
      expect(done.json).toEqual({ id: wallet.accountId, encryptedWalletCredentials: expect.any(String) })
      // The upstream envelope; unsigned, as the upstream's sandbox sends it.
      expect(JSON.parse(done.json.encryptedWalletCredentials)).toEqual({
        version: "v1.0.0",
        data: expect.stringMatching(/^([0-9a-f]{2})+$/),
        dataSignature: "",
        enclaveQuorumPublic: ""
      })
      const mnemonic = await opened(done, target.privateKey)
      expect(mnemonic.split(" ")).toHaveLength(12)
      expect(validateMnemonic(mnemonic, wordlist)).toBe(true)
      // Only the export key's private half opens it.
      await expect(opened(done, exportKey().privateKey)).rejects.toThrow()

      // The same wallet always exports the same mnemonic, sealed afresh each time; another wallet has its own.
      const again = exportKey()
      const { done: secondDone } = await signedCall(
        "POST",
        exportPath(wallet.accountId),
        { clientPublicKey: again.publicKey },
        key
      )
      expect(secondDone.status).toBe(200)
      expect(await opened(secondDone, again.privateKey)).toBe(mnemonic)
      const other = await signedInWallet()
      const { done: otherDone } = await signedCall("POST", exportPath(other.accountId), body, other.key)
      expect(otherDone.status).toBe(200)
      const otherMnemonic = await opened(otherDone, target.privateKey)
      expect(validateMnemonic(otherMnemonic, wordlist)).toBe(true)
      expect(otherMnemonic).not.toBe(mnemonic)
    })

    it("W-38, W-41: the answer is never stored, and the used requestId is 401 UNAUTHORIZED", async () => {
      const { key, ...wallet } = await signedInWallet()
      const target = exportKey()
      const body = { clientPublicKey: target.publicKey }
      const first = await server.call("POST", exportPath(wallet.accountId), body)
      const headers = retry(first, key)
      const before = await snapshot()
      const done = await server.call("POST", exportPath(wallet.accountId), body, { headers })
      expect(done.status).toBe(200)
      const mnemonic = await opened(done, target.privateKey)
      const after = await snapshot()
      // The export consumed its requestId and wrote nothing else; neither the answer nor the mnemonic is kept.
      const changed = Object.keys(after.collections).filter(
        (name) => JSON.stringify(after.collections[name]) !== JSON.stringify(before.collections[name])
      )
      expect(changed).toEqual(["signedRequests"])
      expect((await signedRequest(first.json.requestId))?.status).toBe("CONSUMED")
      const stored = JSON.stringify(after)
      expect(stored).not.toContain(done.json.encryptedWalletCredentials)
      expect(stored).not.toContain(JSON.parse(done.json.encryptedWalletCredentials).data)
      expect(stored).not.toContain(mnemonic)
      // The resend of the used retry is refused: a second copy needs a new export.
      expectError(await server.call("POST", exportPath(wallet.accountId), body, { headers }), 401, "UNAUTHORIZED")
      expect(await snapshot()).toEqual(after)
    })

    it("W-41, C-09: an Idempotency-Key keeps no export answer: the repeat is the used requestId's 401, not a replay", async () => {
      const { key, ...wallet } = await signedInWallet()
      const target = exportKey()
      const body = { clientPublicKey: target.publicKey }
      const first = await server.call("POST", exportPath(wallet.accountId), body)
      const idempotencyKey = `export-${crypto.randomUUID()}`
      const headers = { ...retry(first, key), "idempotency-key": idempotencyKey }
      const done = await server.call("POST", exportPath(wallet.accountId), body, { headers })
      expect(done.status).toBe(200)
      expect(done.headers.get("idempotent-replayed")).toBeNull()
      expect(await Effect.runPromise(server.store.idempotency.get(`platform:${idempotencyKey}`))).toBeUndefined()
      const again = await server.call("POST", exportPath(wallet.accountId), body, { headers })
      expectError(again, 401, "UNAUTHORIZED")
      expect(again.headers.get("idempotent-replayed")).toBeNull()
    })

    it("W-33, W-37: a retry with another clientPublicKey is 401 WALLET_SIGNATURE_BODY_MISMATCH and changes nothing", async () => {
      const { key, ...wallet } = await signedInWallet()
      const bound = exportKey()
      const first = await server.call("POST", exportPath(wallet.accountId), { clientPublicKey: bound.publicKey })
      const headers = retry(first, key)
      const before = await snapshot()
      const swapped = await server.call(
        "POST",
        exportPath(wallet.accountId),
        { clientPublicKey: exportKey().publicKey },
        { headers }
      )
      expectError(swapped, 401, "WALLET_SIGNATURE_BODY_MISMATCH")
      expect(swapped.headers.get("www-authenticate")).toBeNull()
      // The same key in other bytes (upper-case hex) is another body too: the retry resends the first body as is.
      const recased = await server.call(
        "POST",
        exportPath(wallet.accountId),
        { clientPublicKey: `04${bound.publicKey.slice(2).toUpperCase()}` },
        { headers }
      )
      expectError(recased, 401, "WALLET_SIGNATURE_BODY_MISMATCH")
      expect(await snapshot()).toEqual(before)
      // The refusals did not use the requestId: the bound key still gets its export.
      const done = await server.call(
        "POST",
        exportPath(wallet.accountId),
        { clientPublicKey: bound.publicKey },
        { headers }
      )
      expect(done.status).toBe(200)
      expect(validateMnemonic(await opened(done, bound.privateKey), wordlist)).toBe(true)
    })

    it("W-33, W-38: only a live session of this wallet signs its export; another action's requestId is foreign", async () => {
      const { key, ...wallet } = await signedInWallet()
      const other = await signedInWallet()
      const body = { clientPublicKey: exportKey().publicKey }
      const first = await server.call("POST", exportPath(wallet.accountId), body)
      const before = await snapshot()
      // A valid stamp by a session of another wallet, and by a key that never signed in.
      for (const signer of [other.key, sessionKey()]) {
        expectError(
          await server.call("POST", exportPath(wallet.accountId), body, { headers: retry(first, signer) }),
          401,
          "WALLET_SIGNATURE_INVALID"
        )
      }
      // The export's requestId does not authorize a privacy update of the same wallet, nor another wallet's export.
      const privacy = await server.call(
        "PATCH",
        accountPath(wallet.accountId),
        { privateEnabled: true },
        {
          headers: retry(first, key)
        }
      )
      expectError(privacy, 401, "UNAUTHORIZED")
      expectError(
        await server.call("POST", exportPath(other.accountId), body, { headers: retry(first, key) }),
        401,
        "UNAUTHORIZED"
      )
      expect(await snapshot()).toEqual(before)
    })

    it("W-33: 404 for an unknown account; 400 for an account that is not an embedded wallet or a key that is not an uncompressed P-256 point", async () => {
      const wallet = await signedInWallet()
      const before = await snapshot()
      const good = { clientPublicKey: exportKey().publicKey }
      expectError(await server.call("POST", exportPath(UNKNOWN_ACCOUNT), good), 404, "REFERENCE_NOT_FOUND")
      const accounts = await server.call("GET", `/customers/internal-accounts?customerId=${wallet.customerId}`)
      const usd = accounts.json.data.find((a: { type: string }) => a.type !== "EMBEDDED_WALLET")
      expectInvalid(await server.call("POST", exportPath(usd.id), good), ["path.accountId"])
      expectInvalid(await server.call("POST", exportPath("Customer:1"), good), ["path.accountId"])
      const compressed = sessionKey().publicKey
      // 04 and 128 hex digits, but not a point of the curve.
      const offCurve = `04${"11".repeat(64)}`
      for (const clientPublicKey of [compressed, offCurve, "", 42]) {
        expectInvalid(await server.call("POST", exportPath(wallet.accountId), { clientPublicKey }), ["clientPublicKey"])
      }
      expectInvalid(await server.call("POST", exportPath(wallet.accountId), {}), ["clientPublicKey"])
      expect(await snapshot()).toEqual(before)
    })
  })

  describe("200 PROCESSING: a vault that is not done yet", () => {
    it("W-39, W-40, W-41: PROCESSING, the identical resend PROCESSING again, then the credentials, then 401; another stamp is 401", async () => {
      const { key, ...wallet } = await signedInWallet()
      const second = await signIn(wallet.emailCredentialId)
      const target = exportKey()
      const body = { clientPublicKey: target.publicKey }
      const path = exportPath(wallet.accountId)
      const first = await server.call("POST", path, body)
      expect(first.status).toBe(202)
      const headers = retry(first, key)
      vault.defer(2)

      const processing = await server.call("POST", path, body, { headers })
      expect(processing.status).toBe(200)
      expect(processing.json).toEqual({ status: "PROCESSING", message: DEFERRED_VAULT_MESSAGE })
      const row = await signedRequest(first.json.requestId)
      expect(row).toMatchObject({ status: "PROCESSING", stampSha256: expect.stringMatching(/^[0-9a-f]{64}$/) })
      // The identical resend asks the vault again.
      const still = await server.call("POST", path, body, { headers })
      expect(still.status).toBe(200)
      expect(still.json).toEqual({ status: "PROCESSING", message: DEFERRED_VAULT_MESSAGE })
      expect(vault.remaining()).toBe(0)

      // Another stamp of the same payload, valid for this wallet, does not take over a PROCESSING request: by
      // another live session, and by the same key with a fresh nonce (as a Web Crypto signer makes it).
      const hedged = key.stamp(first.json.payloadToSign, { hedged: true })
      expect(hedged).not.toBe(headers["service-wallet-signature"])
      const before = await snapshot()
      for (const stamp of [retry(first, second.key)["service-wallet-signature"], hedged]) {
        const r = await server.call("POST", path, body, {
          headers: { ...headers, "service-wallet-signature": stamp }
        })
        expectError(r, 401, "UNAUTHORIZED")
      }
      // Nor does the same stamp with another body.
      expectError(
        await server.call("POST", path, { clientPublicKey: exportKey().publicKey }, { headers }),
        401,
        "WALLET_SIGNATURE_BODY_MISMATCH"
      )
      expect(await snapshot()).toEqual(before)

      // W-40: for export the 200 that settles is the credentials; the body's status tells the two apart.
      const done = await server.call("POST", path, body, { headers })
      expect(done.status).toBe(200)
      expect(done.json.status).toBeUndefined()
      expect(done.json).toEqual({ id: wallet.accountId, encryptedWalletCredentials: expect.any(String) })
      expect(validateMnemonic(await opened(done, target.privateKey), wordlist)).toBe(true)
      expect((await signedRequest(first.json.requestId))?.status).toBe("CONSUMED")
      // W-41: settled and never stored; the same resend once more is refused.
      expectError(await server.call("POST", path, body, { headers }), 401, "UNAUTHORIZED")
    })

    it("W-41, L-08: a PROCESSING export whose requestId lapsed is 401; a new export gets the credentials", async () => {
      const { key, ...wallet } = await signedInWallet()
      const target = exportKey()
      const body = { clientPublicKey: target.publicKey }
      const path = exportPath(wallet.accountId)
      const first = await server.call("POST", path, body)
      const headers = retry(first, key)
      vault.defer(1)
      expect((await server.call("POST", path, body, { headers })).json.status).toBe("PROCESSING")
      await expire(first.json.requestId)
      expectError(await server.call("POST", path, body, { headers }), 401, "UNAUTHORIZED")
      const { first: again, done } = await signedCall("POST", path, body, key)
      expect(again.json.requestId).not.toBe(first.json.requestId)
      expect(done.status).toBe(200)
      expect(validateMnemonic(await opened(done, target.privateKey), wordlist)).toBe(true)
    })
  })

  describe("privacy", () => {
    it("W-34, AC-01, W-35: PATCH {privateEnabled} by a signed retry: 202, then 200 the internal account with it", async () => {
      const { key, ...wallet } = await signedInWallet()
      const path = accountPath(wallet.accountId)
      const listed = async () => {
        const r = await server.call("GET", `/customers/internal-accounts?customerId=${wallet.customerId}`)
        return r.json.data.find((a: { id: string }) => a.id === wallet.accountId)
      }
      const before = await listed()
      expect(before.privateEnabled).toBe(false)

      const first = await server.call("PATCH", path, { privateEnabled: true })
      expect(first.status, JSON.stringify(first.json)).toBe(202)
      expect(JSON.parse(first.json.payloadToSign)).toMatchObject({
        type: "WALLET_UPDATE_PRIVACY",
        accountId: wallet.accountId,
        parameters: { privateEnabled: "true" }
      })
      // Nothing changes before the signed retry; the retry's body is the one bound.
      expect((await listed()).privateEnabled).toBe(false)
      expectError(
        await server.call("PATCH", path, { privateEnabled: false }, { headers: retry(first, key) }),
        401,
        "WALLET_SIGNATURE_BODY_MISMATCH"
      )
      const done = await server.call("PATCH", path, { privateEnabled: true }, { headers: retry(first, key) })
      expect(done.status, JSON.stringify(done.json)).toBe(200)
      expect(done.json).toEqual({
        ...before,
        privateEnabled: true,
        updatedAt: expect.any(String)
      })
      expect(Date.parse(done.json.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt))
      expect(await listed()).toEqual(done.json)
      // Used once.
      expectError(
        await server.call("PATCH", path, { privateEnabled: true }, { headers: retry(first, key) }),
        401,
        "UNAUTHORIZED"
      )

      // And off again.
      const { done: offDone } = await signedCall("PATCH", path, { privateEnabled: false }, key)
      expect(offDone.status).toBe(200)
      expect(offDone.json.privateEnabled).toBe(false)
      expect((await listed()).privateEnabled).toBe(false)
    })

    it("W-34: 400 for an account that is not an embedded wallet or a body without privateEnabled; 404 unknown; nothing changes", async () => {
      const wallet = await signedInWallet()
      const before = await snapshot()
      expectError(
        await server.call("PATCH", accountPath(UNKNOWN_ACCOUNT), { privateEnabled: true }),
        404,
        "REFERENCE_NOT_FOUND"
      )
      const accounts = await server.call("GET", `/customers/internal-accounts?customerId=${wallet.customerId}`)
      const usd = accounts.json.data.find((a: { type: string }) => a.type !== "EMBEDDED_WALLET")
      expectInvalid(await server.call("PATCH", accountPath(usd.id), { privateEnabled: true }), ["path.accountId"])
      for (const body of [{}, { privateEnabled: "true" }, { privateEnabled: null }]) {
        expectInvalid(await server.call("PATCH", accountPath(wallet.accountId), body), ["privateEnabled"])
      }
      expect(await snapshot()).toEqual(before)
    })

    it("W-34, W-08: a wallet no session of which is live cannot change its privacy", async () => {
      const wallet = await newWallet()
      const first = await server.call("PATCH", accountPath(wallet.accountId), { privateEnabled: true })
      expect(first.status).toBe(202)
      expectError(
        await server.call(
          "PATCH",
          accountPath(wallet.accountId),
          { privateEnabled: true },
          {
            headers: retry(first, sessionKey())
          }
        ),
        401,
        "WALLET_SIGNATURE_INVALID"
      )
    })
  })
}

onEveryStore("embedded-wallet export and privacy", "wallet_export_http", exportSuite)
