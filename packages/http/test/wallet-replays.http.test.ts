/**
 * Issue 31, embedded-wallet details: the replay of every signed-retry action meets its spent `requestId` first (W-38:
 * 401 `UNAUTHORIZED` before any check of the action, and nothing changes), a passkey assertion's `userHandle: null`
 * reads as absent (W-22), and a 400 on a body discriminated by `type` names the fields of the member its `type`
 * selects.
 */
import { cardFundingSourcesRegistry } from "@paycore/testkit"
import { type SessionKey, sessionKey, softwareAuthenticator } from "@paycore/testkit/wallet-client"
import { describe, expect, it } from "vitest"
import { type CallResult, expectError, expectInvalid, useTestServer } from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"
import { freshEmail, retry, type SignedInWallet, walletKit } from "./wallet-kit.ts"

const registrationChallenge = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")

const replaySuite = (stores: () => StoresUnderTest) => {
  const cards = cardFundingSourcesRegistry()
  const server = useTestServer(
    async (s) => {
      expect((await s.call("PATCH", "/config", { supportedCurrencies: ["USD", "USDB"] })).status).toBe(200)
    },
    { ...stores(), extraLayer: cards.layer }
  )
  const { signedInWallet, signIn, otpSignIn, signedCall, snapshot } = walletKit(server)

  /**
   * Sends the done signed retry (`method`, `path`, `body`, the headers of its last leg) again: 401 `UNAUTHORIZED`
   * (W-38), whatever state the action left, and the store is as it was.
   */
  const expectReplayRefused = async (method: string, path: string, body: unknown, headers: Record<string, string>) => {
    const before = await snapshot()
    expectError(await server.call(method, path, body, { headers }), 401, "UNAUTHORIZED")
    expect(await snapshot()).toEqual(before)
  }

  /** The signed retry of `path` done by `key` (its answer `status`), then its replay. */
  const doneThenReplayed = async (
    method: string,
    path: string,
    body: unknown,
    key: SessionKey,
    status: number
  ): Promise<CallResult> => {
    const { first, done } = await signedCall(method, path, body, key)
    expect(done.status, JSON.stringify(done.json)).toBe(status)
    await expectReplayRefused(method, path, body, retry(first, key))
    return done
  }

  /** A passkey registered on `w` by a signed retry, and its authenticator. */
  const addPasskey = async (w: SignedInWallet) => {
    const authenticator = softwareAuthenticator({
      rpId: "localhost",
      origin: "http://localhost:5173",
      format: "packed"
    })
    const challenge = registrationChallenge()
    const body = {
      type: "PASSKEY",
      accountId: w.accountId,
      nickname: "Laptop",
      challenge,
      attestation: await authenticator.register(challenge)
    }
    return { authenticator, body }
  }

  describe("W-38: the replay of each signed-retry action is 401 UNAUTHORIZED and changes nothing", () => {
    it("W-05, W-08, W-10, W-38: adding a passkey (not 400 PASSKEY_CREDENTIAL_ALREADY_EXISTS)", async () => {
      const w = await signedInWallet()
      const { body } = await addPasskey(w)
      await doneThenReplayed("POST", "/auth/credentials", body, w.key, 201)
      // Without the spent requestId, the same passkey again is still W-10's 400.
      expectError(await server.call("POST", "/auth/credentials", body), 400, "PASSKEY_CREDENTIAL_ALREADY_EXISTS")
    })

    it("W-07, W-09, W-38: re-adding an OTP credential (not 400 SMS_OTP_CREDENTIAL_ALREADY_EXISTS)", async () => {
      const w = await signedInWallet({ phoneNumber: "+14155550142" })
      await doneThenReplayed("POST", "/auth/credentials", { type: "SMS_OTP", accountId: w.accountId }, w.key, 201)
    })

    it("W-27, W-38: revoking a credential (not 404)", async () => {
      const w = await signedInWallet()
      const { body } = await addPasskey(w)
      const { done: passkey } = await signedCall("POST", "/auth/credentials", body, w.key)
      expect(passkey.status).toBe(201)
      await doneThenReplayed("DELETE", `/auth/credentials/${passkey.json.id}`, undefined, w.key, 204)
    })

    it("W-31, W-38: refreshing a session (not 404 for the refreshed session)", async () => {
      const w = await signedInWallet()
      const body = { clientPublicKey: sessionKey().publicKey }
      await doneThenReplayed("POST", `/auth/sessions/${w.session.id}/refresh`, body, w.key, 201)
    })

    it("W-32, W-38: revoking a session (not 404 for the revoked session)", async () => {
      const w = await signedInWallet()
      await doneThenReplayed("DELETE", `/auth/sessions/${w.session.id}`, undefined, w.key, 204)
    })

    it("W-17, W-38: verifying an OTP sign-in", async () => {
      const w = await signedInWallet()
      const key = sessionKey()
      const { first, body } = await otpSignIn(w.emailCredentialId, key)
      const path = `/auth/credentials/${w.emailCredentialId}/verify`
      const done = await server.call("POST", path, body, { headers: retry(first, key) })
      expect(done.status, JSON.stringify(done.json)).toBe(200)
      await expectReplayRefused("POST", path, body, retry(first, key))
    })

    it("W-33, W-34, W-38: exporting the wallet and switching its privacy", async () => {
      const w = await signedInWallet()
      const exportKey = sessionKey({ legacy: true })
      await doneThenReplayed(
        "POST",
        `/internal-accounts/${w.accountId}/export`,
        { clientPublicKey: exportKey.publicKey },
        w.key,
        200
      )
      await doneThenReplayed("PATCH", `/internal-accounts/${w.accountId}`, { privateEnabled: true }, w.key, 200)
    })

    it("W-42, W-45, W-38: each leg of a delegated key (the third's replay is not 409 for the ACTIVE key)", async () => {
      const w = await signedInWallet({ currencies: ["USD", "USDB"] })
      const source = cards.register({ internalAccountId: w.accountId })
      const body = { cardId: source.cardId, internalAccountId: w.accountId, nickname: "Card payments key" }
      const { first, done: second } = await signedCall("POST", "/auth/delegated-keys", body, w.key)
      expect(second.status, JSON.stringify(second.json)).toBe(202)
      await expectReplayRefused("POST", "/auth/delegated-keys", body, retry(first, w.key))
      const third = await server.call("POST", "/auth/delegated-keys", body, { headers: retry(second, w.key) })
      expect(third.status, JSON.stringify(third.json)).toBe(201)
      await expectReplayRefused("POST", "/auth/delegated-keys", body, retry(second, w.key))
    })

    it("CU-16, W-38: changing the customer's email with a tied credential (not 200 as a change of nothing)", async () => {
      const w = await signedInWallet()
      const body = { customerType: "INDIVIDUAL", email: freshEmail() }
      await doneThenReplayed("PATCH", `/customers/${w.customerId}`, body, w.key, 200)
    })

    it("W-22, W-38: a passkey sign-in's used Request-Id is 401 before its credential is read (revoked: not 404)", async () => {
      const w = await signedInWallet()
      const { authenticator, body } = await addPasskey(w)
      const { done: passkey } = await signedCall("POST", "/auth/credentials", body, w.key)
      const challenge = await server.call("POST", `/auth/credentials/${passkey.json.id}/challenge`, {
        clientPublicKey: sessionKey().publicKey
      })
      const verify = { type: "PASSKEY", assertion: await authenticator.assert(challenge.json.challenge) }
      const path = `/auth/credentials/${passkey.json.id}/verify`
      const headers = { "request-id": challenge.json.requestId }
      expect((await server.call("POST", path, verify, { headers })).status).toBe(200)
      const { done: revoked } = await signedCall("DELETE", `/auth/credentials/${passkey.json.id}`, undefined, w.key)
      expect(revoked.status).toBe(204)
      await expectReplayRefused("POST", path, verify, headers)
    })
  })

  it("W-22: an assertion's userHandle null reads as absent: the sign-in succeeds", async () => {
    const w = await signedInWallet()
    const { authenticator, body } = await addPasskey(w)
    const { done: passkey } = await signedCall("POST", "/auth/credentials", body, w.key)
    expect(passkey.status).toBe(201)
    const challenge = await server.call("POST", `/auth/credentials/${passkey.json.id}/challenge`, {
      clientPublicKey: sessionKey().publicKey
    })
    const assertion = { ...(await authenticator.assert(challenge.json.challenge)), userHandle: null }
    const session = await server.call(
      "POST",
      `/auth/credentials/${passkey.json.id}/verify`,
      { type: "PASSKEY", assertion },
      { headers: { "request-id": challenge.json.requestId } }
    )
    expect(session.status, JSON.stringify(session.json)).toBe(200)
    expect(session.json).toMatchObject({ type: "PASSKEY", credentialId: passkey.json.id })
  })

  it("issue 31: a 400 on a body discriminated by type names the fields of the member its type selects", async () => {
    const w = await signedInWallet()
    const create = (body: object) => server.call("POST", "/auth/credentials", { accountId: w.accountId, ...body })
    expectInvalid(await create({ type: "PASSKEY" }), ["nickname", "challenge", "attestation"])
    expectInvalid(await create({ type: "OAUTH" }), ["oidcToken"])
    const verify = (body: object) => server.call("POST", `/auth/credentials/${w.emailCredentialId}/verify`, body)
    expectInvalid(await verify({ type: "OAUTH" }), ["oidcToken", "clientPublicKey"])
    expectInvalid(await verify({ type: "SMS_OTP" }), ["encryptedOtpBundle"])
    expectInvalid(await verify({ type: "PASSKEY", assertion: {} }), [
      "assertion.credentialId",
      "assertion.clientDataJson",
      "assertion.authenticatorData",
      "assertion.signature"
    ])
    // A type no member has still names the type and its values.
    const unknown = await verify({ type: "PIN" })
    expectInvalid(unknown, ["type"])
    expect(unknown.json.details.errors[0].constraint.enum).toEqual(["EMAIL_OTP", "SMS_OTP", "OAUTH", "PASSKEY"])
    // signIn is still the kit's: the wallet signs in as before.
    await signIn(w.emailCredentialId)
  })
}

onEveryStore("embedded-wallet replays and bodies (issue 31)", "wallet_replays_http", replaySuite)
