/**
 * Device codes and the agent's Bearer token over HTTP (issue 16, slice A; docs/design/agents.md section 3 steps 2-5,
 * Q12, Q13): redeem (AG-15, A-06, A-08), status (AG-14), a new code (AG-13), the typed forms a person may enter
 * (C-06), the miss budget of the public redeem, and the token dying with its agent (AG-11) in every process.
 */
import { randomUUID } from "node:crypto"
import { redeemMinute, Store } from "@paycore/core"
import { openAgentPolicy, snapshotStore } from "@paycore/testkit"
import { Effect, Layer } from "effect"
import { expect, it } from "vitest"
import {
  connectedAgent,
  createAgent,
  DEVICE_CODE,
  expireCode,
  redeem,
  redeemToken,
  storedCode,
  storeJson
} from "./agent-credentials-kit.ts"
import { asAgent } from "./agent-kit.ts"
import { expectError, type Onboarded, onboardCustomer, startTestServer, useTestServer } from "./harness.ts"
import { addTo, counterOf, inOneMinute, LOOPBACK_CALLER, minuteOf, redeemMissKey } from "./miss-budgets-kit.ts"
import { onEveryStore } from "./stores.ts"

const UNKNOWN_CODE = "PAYCORE-AGENT-2222-2222"

onEveryStore("agent device codes and tokens", "agent_device_codes_http", (stores) => {
  let ada: Onboarded
  const server = useTestServer(async (s) => {
    ada = await onboardCustomer(s)
  }, stores())

  const status = (code: string) => server.call("GET", `/agents/device-codes/${encodeURIComponent(code)}/status`)

  it("AG-15, A-06, A-08: redeem answers the token once, no-store; it works on /agents/me; the agent is connected", async () => {
    const { agentId, code } = await createAgent(server, ada.id, { name: "Bookkeeper" })
    expect(await status(code)).toMatchObject({ status: 200, json: { code, redeemed: false } })
    const redeemed = await redeem(server, code)
    expect(redeemed.status, JSON.stringify(redeemed.json)).toBe(200)
    expect(redeemed.headers.get("cache-control")).toBe("no-store")
    expect(redeemed.json).toEqual({
      agentId,
      agentName: "Bookkeeper",
      accessToken: expect.stringMatching(/^gat_[0-9a-f]{64}$/),
      policy: openAgentPolicy()
    })
    const me = await asAgent(server, redeemed.json)("GET", "/agents/me")
    expect(me.status).toBe(200)
    expect(me.json).toMatchObject({ id: agentId, isConnected: true })
    expect((await server.call("GET", `/agents/${agentId}`)).json.isConnected).toBe(true)
    expect((await status(code)).json).toEqual({ code, redeemed: true })
    // Basic credentials are not an agent's; a Bearer token is not the platform's.
    expect((await server.call("GET", "/agents/me")).status).toBe(401)
    const asPlatform = await asAgent(server, redeemed.json)("GET", `/agents/${agentId}`)
    expectError(asPlatform, 401, "UNAUTHORIZED")
    expect(asPlatform.headers.get("www-authenticate")).toBe('Basic realm="paycore"')
  })

  it("AG-15: a second redeem is 400 INVALID_INPUT (redeemed), an Idempotency-Key replays nothing", async () => {
    const { code } = await createAgent(server, ada.id)
    const key = randomUUID()
    const first = await redeem(server, code)
    expect(first.status).toBe(200)
    const again = await server.call("POST", `/agents/device-codes/${code}/redeem`, undefined, {
      auth: null,
      headers: { "idempotency-key": key }
    })
    expectError(again, 400, "INVALID_INPUT")
    expect(again.json.details.errors).toEqual([
      { field: "code", constraint: { redeemed: true }, message: expect.any(String) }
    ])
    const third = await server.call("POST", `/agents/device-codes/${code}/redeem`, undefined, {
      auth: null,
      headers: { "idempotency-key": key }
    })
    expectError(third, 400, "INVALID_INPUT")
    const snapshot = await Effect.runPromise(
      snapshotStore({ idempotency: [`platform:${key}`] }).pipe(Effect.provideService(Store, server.store))
    )
    expect(snapshot.keyed[`idempotency/platform:${key}`]).toBeUndefined()
  })

  it("AG-15: an expired code is 400 EXPIRED, its status redeemed false, and the agent stays unconnected", async () => {
    const { agentId, code } = await createAgent(server, ada.id)
    await expireCode(server, code)
    expectError(await redeem(server, code), 400, "EXPIRED")
    expect((await status(code)).json).toEqual({ code, redeemed: false })
    expect((await server.call("GET", `/agents/${agentId}`)).json.isConnected).toBe(false)
  })

  it("AG-13 (Q12): a new code invalidates the old; redeemed, the agent gets no other code (409)", async () => {
    const { agentId, code: old } = await createAgent(server, ada.id)
    const fresh = await server.call("POST", `/agents/${agentId}/device-codes`)
    expect(fresh.status, JSON.stringify(fresh.json)).toBe(201)
    expect(fresh.json).toEqual({
      code: expect.stringMatching(DEVICE_CODE),
      agentId,
      expiresAt: expect.any(String),
      redeemed: false
    })
    expect(fresh.json.code).not.toBe(old)
    expect((await storedCode(server, old))?.state).toBe("INVALIDATED")
    expectError(await redeem(server, old), 400, "EXPIRED")
    expect((await status(old)).json).toEqual({ code: old, redeemed: false })
    await redeemToken(server, fresh.json.code)
    expectError(await server.call("POST", `/agents/${agentId}/device-codes`), 409, "CONFLICT")
    expect((await status(fresh.json.code)).json.redeemed).toBe(true)
  })

  it("C-06: a code typed in lowercase, without dashes, with spaces or without its prefix is the same code", async () => {
    const { code } = await createAgent(server, ada.id)
    const symbols = code.slice("PAYCORE-AGENT-".length)
    const typed = [
      code.toLowerCase(),
      code.replaceAll("-", ""),
      symbols,
      symbols.toLowerCase().replace("-", ""),
      ` ${symbols.slice(0, 4)} ${symbols.slice(5)} `
    ]
    for (const form of typed) expect((await status(form)).json, form).toEqual({ code, redeemed: false })
    const redeemed = await redeem(server, typed[3]!)
    expect(redeemed.status).toBe(200)
    expectError(await redeem(server, code), 400, "INVALID_INPUT")
  })

  it("AG-14, AG-15: an unknown or malformed code is 404 REFERENCE_NOT_FOUND; status is the platform's (Basic)", async () => {
    for (const code of [UNKNOWN_CODE, "PAYCORE-AGENT-AAAA-AAAA", "hello"]) {
      expectError(await status(code), 404, "REFERENCE_NOT_FOUND")
      expectError(await redeem(server, code), 404, "REFERENCE_NOT_FOUND")
    }
    const { code } = await createAgent(server, ada.id)
    expect((await server.call("GET", `/agents/device-codes/${code}/status`, undefined, { auth: null })).status).toBe(
      401
    )
  })

  it("A-08, C-06: neither a device code nor a token is in any stored row", async () => {
    const { code } = await createAgent(server, ada.id)
    const { code: redeemedCode } = await createAgent(server, ada.id)
    const token = await redeemToken(server, redeemedCode)
    const json = await storeJson(server)
    for (const secret of [code, redeemedCode, token]) {
      const symbols = secret.startsWith("gat_") ? [secret, secret.slice(20)] : [secret, secret.slice(14)]
      for (const part of symbols) expect(json).not.toContain(part)
    }
    // What is kept: digests, and the token's selector (looked up).
    expect(json).toContain(token.slice(4, 20))
  })

  it("AG-11: a deleted agent's token is refused by the very next call, in another process over the same store too", async () => {
    const { agentId, accessToken } = await connectedAgent(server, ada.id)
    const other = await startTestServer({ ...stores(), storeLayer: Layer.succeed(Store, server.store) })
    try {
      const here = asAgent(server, { accessToken })
      const there = asAgent(other, { accessToken })
      expect((await here("GET", "/agents/me")).status).toBe(200)
      expect((await there("GET", "/agents/me")).status).toBe(200)
      expect((await server.call("DELETE", `/agents/${agentId}`)).status).toBe(204)
      expectError(await there("GET", "/agents/me"), 401, "UNAUTHORIZED")
      expectError(await here("GET", "/agents/me"), 401, "UNAUTHORIZED")
    } finally {
      await other.close()
    }
  })

  it("A-08: past the minute's miss budget (60 unknown codes) every redeem is 429 RATE_LIMITED with Retry-After", async () => {
    // An anonymous redeem's caller is its peer address (issue 31 item 7).
    const missesOf = (minute: string) => counterOf(server, redeemMissKey(LOOPBACK_CALLER, minute))
    // The server runs on the real clock: a minute that ends half-way is tried again in the next one, with a new code
    // (the last one may have been redeemed in the new minute's budget).
    for (let attempt = 0; attempt < 3; attempt++) {
      const { code } = await createAgent(server, ada.id)
      const minute = redeemMinute(new Date().toISOString())
      const statuses: Array<number> = []
      for (let used = await missesOf(minute); used < 60; used++)
        statuses.push((await redeem(server, UNKNOWN_CODE)).status)
      const over = await redeem(server, UNKNOWN_CODE)
      const known = await redeem(server, code)
      if (redeemMinute(new Date().toISOString()) !== minute) continue
      expect(new Set(statuses)).toEqual(new Set(statuses.length === 0 ? [] : [404]))
      expectError(over, 429, "RATE_LIMITED")
      const retryAfter = Number(over.headers.get("retry-after"))
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      expect(retryAfter).toBeLessThanOrEqual(60)
      // Before any lookup: a good code waits for the next minute too, and stays unredeemed.
      expectError(known, 429, "RATE_LIMITED")
      expect((await status(code)).json.redeemed).toBe(false)
      expect(await missesOf(minute)).toBe(60)
      return
    }
    throw new Error("three minutes ended during the test")
  })
})

// A-08, AG-15, issue 31 item 7: the public redeem's miss budget is per caller. Callers here are told apart by a
// header, as a host behind a proxy keys on the client address it forwards (`missBudgetKey`).
onEveryStore("the redeem miss budget per caller", "agent_redeem_budget_http", (stores) => {
  let ada: Onboarded
  const server = useTestServer(
    async (s) => {
      ada = await onboardCustomer(s)
    },
    { ...stores(), missBudgetKey: ({ headers }) => `client:${String(headers["x-client"])}` }
  )
  const redeemAs = (client: string, code: string) =>
    server.call("POST", `/agents/device-codes/${encodeURIComponent(code)}/redeem`, undefined, {
      auth: null,
      headers: { "x-client": client }
    })

  it("A-08 issue 31 item 7: caller A past its 60 misses is 429 (a good code too); caller B still redeems; A's budget is this minute's only", async () => {
    await inOneMinute(async (minute) => {
      const { code } = await createAgent(server, ada.id)
      const a = redeemMissKey("client:A", minute)
      // 59 of A's misses already spent this minute, and a full budget last minute that holds nothing now.
      await addTo(server, a, 59 - (await counterOf(server, a)))
      const lastMinute = redeemMissKey("client:A", minuteOf(-1))
      await addTo(server, lastMinute, 60 - (await counterOf(server, lastMinute)))
      expectError(await redeemAs("A", UNKNOWN_CODE), 404, "REFERENCE_NOT_FOUND")
      const over = await redeemAs("A", UNKNOWN_CODE)
      expectError(over, 429, "RATE_LIMITED")
      expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
      expectError(await redeemAs("A", code), 429, "RATE_LIMITED")
      expect(await counterOf(server, a)).toBe(60)
      // B has its own budget: its miss is a 404 and its good code redeems.
      expectError(await redeemAs("B", UNKNOWN_CODE), 404, "REFERENCE_NOT_FOUND")
      const redeemed = await redeemAs("B", code)
      expect(redeemed.status, JSON.stringify(redeemed.json)).toBe(200)
      expect(await counterOf(server, redeemMissKey("client:B", minute))).toBe(1)
    })
  })
})
