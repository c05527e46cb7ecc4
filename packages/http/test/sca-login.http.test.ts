/**
 * The SCA login on the HTTP surface (issue 14, first slice; FEATURES S-01, S-09 … S-15, L-09, L-14, C-41): who is
 * subject, the SMS code of `POST /sca/login/start` (sandbox `123456`), the 180-day session of
 * `POST /sca/login/complete`, the re-issue limit and the lock ladder. Time rules are met by ageing rows through
 * `server.store` (the clock-driven ones are in packages/core/test/sca.test.ts on a TestClock).
 * The whole file runs on the memory store, on PGlite, and on the PostgreSQL server named by DATABASE_URL.
 */
import { randomUUID } from "node:crypto"
import { expect, it } from "vitest"
import { expectError, type TestServer, UNKNOWN_CUSTOMER, useTestServer } from "./harness.ts"
import { ageChallenge, END_USER_IP, run, SANDBOX_CODE, scaCustomer } from "./sca-kit.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const DAY_MS = 86_400_000

const start = (server: TestServer, customerId: string, factor = "SMS_OTP") =>
  server.call("POST", `/sca/login/start?customerId=${customerId}`, { factor })

const complete = (server: TestServer, customerId: string, body: Record<string, unknown>) =>
  server.call("POST", `/sca/login/complete?customerId=${customerId}`, {
    factor: "SMS_OTP",
    endUserIpAddress: END_USER_IP,
    ...body
  })

const scaLoginSuite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(async () => {}, stores())

  const security = (customerId: string) => run(server.store.scaSecurity.get(customerId))

  it("S-01: a customer outside the SCA regions (US, or no region) gets 409 CONFLICT on every SCA route", async () => {
    for (const region of ["US", undefined]) {
      const { id } = await scaCustomer(server, { region, phone: "unverified" })
      expectError(await server.call("GET", `/sca/factors?customerId=${id}`), 409, "CONFLICT")
      expectError(await start(server, id), 409, "CONFLICT")
      expectError(
        await complete(server, id, { challengeId: `ScaChallenge:${randomUUID()}`, code: "1" }),
        409,
        "CONFLICT"
      )
    }
  })

  it("an unknown customer is 404 USER_NOT_FOUND on every SCA route", async () => {
    expectError(await server.call("GET", `/sca/factors?customerId=${UNKNOWN_CUSTOMER}`), 404, "USER_NOT_FOUND")
    expectError(await start(server, UNKNOWN_CUSTOMER), 404, "USER_NOT_FOUND")
    expectError(await complete(server, UNKNOWN_CUSTOMER, { code: "1" }), 404, "USER_NOT_FOUND")
  })

  it("S-02: GET /sca/factors lists SMS_OTP once the phone is verified; SMS_OTP login needs it (400 before)", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "unverified" })
    const before = await server.call("GET", `/sca/factors?customerId=${id}`)
    expect(before.status).toBe(200)
    expect(before.json).toEqual({ factors: [] })
    expectError(await start(server, id), 400, "INVALID_INPUT")
    const { id: verified } = await scaCustomer(server, { region: "DE", phone: "verified" })
    expect((await server.call("GET", `/sca/factors?customerId=${verified}`)).json).toEqual({
      factors: [{ factor: "SMS_OTP" }]
    })
  })

  it("S-12, S-13, S-14, S-15, L-09: SMS login start → complete with the sandbox code → SUCCESS, a 180-day session", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    const before = Date.now()
    const started = await start(server, id)
    expect(started.status, JSON.stringify(started.json)).toBe(200)
    expect(started.json.factor).toBe("SMS_OTP")
    expect(started.json.challengeId).toMatch(/^ScaChallenge:[0-9a-f-]{36}$/)
    const expiresMs = Date.parse(started.json.expiresAt)
    expect(expiresMs).toBeGreaterThanOrEqual(before + 300_000 - 1000)
    expect(expiresMs).toBeLessThanOrEqual(Date.now() + 300_000 + 1000)
    // The code is stored only as a hash.
    const row = (await run(server.store.scaChallenges.get(started.json.challengeId)))!
    expect(row.codeSha256).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(row)).not.toContain(SANDBOX_CODE)

    const done = await complete(server, id, { challengeId: started.json.challengeId, code: SANDBOX_CODE })
    expect(done.status, JSON.stringify(done.json)).toBe(200)
    expect(done.json.status).toBe("SUCCESS")
    const sessionMs = Date.parse(done.json.sessionExpiresAt)
    expect(sessionMs).toBeGreaterThanOrEqual(before + 180 * DAY_MS - 1000)
    expect(sessionMs).toBeLessThanOrEqual(Date.now() + 180 * DAY_MS + 1000)
    const sessions = await run(server.store.scaSessions.list({ customerId: id }, { limit: 10, sortOrder: "asc" }))
    expect(sessions.data.map((s) => [s.expiresAt, s.endUserIp, s.challengeId])).toEqual([
      [done.json.sessionExpiresAt, END_USER_IP, started.json.challengeId]
    ])
    expect((await run(server.store.scaChallenges.get(started.json.challengeId)))!.status).toBe("PASSED")
    // The code is used once.
    const again = await complete(server, id, { challengeId: started.json.challengeId, code: SANDBOX_CODE })
    expectError(again, 400, "INVALID_INPUT")
    expect(again.json.details.errors[0].field).toBe("challengeId")
  })

  it("L-14: a second login code within 60 s is 429 RATE_LIMITED with Retry-After; later it supersedes the first", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    const first = await start(server, id)
    expect(first.status).toBe(200)
    const limited = await start(server, id)
    expectError(limited, 429, "RATE_LIMITED")
    const retryAfter = Number(limited.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(60)

    await ageChallenge(server, first.json.challengeId, 61_000)
    const second = await start(server, id)
    expect(second.status, JSON.stringify(second.json)).toBe(200)
    expect(second.json.challengeId).not.toBe(first.json.challengeId)
    expect((await run(server.store.scaChallenges.get(first.json.challengeId)))!.status).toBe("SUPERSEDED")
    expectError(
      await complete(server, id, { challengeId: first.json.challengeId, code: SANDBOX_CODE }),
      400,
      "INVALID_INPUT"
    )
    expect((await complete(server, id, { challengeId: second.json.challengeId, code: SANDBOX_CODE })).status).toBe(200)
  })

  it("S-12: a wrong code is 400 and counted; the right one then succeeds and sets the count back to 0", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    const started = await start(server, id)
    const wrong = await complete(server, id, { challengeId: started.json.challengeId, code: "000000" })
    expectError(wrong, 400, "INVALID_INPUT")
    expect(wrong.json.details.errors[0]).toMatchObject({
      field: "code",
      constraint: { valid: true, attemptsLeftBeforeLock: 3 }
    })
    expect((await security(id))?.failedAttempts).toBe(1)
    expect((await run(server.store.scaChallenges.get(started.json.challengeId)))!.attempts).toBe(1)
    const right = await complete(server, id, { challengeId: started.json.challengeId, code: SANDBOX_CODE })
    expect(right.status).toBe(200)
    expect((await security(id))?.failedAttempts).toBe(0)
  })

  it("S-12: an expired code is 400 (expired) and counted; the challenge is EXPIRED", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    const started = await start(server, id)
    await ageChallenge(server, started.json.challengeId, 301_000)
    const late = await complete(server, id, { challengeId: started.json.challengeId, code: SANDBOX_CODE })
    expectError(late, 400, "INVALID_INPUT")
    expect(late.json.details.errors[0]).toMatchObject({ field: "code", constraint: { expired: true } })
    expect((await security(id))?.failedAttempts).toBe(1)
    expect((await run(server.store.scaChallenges.get(started.json.challengeId)))!.status).toBe("EXPIRED")
    // A new start is allowed at once (the expired code was sent more than 60 s ago).
    expect((await start(server, id)).status).toBe(200)
  })

  it("S-10, C-41: the 5th wrong code locks (423 ACCOUNT_LOCKED, lockedUntil +15 min); nothing counts while locked", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    const started = await start(server, id)
    const proof = (code: string) => complete(server, id, { challengeId: started.json.challengeId, code })
    for (let i = 1; i <= 4; i++) expectError(await proof("000000"), 400, "INVALID_INPUT")
    const before = Date.now()
    const locked = await proof("000000")
    expectError(locked, 423, "ACCOUNT_LOCKED")
    expect(locked.json.details).toMatchObject({ suspended: false, failedAttempts: 5 })
    const until = Date.parse(locked.json.details.lockedUntil)
    expect(until).toBeGreaterThanOrEqual(before + 15 * 60_000 - 1000)
    expect(until).toBeLessThanOrEqual(Date.now() + 15 * 60_000 + 1000)
    // Locked: the right code is refused too, a new login cannot start, and neither is counted.
    expectError(await proof(SANDBOX_CODE), 423, "ACCOUNT_LOCKED")
    expectError(await start(server, id), 423, "ACCOUNT_LOCKED")
    expect((await security(id))?.failedAttempts).toBe(5)

    // Once lockedUntil has passed, the open code works and the count goes back to 0.
    const row = (await security(id))!
    await run(server.store.scaSecurity.update({ ...row, lockedUntil: new Date(Date.now() - 1000).toISOString() }))
    expect((await proof(SANDBOX_CODE)).status).toBe(200)
    expect(await security(id)).toMatchObject({ failedAttempts: 0, suspended: false })
    expect((await security(id))?.lockedUntil).toBeUndefined()
  })

  it("C-41: six concurrent wrong codes are counted one after the other: four 400, then the lock, then 423 uncounted", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    const started = await start(server, id)
    const results = await Promise.all(
      Array.from({ length: 6 }, () => complete(server, id, { challengeId: started.json.challengeId, code: "000000" }))
    )
    expect(results.map((r) => r.status).sort()).toEqual([400, 400, 400, 400, 423, 423])
    expect((await security(id))?.failedAttempts).toBe(5)
  })

  it("S-14: a factor not enrolled yet (TOTP, PASSKEY) is 400 on start and complete; a missing proof field is 400", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    for (const factor of ["TOTP", "PASSKEY"]) {
      expectError(await start(server, id, factor), 400, "INVALID_INPUT")
      expectError(await complete(server, id, { factor, code: SANDBOX_CODE }), 400, "INVALID_INPUT")
    }
    const started = await start(server, id)
    const noId = await complete(server, id, { code: SANDBOX_CODE })
    expectError(noId, 400, "INVALID_INPUT")
    expect(noId.json.details.errors[0].field).toBe("challengeId")
    const noCode = await complete(server, id, { challengeId: started.json.challengeId })
    expectError(noCode, 400, "INVALID_INPUT")
    expect(noCode.json.details.errors[0].field).toBe("code")
    // Another customer's challenge is no open challenge of this one (and counts nothing).
    const { id: other } = await scaCustomer(server, { region: "DE", phone: "verified" })
    expectError(
      await complete(server, other, { challengeId: started.json.challengeId, code: SANDBOX_CODE }),
      400,
      "INVALID_INPUT"
    )
    expect(await security(other)).toBeUndefined()
    expect(await security(id)).toBeUndefined()
  })
}

onEveryStore("SCA login", "sca_login_http", scaLoginSuite)
