import {
  oidcIssuer,
  openSessionSigningKey,
  type SessionKey,
  sealOtpBundle,
  sessionKey,
  sessionKeyFrom,
  softwareAuthenticator
} from "@paycore/testkit/wallet-client"
import { Effect } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type CallResult, consent, expectError, expectInvalid, UUID, useTestServer } from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"
import { retry, SANDBOX_OTP, walletKit } from "./wallet-kit.ts"

const REQUEST_ID = new RegExp(`^Request:${UUID}$`)

const walletSuite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(async (s) => {
    const r = await s.call("PATCH", "/config", { supportedCurrencies: ["USD", "USDC", "USDB"] })
    expect(r.status).toBe(200)
  }, stores())
  const { newWallet, otpSignIn, signIn, snapshot, expire } = walletKit(server)

  describe("the embedded wallet and its first credential", () => {
    it("W-01, W-04, AC-01, AC-02, W-11: a USDB platform's customer gets an EMBEDDED_WALLET with one EMAIL_OTP credential", async () => {
      const w = await newWallet()
      const account = await server.call("GET", `/customers/internal-accounts?customerId=${w.customerId}`)
      const wallet = account.json.data.find((a: { type: string }) => a.type === "EMBEDDED_WALLET")
      expect(wallet).toMatchObject({ status: "ACTIVE", privateEnabled: false, balance: { currency: { code: "USDB" } } })
      const list = await server.call("GET", `/auth/credentials?accountId=${w.accountId}`)
      expect(list.status).toBe(200)
      expect(list.json).toEqual({
        data: [
          {
            id: expect.stringMatching(new RegExp(`^AuthMethod:${UUID}$`)),
            accountId: w.accountId,
            type: "EMAIL_OTP",
            nickname: w.email,
            createdAt: expect.any(String),
            updatedAt: expect.any(String)
          }
        ]
      })
    })

    it("W-11: an unknown account has no credentials; a missing or malformed accountId is 400", async () => {
      const unknown = await server.call(
        "GET",
        "/auth/credentials?accountId=InternalAccount:01234567-89ab-7def-8123-456789abcdef"
      )
      expect(unknown.json).toEqual({ data: [] })
      expectInvalid(await server.call("GET", "/auth/credentials"), ["query.accountId"])
      expectInvalid(await server.call("GET", "/auth/credentials?accountId=Customer:1"), ["query.accountId"])
    })
  })

  describe("email OTP sign-in and the signed retry", () => {
    it("W-13, W-17, W-18, W-25, SB-11, W-30: the sandbox code 000000 in a real HPKE bundle opens a session", async () => {
      const w = await newWallet()
      const { session, key } = await signIn(w.emailCredentialId)
      expect(session).toEqual({
        id: expect.stringMatching(new RegExp(`^Session:${UUID}$`)),
        accountId: w.accountId,
        type: "EMAIL_OTP",
        credentialId: w.emailCredentialId,
        nickname: w.email,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        expiresAt: expect.any(String)
      })
      expect(Date.parse(session.expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000)
      const sessions = await server.call("GET", `/auth/sessions?accountId=${w.accountId}`)
      expect(sessions.json.data.map((s: { id: string }) => s.id)).toEqual([session.id])
      expect(key.publicKey).toMatch(/^0[23]/)
    })

    it("W-35, W-37: the 202 binds a requestId, a 5-minute expiry and an exact payload", async () => {
      const w = await newWallet()
      const { first } = await otpSignIn(w.emailCredentialId)
      expect(first.status).toBe(202)
      expect(first.json).toEqual({
        type: "EMAIL_OTP",
        payloadToSign: expect.any(String),
        requestId: expect.stringMatching(REQUEST_ID),
        expiresAt: expect.any(String)
      })
      const lifetime = Date.parse(first.json.expiresAt) - Date.now()
      expect(lifetime).toBeGreaterThan(4 * 60_000)
      expect(lifetime).toBeLessThanOrEqual(5 * 60_000)
      const payload = JSON.parse(first.json.payloadToSign)
      expect(payload).toMatchObject({
        type: "WALLET_VERIFY_OTP",
        requestId: first.json.requestId,
        accountId: w.accountId
      })
    })

    it("W-37, W-38: each refusal of the retry has its code and changes nothing", async () => {
      const w = await newWallet()
      const { first, body, key } = await otpSignIn(w.emailCredentialId)
      const path = `/auth/credentials/${w.emailCredentialId}/verify`
      const good = retry(first, key)
      const before = await snapshot()
      const cases: Array<[Record<string, string>, unknown, string]> = [
        [{ "request-id": good["request-id"] }, body, "WALLET_SIGNATURE_MISSING"],
        [{ "service-wallet-signature": good["service-wallet-signature"] }, body, "REQUEST_ID_MISSING"],
        [{ ...good, "service-wallet-signature": "not-a-stamp" }, body, "WALLET_SIGNATURE_MALFORMED"],
        [
          { ...good, "service-wallet-signature": Buffer.from("{}").toString("base64url") },
          body,
          "WALLET_SIGNATURE_MALFORMED"
        ],
        [{ ...good, "request-id": `Request:${crypto.randomUUID()}` }, body, "UNAUTHORIZED"],
        [good, { ...body, encryptedOtpBundle: `${body.encryptedOtpBundle} ` }, "WALLET_SIGNATURE_BODY_MISMATCH"],
        // A valid stamp by another key than the one sealed with the code.
        [
          { ...good, "service-wallet-signature": sessionKey().stamp(first.json.payloadToSign) },
          body,
          "WALLET_SIGNATURE_INVALID"
        ],
        // The right key over another payload.
        [
          { ...good, "service-wallet-signature": key.stamp(`${first.json.payloadToSign} `) },
          body,
          "WALLET_SIGNATURE_INVALID"
        ]
      ]
      for (const [headers, sent, code] of cases) {
        const r = await server.call("POST", path, sent, { headers })
        expectError(r, 401, code)
        expect(r.headers.get("www-authenticate")).toBeNull()
      }
      expect(await snapshot()).toEqual(before)
      // Refusals did not consume the requestId: the good retry still works, once.
      expect((await server.call("POST", path, body, { headers: good })).status).toBe(200)
      expectError(await server.call("POST", path, body, { headers: good }), 401, "UNAUTHORIZED")
    })

    it("W-38, L-08: an expired requestId and one issued for another credential are 401 UNAUTHORIZED", async () => {
      const w = await newWallet()
      const other = await newWallet()
      const a = await otpSignIn(w.emailCredentialId)
      const b = await otpSignIn(other.emailCredentialId)
      // Foreign: b's requestId and stamp on a's credential.
      const foreign = await server.call("POST", `/auth/credentials/${w.emailCredentialId}/verify`, a.body, {
        headers: retry(b.first, b.key)
      })
      expectError(foreign, 401, "UNAUTHORIZED")
      await expire(a.first.json.requestId)
      const late = await server.call("POST", `/auth/credentials/${w.emailCredentialId}/verify`, a.body, {
        headers: retry(a.first, a.key)
      })
      expectError(late, 401, "UNAUTHORIZED")
      const sessions = await server.call("GET", `/auth/sessions?accountId=${w.accountId}`)
      expect(sessions.json.data).toEqual([])
    })

    it("C-09, W-38, W-39: an Idempotency-Key replays a first leg's 202 but never stands in for the signed retry", async () => {
      const w = await newWallet()
      const challenge = await server.call("POST", `/auth/credentials/${w.emailCredentialId}/challenge`)
      const key = sessionKey()
      const body = {
        type: "EMAIL_OTP",
        encryptedOtpBundle: await sealOtpBundle(challenge.json.otpEncryptionTargetBundle, SANDBOX_OTP, key.publicKey)
      }
      const path = `/auth/credentials/${w.emailCredentialId}/verify`
      const idempotency = { "idempotency-key": `wallet-${crypto.randomUUID()}` }
      const first = await server.call("POST", path, body, { headers: idempotency })
      expect(first.status).toBe(202)
      const again = await server.call("POST", path, body, { headers: idempotency })
      expect(again.json.requestId).toBe(first.json.requestId)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      const done = await server.call("POST", path, body, { headers: { ...idempotency, ...retry(first, key) } })
      expect(done.status, JSON.stringify(done.json)).toBe(200)
      expect(done.json.id).toMatch(/^Session:/)
      // The used requestId stays used: the key does not replay the session.
      expectError(
        await server.call("POST", path, body, { headers: { ...idempotency, ...retry(first, key) } }),
        401,
        "UNAUTHORIZED"
      )
    })

    it("W-38: retries racing with one requestId give one effect (one 200, the others 401, one session)", async () => {
      const w = await newWallet()
      const { first, body, key } = await otpSignIn(w.emailCredentialId)
      const headers = retry(first, key)
      const path = `/auth/credentials/${w.emailCredentialId}/verify`
      const answers = await Promise.all([1, 2, 3, 4].map(() => server.call("POST", path, body, { headers })))
      expect(answers.map((r) => r.status).sort()).toEqual([200, 401, 401, 401])
      for (const r of answers.filter((a) => a.status === 401)) expect(r.json.code).toBe("UNAUTHORIZED")
      const sessions = await server.call("GET", `/auth/sessions?accountId=${w.accountId}`)
      expect(sessions.json.data).toHaveLength(1)
    })

    it("W-37: any character changed in the stamp or the body of a retry is refused and changes nothing (property)", async () => {
      const w = await newWallet()
      const { session, key } = await signIn(w.emailCredentialId)
      const body = JSON.stringify({ clientPublicKey: sessionKey().publicKey })
      const path = `/auth/sessions/${session.id}/refresh`
      const first = await server.call("POST", path, body)
      expect(first.status).toBe(202)
      const headers = retry(first, key)
      const stamp = headers["service-wallet-signature"]
      const before = await snapshot()
      const change = (text: string, at: number, by: number) => {
        const i = at % text.length
        const c = text.charCodeAt(i)
        // Another printable ASCII character at that place.
        return text.slice(0, i) + String.fromCharCode(32 + ((c - 32 + by) % 95)) + text.slice(i + 1)
      }
      await fc.assert(
        fc.asyncProperty(fc.boolean(), fc.nat(), fc.integer({ min: 1, max: 94 }), async (inStamp, at, by) => {
          const r = inStamp
            ? await server.call("POST", path, body, {
                headers: { ...headers, "service-wallet-signature": change(stamp, at, by) }
              })
            : await server.call("POST", path, change(body, at, by), { headers })
          expect([400, 401]).toContain(r.status)
        }),
        { numRuns: 25, seed: 20261125 }
      )
      expect(await snapshot()).toEqual(before)
      expect((await server.call("POST", path, body, { headers })).status).toBe(201)
    })

    it("W-24: a wrong code is 401 and counted; after five the right code no longer opens the challenge", async () => {
      const w = await newWallet()
      const challenge = await server.call("POST", `/auth/credentials/${w.emailCredentialId}/challenge`)
      const target = challenge.json.otpEncryptionTargetBundle
      const key = sessionKey()
      const verify = async (code: string) =>
        server.call("POST", `/auth/credentials/${w.emailCredentialId}/verify`, {
          type: "EMAIL_OTP",
          encryptedOtpBundle: await sealOtpBundle(target, code, key.publicKey)
        })
      for (let i = 0; i < 5; i++) expectError(await verify("111111"), 401, "UNAUTHORIZED")
      expectError(await verify(SANDBOX_OTP), 401, "UNAUTHORIZED")
      // A bundle sealed to another target does not open.
      const other = await server.call("POST", `/auth/credentials/${(await newWallet()).emailCredentialId}/challenge`)
      expectError(
        await server.call("POST", `/auth/credentials/${w.emailCredentialId}/verify`, {
          type: "EMAIL_OTP",
          encryptedOtpBundle: await sealOtpBundle(other.json.otpEncryptionTargetBundle, SANDBOX_OTP, key.publicKey)
        }),
        401,
        "UNAUTHORIZED"
      )
    })

    it("W-15, L-14: a second challenge within a minute is 429 with Retry-After", async () => {
      const w = await newWallet()
      expect((await server.call("POST", `/auth/credentials/${w.emailCredentialId}/challenge`)).status).toBe(200)
      const again = await server.call("POST", `/auth/credentials/${w.emailCredentialId}/challenge`)
      expectError(again, 429, "RATE_LIMITED")
      const wait = Number(again.headers.get("retry-after"))
      expect(wait).toBeGreaterThan(0)
      expect(wait).toBeLessThanOrEqual(60)
    })
  })

  describe("secrets", () => {
    it("no stamp, bundle, token, session key or code reaches a log during the wallet flows", async () => {
      const written: Array<string> = []
      const capture = (stream: NodeJS.WriteStream) => {
        const original = stream.write.bind(stream)
        stream.write = ((chunk: unknown, ...rest: Array<unknown>) => {
          written.push(String(chunk))
          return (original as (...args: Array<unknown>) => boolean)(chunk, ...rest)
        }) as typeof stream.write
        return () => {
          stream.write = original as typeof stream.write
        }
      }
      const restore = [capture(process.stdout), capture(process.stderr)]
      const secrets: Array<string> = []
      try {
        const w = await newWallet()
        const { first, body, key } = await otpSignIn(w.emailCredentialId)
        const stamp = retry(first, key)["service-wallet-signature"]
        secrets.push(stamp, body.encryptedOtpBundle, Buffer.from(key.privateKey).toString("hex"))
        // Refused and accepted retries alike.
        await server.call("POST", `/auth/credentials/${w.emailCredentialId}/verify`, body, {
          headers: { "request-id": first.json.requestId, "service-wallet-signature": `${stamp}x` }
        })
        await server.call("POST", `/auth/credentials/${w.emailCredentialId}/verify`, body, {
          headers: retry(first, key)
        })
        const issuer = await oidcIssuer({ iss: "https://accounts.example", aud: "paycore-app" })
        const token = issuer.mintUnsigned({ sub: "logged?" })
        secrets.push(token)
        await server.call("POST", "/auth/credentials", { type: "OAUTH", accountId: w.accountId, oidcToken: token })
      } finally {
        for (const undo of restore) undo()
      }
      const log = written.join("")
      for (const secret of secrets) expect(log.includes(secret), "a secret was logged").toBe(false)
    })
  })

  describe("sessions", () => {
    it("W-31: refresh is signed by the session itself and answers 201 with a new session", async () => {
      const w = await newWallet()
      const { session, key } = await signIn(w.emailCredentialId)
      const next = sessionKey()
      const body = { clientPublicKey: next.publicKey }
      const path = `/auth/sessions/${session.id}/refresh`
      const first = await server.call("POST", path, body)
      expect(first.status).toBe(202)
      // Another session of the same wallet may not refresh this one.
      const other = await signIn(w.emailCredentialId)
      expectError(
        await server.call("POST", path, body, { headers: retry(first, other.key) }),
        401,
        "WALLET_SIGNATURE_INVALID"
      )
      const done = await server.call("POST", path, body, { headers: retry(first, key) })
      expect(done.status, JSON.stringify(done.json)).toBe(201)
      expect(done.json.id).not.toBe(session.id)
      const live = (await server.call("GET", `/auth/sessions?accountId=${w.accountId}`)).json.data.map(
        (s: { id: string }) => s.id
      )
      expect(live).toContain(done.json.id)
      expect(live).not.toContain(session.id)
    })

    it("W-02, W-31: an expired session leaves the list, cannot be refreshed (401) and its key stamps nothing", async () => {
      const w = await newWallet()
      const old = await signIn(w.emailCredentialId)
      const row = await Effect.runPromise(server.store.walletSessions.get(old.session.id))
      await Effect.runPromise(server.store.walletSessions.update({ ...row!, expiresAt: "2020-01-01T00:00:00.000Z" }))
      const fresh = await signIn(w.emailCredentialId)
      const live = (await server.call("GET", `/auth/sessions?accountId=${w.accountId}`)).json.data
      expect(live.map((s: { id: string }) => s.id)).toEqual([fresh.session.id])
      const refresh = await server.call("POST", `/auth/sessions/${old.session.id}/refresh`, {
        clientPublicKey: sessionKey().publicKey
      })
      expectError(refresh, 401, "UNAUTHORIZED")
      const revoke = await server.call("DELETE", `/auth/sessions/${fresh.session.id}`)
      expect(revoke.status).toBe(202)
      expectError(
        await server.call("DELETE", `/auth/sessions/${fresh.session.id}`, undefined, {
          headers: retry(revoke, old.key)
        }),
        401,
        "WALLET_SIGNATURE_INVALID"
      )
    })

    it("W-37: a key stamps for one live session: signing in again with it replaces the session; another wallet's is 400", async () => {
      const w = await newWallet()
      const first = await signIn(w.emailCredentialId)
      const again = await signIn(w.emailCredentialId, first.key)
      const live = (await server.call("GET", `/auth/sessions?accountId=${w.accountId}`)).json.data
      expect(live.map((s: { id: string }) => s.id)).toEqual([again.session.id])
      const other = await newWallet()
      const { first: leg, body } = await otpSignIn(other.emailCredentialId, first.key)
      const taken = await server.call("POST", `/auth/credentials/${other.emailCredentialId}/verify`, body, {
        headers: retry(leg, first.key)
      })
      expectInvalid(taken, ["clientPublicKey"])
      expect((await server.call("GET", `/auth/sessions?accountId=${other.accountId}`)).json.data).toEqual([])
    })

    it("W-32: revoke is signed by any live session, itself included; a repeat is 404", async () => {
      const w = await newWallet()
      const { session, key } = await signIn(w.emailCredentialId)
      const path = `/auth/sessions/${session.id}`
      const first = await server.call("DELETE", path)
      expect(first.status).toBe(202)
      const done = await server.call("DELETE", path, undefined, { headers: retry(first, key) })
      expect(done.status).toBe(204)
      expect((await server.call("GET", `/auth/sessions?accountId=${w.accountId}`)).json.data).toEqual([])
      expectError(await server.call("DELETE", path), 404, "REFERENCE_NOT_FOUND")
      // Its key signs nothing any more.
      const again = await signIn(w.emailCredentialId)
      const refresh = await server.call("POST", `/auth/sessions/${again.session.id}/refresh`, {
        clientPublicKey: sessionKey().publicKey
      })
      expectError(
        await server.call(
          "POST",
          `/auth/sessions/${again.session.id}/refresh`,
          { clientPublicKey: sessionKey().publicKey },
          {
            headers: retry(refresh, key)
          }
        ),
        401,
        "WALLET_SIGNATURE_BODY_MISMATCH"
      )
    })
  })

  describe("adding and revoking credentials", () => {
    it("C-32, W-05, W-08, W-12, W-22, W-23: a passkey is added by a signed retry and signs in with a real assertion", async () => {
      const w = await newWallet()
      const { key } = await signIn(w.emailCredentialId)
      const authenticator = softwareAuthenticator({
        rpId: "localhost",
        origin: "http://localhost:5173",
        format: "packed"
      })
      const registrationChallenge = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")
      const body = {
        type: "PASSKEY",
        accountId: w.accountId,
        nickname: "Laptop",
        challenge: registrationChallenge,
        attestation: await authenticator.register(registrationChallenge)
      }
      const first = await server.call("POST", "/auth/credentials", body)
      expect(first.status, JSON.stringify(first.json)).toBe(202)
      expect(first.json.type).toBe("PASSKEY")
      const added = await server.call("POST", "/auth/credentials", body, { headers: retry(first, key) })
      expect(added.status, JSON.stringify(added.json)).toBe(201)
      expect(added.json).toMatchObject({
        type: "PASSKEY",
        nickname: "Laptop",
        credentialId: authenticator.credentialId
      })
      // W-10: the same passkey twice.
      expectError(await server.call("POST", "/auth/credentials", body), 400, "PASSKEY_CREDENTIAL_ALREADY_EXISTS")

      const client = sessionKey()
      const challenge = await server.call("POST", `/auth/credentials/${added.json.id}/challenge`, {
        clientPublicKey: client.publicKey
      })
      expect(challenge.status, JSON.stringify(challenge.json)).toBe(200)
      expect(challenge.json.challenge).toMatch(/^[0-9a-f]{64}$/)
      const assertion = await authenticator.assert(challenge.json.challenge)
      const verifyPath = `/auth/credentials/${added.json.id}/verify`
      expectError(await server.call("POST", verifyPath, { type: "PASSKEY", assertion }), 401, "UNAUTHORIZED")
      const session = await server.call(
        "POST",
        verifyPath,
        { type: "PASSKEY", assertion },
        {
          headers: { "request-id": challenge.json.requestId }
        }
      )
      expect(session.status, JSON.stringify(session.json)).toBe(200)
      expect(session.json).toMatchObject({ type: "PASSKEY", credentialId: added.json.id })
      expect(session.json.encryptedSessionSigningKey).toBeUndefined()
      // The challenge is used: the same assertion again is refused.
      expectError(
        await server.call(
          "POST",
          verifyPath,
          { type: "PASSKEY", assertion },
          {
            headers: { "request-id": challenge.json.requestId }
          }
        ),
        401,
        "UNAUTHORIZED"
      )
      // The session's key stamps the wallet's actions.
      const revokeFirst = await server.call("DELETE", `/auth/sessions/${session.json.id}`)
      const revoked = await server.call("DELETE", `/auth/sessions/${session.json.id}`, undefined, {
        headers: retry(revokeFirst, client)
      })
      expect(revoked.status).toBe(204)
    })

    it("W-05: a registration with another origin, rpId or challenge, or without user presence, is 400", async () => {
      const w = await newWallet()
      await signIn(w.emailCredentialId)
      const authenticator = softwareAuthenticator({ rpId: "localhost", origin: "http://localhost" })
      const challenge = Buffer.from("registration-challenge").toString("base64url")
      for (const overrides of [
        { origin: "https://evil.example" },
        { rpId: "evil.example" },
        { challenge: Buffer.from("other").toString("base64url") },
        { userPresent: false }
      ]) {
        const body = {
          type: "PASSKEY",
          accountId: w.accountId,
          nickname: "Bad",
          challenge,
          attestation: await authenticator.register(challenge, overrides)
        }
        const r = await server.call("POST", "/auth/credentials", body)
        expectInvalid(r, ["attestation"])
      }
    })

    it("W-03, W-14, W-06, W-19, W-21, W-16: an OAuth credential from the sandbox issuer signs in; a legacy key gets its session key sealed", async () => {
      const w = await newWallet()
      const { key } = await signIn(w.emailCredentialId)
      const issuer = await oidcIssuer({ iss: "https://accounts.example", aud: "paycore-app" })
      const sub = `user-${crypto.randomUUID()}`
      const body = {
        type: "OAUTH",
        accountId: w.accountId,
        oidcToken: issuer.mintUnsigned({ sub, email: "o@example.com" })
      }
      const first = await server.call("POST", "/auth/credentials", body)
      expect(first.status, JSON.stringify(first.json)).toBe(202)
      const added = await server.call("POST", "/auth/credentials", body, { headers: retry(first, key) })
      expect(added.status, JSON.stringify(added.json)).toBe(201)
      expect(added.json).toMatchObject({ type: "OAUTH", nickname: "o@example.com" })
      expectError(await server.call("POST", `/auth/credentials/${added.json.id}/challenge`), 400, "INVALID_INPUT")

      const legacy = sessionKey({ legacy: true })
      const verifyPath = `/auth/credentials/${added.json.id}/verify`
      const nonce = Buffer.from(
        await crypto.subtle.digest("SHA-256", new TextEncoder().encode(legacy.publicKey))
      ).toString("hex")
      // W-21: the nonce binds the token to the key.
      const noNonce = { type: "OAUTH", oidcToken: issuer.mintUnsigned({ sub }), clientPublicKey: legacy.publicKey }
      expectError(await server.call("POST", verifyPath, noNonce), 401, "UNAUTHORIZED")
      // W-20: a token of another subject, or older than 60 s.
      const otherSub = { ...noNonce, oidcToken: issuer.mintUnsigned({ sub: "someone-else", nonce }) }
      expectError(await server.call("POST", verifyPath, otherSub), 401, "UNAUTHORIZED")
      const stale = {
        ...noNonce,
        oidcToken: issuer.mintUnsigned({ sub, nonce, iat: Math.floor(Date.now() / 1000) - 70 })
      }
      expectError(await server.call("POST", verifyPath, stale), 401, "UNAUTHORIZED")
      expectInvalid(await server.call("POST", verifyPath, { ...noNonce, oidcToken: "not.a-jwt" }), ["oidcToken"])

      const good = { ...noNonce, oidcToken: issuer.mintUnsigned({ sub, nonce }) }
      const session = await server.call("POST", verifyPath, good)
      expect(session.status, JSON.stringify(session.json)).toBe(200)
      expect(session.json.encryptedSessionSigningKey).toEqual(expect.any(String))
      const opened = sessionKeyFrom(
        await openSessionSigningKey(session.json.encryptedSessionSigningKey, legacy.privateKey)
      )
      const revokeFirst = await server.call("DELETE", `/auth/sessions/${session.json.id}`)
      const revoked = await server.call("DELETE", `/auth/sessions/${session.json.id}`, undefined, {
        headers: retry(revokeFirst, opened)
      })
      expect(revoked.status).toBe(204)
      // The sessions list never shows the sealed key.
      for (const s of (await server.call("GET", `/auth/sessions?accountId=${w.accountId}`)).json.data) {
        expect(s.encryptedSessionSigningKey).toBeUndefined()
      }
    })

    it("C-35, W-07, W-09, W-26, W-27, W-28, W-29: SMS OTP re-added and activated; revocation by another credential only", async () => {
      const w = await newWallet({ phoneNumber: "+14155550123" })
      const email = await signIn(w.emailCredentialId)
      // W-29: the only credential cannot go.
      expectError(await server.call("DELETE", `/auth/credentials/${w.emailCredentialId}`), 400, "INVALID_INPUT")
      expectError(
        await server.call("POST", "/auth/credentials", { type: "EMAIL_OTP", accountId: w.accountId }),
        400,
        "EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS"
      )
      const body = { type: "SMS_OTP", accountId: w.accountId }
      const first = await server.call("POST", "/auth/credentials", body)
      expect(first.status).toBe(202)
      const added = await server.call("POST", "/auth/credentials", body, { headers: retry(first, email.key) })
      expect(added.status, JSON.stringify(added.json)).toBe(201)
      expect(added.json).toMatchObject({
        type: "SMS_OTP",
        nickname: "+14155550123",
        otpEncryptionTargetBundle: expect.any(String)
      })
      // Not verified yet: it does not count as a remaining credential.
      expectError(await server.call("DELETE", `/auth/credentials/${w.emailCredentialId}`), 400, "INVALID_INPUT")
      const sms = await signIn(added.json.id)
      const revokePath = `/auth/credentials/${w.emailCredentialId}`
      const revoke = await server.call("DELETE", revokePath)
      expect(revoke.status).toBe(202)
      // W-28: not by a session of the credential being revoked.
      expectError(
        await server.call("DELETE", revokePath, undefined, { headers: retry(revoke, email.key) }),
        401,
        "WALLET_SIGNATURE_INVALID"
      )
      expect((await server.call("DELETE", revokePath, undefined, { headers: retry(revoke, sms.key) })).status).toBe(204)
      const left = await server.call("GET", `/auth/credentials?accountId=${w.accountId}`)
      expect(left.json.data.map((c: { type: string }) => c.type)).toEqual(["SMS_OTP"])
      // Its sessions ended with it.
      const live = (await server.call("GET", `/auth/sessions?accountId=${w.accountId}`)).json.data
      expect(live.map((s: { id: string }) => s.id)).toEqual([sms.session.id])
    })
  })
}

/** W-20: with the issuer's keys (a production server), a token's signature is checked on every call. */
const oidcSuite = (stores: () => StoresUnderTest) => {
  let issuer: Awaited<ReturnType<typeof oidcIssuer>> | undefined
  const server = useTestServer(
    async (s) => {
      issuer = await oidcIssuer({ iss: "https://accounts.example", aud: "paycore-app" })
      expect((await s.call("PATCH", "/config", { supportedCurrencies: ["USD", "USDB"] })).status).toBe(200)
    },
    { ...stores(), oidcKeys: (header, token) => issuer!.keys(header, token) }
  )

  it("W-06, W-19, W-20: signed tokens pass; unsigned ones and tokens signed by another key are 401", async () => {
    const c = await server.call("POST", "/customers", {
      customerType: "INDIVIDUAL",
      fullName: "Olive Oidc",
      email: `olive.${Date.now()}@example.com`,
      endUserTermsConsent: consent
    })
    const accounts = await server.call(
      "GET",
      `/customers/internal-accounts?customerId=${c.json.id}&type=EMBEDDED_WALLET`
    )
    const accountId: string = accounts.json.data[0].id
    // A wallet with no credential left? It has its EMAIL_OTP: add OAuth by a signed retry of an OTP session.
    const [email] = (await server.call("GET", `/auth/credentials?accountId=${accountId}`)).json.data
    const challenge = await server.call("POST", `/auth/credentials/${email.id}/challenge`)
    const otpKey = sessionKey()
    const otpBody = {
      type: "EMAIL_OTP",
      encryptedOtpBundle: await sealOtpBundle(challenge.json.otpEncryptionTargetBundle, SANDBOX_OTP, otpKey.publicKey)
    }
    const first = await server.call("POST", `/auth/credentials/${email.id}/verify`, otpBody)
    const headersOf = (r: CallResult, key: SessionKey) => ({
      "service-wallet-signature": key.stamp(r.json.payloadToSign),
      "request-id": r.json.requestId as string
    })
    expect(
      (
        await server.call("POST", `/auth/credentials/${email.id}/verify`, otpBody, {
          headers: headersOf(first, otpKey)
        })
      ).status
    ).toBe(200)

    const sub = `user-${crypto.randomUUID()}`
    const forged = await oidcIssuer({ iss: issuer!.iss, aud: issuer!.aud })
    for (const token of [issuer!.mintUnsigned({ sub }), await forged.mint({ sub })]) {
      expectError(
        await server.call("POST", "/auth/credentials", { type: "OAUTH", accountId, oidcToken: token }),
        401,
        "UNAUTHORIZED"
      )
    }
    const body = { type: "OAUTH", accountId, oidcToken: await issuer!.mint({ sub, email: "olive@example.com" }) }
    const add = await server.call("POST", "/auth/credentials", body)
    expect(add.status).toBe(202)
    const added = await server.call("POST", "/auth/credentials", body, { headers: headersOf(add, otpKey) })
    expect(added.status, JSON.stringify(added.json)).toBe(201)

    const key = sessionKey()
    const nonce = Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key.publicKey))).toString(
      "hex"
    )
    const verifyPath = `/auth/credentials/${added.json.id}/verify`
    const unsigned = { type: "OAUTH", oidcToken: issuer!.mintUnsigned({ sub, nonce }), clientPublicKey: key.publicKey }
    expectError(await server.call("POST", verifyPath, unsigned), 401, "UNAUTHORIZED")
    const signedToken = { ...unsigned, oidcToken: await issuer!.mint({ sub, nonce }) }
    const session = await server.call("POST", verifyPath, signedToken)
    expect(session.status, JSON.stringify(session.json)).toBe(200)
    expect(session.json).toMatchObject({ type: "OAUTH", credentialId: added.json.id })
  })
}

onEveryStore("embedded-wallet auth", "wallet_auth_http", walletSuite)
onEveryStore("embedded-wallet OAuth with the issuer's keys", "wallet_oidc_http", oidcSuite)
