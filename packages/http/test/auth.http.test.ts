import { describe, expect, it } from "vitest"
import { type CallResult, type Credentials, expectInvalid, ids, UUID, useTestServer } from "./harness.ts"

const server = useTestServer()

const UNKNOWN_TOKEN = "Token:01234567-89ab-7def-8123-456789abcdef"

const expectUnauthorized = (r: CallResult) => {
  expect(r.status).toBe(401)
  expect(r.json).toEqual({ status: 401, code: "UNAUTHORIZED", message: expect.stringContaining("Basic") })
  expect(r.headers.get("www-authenticate")).toBe('Basic realm="paycore"')
}

const expectForbidden = (r: CallResult, permission: string) => {
  expect(r.status).toBe(403)
  expect(r.json.status).toBe(403)
  expect(r.json.code).toBe("FORBIDDEN")
  expect(r.json.message).toContain(permission)
}

const basic = (value: string) => ({ authorization: `Basic ${Buffer.from(value).toString("base64")}` })

const createToken = async (body: object, auth?: Credentials) => {
  const r = await server.call("POST", "/tokens", body, auth === undefined ? undefined : { auth })
  expect(r.status).toBe(201)
  return r.json as {
    id: string
    name: string
    permissions: Array<string>
    environment: string
    clientId: string
    clientSecret: string
    createdAt: string
    updatedAt: string
  }
}

const credentialsOf = (t: { clientId: string; clientSecret: string }): Credentials => ({
  clientId: t.clientId,
  clientSecret: t.clientSecret
})

describe("HTTP Basic authentication (A-01, A-02, C-12)", () => {
  it("A-01 accepts the token's clientId as the username and its client secret as the password", async () => {
    const created = await createToken({ name: "ids", permissions: ["VIEW"] })
    const r = await server.call("GET", `/tokens/${created.id}`, undefined, { auth: credentialsOf(created) })
    expect(r.status).toBe(200)
    expect(r.json.id).toBe(created.id)
    // The header is parsed per RFC 7617 (the scheme is case-insensitive).
    const lower = await server.call("GET", `/tokens/${created.id}`, undefined, {
      auth: null,
      headers: {
        authorization: `basic ${Buffer.from(`${created.clientId}:${created.clientSecret}`).toString("base64")}`
      }
    })
    expect(lower.status).toBe(200)
  })

  it("A-02 answers 401 UNAUTHORIZED with www-authenticate when credentials are missing", async () => {
    expectUnauthorized(await server.call("GET", "/tokens", undefined, { auth: null }))
    expectUnauthorized(await server.call("POST", "/tokens", { name: "x", permissions: ["VIEW"] }, { auth: null }))
  })

  it("A-02 answers 401 for a wrong secret, an unknown client id, and malformed Authorization headers", async () => {
    expectUnauthorized(
      await server.call("GET", "/tokens", undefined, {
        auth: { clientId: server.admin.clientId, clientSecret: `${server.admin.clientSecret}x` }
      })
    )
    expectUnauthorized(
      await server.call("GET", "/tokens", undefined, {
        auth: { clientId: "0".repeat(32), clientSecret: server.admin.clientSecret }
      })
    )
    for (const authorization of [
      `Bearer ${server.admin.clientSecret}`,
      "Basic",
      "Basic !!!not-base64!!!",
      basic(`${server.admin.clientId}${server.admin.clientSecret}`).authorization // no colon
    ]) {
      expectUnauthorized(await server.call("GET", "/tokens", undefined, { auth: null, headers: { authorization } }))
    }
  })

  it("A-02 a wrong secret is refused even right after the right one was accepted (no cache bypass)", async () => {
    const created = await createToken({ name: "cache", permissions: ["VIEW"] })
    expect((await server.call("GET", "/tokens", undefined, { auth: credentialsOf(created) })).status).toBe(200)
    expectUnauthorized(
      await server.call("GET", "/tokens", undefined, { auth: { clientId: created.clientId, clientSecret: "wrong" } })
    )
  })

  it("A-02 a refused request stores nothing", async () => {
    const before = await server.call("GET", "/tokens?name=sneaky")
    expectUnauthorized(
      await server.call(
        "POST",
        "/tokens",
        { name: "sneaky", permissions: ["MANAGE"] },
        { auth: { clientId: server.admin.clientId, clientSecret: "nope" } }
      )
    )
    const after = await server.call("GET", "/tokens?name=sneaky")
    expect(before.json.totalCount).toBe(0)
    expect(after.json.totalCount).toBe(0)
  })
})

describe("POST /tokens (A-12, A-13)", () => {
  it("A-12 creates a token: 201 with id, clientId, the secret (once), permissions and SANDBOX by default", async () => {
    const t = await createToken({ name: "ci", permissions: ["VIEW", "TRANSACT", "VIEW"] })
    expect(t.id).toMatch(new RegExp(`^Token:${UUID}$`))
    expect(t.name).toBe("ci")
    expect(t.permissions).toEqual(["VIEW", "TRANSACT"])
    expect(t.environment).toBe("SANDBOX")
    expect(t.clientId).toMatch(/^[0-9a-f]{32}$/)
    expect(t.clientSecret).toMatch(/^[0-9a-f]{32,}$/)
    expect(t.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/)
    expect(t.updatedAt).toBe(t.createdAt)
    // The new credentials work at once.
    const me = await server.call("GET", `/tokens/${t.id}`, undefined, { auth: credentialsOf(t) })
    expect(me.status).toBe(200)
  })

  it("A-03 creates a PRODUCTION token when asked", async () => {
    const t = await createToken({ name: "prod", permissions: ["VIEW"], environment: "PRODUCTION" })
    expect(t.environment).toBe("PRODUCTION")
    expect((await server.call("GET", `/tokens/${t.id}`)).json.environment).toBe("PRODUCTION")
  })

  it("A-13 the secret is never readable again: not on GET /tokens/{id}, not in GET /tokens", async () => {
    const t = await createToken({ name: "secretive", permissions: ["VIEW"] })
    const one = await server.call("GET", `/tokens/${t.id}`)
    expect(one.status).toBe(200)
    expect(one.json).toEqual({
      id: t.id,
      name: "secretive",
      permissions: ["VIEW"],
      environment: "SANDBOX",
      clientId: t.clientId,
      createdAt: t.createdAt,
      updatedAt: t.updatedAt
    })
    const list = await server.call("GET", "/tokens?name=secretive")
    expect(list.json.data).toHaveLength(1)
    expect(list.json.data[0]).not.toHaveProperty("clientSecret")
    expect(JSON.stringify(list.json)).not.toContain(t.clientSecret)
  })

  it("C-11 reports every invalid field at once and creates nothing", async () => {
    const before = await server.call("GET", "/tokens?limit=100")
    const r = await server.call("POST", "/tokens", { name: "", permissions: ["VIEW", "ROOT"], environment: "STAGING" })
    expectInvalid(r, ["name", "permissions.1", "environment"])
    const missing = await server.call("POST", "/tokens", {})
    expectInvalid(missing, ["name", "permissions"])
    const after = await server.call("GET", "/tokens?limit=100")
    expect(after.json.totalCount).toBe(before.json.totalCount)
  })

  it("C-11 an empty permission list is refused (at least one permission)", async () => {
    const r = await server.call("POST", "/tokens", { name: "none", permissions: [] })
    expect(r.status).toBe(400)
    expect(r.json.code).toBe("INVALID_INPUT")
    expect(r.json.details.errors).toHaveLength(1)
    expect(r.json.details.errors[0].field).toMatch(/^permissions(\.0)?$/)
    expect((await server.call("GET", "/tokens?name=none")).json.totalCount).toBe(0)
  })

  it("C-31 malformed JSON is 400 INVALID_INPUT on the body", async () => {
    const r = await server.call("POST", "/tokens", '{"name": "x", "permissions": [')
    expectInvalid(r, ["body"])
    expect(r.json.details.errors[0].constraint).toEqual({ format: "json" })
  })

  it("A-04 needs MANAGE: VIEW and TRANSACT tokens get 403 FORBIDDEN and nothing is created", async () => {
    for (const permissions of [["VIEW"], ["TRANSACT"], ["VIEW", "TRANSACT"]] as const) {
      const auth = await server.token([...permissions])
      expectForbidden(
        await server.call("POST", "/tokens", { name: "escalate", permissions: ["MANAGE"] }, { auth }),
        "MANAGE"
      )
    }
    expect((await server.call("GET", "/tokens?name=escalate")).json.totalCount).toBe(0)
    // A MANAGE-only token may create tokens.
    const manager = await server.token(["MANAGE"])
    expect(
      (await server.call("POST", "/tokens", { name: "by-manager", permissions: ["VIEW"] }, { auth: manager })).status
    ).toBe(201)
  })
})

describe("GET /tokens (A-14)", () => {
  it("A-14 filters by name and by creation time (exclusive bounds)", async () => {
    const a = await createToken({ name: "filter-a", permissions: ["VIEW"] })
    await new Promise((resolve) => setTimeout(resolve, 5))
    const b = await createToken({ name: "filter-b", permissions: ["VIEW"] })
    expect(b.createdAt > a.createdAt).toBe(true)
    const byName = await server.call("GET", "/tokens?name=filter-b")
    expect(byName.status).toBe(200)
    expect(ids(byName)).toEqual([b.id])
    expect(byName.json.totalCount).toBe(1)
    expect(byName.json.hasMore).toBe(false)

    const after = await server.call("GET", `/tokens?limit=100&createdAfter=${encodeURIComponent(a.createdAt)}`)
    expect(ids(after)).toContain(b.id)
    expect(ids(after)).not.toContain(a.id)
    for (const t of after.json.data) expect(t.createdAt > a.createdAt).toBe(true)

    const before = await server.call("GET", `/tokens?limit=100&createdBefore=${encodeURIComponent(b.createdAt)}`)
    expect(ids(before)).toContain(a.id)
    expect(ids(before)).not.toContain(b.id)
    for (const t of before.json.data) expect(t.createdAt < b.createdAt).toBe(true)
  })

  it("C-07 pages with limit and cursor: every token exactly once, newest first", async () => {
    for (let i = 0; i < 5; i++) await createToken({ name: `page-${i}`, permissions: ["VIEW"] })
    const all = await server.call("GET", "/tokens?limit=100")
    const expected: Array<string> = all.json.data.map((t: { id: string }) => t.id)
    expect(all.json.totalCount).toBe(expected.length)
    expect([...expected].sort().reverse()).toEqual(expected)

    const seen: Array<string> = []
    let cursor: string | undefined
    for (let pages = 0; pages < 50; pages++) {
      const r = await server.call("GET", `/tokens?limit=2${cursor === undefined ? "" : `&cursor=${cursor}`}`)
      expect(r.status).toBe(200)
      expect(r.json.data.length).toBeLessThanOrEqual(2)
      expect(r.json.totalCount).toBe(expected.length)
      seen.push(...r.json.data.map((t: { id: string }) => t.id))
      if (!r.json.hasMore) {
        expect(r.json.nextCursor).toBeUndefined()
        break
      }
      expect(r.json.nextCursor).toBeTypeOf("string")
      cursor = r.json.nextCursor
    }
    expect(seen).toEqual(expected)
  })

  it("C-07 a bad cursor, limit or date is 400 naming each query field", async () => {
    const cursor = await server.call("GET", "/tokens?cursor=not-a-cursor")
    expectInvalid(cursor, ["cursor"])
    expectInvalid(await server.call("GET", "/tokens?limit=0&createdAfter=yesterday"), [
      "query.limit",
      "query.createdAfter"
    ])
    expectInvalid(await server.call("GET", "/tokens?limit=101"), ["query.limit"])
  })
})

describe("GET /tokens/{tokenId} (A-15)", () => {
  it("A-15 returns one token; any token may read (VIEW)", async () => {
    const t = await createToken({ name: "readable", permissions: ["TRANSACT"] })
    const viewer = await server.token(["VIEW"])
    const r = await server.call("GET", `/tokens/${t.id}`, undefined, { auth: viewer })
    expect(r.status).toBe(200)
    expect(r.json.name).toBe("readable")
    expect(r.json.permissions).toEqual(["TRANSACT"])
  })

  it("C-24 an unknown token id is 404 TOKEN_NOT_FOUND; a malformed one is 400 on path.tokenId", async () => {
    const r = await server.call("GET", `/tokens/${UNKNOWN_TOKEN}`)
    expect(r.status).toBe(404)
    expect(r.json).toEqual({ status: 404, code: "TOKEN_NOT_FOUND", message: expect.stringContaining(UNKNOWN_TOKEN) })
    expectInvalid(await server.call("GET", "/tokens/Customer:01234567-89ab-7def-8123-456789abcdef"), ["path.tokenId"])
  })
})

describe("DELETE /tokens/{tokenId} (A-16)", () => {
  it("A-16 answers 204 with no body; the deleted token gets 401 at once, even though it was just used", async () => {
    const t = await createToken({ name: "doomed", permissions: ["VIEW"] })
    const auth = credentialsOf(t)
    expect((await server.call("GET", "/tokens", undefined, { auth })).status).toBe(200)
    const del = await server.call("DELETE", `/tokens/${t.id}`)
    expect(del.status).toBe(204)
    expect(del.json).toBeUndefined()
    expectUnauthorized(await server.call("GET", "/tokens", undefined, { auth }))
  })

  it("A-16 a deleted token is 404 TOKEN_NOT_FOUND on get and on a second delete, and left out of lists", async () => {
    const t = await createToken({ name: "gone", permissions: ["VIEW"] })
    expect((await server.call("DELETE", `/tokens/${t.id}`)).status).toBe(204)
    const get = await server.call("GET", `/tokens/${t.id}`)
    expect(get.status).toBe(404)
    expect(get.json.code).toBe("TOKEN_NOT_FOUND")
    const again = await server.call("DELETE", `/tokens/${t.id}`)
    expect(again.status).toBe(404)
    expect(again.json.code).toBe("TOKEN_NOT_FOUND")
    expect((await server.call("GET", "/tokens?name=gone")).json).toEqual({ data: [], hasMore: false, totalCount: 0 })
    const unknown = await server.call("DELETE", `/tokens/${UNKNOWN_TOKEN}`)
    expect(unknown.status).toBe(404)
    expect(unknown.json.code).toBe("TOKEN_NOT_FOUND")
  })

  it("A-16 a token may delete itself; its next request is 401", async () => {
    const t = await createToken({ name: "self", permissions: ["MANAGE"] })
    const auth = credentialsOf(t)
    expect((await server.call("DELETE", `/tokens/${t.id}`, undefined, { auth })).status).toBe(204)
    expectUnauthorized(await server.call("GET", "/tokens", undefined, { auth }))
  })

  it("A-04 needs MANAGE: VIEW and TRANSACT get 403 and the token survives", async () => {
    const t = await createToken({ name: "survivor", permissions: ["VIEW"] })
    for (const permissions of [["VIEW"], ["TRANSACT"]] as const) {
      const auth = await server.token([...permissions])
      expectForbidden(await server.call("DELETE", `/tokens/${t.id}`, undefined, { auth }), "MANAGE")
    }
    expect((await server.call("GET", `/tokens/${t.id}`)).status).toBe(200)
    expect((await server.call("GET", "/tokens", undefined, { auth: credentialsOf(t) })).status).toBe(200)
  })

  it("A-02 the deleted token is refused on every group, reads and writes alike", async () => {
    const t = await createToken({ name: "everywhere", permissions: ["VIEW", "TRANSACT", "MANAGE"] })
    const auth = credentialsOf(t)
    expect((await server.call("GET", "/customers", undefined, { auth })).status).toBe(200)
    expect((await server.call("DELETE", `/tokens/${t.id}`)).status).toBe(204)
    expectUnauthorized(await server.call("GET", "/customers", undefined, { auth }))
    expectUnauthorized(await server.call("GET", "/config", undefined, { auth }))
    expectUnauthorized(await server.call("GET", "/customers/external-accounts", undefined, { auth }))
    expectUnauthorized(
      await server.call("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Nobody" }, { auth })
    )
  })
})
