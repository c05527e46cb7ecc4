/**
 * The PASSKEY factor on the HTTP surface (issue 14, passkey slice; FEATURES S-02, S-12, C-41 and the upstream
 * `/sca/factors` and `/sca/login/*` routes): enrolment (`POST /sca/factors {type: PASSKEY}` → WebAuthn registration
 * options; `POST /sca/factors/confirm` with the device's credential), one passkey per customer, removal, and the
 * passkey login with its counter that never goes back. Registrations and assertions are real ones, made by the
 * testkit's software authenticator and sent as browsers' `toJSON()` gives them; no verifier is stubbed. The whole
 * file runs on the memory store, on PGlite, and on PostgreSQL.
 */
import { type CeremonyOverrides, type SoftwareAuthenticator, toWebAuthnJson } from "@paycore/testkit/wallet-client"
import { expect, it } from "vitest"
import {
  addUsPayee,
  balanceIn,
  type CallResult,
  expectError,
  fundAccount,
  quoteBody,
  type TestServer,
  useTestServer
} from "./harness.ts"
import {
  confirmPasskeyEnrolment,
  END_USER_IP,
  enrolPasskey,
  PASSKEY_ORIGIN,
  passkeyDevice,
  run,
  SANDBOX_CODE,
  scaCustomer,
  scaLogin,
  startPasskeyEnrolment
} from "./sca-kit.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const startPasskeyLogin = (server: TestServer, customerId: string) =>
  server.call("POST", `/sca/login/start?customerId=${customerId}`, { factor: "PASSKEY" })

const completePasskeyLogin = (
  server: TestServer,
  customerId: string,
  passkeyAssertion: unknown,
  origin = PASSKEY_ORIGIN
) =>
  server.call("POST", `/sca/login/complete?customerId=${customerId}`, {
    factor: "PASSKEY",
    endUserIpAddress: END_USER_IP,
    passkeyAssertion,
    origin
  })

/** The hex challenge a login's assertion options carry (WebAuthn signs base64url of its UTF-8). */
const hexOf = (options: { challenge: string }) => Buffer.from(options.challenge, "base64url").toString("utf8")

const scaPasskeySuite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(async () => {}, stores())
  const security = (customerId: string) => run(server.store.scaSecurity.get(customerId))
  const factors = async (customerId: string) =>
    (await run(server.store.scaFactors.list({ customerId }, { limit: 20, sortOrder: "asc" }))).data

  /** A logged-in subject customer with `device` enrolled as its passkey. */
  const enrolled = async (device: SoftwareAuthenticator = passkeyDevice()) => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    await scaLogin(server, id)
    await enrolPasskey(server, id, device)
    return { id, device }
  }

  /** A passkey login of `device`: start, assert over the options' challenge (with `overrides`), complete. */
  const passkeyLogin = async (customerId: string, device: SoftwareAuthenticator, overrides?: CeremonyOverrides) => {
    const started = await startPasskeyLogin(server, customerId)
    expect(started.status, JSON.stringify(started.json)).toBe(200)
    const assertion = await device.assert(hexOf(started.json.passkeyOptions), overrides)
    return completePasskeyLogin(server, customerId, toWebAuthnJson(assertion))
  }

  it("S-02: POST /sca/factors {PASSKEY} → registration options of the relying party; confirm with the device's credential → the factor; GET lists it with its credentialId", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    await scaLogin(server, id)
    const started = await startPasskeyEnrolment(server, id)
    expect(started.status, JSON.stringify(started.json)).toBe(200)
    expect(started.json).toMatchObject({
      type: "PASSKEY",
      allowedOrigins: ["http://localhost", "https://localhost"],
      relyingPartyId: "localhost",
      options: {
        rp: { id: "localhost", name: "paycore" },
        user: { id: Buffer.from(id).toString("base64url") },
        pubKeyCredParams: [{ type: "public-key", alg: -7 }],
        timeout: 600_000,
        attestation: "none"
      }
    })
    const { challenge } = started.json.options
    expect(Buffer.from(challenge, "base64url")).toHaveLength(32)
    // Pending: not listed, the challenge kept for the confirm.
    expect((await server.call("GET", `/sca/factors?customerId=${id}`)).json).toEqual({
      factors: [{ factor: "SMS_OTP" }]
    })
    expect((await factors(id)).map((f) => [f.factor, f.status, f.enrolChallenge])).toEqual([
      ["PASSKEY", "PENDING", challenge]
    ])

    const device = passkeyDevice()
    const confirmed = await confirmPasskeyEnrolment(server, id, toWebAuthnJson(await device.register(challenge)))
    expect(confirmed.status, JSON.stringify(confirmed.json)).toBe(200)
    expect(confirmed.json).toEqual({
      type: "PASSKEY",
      factor: { factor: "PASSKEY", credentialId: device.credentialId }
    })
    const [row] = await factors(id)
    expect(row).toMatchObject({ status: "ACTIVE", credentialId: device.credentialId, signCount: 0 })
    expect(row!.enrolChallenge).toBeUndefined()
    expect((await server.call("GET", `/sca/factors?customerId=${id}`)).json).toEqual({
      factors: [{ factor: "SMS_OTP" }, { factor: "PASSKEY", credentialId: device.credentialId }]
    })
    // The enrolment is used: the same credential again finds none pending.
    const again = await confirmPasskeyEnrolment(server, id, toWebAuthnJson(await device.register(challenge)))
    expectError(again, 400, "INVALID_INPUT")
    expect(again.json.details.errors[0]).toMatchObject({ field: "credential", constraint: { pending: true } })
  })

  it("S-02, C-41: a registration from another origin, over another challenge or for another relying party is 400 and counted; then the right one enrols", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    await scaLogin(server, id)
    const { challenge } = (await startPasskeyEnrolment(server, id)).json.options
    const device = passkeyDevice()
    const other = Buffer.alloc(32, 7).toString("base64url")
    // Each refusal is sent after the previous one is answered (the count is checked in between).
    const refusals: ReadonlyArray<() => Promise<CallResult>> = [
      // An origin the relying party does not allow, in the client data and in the body.
      async () =>
        confirmPasskeyEnrolment(
          server,
          id,
          toWebAuthnJson(await device.register(challenge, { origin: "https://evil.example" })),
          "https://evil.example"
        ),
      // The body's origin is allowed, but the client data ran elsewhere.
      async () =>
        confirmPasskeyEnrolment(
          server,
          id,
          toWebAuthnJson(await device.register(challenge, { origin: "https://localhost" }))
        ),
      // Another challenge.
      async () => confirmPasskeyEnrolment(server, id, toWebAuthnJson(await device.register(other))),
      // Another relying party id in the authenticator data.
      async () =>
        confirmPasskeyEnrolment(server, id, toWebAuthnJson(await device.register(challenge, { rpId: "example.com" })))
    ]
    for (const [i, refusal] of refusals.entries()) {
      const r = await refusal()
      expectError(r, 400, "INVALID_INPUT")
      expect(r.json.details.errors[0]).toMatchObject({ field: "credential", constraint: { valid: true } })
      expect((await security(id))?.failedAttempts).toBe(i + 1)
    }
    const ok = await confirmPasskeyEnrolment(server, id, toWebAuthnJson(await device.register(challenge)))
    expect(ok.status, JSON.stringify(ok.json)).toBe(200)
    expect((await security(id))?.failedAttempts).toBe(0)
  })

  it("S-02: a second passkey is 409 PASSKEY_ALREADY_ENROLLED; DELETE → 204, then a passkey login is 400; a new passkey enrols after it", async () => {
    const { id, device } = await enrolled()
    expectError(await startPasskeyEnrolment(server, id), 409, "PASSKEY_ALREADY_ENROLLED")
    // A confirm without a pending enrolment changes nothing either.
    const second = passkeyDevice()
    expectError(
      await confirmPasskeyEnrolment(
        server,
        id,
        toWebAuthnJson(await second.register(Buffer.alloc(32).toString("base64url")))
      ),
      400,
      "INVALID_INPUT"
    )
    expect((await factors(id)).filter((f) => f.status === "ACTIVE").map((f) => f.credentialId)).toEqual([
      device.credentialId
    ])

    // Another customer's credential id, or an unknown one, is not found.
    const other = await enrolled()
    expectError(
      await server.call("DELETE", `/sca/factors/${other.device.credentialId}?customerId=${id}`),
      404,
      "REFERENCE_NOT_FOUND"
    )
    const deleted = await server.call("DELETE", `/sca/factors/${device.credentialId}?customerId=${id}`)
    expect(deleted.status, JSON.stringify(deleted.json)).toBe(204)
    expect((await server.call("GET", `/sca/factors?customerId=${id}`)).json).toEqual({
      factors: [{ factor: "SMS_OTP" }]
    })
    const start = await startPasskeyLogin(server, id)
    expectError(start, 400, "INVALID_INPUT")
    expect(start.json.details.errors[0].field).toBe("factor")
    const assertion = toWebAuthnJson(await device.assert("ab".repeat(32)))
    const complete = await completePasskeyLogin(server, id, assertion)
    expectError(complete, 400, "INVALID_INPUT")
    expect(complete.json.details.errors[0].field).toBe("factor")
    expectError(
      await server.call("DELETE", `/sca/factors/${device.credentialId}?customerId=${id}`),
      404,
      "REFERENCE_NOT_FOUND"
    )

    const started = await startPasskeyEnrolment(server, id)
    expect(started.status).toBe(200)
    const enrolledAgain = await confirmPasskeyEnrolment(
      server,
      id,
      toWebAuthnJson(await second.register(started.json.options.challenge))
    )
    expect(enrolledAgain.status, JSON.stringify(enrolledAgain.json)).toBe(200)
    expect(enrolledAgain.json.factor.credentialId).toBe(second.credentialId)
    expect((await passkeyLogin(id, second)).status).toBe(200)
    // The other customer's passkey is untouched.
    expect((await passkeyLogin(other.id, other.device)).status).toBe(200)
  })

  it("S-12, S-13: passkey login end to end: start → assertion options over a fresh challenge → complete → a 180-day session; the counter is stored", async () => {
    const { id, device } = await enrolled()
    const started = await startPasskeyLogin(server, id)
    expect(started.status, JSON.stringify(started.json)).toBe(200)
    expect(started.json).toEqual({
      factor: "PASSKEY",
      passkeyOptions: {
        challenge: expect.any(String),
        rpId: "localhost",
        allowCredentials: [{ type: "public-key", id: device.credentialId }],
        userVerification: "preferred",
        timeout: 300_000
      },
      allowedOrigins: ["http://localhost", "https://localhost"],
      relyingPartyId: "localhost"
    })
    const hex = hexOf(started.json.passkeyOptions)
    expect(hex).toMatch(/^[0-9a-f]{64}$/)
    const before = Date.now()
    const done = await completePasskeyLogin(server, id, toWebAuthnJson(await device.assert(hex)))
    expect(done.status, JSON.stringify(done.json)).toBe(200)
    expect(done.json.status).toBe("SUCCESS")
    expect(Date.parse(done.json.sessionExpiresAt) - before).toBeGreaterThanOrEqual(180 * 86_400_000 - 1000)
    const sessions = await run(server.store.scaSessions.list({ customerId: id }, { limit: 10, sortOrder: "asc" }))
    expect(sessions.data.map((s) => s.factor)).toEqual(["SMS_OTP", "PASSKEY"])
    const challenge = await run(server.store.scaChallenges.get(sessions.data[1]!.challengeId))
    expect([challenge?.factor, challenge?.status, challenge?.passkeyChallenge]).toEqual(["PASSKEY", "PASSED", hex])
    expect((await factors(id)).find((f) => f.factor === "PASSKEY")?.signCount).toBe(1)
    // The challenge is used: the same assertion again finds no open passkey login.
    const replay = await completePasskeyLogin(server, id, toWebAuthnJson(await device.assert(hex)))
    expectError(replay, 400, "INVALID_INPUT")
    expect(replay.json.details.errors[0]).toMatchObject({ field: "passkeyAssertion", constraint: { open: true } })
    expect((await passkeyLogin(id, device)).status).toBe(200)
    expect((await factors(id)).find((f) => f.factor === "PASSKEY")?.signCount).toBe(3)
  })

  it("S-12, C-41: a wrong passkey login is 400 and counted: a replayed counter, another challenge, another relying party, another device, an origin not allowed; the challenge stays open", async () => {
    const { id, device } = await enrolled()
    expect((await passkeyLogin(id, device)).status).toBe(200)
    const stranger = passkeyDevice()
    const started = await startPasskeyLogin(server, id)
    const hex = hexOf(started.json.passkeyOptions)
    const wrongs = [
      // The counter does not move on (1 is stored): a replayed or cloned authenticator.
      await device.assert(hex, { signCount: 1 }),
      await device.assert("cd".repeat(32)),
      await device.assert(hex, { rpId: "example.com" }),
      // Signed by a key that is not the enrolled one, claiming its credential id.
      { ...(await stranger.assert(hex)), credentialId: device.credentialId }
    ]
    for (const [i, assertion] of wrongs.entries()) {
      const r = await completePasskeyLogin(server, id, toWebAuthnJson(assertion))
      expectError(r, 400, "INVALID_INPUT")
      expect(r.json.details.errors[0]).toMatchObject({
        field: "passkeyAssertion",
        constraint: { valid: true, attemptsLeftBeforeLock: 3 - i }
      })
    }
    expect((await security(id))?.failedAttempts).toBe(4)
    // An origin the relying party does not allow (in the body and the client data): the fifth failure locks.
    const evil = await completePasskeyLogin(
      server,
      id,
      toWebAuthnJson(await device.assert(hex, { origin: "https://evil.example" })),
      "https://evil.example"
    )
    expectError(evil, 423, "ACCOUNT_LOCKED")
    expect((await security(id))?.failedAttempts).toBe(5)
    const challenge = (await run(server.store.scaChallenges.list({ customerId: id }, { limit: 20, sortOrder: "desc" })))
      .data[0]!
    expect([challenge.status, challenge.attempts]).toEqual(["OPEN", 5])
    // Locked: a right assertion is refused and counts nothing.
    expectError(await completePasskeyLogin(server, id, toWebAuthnJson(await device.assert(hex))), 423, "ACCOUNT_LOCKED")
    expectError(await startPasskeyLogin(server, id), 423, "ACCOUNT_LOCKED")
    expect((await security(id))?.failedAttempts).toBe(5)
    expect((await factors(id)).find((f) => f.factor === "PASSKEY")?.signCount).toBe(1)
  })

  it("S-12: a passkey login needs passkeyAssertion and origin, a started passkey login (not an SMS one), and lapses after 300 s (counted)", async () => {
    const { id, device } = await enrolled()
    const missing = await server.call("POST", `/sca/login/complete?customerId=${id}`, {
      factor: "PASSKEY",
      endUserIpAddress: END_USER_IP,
      origin: PASSKEY_ORIGIN
    })
    expectError(missing, 400, "INVALID_INPUT")
    expect(missing.json.details.errors[0].field).toBe("passkeyAssertion")
    const assertion = toWebAuthnJson(await device.assert("ab".repeat(32)))
    const noOrigin = await server.call("POST", `/sca/login/complete?customerId=${id}`, {
      factor: "PASSKEY",
      endUserIpAddress: END_USER_IP,
      passkeyAssertion: assertion
    })
    expectError(noOrigin, 400, "INVALID_INPUT")
    expect(noOrigin.json.details.errors[0].field).toBe("origin")
    // Not the W3C shape: the schema refuses it.
    expectError(await completePasskeyLogin(server, id, { credentialId: device.credentialId }), 400, "INVALID_INPUT")
    // The open login is an SMS one (scaLogin's was used; a new one is started).
    await server.call("POST", `/sca/login/start?customerId=${id}`, { factor: "SMS_OTP" })
    const mismatch = await completePasskeyLogin(server, id, assertion)
    expectError(mismatch, 400, "INVALID_INPUT")
    expect(mismatch.json.details.errors[0]).toMatchObject({ field: "factor", constraint: { enum: ["SMS_OTP"] } })
    expect(await security(id)).toBeUndefined()

    // A passkey start supersedes the SMS one; moved 300 s into the past, its assertion is late.
    const started = await startPasskeyLogin(server, id)
    const hex = hexOf(started.json.passkeyOptions)
    const open = (await run(server.store.scaChallenges.list({ customerId: id }, { limit: 20, sortOrder: "desc" })))
      .data[0]!
    expect([open.factor, open.status]).toEqual(["PASSKEY", "OPEN"])
    await run(server.store.scaChallenges.update({ ...open, expiresAt: new Date(Date.now() - 1000).toISOString() }))
    const late = await completePasskeyLogin(server, id, toWebAuthnJson(await device.assert(hex)))
    expectError(late, 400, "INVALID_INPUT")
    expect(late.json.details.errors[0]).toMatchObject({ field: "passkeyAssertion", constraint: { expired: true } })
    expect((await security(id))?.failedAttempts).toBe(1)
    expect((await run(server.store.scaChallenges.get(open.id)))?.status).toBe("EXPIRED")

    // The body's origin is allowed but the client data ran on another one: wrong, counted.
    const next = await startPasskeyLogin(server, id)
    const elsewhere = await device.assert(hexOf(next.json.passkeyOptions), { origin: "https://localhost" })
    const r = await completePasskeyLogin(server, id, toWebAuthnJson(elsewhere))
    expectError(r, 400, "INVALID_INPUT")
    expect(r.json.details.errors[0]).toMatchObject({ field: "passkeyAssertion", constraint: { valid: true } })
    expect((await security(id))?.failedAttempts).toBe(2)
    expect((await passkeyLogin(id, device)).status).toBe(200)
    expect((await security(id))?.failedAttempts).toBe(0)
  })

  it("S-08, S-04, S-02: a payment authorized with the passkey: its challenge carries assertion options over its own dynamic-linking hash; an assertion made for another payment is 400 and counted, a code is 400 uncounted; its own → PROCESSING", async () => {
    const { id, device } = await enrolled()
    const listed = await server.call("GET", `/customers/internal-accounts?customerId=${id}`)
    const usd = (listed.json.data as Array<{ id: string; currency: string }>).find((a) => a.currency === "USD")!.id
    await fundAccount(server, usd, 10_000)
    const payee = await addUsPayee(server, id)
    const waiting = async (amount: number) => {
      const quote = await server.call("POST", "/quotes", quoteBody(usd, payee, amount))
      expect(quote.status, JSON.stringify(quote.json)).toBe(201)
      const executed = await server.call("POST", `/quotes/${quote.json.id}/execute`, { scaFactor: "PASSKEY" })
      expect(executed.status, JSON.stringify(executed.json)).toBe(200)
      expect(executed.json.status).toBe("PENDING_AUTHORIZATION")
      return executed.json
    }
    const first = await waiting(1_000)
    const second = await waiting(2_000)
    expect(first.scaChallenge).toMatchObject({
      factor: "PASSKEY",
      purpose: "PAYOUT",
      passkeyAssertionOptions: {
        rpId: "localhost",
        allowCredentials: [{ type: "public-key", id: device.credentialId }],
        userVerification: "preferred",
        timeout: 300_000
      }
    })
    // A per-transaction challenge carries no allowed origins (upstream): the app's own origin is sent back.
    expect(first.scaChallenge.passkeyAllowedOrigins).toBeUndefined()
    const own = hexOf(first.scaChallenge.passkeyAssertionOptions)
    const other = hexOf(second.scaChallenge.passkeyAssertionOptions)
    expect(own).toMatch(/^[0-9a-f]{64}$/)
    expect(own).not.toBe(other)

    const authorize = (quoteId: string, proof: Record<string, unknown>) =>
      server.call("POST", `/quotes/${quoteId}/authorize`, { ...proof, endUserIpAddress: END_USER_IP })
    /** A failed proof throttles the challenge for 1 s (L-14): moved into the past instead of waited for. */
    const pastThrottle = async (quoteId: string) => {
      const rows = await run(server.store.scaChallenges.list({ customerId: id }, { limit: 50, sortOrder: "desc" }))
      const open = rows.data.find((c) => c.subjectId === quoteId && c.status === "OPEN")!
      await run(
        server.store.scaChallenges.update({ ...open, lastFailedAt: new Date(Date.now() - 5_000).toISOString() })
      )
    }

    // Signed over the second payment's challenge, sent for the first: the hash binds it to its own payment.
    const crossed = await authorize(first.id, {
      passkeyAssertion: toWebAuthnJson(await device.assert(other)),
      origin: PASSKEY_ORIGIN
    })
    expectError(crossed, 400, "INVALID_INPUT")
    expect(crossed.json.details.errors[0]).toMatchObject({ field: "passkeyAssertion", constraint: { valid: true } })
    expect((await security(id))?.failedAttempts).toBe(1)
    await pastThrottle(first.id)
    // The sandbox code is no proof of a passkey challenge: only the offered factor (not counted).
    expectError(await authorize(first.id, { code: SANDBOX_CODE }), 400, "INVALID_INPUT")
    expect((await security(id))?.failedAttempts).toBe(1)

    const authorized = await authorize(first.id, {
      passkeyAssertion: toWebAuthnJson(await device.assert(own)),
      origin: PASSKEY_ORIGIN
    })
    expect(authorized.status, JSON.stringify(authorized.json)).toBe(200)
    expect(authorized.json.status).toBe("PROCESSING")
    expect(authorized.json.scaChallenge).toBeUndefined()
    expect((await security(id))?.failedAttempts).toBe(0)
    const second200 = await authorize(second.id, {
      passkeyAssertion: toWebAuthnJson(await device.assert(other)),
      origin: PASSKEY_ORIGIN
    })
    expect(second200.status, JSON.stringify(second200.json)).toBe(200)
    expect(await balanceIn(server, id)).toBe(10_000 - first.totalSendingAmount - second.totalSendingAmount)
  })

  it("S-01, S-09: passkey enrolment is 409 CONFLICT outside the SCA regions and 409 SCA_SESSION_REQUIRED without a login; passkey login start 409 outside", async () => {
    const { id: us } = await scaCustomer(server, { region: "US", phone: "unverified" })
    expectError(await startPasskeyEnrolment(server, us), 409, "CONFLICT")
    expectError(await startPasskeyLogin(server, us), 409, "CONFLICT")
    const { id: de } = await scaCustomer(server, { region: "DE", phone: "verified" })
    expectError(await startPasskeyEnrolment(server, de), 409, "SCA_SESSION_REQUIRED")
    expectError(
      await confirmPasskeyEnrolment(server, de, toWebAuthnJson(await passkeyDevice().register("AAAA"))),
      409,
      "SCA_SESSION_REQUIRED"
    )
  })
}

onEveryStore("SCA factors (PASSKEY)", "sca_passkey_http", scaPasskeySuite)
