/**
 * UMA invitations over HTTP (issue 17 slice A; docs/design/invitations-stablecoins.md sections 1 and 3, docs/invitations.md):
 * create (IN-01, IN-02, IN-11), read (IN-03, IN-10), claim (IN-04, IN-07 … IN-09, WH-11) and cancel (IN-05, IN-06),
 * each error in the plan's order with its exact `details`, on every store. Expiry on the real clock is reached by
 * writing `expiresAt` into the past in the store; the TestClock cases (budget windows, the sweep) are in
 * packages/core/test/invitations.test.ts.
 */
import { type InvitationRecord, invitationCounters, Store, utcHour } from "@paycore/core"
import { snapshotStore } from "@paycore/testkit"
import { Effect } from "effect"
import { expect, it } from "vitest"
import { eventsAbout } from "./agent-actions-kit.ts"
import { expectError, type Onboarded, onboardCustomer, type TestServer, useTestServer } from "./harness.ts"
import { onEveryStore } from "./stores.ts"

const CODE = /^[0-9a-f]{8}$/
const INVITEE = "$zoe@elsewhere.example"

const create = (server: TestServer, body: Record<string, unknown>) => server.call("POST", "/invitations", body)
const claim = (server: TestServer, code: string, inviteeUma: unknown = INVITEE) =>
  server.call("POST", `/invitations/${code}/claim`, { inviteeUma })
const cancel = (server: TestServer, code: string) => server.call("POST", `/invitations/${code}/cancel`)
const get = (server: TestServer, code: string) => server.call("GET", `/invitations/${code}`)

/** The stored row of a code. */
const stored = async (server: TestServer, code: string): Promise<InvitationRecord> =>
  (await Effect.runPromise(server.store.invitations.findUnique("code", code)))!

/** Moves a stored invitation's `expiresAt` into the past (the server runs on the real clock). */
const expireInStore = async (server: TestServer, code: string) => {
  const row = await stored(server, code)
  const past = new Date(Date.now() - 1000).toISOString()
  await Effect.runPromise(server.store.invitations.update({ ...row, expiresAt: past }))
  return past
}

const snapshot = (server: TestServer) =>
  Effect.runPromise(snapshotStore().pipe(Effect.provideService(Store, server.store)))

onEveryStore("invitations", "invitations_http", (stores) => {
  let ada: Onboarded
  let bob: Onboarded
  let umaDomain: string
  const server = useTestServer(async (s) => {
    ada = await onboardCustomer(s, { currencies: ["EUR", "USD"] })
    bob = await onboardCustomer(s, { currencies: ["USD"] })
    umaDomain = (await s.call("PATCH", "/config", { webhookEndpoint: "https://platform.example/hooks" })).json.umaDomain
  }, stores())

  const invite = async (body: Record<string, unknown> = {}) => {
    const r = await create(server, { inviterUma: ada.umaAddress, ...body })
    expect(r.status).toBe(201)
    return r.json
  }

  // ---- create ----

  it("IN-01, IN-02: a pay-by-link invitation: 8 hex, the claim link on the platform's umaDomain, amountToSend in the inviter's first currency", async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString()
    const r = await create(server, { inviterUma: ada.umaAddress, amountToSend: 12_550, expiresAt, firstName: "Ada" })
    expect(r.status).toBe(201)
    expect(r.json).toEqual({
      code: expect.stringMatching(CODE),
      createdAt: expect.any(String),
      url: `https://${umaDomain}/i/${r.json.code}`,
      expiresAt,
      inviterUma: ada.umaAddress,
      status: "PENDING",
      firstName: "Ada",
      amountToSend: { amount: 12_550, currency: expect.objectContaining({ code: "EUR" }) }
    })
    const read = await get(server, r.json.code)
    expect(read.status).toBe(200)
    expect(read.json).toEqual(r.json)
  })

  it("IN-01: without an amount or expiry: no amountToSend, no expiresAt; codes differ; a code is read in any case", async () => {
    const one = await invite()
    const two = await invite()
    expect(one).toEqual({
      code: expect.stringMatching(CODE),
      createdAt: expect.any(String),
      url: `https://${umaDomain}/i/${one.code}`,
      inviterUma: ada.umaAddress,
      status: "PENDING"
    })
    expect(two.code).not.toBe(one.code)
    expect((await get(server, one.code.toUpperCase())).json.code).toBe(one.code)
  })

  it("IN-11: create refuses bad input with a 400 and stores nothing", async () => {
    const before = await snapshot(server)
    expectError(await create(server, {}), 400, "INVALID_INPUT")
    expectError(await create(server, { inviterUma: ada.umaAddress, amountToSend: 0 }), 400, "INVALID_INPUT")
    expectError(await create(server, { inviterUma: ada.umaAddress, amountToSend: 1.5 }), 400, "INVALID_INPUT")
    expectError(await create(server, { inviterUma: ada.umaAddress, expiresAt: "tomorrow" }), 400, "INVALID_INPUT")
    // IN-10: expiresAt after now and within a year.
    const past = await create(server, { inviterUma: ada.umaAddress, expiresAt: "2020-01-01T00:00:00Z" })
    expectError(past, 400, "INVALID_INPUT")
    expect(past.json.details.errors[0].field).toBe("expiresAt")
    const far = new Date(Date.now() + 400 * 86_400_000).toISOString()
    expectError(await create(server, { inviterUma: ada.umaAddress, expiresAt: far }), 400, "INVALID_INPUT")
    // Q7: malformed, or no live customer of this platform.
    const malformed = await create(server, { inviterUma: "ada" })
    expectError(malformed, 400, "INVALID_UMA_ADDRESS")
    expect(malformed.json.details).toEqual({ field: "inviterUma", reason: "MALFORMED" })
    const stranger = await create(server, { inviterUma: "$nobody@paycore.example" })
    expectError(stranger, 400, "INVALID_UMA_ADDRESS")
    expect(stranger.json.details).toEqual({ field: "inviterUma", reason: "NOT_A_CUSTOMER" })
    expect(await snapshot(server)).toEqual(before)
  })

  it("IN-11, Q7: a deleted customer cannot invite", async () => {
    const gone = await onboardCustomer(server)
    expect((await server.call("DELETE", `/customers/${gone.id}`)).status).toBeLessThan(300)
    expectError(await create(server, { inviterUma: gone.umaAddress }), 400, "INVALID_UMA_ADDRESS")
  })

  it("IN-11: past the inviter's hourly budget (100) create is 429 RATE_LIMITED with Retry-After; another inviter is not held", async () => {
    const hour = utcHour(new Date().toISOString())
    const key = invitationCounters.created(bob.id, hour)
    // The budget is a counter of the hour: fill it to the edge, as 99 earlier creates would have.
    await Effect.runPromise(
      server.store.counters.add(key, 99 - (await Effect.runPromise(server.store.counters.get(key))))
    )
    const last = await create(server, { inviterUma: bob.umaAddress })
    const over = await create(server, { inviterUma: bob.umaAddress })
    if (utcHour(new Date().toISOString()) !== hour) return // the hour ended mid-test: its window is gone
    expect(last.status).toBe(201)
    expectError(over, 429, "RATE_LIMITED")
    const retryAfter = Number(over.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(3600)
    expect(await Effect.runPromise(server.store.counters.get(key))).toBe(100)
    expect((await create(server, { inviterUma: ada.umaAddress })).status).toBe(201)
  })

  // ---- read ----

  it("C-20, IN-03, IN-11: an unknown or malformed code is 404 INVITATION_NOT_FOUND on every route", async () => {
    for (const code of ["00000000", "not-a-code", "%24x"]) {
      expectError(await get(server, code), 404, "INVITATION_NOT_FOUND")
      expectError(await claim(server, code), 404, "INVITATION_NOT_FOUND")
      expectError(await cancel(server, code), 404, "INVITATION_NOT_FOUND")
    }
  })

  it("IN-10: a PENDING invitation past expiresAt reads EXPIRED before anything writes it", async () => {
    const { code } = await invite({ expiresAt: new Date(Date.now() + 3_600_000).toISOString() })
    const past = await expireInStore(server, code)
    const read = await get(server, code)
    expect(read.status).toBe(200)
    expect(read.json).toMatchObject({ status: "EXPIRED", expiresAt: past })
    expect((await stored(server, code)).state).toBe("PENDING")
  })

  // ---- claim ----

  it("IN-04, WH-11: claim records the invitee and claimedAt; one INVITATION.CLAIMED carries the invitation", async () => {
    const invitation = await invite({ amountToSend: 500 })
    const r = await claim(server, invitation.code)
    expect(r.status).toBe(200)
    expect(r.json).toEqual({
      ...invitation,
      status: "CLAIMED",
      inviteeUma: INVITEE,
      claimedAt: expect.any(String)
    })
    expect((await get(server, invitation.code)).json).toEqual(r.json)
    const row = await stored(server, invitation.code)
    const events = await eventsAbout(server, row.id)
    expect(events.map((e) => e.type)).toEqual(["INVITATION.CLAIMED"])
    expect(events[0]!.data).toEqual(r.json)
    // Delivered to the platform's webhook endpoint like every event (the spec: the configured webhook URL).
    await server.dispatch()
    const delivered = server.webhooks.events().filter((e) => (e.data as { code?: string }).code === invitation.code)
    expect(delivered.map((e) => [e.type, e.data])).toEqual([["INVITATION.CLAIMED", r.json]])
  })

  it("IN-07: claiming a claimed invitation is 400 INVITATION_ALREADY_CLAIMED with details{status, inviteeUma}; no second event", async () => {
    const { code } = await invite()
    expect((await claim(server, code)).status).toBe(200)
    const again = await claim(server, code, "$other@elsewhere.example")
    expectError(again, 400, "INVITATION_ALREADY_CLAIMED")
    expect(again.json.details).toEqual({ status: "CLAIMED", inviteeUma: INVITEE })
    expect(await eventsAbout(server, (await stored(server, code)).id)).toHaveLength(1)
  })

  it("IN-08: cancel then claim is 400 INVITATION_CANCELLED", async () => {
    const { code } = await invite()
    expect((await cancel(server, code)).status).toBe(200)
    const r = await claim(server, code)
    expectError(r, 400, "INVITATION_CANCELLED")
    expect(r.json.details).toEqual({ status: "CANCELLED" })
  })

  it("IN-09, IN-10: claiming past expiresAt is 400 INVITATION_EXPIRED with details.expirationTime, and the expiry is written", async () => {
    const { code } = await invite({ expiresAt: new Date(Date.now() + 3_600_000).toISOString() })
    const past = await expireInStore(server, code)
    const r = await claim(server, code)
    expectError(r, 400, "INVITATION_EXPIRED")
    expect(r.json.details).toEqual({ status: "EXPIRED", expirationTime: past })
    expect((await stored(server, code)).state).toBe("EXPIRED")
    expect(await eventsAbout(server, (await stored(server, code)).id)).toEqual([])
  })

  it("IN-04, Q8: claim checks inviteeUma's form (400 INVALID_INPUT when absent, INVALID_UMA_ADDRESS when malformed) and refuses the inviter itself", async () => {
    const { code } = await invite()
    expectError(await server.call("POST", `/invitations/${code}/claim`, {}), 400, "INVALID_INPUT")
    const malformed = await claim(server, code, "zoe@elsewhere")
    expectError(malformed, 400, "INVALID_UMA_ADDRESS")
    expect(malformed.json.details).toEqual({ field: "inviteeUma", reason: "MALFORMED" })
    expectError(await claim(server, code, ada.umaAddress), 400, "SELF_PAYMENT")
    expect((await get(server, code)).json.status).toBe("PENDING")
  })

  // ---- cancel ----

  it("IN-05: cancel moves a PENDING invitation to CANCELLED, which reads CANCELLED; no event", async () => {
    const invitation = await invite()
    const r = await cancel(server, invitation.code)
    expect(r.status).toBe(200)
    expect(r.json).toEqual({ ...invitation, status: "CANCELLED" })
    expect((await get(server, invitation.code)).json.status).toBe("CANCELLED")
    expect(await eventsAbout(server, (await stored(server, invitation.code)).id)).toEqual([])
  })

  it("IN-06: cancelling a claimed, cancelled or expired invitation is the 400 of its state", async () => {
    const claimed = await invite()
    await claim(server, claimed.code)
    expectError(await cancel(server, claimed.code), 400, "INVITATION_ALREADY_CLAIMED")
    const cancelled = await invite()
    await cancel(server, cancelled.code)
    expectError(await cancel(server, cancelled.code), 400, "INVITATION_CANCELLED")
    const expiring = await invite({ expiresAt: new Date(Date.now() + 3_600_000).toISOString() })
    const past = await expireInStore(server, expiring.code)
    const r = await cancel(server, expiring.code)
    expectError(r, 400, "INVITATION_EXPIRED")
    expect(r.json.details).toEqual({ status: "EXPIRED", expirationTime: past })
    expectError(await cancel(server, expiring.code), 400, "INVITATION_EXPIRED")
  })

  it("IN-10: the worker pass stores EXPIRED for PENDING invitations past expiresAt, and only those", async () => {
    const due = await invite({ expiresAt: new Date(Date.now() + 3_600_000).toISOString() })
    const later = await invite({ expiresAt: new Date(Date.now() + 3_600_000).toISOString() })
    const never = await invite()
    await expireInStore(server, due.code)
    await server.processDue()
    expect((await stored(server, due.code)).state).toBe("EXPIRED")
    expect((await stored(server, later.code)).state).toBe("PENDING")
    expect((await stored(server, never.code)).state).toBe("PENDING")
  })
})
