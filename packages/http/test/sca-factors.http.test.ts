/**
 * The TOTP factor on the HTTP surface (issue 14, TOTP slice; FEATURES S-02, S-14, S-15 and the upstream
 * `/sca/factors` routes): enrolment (`POST /sca/factors` → secret, base32, `otpauth://` URI; `POST
 * /sca/factors/confirm` with a first code → ten recovery codes), the list, removal, and the TOTP login with a code
 * good once, a recovery code good once, and the sandbox `123456`. The codes are computed here from the returned
 * secret with `otpauth` on the wall clock (the window and the clock rules on a TestClock are in
 * packages/core/test/sca-totp.test.ts). The whole file runs on the memory store, on PGlite, and on PostgreSQL.
 */
import { randomUUID } from "node:crypto"
import { Secret, TOTP, URI } from "otpauth"
import { expect, it } from "vitest"
import { expectError, type TestServer, UNKNOWN_CUSTOMER, useTestServer } from "./harness.ts"
import { END_USER_IP, run, SANDBOX_CODE, scaCustomer, scaLogin } from "./sca-kit.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const STEP_MS = 30_000

/** The code of a base32 secret at `atMs` (SHA-1, 6 digits, 30 s: what an authenticator app shows). */
const codeAt = (secretBase32: string, atMs = Date.now()) =>
  TOTP.generate({ secret: Secret.fromBase32(secretBase32), timestamp: atMs })

/** A code that is none of the secret's in the window around now (and not the sandbox's). */
const wrongCode = (secretBase32: string) => {
  const near = [-1, 0, 1].map((k) => codeAt(secretBase32, Date.now() + k * STEP_MS))
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, "0")
    if (!near.includes(candidate) && candidate !== SANDBOX_CODE) return candidate
  }
}

const enrol = (server: TestServer, customerId: string, body: Record<string, unknown> = { type: "TOTP" }) =>
  server.call("POST", `/sca/factors?customerId=${customerId}`, body)

const confirm = (server: TestServer, customerId: string, secret: string, code: string) =>
  server.call("POST", `/sca/factors/confirm?customerId=${customerId}`, { type: "TOTP", secret, code })

const totpLogin = (server: TestServer, customerId: string, code: string) =>
  server.call("POST", `/sca/login/complete?customerId=${customerId}`, {
    factor: "TOTP",
    endUserIpAddress: END_USER_IP,
    code
  })

const list = (server: TestServer, customerId: string) => server.call("GET", `/sca/factors?customerId=${customerId}`)

const scaFactorsSuite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(async () => {}, stores())
  const security = (customerId: string) => run(server.store.scaSecurity.get(customerId))

  /** A subject customer logged in by SMS with a confirmed TOTP factor: its base32 secret and recovery codes. */
  const enrolled = async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    await scaLogin(server, id)
    const started = await enrol(server, id)
    expect(started.status, JSON.stringify(started.json)).toBe(200)
    const confirmed = await confirm(server, id, started.json.secret, codeAt(started.json.secretBase32Encoded))
    expect(confirmed.status, JSON.stringify(confirmed.json)).toBe(200)
    return {
      id,
      base32: started.json.secretBase32Encoded as string,
      recovery: confirmed.json.recoveryCodes as string[]
    }
  }

  it("S-01, S-09: enrolment answers 404 for an unknown customer, 409 CONFLICT outside the SCA regions, 409 SCA_SESSION_REQUIRED without a login", async () => {
    expectError(await enrol(server, UNKNOWN_CUSTOMER), 404, "USER_NOT_FOUND")
    const { id: us } = await scaCustomer(server, { region: "US", phone: "unverified" })
    expectError(await enrol(server, us), 409, "CONFLICT")
    expectError(await confirm(server, us, "x", SANDBOX_CODE), 409, "CONFLICT")
    expectError(await server.call("DELETE", `/sca/factors/ScaFactor:${randomUUID()}?customerId=${us}`), 409, "CONFLICT")
    const { id: de } = await scaCustomer(server, { region: "DE", phone: "verified" })
    expectError(await enrol(server, de), 409, "SCA_SESSION_REQUIRED")
    expectError(await confirm(server, de, "x", SANDBOX_CODE), 409, "SCA_SESSION_REQUIRED")
    expectError(
      await server.call("DELETE", `/sca/factors/ScaFactor:${randomUUID()}?customerId=${de}`),
      409,
      "SCA_SESSION_REQUIRED"
    )
    // SMS_OTP is never enrolled; a type that is none is 400.
    await scaLogin(server, de)
    for (const type of ["SMS_OTP", "EMAIL", undefined])
      expectError(await enrol(server, de, { type }), 400, "INVALID_INPUT")
  })

  it("S-02: POST /sca/factors → secret, its base32 and an otpauth URI; confirm with a real code → 10 recovery codes; GET lists TOTP; the secret is sealed at rest", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    await scaLogin(server, id)
    const started = await enrol(server, id)
    expect(started.status, JSON.stringify(started.json)).toBe(200)
    const { type, secret, secretBase32Encoded, totpUri } = started.json
    expect(type).toBe("TOTP")
    expect(secret).toMatch(/^[0-9a-f]{40}$/)
    expect(Secret.fromBase32(secretBase32Encoded).latin1).toBe(secret)
    const parsed = URI.parse(totpUri)
    expect(parsed).toBeInstanceOf(TOTP)
    expect([parsed.issuer, parsed.algorithm, parsed.digits, (parsed as TOTP).period]).toEqual([
      "paycore",
      "SHA1",
      6,
      30
    ])
    expect(parsed.secret.base32).toBe(secretBase32Encoded)
    // Pending: not listed yet, and the store holds the secret only sealed.
    expect((await list(server, id)).json).toEqual({ factors: [{ factor: "SMS_OTP" }] })
    const rows = await run(server.store.scaFactors.list({ customerId: id }, { limit: 10, sortOrder: "asc" }))
    expect(rows.data.map((r) => r.status)).toEqual(["PENDING"])
    expect(rows.data[0]!.totpSecretSealed).toMatch(/^v1\./)
    expect(JSON.stringify(rows.data)).not.toContain(secret)
    expect(JSON.stringify(rows.data)).not.toContain(secretBase32Encoded)

    const confirmed = await confirm(server, id, secret, codeAt(secretBase32Encoded))
    expect(confirmed.status, JSON.stringify(confirmed.json)).toBe(200)
    expect(confirmed.json.type).toBe("TOTP")
    const codes: string[] = confirmed.json.recoveryCodes
    expect(codes).toHaveLength(10)
    for (const code of codes) expect(code).toMatch(/^[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}$/)
    expect(new Set(codes).size).toBe(10)
    const active = (await run(server.store.scaFactors.list({ customerId: id }, { limit: 10, sortOrder: "asc" }))).data
    expect(active.map((r) => r.status)).toEqual(["ACTIVE"])
    expect(active[0]!.recoveryCodeHashes).toHaveLength(10)
    expect(JSON.stringify(active)).not.toContain(codes[0])
    expect((await list(server, id)).json).toEqual({
      factors: [{ factor: "SMS_OTP" }, { factor: "TOTP", credentialId: active[0]!.id }]
    })
    // The enrolment is used: the same secret confirms nothing more.
    const again = await confirm(server, id, secret, codeAt(secretBase32Encoded))
    expectError(again, 400, "INVALID_INPUT")
    expect(again.json.details.errors[0].field).toBe("secret")
  })

  it("S-02: a wrong confirm code is 400 and counted; another secret is 400 uncounted; a new start replaces the pending one", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    await scaLogin(server, id)
    const first = await enrol(server, id)
    const wrong = await confirm(server, id, first.json.secret, wrongCode(first.json.secretBase32Encoded))
    expectError(wrong, 400, "INVALID_INPUT")
    expect(wrong.json.details.errors[0]).toMatchObject({
      field: "code",
      constraint: { valid: true, attemptsLeftBeforeLock: 3 }
    })
    expect((await security(id))?.failedAttempts).toBe(1)
    const otherSecret = await confirm(server, id, "f".repeat(40), SANDBOX_CODE)
    expectError(otherSecret, 400, "INVALID_INPUT")
    expect(otherSecret.json.details.errors[0].field).toBe("secret")
    expect((await security(id))?.failedAttempts).toBe(1)

    const second = await enrol(server, id)
    expect(second.json.secret).not.toBe(first.json.secret)
    expectError(
      await confirm(server, id, first.json.secret, codeAt(first.json.secretBase32Encoded)),
      400,
      "INVALID_INPUT"
    )
    const ok = await confirm(server, id, second.json.secret, codeAt(second.json.secretBase32Encoded))
    expect(ok.status, JSON.stringify(ok.json)).toBe(200)
    expect((await security(id))?.failedAttempts).toBe(0)
    const rows = await run(server.store.scaFactors.list({ customerId: id }, { limit: 10, sortOrder: "asc" }))
    expect(rows.data.map((r) => r.status)).toEqual(["REMOVED", "ACTIVE"])
  })

  it("S-02: a confirm after the 600 s of the enrolment is 400 (expired) and counted", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    await scaLogin(server, id)
    const started = await enrol(server, id)
    const row = (await run(server.store.scaFactors.list({ customerId: id }, { limit: 1, sortOrder: "asc" }))).data[0]!
    await run(server.store.scaFactors.update({ ...row, enrolExpiresAt: new Date(Date.now() - 1000).toISOString() }))
    const late = await confirm(server, id, started.json.secret, codeAt(started.json.secretBase32Encoded))
    expectError(late, 400, "INVALID_INPUT")
    expect(late.json.details.errors[0]).toMatchObject({ field: "code", constraint: { expired: true } })
    expect((await security(id))?.failedAttempts).toBe(1)
    expect((await run(server.store.scaFactors.get(row.id)))?.status).toBe("REMOVED")
  })

  it("S-14: TOTP login: start → {factor}; the next step's code → SUCCESS; the same code or the confirm's step again → 400 reused, uncounted", async () => {
    const { id, base32 } = await enrolled()
    const started = await server.call("POST", `/sca/login/start?customerId=${id}`, { factor: "TOTP" })
    expect(started.status, JSON.stringify(started.json)).toBe(200)
    expect(started.json).toEqual({ factor: "TOTP" })
    // The confirm used this step's code: a code of the step after it (window +1) logs in.
    const next = codeAt(base32, Date.now() + STEP_MS)
    const done = await totpLogin(server, id, next)
    expect(done.status, JSON.stringify(done.json)).toBe(200)
    expect(done.json.status).toBe("SUCCESS")
    const sessions = await run(server.store.scaSessions.list({ customerId: id }, { limit: 10, sortOrder: "asc" }))
    expect(sessions.data.map((s) => s.factor)).toEqual(["SMS_OTP", "TOTP"])
    const challenge = await run(server.store.scaChallenges.get(sessions.data[1]!.challengeId))
    expect([challenge?.factor, challenge?.status]).toEqual(["TOTP", "PASSED"])
    for (const code of [next, codeAt(base32)]) {
      const replay = await totpLogin(server, id, code)
      expectError(replay, 400, "INVALID_INPUT")
      expect(replay.json.details.errors[0]).toMatchObject({ field: "code", constraint: { reused: true } })
    }
    expect(await security(id)).toBeUndefined()
    // A wrong code is counted.
    expectError(await totpLogin(server, id, wrongCode(base32)), 400, "INVALID_INPUT")
    expect((await security(id))?.failedAttempts).toBe(1)
    // A code out of the window (two steps ahead) is wrong.
    expectError(await totpLogin(server, id, codeAt(base32, Date.now() + 3 * STEP_MS)), 400, "INVALID_INPUT")
    expect((await security(id))?.failedAttempts).toBe(2)
  })

  it("S-14: a recovery code logs in once (in any case); used again it is 400 and counted", async () => {
    const { id, recovery } = await enrolled()
    const first = await totpLogin(server, id, recovery[3]!.toLowerCase())
    expect(first.status, JSON.stringify(first.json)).toBe(200)
    const factor = (
      await run(server.store.scaFactors.list({ customerId: id, status: "ACTIVE" }, { limit: 1, sortOrder: "asc" }))
    ).data[0]!
    expect(factor.recoveryCodeHashes).toHaveLength(9)
    expectError(await totpLogin(server, id, recovery[3]!), 400, "INVALID_INPUT")
    expect((await security(id))?.failedAttempts).toBe(1)
    expect((await totpLogin(server, id, recovery[4]!)).status).toBe(200)
    expect((await security(id))?.failedAttempts).toBe(0)
  })

  it("S-15: in the sandbox 123456 confirms a TOTP enrolment and completes a TOTP login", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    await scaLogin(server, id)
    const started = await enrol(server, id)
    const ok = await confirm(server, id, started.json.secret, SANDBOX_CODE)
    expect(ok.status, JSON.stringify(ok.json)).toBe(200)
    expect(ok.json.recoveryCodes).toHaveLength(10)
    expect((await totpLogin(server, id, SANDBOX_CODE)).status).toBe(200)
    expect((await totpLogin(server, id, SANDBOX_CODE)).status).toBe(200)
  })

  it("S-14: TOTP login before enrolment is 400 on factor; a missing code is 400; locked customers get 423 on enrolment", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    expectError(
      await server.call("POST", `/sca/login/start?customerId=${id}`, { factor: "TOTP" }),
      400,
      "INVALID_INPUT"
    )
    const notEnrolled = await totpLogin(server, id, SANDBOX_CODE)
    expectError(notEnrolled, 400, "INVALID_INPUT")
    expect(notEnrolled.json.details.errors[0].field).toBe("factor")
    const { id: enrolledId } = await enrolled()
    const noCode = await server.call("POST", `/sca/login/complete?customerId=${enrolledId}`, {
      factor: "TOTP",
      endUserIpAddress: END_USER_IP
    })
    expectError(noCode, 400, "INVALID_INPUT")
    expect(noCode.json.details.errors[0].field).toBe("code")
    const row = (await security(enrolledId)) ?? { id: enrolledId, failedAttempts: 0, suspended: false, updatedAt: "" }
    const locked = {
      ...row,
      failedAttempts: 5,
      lockedUntil: new Date(Date.now() + 60_000).toISOString(),
      updatedAt: new Date().toISOString()
    }
    await run(row.updatedAt === "" ? server.store.scaSecurity.insert(locked) : server.store.scaSecurity.update(locked))
    expectError(await enrol(server, enrolledId), 423, "ACCOUNT_LOCKED")
    expectError(await confirm(server, enrolledId, "x", SANDBOX_CODE), 423, "ACCOUNT_LOCKED")
    expectError(await totpLogin(server, enrolledId, SANDBOX_CODE), 423, "ACCOUNT_LOCKED")
  })

  it("DELETE /sca/factors/{credentialId} → 204; then TOTP is not listed and cannot log in; again (or another customer's) → 404 REFERENCE_NOT_FOUND", async () => {
    const { id } = await enrolled()
    const other = await enrolled()
    const credentialId = (await list(server, id)).json.factors[1].credentialId as string
    const otherCredential = (await list(server, other.id)).json.factors[1].credentialId as string
    expectError(
      await server.call("DELETE", `/sca/factors/${otherCredential}?customerId=${id}`),
      404,
      "REFERENCE_NOT_FOUND"
    )
    expectError(await server.call("DELETE", `/sca/factors/not-a-factor?customerId=${id}`), 404, "REFERENCE_NOT_FOUND")
    const deleted = await server.call("DELETE", `/sca/factors/${credentialId}?customerId=${id}`)
    expect(deleted.status, JSON.stringify(deleted.json)).toBe(204)
    expect((await list(server, id)).json).toEqual({ factors: [{ factor: "SMS_OTP" }] })
    expectError(
      await server.call("POST", `/sca/login/start?customerId=${id}`, { factor: "TOTP" }),
      400,
      "INVALID_INPUT"
    )
    expectError(await totpLogin(server, id, SANDBOX_CODE), 400, "INVALID_INPUT")
    expectError(
      await server.call("DELETE", `/sca/factors/${credentialId}?customerId=${id}`),
      404,
      "REFERENCE_NOT_FOUND"
    )
    // The other customer's factor is untouched.
    expect((await list(server, other.id)).json.factors).toHaveLength(2)
  })
}

onEveryStore("SCA factors (TOTP)", "sca_factors_http", scaFactorsSuite)
