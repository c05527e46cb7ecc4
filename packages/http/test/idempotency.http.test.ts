import { HttpApi } from "effect/http-api"
import { describe, expect, it } from "vitest"
import { Api } from "../src/api.ts"
import { agentRequirements, requirements } from "../src/auth.ts"
import { addUsPayee, balanceIn, onboardCustomer, quoteBody, useTestServer } from "./harness.ts"

// C-09: `Idempotency-Key` over HTTP. A repeated key with the same request replays the first response
// (header `idempotent-replayed: true`) without running the command again; another request under the key is 409.

const server = useTestServer()

let seq = 0
const key = (name: string) => `${name}-${Date.now()}-${++seq}`
const withKey = (k: string) => ({ headers: { "Idempotency-Key": k } })

const onboard = async () => {
  const customer = await onboardCustomer(server)
  const payee = await addUsPayee(server, customer.id)
  return { customerId: customer.id, account: customer.accounts.USD!, payee }
}

const balance = (customerId: string) => balanceIn(server, customerId)

const count = async (path: string): Promise<number> => {
  const listed = await server.call("GET", path)
  expect(listed.status).toBe(200)
  return listed.json.totalCount
}

describe("Idempotency-Key on POST /quotes", () => {
  it("C-09 Q-01: same key and body → the same quote, `idempotent-replayed: true`, one quote and one transaction", async () => {
    const { customerId, account, payee } = await onboard()
    const before = await count(`/transactions?customerId=${customerId}`)
    const k = key("quote")
    const body = quoteBody(account, payee, 1_000)
    const first = await server.call("POST", "/quotes", body, withKey(k))
    expect(first.status).toBe(201)
    expect(first.headers.get("idempotent-replayed")).toBeNull()
    const second = await server.call("POST", "/quotes", body, withKey(k))
    expect(second.status).toBe(201)
    expect(second.headers.get("idempotent-replayed")).toBe("true")
    expect(second.json).toEqual(first.json)
    expect(await count(`/transactions?customerId=${customerId}`)).toBe(before + 1)
    // Without a key, the same body is a new quote.
    const third = await server.call("POST", "/quotes", body)
    expect(third.status).toBe(201)
    expect(third.json.id).not.toBe(first.json.id)
    expect(await count(`/transactions?customerId=${customerId}`)).toBe(before + 2)
  })

  it("C-09: same key with another body (or another path) → 409 IDEMPOTENCY_KEY_REUSED, nothing created", async () => {
    const { customerId, account, payee } = await onboard()
    const k = key("reuse")
    const first = await server.call("POST", "/quotes", quoteBody(account, payee, 1_000), withKey(k))
    expect(first.status).toBe(201)
    const before = await count(`/transactions?customerId=${customerId}`)
    const other = await server.call("POST", "/quotes", quoteBody(account, payee, 1_001), withKey(k))
    expect(other.status).toBe(409)
    expect(other.json).toMatchObject({ status: 409, code: "IDEMPOTENCY_KEY_REUSED" })
    const otherPath = await server.call("POST", `/quotes/${first.json.id}/execute`, undefined, withKey(k))
    expect(otherPath.status).toBe(409)
    expect(otherPath.json.code).toBe("IDEMPOTENCY_KEY_REUSED")
    expect(await count(`/transactions?customerId=${customerId}`)).toBe(before)
    expect((await server.call("GET", `/quotes/${first.json.id}`)).json.status).toBe("PENDING")
  })

  it("C-09: a refused request stores nothing: the same key runs again once the cause is fixed", async () => {
    const { customerId, account, payee } = await onboard()
    const k = key("retry")
    const body = quoteBody(account, payee, 2_000, { immediatelyExecute: true })
    const refused = await server.call("POST", "/quotes", body, withKey(k))
    expect(refused.status).toBe(400)
    expect(refused.json.code).toBe("INSUFFICIENT_FUNDS")
    expect(await count(`/transactions?customerId=${customerId}`)).toBe(0)
    expect((await server.call("POST", `/sandbox/internal-accounts/${account}/fund`, { amount: 5_000 })).status).toBe(
      200
    )
    const retried = await server.call("POST", "/quotes", body, withKey(k))
    expect(retried.status).toBe(201)
    expect(retried.headers.get("idempotent-replayed")).toBeNull()
    expect(retried.json.status).toBe("PROCESSING")
    expect(await balance(customerId)).toBe(3_000)
    const replay = await server.call("POST", "/quotes", body, withKey(k))
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.json.id).toBe(retried.json.id)
    expect(await balance(customerId)).toBe(3_000)
  })

  it("C-09: a key longer than 255 characters → 400", async () => {
    const { account, payee } = await onboard()
    const tooLong = await server.call("POST", "/quotes", quoteBody(account, payee, 100), withKey("k".repeat(256)))
    expect(tooLong.status).toBe(400)
    expect(tooLong.json.status).toBe(400)
  })

  it("C-09: a replay does not skip authorization: a VIEW token reusing the key → 403 FORBIDDEN", async () => {
    const { account, payee } = await onboard()
    const k = key("authz")
    const body = quoteBody(account, payee, 100)
    expect((await server.call("POST", "/quotes", body, withKey(k))).status).toBe(201)
    const viewer = await server.token(["VIEW"])
    const replayed = await server.call("POST", "/quotes", body, { ...withKey(k), auth: viewer })
    expect(replayed.status).toBe(403)
    expect(replayed.json.code).toBe("FORBIDDEN")
  })
})

describe("Idempotency-Key under concurrency", () => {
  it("C-09 Q-23: 10 concurrent executes with one key → one execution, every answer the same 200", async () => {
    const { customerId, account, payee } = await onboard()
    await server.call("POST", `/sandbox/internal-accounts/${account}/fund`, { amount: 10_000 })
    const quote = await server.call("POST", "/quotes", quoteBody(account, payee, 1_000))
    expect(quote.status).toBe(201)
    const k = key("exec")
    const results = await Promise.all(
      Array.from({ length: 10 }, () => server.call("POST", `/quotes/${quote.json.id}/execute`, undefined, withKey(k)))
    )
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200))
    for (const r of results) expect(r.json).toEqual(results[0]!.json)
    expect(results.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(9)
    expect(results[0]!.json.status).toBe("PROCESSING")
    expect(await balance(customerId)).toBe(9_000)
    const outgoing = await server.call("GET", `/transactions?customerId=${customerId}&type=OUTGOING`)
    expect(outgoing.json.data.map((t: { status: string }) => t.status)).toEqual(["PROCESSING"])
  })

  it("C-09 SB-01: 10 concurrent sandbox fundings with one key → the balance grows once", async () => {
    const { customerId, account } = await onboard()
    const k = key("fund")
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        server.call("POST", `/sandbox/internal-accounts/${account}/fund`, { amount: 2_500 }, withKey(k))
      )
    )
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200))
    for (const r of results) expect(r.json.balance.amount).toBe(2_500)
    expect(await balance(customerId)).toBe(2_500)
    expect(await count(`/transactions?customerId=${customerId}&type=INCOMING`)).toBe(1)
    // The same key and body later still replays; a new key funds again.
    const replay = await server.call(
      "POST",
      `/sandbox/internal-accounts/${account}/fund`,
      { amount: 2_500 },
      withKey(k)
    )
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(await balance(customerId)).toBe(2_500)
    await server.call("POST", `/sandbox/internal-accounts/${account}/fund`, { amount: 2_500 }, withKey(key("fund")))
    expect(await balance(customerId)).toBe(5_000)
  })

  it("C-09: 10 concurrent quote creations with one key → one quote", async () => {
    const { customerId, account, payee } = await onboard()
    const k = key("create")
    const body = quoteBody(account, payee, 300)
    const results = await Promise.all(
      Array.from({ length: 10 }, () => server.call("POST", "/quotes", body, withKey(k)))
    )
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201))
    expect(new Set(results.map((r) => r.json.id)).size).toBe(1)
    expect(await count(`/transactions?customerId=${customerId}`)).toBe(1)
  })
})

describe("Authorization before replay", () => {
  it("C-09 SB-02: a PRODUCTION token reusing a sandbox funding's key → 403, the balance unchanged", async () => {
    const { customerId, account } = await onboard()
    const k = key("prod")
    const body = { amount: 700 }
    expect((await server.call("POST", `/sandbox/internal-accounts/${account}/fund`, body, withKey(k))).status).toBe(200)
    const production = await server.token(["VIEW", "TRANSACT", "MANAGE"], "PRODUCTION")
    const replayed = await server.call("POST", `/sandbox/internal-accounts/${account}/fund`, body, {
      ...withKey(k),
      auth: production
    })
    expect(replayed.status).toBe(403)
    expect(replayed.json.code).toBe("FORBIDDEN")
    expect(await balance(customerId)).toBe(700)
  })

  it("every mutating endpoint has a guard the replay path checks", () => {
    const unguarded: Array<string> = []
    HttpApi.reflect(Api, {
      onGroup: () => {},
      onEndpoint: ({ group, endpoint }) => {
        if (endpoint.method === "GET") return
        // An agent's writes are guarded by its policy (permission, not paused) before any replay (A-07, AG-10).
        if (group.identifier === "agentMe") {
          if (agentRequirements[endpoint.identifier]?.write !== true) unguarded.push(`agentMe.${endpoint.identifier}`)
          return
        }
        // Public and never stored by an Idempotency-Key: its answer is a bearer secret (AG-15).
        if (group.identifier === "agents" && endpoint.identifier === "redeemDeviceCode") return
        if (requirements[group.identifier]?.[endpoint.identifier] === undefined) {
          unguarded.push(`${group.identifier}.${endpoint.identifier}`)
        }
      }
    })
    expect(unguarded).toEqual([])
  })
})
