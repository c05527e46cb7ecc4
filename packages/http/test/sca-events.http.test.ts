/**
 * The security events of `POST /sca/record-event` on the HTTP surface (issue 14; FEATURES S-01, S-09, S-10, C-41):
 * `FAILED_LOGIN_ATTEMPT` climbs the customer's one lock ladder (the login's), and `RESET_PASSWORD_COMPLETED` lifts a
 * lock or suspension, sets the count to 0 and revokes every SCA session, so `requireScaSession` answers 409
 * `SCA_SESSION_REQUIRED` until the customer logs in again.
 * The whole file runs on the memory store, on PGlite, and on the PostgreSQL server named by DATABASE_URL.
 */
import { randomUUID } from "node:crypto"
import { requireScaSession, type ScaSessionRecord, Store } from "@paycore/core"
import { Effect } from "effect"
import { expect, it } from "vitest"
import { expectError, type TestServer, UNKNOWN_CUSTOMER, useTestServer } from "./harness.ts"
import { run, scaCustomer, smsLoginAttempt } from "./sca-kit.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const MINUTE_MS = 60_000

const record = (server: TestServer, customerId: string, eventType: string) =>
  server.call("POST", `/sca/record-event?customerId=${customerId}`, { eventType })

/** Within a second of `expectedMs` (the server's clock read between `before` and now). */
const expectInstantNear = (iso: string, offsetMs: number, before: number) => {
  const at = Date.parse(iso)
  expect(at).toBeGreaterThanOrEqual(before + offsetMs - 1000)
  expect(at).toBeLessThanOrEqual(Date.now() + offsetMs + 1000)
}

const scaEventsSuite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(async () => {}, stores())

  const security = (customerId: string) => run(server.store.scaSecurity.get(customerId))

  /** What money movement will check: the live session, or the refusal's code. */
  const sessionCheck = (customerId: string) =>
    run(
      requireScaSession(customerId).pipe(
        Effect.provideService(Store, server.store),
        Effect.match({ onFailure: (e) => ("code" in e ? e.code : String(e)), onSuccess: (s) => s.id })
      )
    )

  /** Ends the customer's lock now (as if `lockedUntil` had passed); the count is kept. */
  const lapseLock = async (customerId: string) => {
    const row = (await security(customerId))!
    await run(server.store.scaSecurity.update({ ...row, lockedUntil: new Date(Date.now() - 1000).toISOString() }))
  }

  it("S-01: record-event is 409 CONFLICT for a customer outside the SCA regions, 404 USER_NOT_FOUND for an unknown one, 400 for an unknown event; nothing is counted", async () => {
    const { id: us } = await scaCustomer(server, { region: "US", phone: "unverified" })
    for (const eventType of ["FAILED_LOGIN_ATTEMPT", "RESET_PASSWORD_COMPLETED"]) {
      expectError(await record(server, us, eventType), 409, "CONFLICT")
      expectError(await record(server, UNKNOWN_CUSTOMER, eventType), 404, "USER_NOT_FOUND")
    }
    expect(await security(us)).toBeUndefined()
    const { id: de } = await scaCustomer(server, { region: "DE", phone: "verified" })
    for (const body of [{ eventType: "SIGN_IN" }, {}, { eventType: 5 }]) {
      expectError(await server.call("POST", `/sca/record-event?customerId=${de}`, body), 400, "INVALID_INPUT")
    }
    expectError(
      await server.call("POST", "/sca/record-event", { eventType: "FAILED_LOGIN_ATTEMPT" }),
      400,
      "INVALID_INPUT"
    )
    expect(await security(de)).toBeUndefined()
  })

  it("S-10, C-41: FAILED_LOGIN_ATTEMPT climbs the ladder: 200 with the state, the 5th locks 15 min, one recorded while locked is counted and answers 423", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    for (let i = 1; i <= 4; i++) {
      const r = await record(server, id, "FAILED_LOGIN_ATTEMPT")
      expect(r.status, JSON.stringify(r.json)).toBe(200)
      expect(r.json).toEqual({
        eventType: "FAILED_LOGIN_ATTEMPT",
        suspended: false,
        lockedUntil: null,
        failedAttempts: i
      })
    }
    const before = Date.now()
    const fifth = await record(server, id, "FAILED_LOGIN_ATTEMPT")
    expect(fifth.status, JSON.stringify(fifth.json)).toBe(200)
    expect(fifth.json).toMatchObject({ suspended: false, failedAttempts: 5 })
    expectInstantNear(fifth.json.lockedUntil, 15 * MINUTE_MS, before)
    // The one ladder: the login is locked too.
    expectError(await smsLoginAttempt(server, id), 423, "ACCOUNT_LOCKED")

    // Recorded while locked: counted, the next rung (30 min), and 423.
    const sixth = await record(server, id, "FAILED_LOGIN_ATTEMPT")
    expectError(sixth, 423, "ACCOUNT_LOCKED")
    expect(sixth.json.details).toMatchObject({ suspended: false, failedAttempts: 6 })
    expectInstantNear(sixth.json.details.lockedUntil, 30 * MINUTE_MS, before)
    expect((await security(id))?.failedAttempts).toBe(6)

    // Once the lock has passed, a failure is 200 again and climbs to the next rung (1 h).
    await lapseLock(id)
    const seventh = await record(server, id, "FAILED_LOGIN_ATTEMPT")
    expect(seventh.status, JSON.stringify(seventh.json)).toBe(200)
    expect(seventh.json).toMatchObject({ suspended: false, failedAttempts: 7 })
    expectInstantNear(seventh.json.lockedUntil, 60 * MINUTE_MS, before)
  })

  it("S-10, C-41, S-09: record-event to suspension, then RESET_PASSWORD_COMPLETED lifts it, sets the count to 0 and revokes the SCA sessions; a login works again", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    const first = await smsLoginAttempt(server, id)
    expect(first.status, JSON.stringify(first.json)).toBe(200)
    // A second live session (another device), and one that has already lapsed: only live ones are revoked.
    const sessions = await run(server.store.scaSessions.list({ customerId: id }, { limit: 10, sortOrder: "asc" }))
    const live = sessions.data[0]!
    const lapsed: ScaSessionRecord = {
      ...live,
      id: `ScaSession:${randomUUID()}` as ScaSessionRecord["id"],
      createdAt: new Date(Date.now() - 200 * 86_400_000).toISOString(),
      expiresAt: new Date(Date.now() - 20 * 86_400_000).toISOString()
    }
    await run(server.store.scaSessions.insert(lapsed))
    const second = await smsLoginAttempt(server, id)
    expect(second.status, JSON.stringify(second.json)).toBe(200)
    expect(await sessionCheck(id)).toMatch(/^ScaSession:/)

    // The ladder to suspension through record-event; the lock lapses between rungs so each is a 200.
    for (let i = 1; i <= 9; i++) {
      if ((await security(id))?.lockedUntil !== undefined) await lapseLock(id)
      const r = await record(server, id, "FAILED_LOGIN_ATTEMPT")
      expect(r.status, JSON.stringify(r.json)).toBe(200)
      expect(r.json.failedAttempts).toBe(i)
    }
    const suspended = (await security(id))!
    expect(suspended).toMatchObject({ suspended: true, failedAttempts: 9 })
    expect(suspended.lockedUntil).toBeUndefined()
    // Suspended: no automatic end, the login is refused, and another failure is counted with 423.
    expectError(await smsLoginAttempt(server, id), 423, "ACCOUNT_LOCKED")
    const tenth = await record(server, id, "FAILED_LOGIN_ATTEMPT")
    expectError(tenth, 423, "ACCOUNT_LOCKED")
    expect(tenth.json.details).toEqual({ suspended: true, lockedUntil: null, failedAttempts: 10 })
    // The sessions outlive a lock: only the password reset ends them.
    expect(await sessionCheck(id)).toMatch(/^ScaSession:/)

    const reset = await record(server, id, "RESET_PASSWORD_COMPLETED")
    expect(reset.status, JSON.stringify(reset.json)).toBe(200)
    expect(reset.json).toEqual({
      eventType: "RESET_PASSWORD_COMPLETED",
      suspended: false,
      lockedUntil: null,
      failedAttempts: 0
    })
    expect(await security(id)).toMatchObject({ suspended: false, failedAttempts: 0 })
    expect((await security(id))?.lockedUntil).toBeUndefined()
    const after = await run(
      server.store.scaSessions.list({ customerId: id, includeRevoked: true }, { limit: 10, sortOrder: "asc" })
    )
    const revoked = after.data.filter((s) => s.revokedAt !== undefined).map((s) => s.id)
    expect(revoked).toHaveLength(2)
    expect(revoked).not.toContain(lapsed.id)
    expect(await sessionCheck(id)).toBe("SCA_SESSION_REQUIRED")

    // A new login opens a new session; a second reset revokes it as well, and is answered the same.
    const again = await smsLoginAttempt(server, id)
    expect(again.status, JSON.stringify(again.json)).toBe(200)
    const fresh = await sessionCheck(id)
    expect(fresh).toMatch(/^ScaSession:/)
    expect(revoked).not.toContain(fresh)
    expect((await record(server, id, "RESET_PASSWORD_COMPLETED")).json).toEqual(reset.json)
    expect(await sessionCheck(id)).toBe("SCA_SESSION_REQUIRED")
  })

  it("S-10: RESET_PASSWORD_COMPLETED for a customer that never failed answers the open state and writes no lock row", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    const r = await record(server, id, "RESET_PASSWORD_COMPLETED")
    expect(r.status, JSON.stringify(r.json)).toBe(200)
    expect(r.json).toEqual({
      eventType: "RESET_PASSWORD_COMPLETED",
      suspended: false,
      lockedUntil: null,
      failedAttempts: 0
    })
    expect(await security(id)).toBeUndefined()
  })

  it("C-41: concurrent FAILED_LOGIN_ATTEMPTs are counted one after the other", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    const results = await Promise.all(Array.from({ length: 6 }, () => record(server, id, "FAILED_LOGIN_ATTEMPT")))
    // Four below the lock and the 5th that locks are 200; the 6th arrives locked: 423.
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 423])
    expect((await security(id))?.failedAttempts).toBe(6)
  })
}

onEveryStore("SCA security events", "sca_events_http", scaEventsSuite)
