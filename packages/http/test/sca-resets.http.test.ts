/**
 * SCA factor resets on the HTTP surface (issue 14, reset slice; the upstream `/sca/factors/reset*` routes, L-14):
 * `POST /sca/factors/reset` → a liveness session (the ownership verification's LivenessProvider; the sandbox's
 * verdict by `POST /sandbox/sca/factors/reset/{resetId}/liveness`), `GET .../{resetId}`, and `POST
 * .../{resetId}/complete` once liveness passed: an SMS reset sets the number the next codes go to (seen by a
 * recording notifier), a TOTP or PASSKEY reset removes the factor so it can be enrolled again. The 24 h limit and
 * the 30 min window are met by ageing rows (on a TestClock in packages/core/test/sca-resets.test.ts). The whole file
 * runs on the memory store, on PGlite, and on PostgreSQL.
 */
import { randomUUID } from "node:crypto"
import { expect, it } from "vitest"
import { expectError, UNKNOWN_CUSTOMER, useTestServer } from "./harness.ts"
import {
  END_USER_IP,
  enrolPasskey,
  enrolTotp,
  recordingNotifier,
  run,
  SANDBOX_CODE,
  scaCustomer,
  scaLogin
} from "./sca-kit.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const HOUR_MS = 3_600_000

const scaResetsSuite = (stores: () => StoresUnderTest) => {
  const notifier = recordingNotifier()
  const server = useTestServer(async () => {}, { ...stores(), extraLayer: notifier.layer })

  const startReset = (customerId: string, factor: string) =>
    server.call("POST", `/sca/factors/reset?customerId=${customerId}`, { factor })
  const getReset = (customerId: string, resetId: string) =>
    server.call("GET", `/sca/factors/reset/${resetId}?customerId=${customerId}`)
  const completeReset = (customerId: string, resetId: string, body?: unknown) =>
    server.call("POST", `/sca/factors/reset/${resetId}/complete?customerId=${customerId}`, body)
  const settle = (resetId: string, result: string) =>
    server.call("POST", `/sandbox/sca/factors/reset/${resetId}/liveness`, { result })

  /** A started reset of `factor` whose liveness passed in the sandbox. */
  const passedReset = async (customerId: string, factor: string) => {
    const started = await startReset(customerId, factor)
    expect(started.status, JSON.stringify(started.json)).toBe(201)
    const settled = await settle(started.json.resetId, "PASSED")
    expect(settled.status, JSON.stringify(settled.json)).toBe(200)
    expect(settled.json.status).toBe("LIVENESS_PASSED")
    return started.json.resetId as string
  }

  it("POST /sca/factors/reset → 201 {resetId, verificationLink, expiresAt +30 min}; GET → INITIATED; 404 for an unknown or another customer's reset; 409 outside the SCA regions", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    const before = Date.now()
    const started = await startReset(id, "SMS_OTP")
    expect(started.status, JSON.stringify(started.json)).toBe(201)
    const { resetId, verificationLink, expiresAt, livenessAccessToken } = started.json
    expect(resetId).toMatch(/^ScaFactorReset:[0-9a-f-]{36}$/)
    expect(verificationLink).toMatch(/^https:\/\/sandbox\.paycore\.dev\/liveness\/[0-9a-f]{32}$/)
    expect(livenessAccessToken).toBeUndefined()
    const window = Date.parse(expiresAt) - before
    expect(window).toBeGreaterThan(30 * 60_000 - 5000)
    expect(window).toBeLessThanOrEqual(30 * 60_000 + 1000)
    const status = await getReset(id, resetId)
    expect(status.status, JSON.stringify(status.json)).toBe(200)
    expect(status.json).toEqual({ status: "INITIATED", factor: "SMS_OTP", expiresAt })

    const other = await scaCustomer(server, { region: "DE", phone: "verified" })
    expectError(await getReset(other.id, resetId), 404, "REFERENCE_NOT_FOUND")
    expectError(await completeReset(other.id, resetId), 404, "REFERENCE_NOT_FOUND")
    expectError(await getReset(id, `ScaFactorReset:${randomUUID()}`), 404, "REFERENCE_NOT_FOUND")
    expectError(await settle(`ScaFactorReset:${randomUUID()}`, "PASSED"), 404, "REFERENCE_NOT_FOUND")
    expectError(await getReset(id, "not-a-reset"), 400, "INVALID_INPUT")
    expectError(await startReset(UNKNOWN_CUSTOMER, "SMS_OTP"), 404, "USER_NOT_FOUND")
    const us = await scaCustomer(server, { region: "US", phone: "unverified" })
    expectError(await startReset(us.id, "SMS_OTP"), 409, "CONFLICT")
    expectError(await getReset(us.id, resetId), 409, "CONFLICT")
    expectError(await completeReset(us.id, resetId), 409, "CONFLICT")
  })

  it("a factor that is not enrolled cannot be reset (400 on factor): TOTP and PASSKEY before enrolment, SMS_OTP without a verified phone", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    for (const factor of ["TOTP", "PASSKEY"]) {
      const r = await startReset(id, factor)
      expectError(r, 400, "INVALID_INPUT")
      expect(r.json.details.errors[0].field).toBe("factor")
    }
    const unverified = await scaCustomer(server, { region: "DE", phone: "unverified" })
    expectError(await startReset(unverified.id, "SMS_OTP"), 400, "INVALID_INPUT")
    expectError(await startReset(id, "EMAIL"), 400, "INVALID_INPUT")
    expect(await run(server.store.scaFactorResets.list({ customerId: id }, { limit: 5, sortOrder: "asc" }))).toEqual(
      expect.objectContaining({ data: [] })
    )
  })

  it("L-14: 5 reset starts in 24 h, the 6th is 429 RATE_LIMITED with Retry-After; once the oldest is 24 h old a start is accepted", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    const ids: Array<string> = []
    for (let i = 0; i < 5; i++) {
      const r = await startReset(id, "SMS_OTP")
      expect(r.status, JSON.stringify(r.json)).toBe(201)
      ids.push(r.json.resetId)
    }
    const sixth = await startReset(id, "SMS_OTP")
    expectError(sixth, 429, "RATE_LIMITED")
    const retryAfter = Number(sixth.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThan(86_400 - 60)
    expect(retryAfter).toBeLessThanOrEqual(86_400)
    // The first start moved 23 h back: still inside the window, an hour to wait.
    const first = (await run(server.store.scaFactorResets.get(ids[0]!)))!
    const back = (ms: number) => new Date(Date.parse(first.createdAt) - ms).toISOString()
    await run(server.store.scaFactorResets.update({ ...first, createdAt: back(23 * HOUR_MS) }))
    const stillLimited = await startReset(id, "SMS_OTP")
    expectError(stillLimited, 429, "RATE_LIMITED")
    const wait = Number(stillLimited.headers.get("retry-after"))
    expect(wait).toBeGreaterThan(3600 - 60)
    expect(wait).toBeLessThanOrEqual(3600)
    await run(server.store.scaFactorResets.update({ ...first, createdAt: back(24 * HOUR_MS) }))
    expect((await startReset(id, "SMS_OTP")).status).toBe(201)
    expectError(await startReset(id, "SMS_OTP"), 429, "RATE_LIMITED")
  })

  it("complete before liveness passed is 400 and changes nothing; a FAILED verdict is REJECTED (400); the sandbox verdict is 409 once given; a lapsed reset is EXPIRED", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    const started = (await startReset(id, "SMS_OTP")).json.resetId as string
    const mobile = { countryCode: "+44", number: "7700900123" }
    const early = await completeReset(id, started, { mobile })
    expectError(early, 400, "INVALID_INPUT")
    expect(early.json.details.errors[0]).toMatchObject({ field: "resetId", constraint: { status: "LIVENESS_PASSED" } })
    const review = await settle(started, "PENDING_REVIEW")
    expect(review.json.status).toBe("PENDING_REVIEW")
    expectError(await completeReset(id, started, { mobile }), 400, "INVALID_INPUT")
    expect((await getReset(id, started)).json.status).toBe("PENDING_REVIEW")

    const rejected = (await startReset(id, "SMS_OTP")).json.resetId as string
    expect((await settle(rejected, "FAILED")).json.status).toBe("REJECTED")
    expectError(await settle(rejected, "PASSED"), 409, "CONFLICT")
    expectError(await completeReset(id, rejected, { mobile }), 400, "INVALID_INPUT")
    expect((await getReset(id, rejected)).json.status).toBe("REJECTED")
    expectError(await settle(rejected, "MAYBE"), 400, "INVALID_INPUT")

    // Passed, then lapsed: the completion is refused and writes EXPIRED.
    const lapsed = await passedReset(id, "SMS_OTP")
    const row = (await run(server.store.scaFactorResets.get(lapsed)))!
    await run(server.store.scaFactorResets.update({ ...row, expiresAt: new Date(Date.now() - 1000).toISOString() }))
    expect((await getReset(id, lapsed)).json.status).toBe("EXPIRED")
    expectError(await completeReset(id, lapsed, { mobile }), 400, "INVALID_INPUT")
    expect((await run(server.store.scaFactorResets.get(lapsed)))?.status).toBe("EXPIRED")
    expectError(await settle(lapsed, "PASSED"), 409, "CONFLICT")
    // None of it gave the customer an SMS factor row.
    expect(await run(server.store.scaFactors.findUnique("slot", `${id}|SMS_OTP`))).toBeUndefined()
  })

  it("an SMS_OTP reset after the sandbox liveness: complete with mobile → 204; the next login code goes to the new number; the customer record keeps its phone", async () => {
    const { id, phoneNumber: number } = await scaCustomer(server, { region: "DE", phone: "verified" })
    const resetId = await passedReset(id, "SMS_OTP")
    // The mobile is required, and must make an E.164 number.
    const noMobile = await completeReset(id, resetId)
    expectError(noMobile, 400, "INVALID_INPUT")
    expect(noMobile.json.details.errors[0].field).toBe("mobile")
    expectError(
      await completeReset(id, resetId, { mobile: { countryCode: "49", number: "1511" } }),
      400,
      "INVALID_INPUT"
    )
    const tooLong = await completeReset(id, resetId, { mobile: { countryCode: "+4912", number: "12345678901234" } })
    expectError(tooLong, 400, "INVALID_INPUT")
    expect(tooLong.json.details.errors[0].field).toBe("mobile.number")

    const done = await completeReset(id, resetId, { mobile: { countryCode: "+44", number: "7700900123" } })
    expect(done.status, JSON.stringify(done.json)).toBe(204)
    const status = await getReset(id, resetId)
    expect(status.json).toMatchObject({ status: "COMPLETED", factor: "SMS_OTP", completedAt: expect.any(String) })
    expect(status.json.enrollmentStatus).toBeUndefined()
    expectError(
      await completeReset(id, resetId, { mobile: { countryCode: "+44", number: "7700900124" } }),
      400,
      "INVALID_INPUT"
    )

    await scaLogin(server, id)
    expect(notifier.sent.at(-1)).toMatchObject({ channel: "SMS", to: "+447700900123" })
    expect(notifier.sent.some((m) => m.to === "+447700900123" && m.code.length === 6)).toBe(true)
    expect((await server.call("GET", `/customers/${id}`)).json.phoneNumber).toBe(number)
    expect((await server.call("GET", `/sca/factors?customerId=${id}`)).json).toEqual({
      factors: [{ factor: "SMS_OTP" }]
    })

    // A second SMS reset replaces the number again.
    const again = await passedReset(id, "SMS_OTP")
    expect((await completeReset(id, again, { mobile: { countryCode: "+33", number: "612345678" } })).status).toBe(204)
    await scaLogin(server, id)
    expect(notifier.sent.at(-1)?.to).toBe("+33612345678")
    const rows = (await run(server.store.scaFactors.list({ customerId: id }, { limit: 10, sortOrder: "asc" }))).data
    expect(rows.map((r) => [r.factor, r.status, r.phone])).toEqual([
      ["SMS_OTP", "REMOVED", "+447700900123"],
      ["SMS_OTP", "ACTIVE", "+33612345678"]
    ])
  })

  it("a TOTP reset removes the factor (TOTP login 400, enrollmentStatus PENDING); the customer enrols TOTP again (COMPLETED)", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    await scaLogin(server, id)
    await enrolTotp(server, id)
    const resetId = await passedReset(id, "TOTP")
    // No body for a TOTP reset.
    const done = await completeReset(id, resetId)
    expect(done.status, JSON.stringify(done.json)).toBe(204)
    expect((await getReset(id, resetId)).json).toMatchObject({ status: "COMPLETED", enrollmentStatus: "PENDING" })
    expect((await server.call("GET", `/sca/factors?customerId=${id}`)).json).toEqual({
      factors: [{ factor: "SMS_OTP" }]
    })
    const login = await server.call("POST", `/sca/login/complete?customerId=${id}`, {
      factor: "TOTP",
      endUserIpAddress: END_USER_IP,
      code: SANDBOX_CODE
    })
    expectError(login, 400, "INVALID_INPUT")
    expect(login.json.details.errors[0].field).toBe("factor")
    await enrolTotp(server, id)
    expect((await getReset(id, resetId)).json.enrollmentStatus).toBe("COMPLETED")
    const rows = (await run(server.store.scaFactors.list({ customerId: id }, { limit: 10, sortOrder: "asc" }))).data
    expect(rows.map((r) => [r.factor, r.status])).toEqual([
      ["TOTP", "REMOVED"],
      ["TOTP", "ACTIVE"]
    ])
  })

  it("a PASSKEY reset removes the passkey, so another one can be enrolled (no more 409 PASSKEY_ALREADY_ENROLLED)", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    await scaLogin(server, id)
    await enrolPasskey(server, id)
    expectError(
      await server.call("POST", `/sca/factors?customerId=${id}`, { type: "PASSKEY" }),
      409,
      "PASSKEY_ALREADY_ENROLLED"
    )
    const resetId = await passedReset(id, "PASSKEY")
    expect((await completeReset(id, resetId)).status).toBe(204)
    expect((await getReset(id, resetId)).json.enrollmentStatus).toBe("PENDING")
    expectError(
      await server.call("POST", `/sca/login/start?customerId=${id}`, { factor: "PASSKEY" }),
      400,
      "INVALID_INPUT"
    )
    const device = await enrolPasskey(server, id)
    expect((await getReset(id, resetId)).json.enrollmentStatus).toBe("COMPLETED")
    const listed = (await server.call("GET", `/sca/factors?customerId=${id}`)).json.factors
    expect(listed).toEqual([{ factor: "SMS_OTP" }, { factor: "PASSKEY", credentialId: device.credentialId }])
  })
}

onEveryStore("SCA factor resets", "sca_resets_http", scaResetsSuite)
