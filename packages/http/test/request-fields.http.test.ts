/**
 * Unknown request fields and miscased enum values (issue 31; C-10, C-11, C-31): a body field the operation does not
 * declare answers 400 `INVALID_INPUT` naming it (with the nearest known field of that object when there is one),
 * at any depth, judged by the member a tagged body's tag selects, and changes nothing; an enum value in the wrong
 * case is told the right one. Every field the upstream defines for a request body is declared, so none of them is
 * refused as unknown.
 */
import { readFileSync } from "node:fs"
import { HttpApi } from "effect/http-api"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { Api } from "../src/index.ts"
import { agentOf } from "./agent-kit.ts"
import { matchOperation, UPSTREAM_OPENAPI, upstreamRequestFields } from "./conformance.ts"
import { isAgentRoute } from "./fuzzer.ts"
import { consent, expectInvalid, onboardCustomer, useTestServer } from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

let seq = 0
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`

const individual = (overrides: Record<string, unknown> = {}) => ({
  customerType: "INDIVIDUAL",
  fullName: "Ada Lovelace",
  currencies: ["USD"],
  endUserTermsConsent: consent,
  ...overrides
})

const fieldsSuite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(async () => {}, stores())

  /** How many customers have `platformCustomerId` (0 after a refused create). */
  const customersWith = async (platformCustomerId: string) =>
    (await server.call("GET", `/customers?platformCustomerId=${platformCustomerId}`)).json.totalCount

  it("C-11 CU-01: a customer with `name` is 400 naming `name`, suggesting `fullName`; no customer is created", async () => {
    const platformCustomerId = unique("named")
    const { fullName: _, ...body } = individual({ platformCustomerId, name: "Ada Lovelace" })
    const r = await server.call("POST", "/customers", body)
    expectInvalid(r, ["name"])
    expect(r.json.message).toBe("Invalid input: name")
    expect(r.json.details.errors).toEqual([
      {
        field: "name",
        constraint: { unexpected: true, suggestion: "fullName" },
        message: "Unknown field; did you mean `fullName`?"
      }
    ])
    expect(await customersWith(platformCustomerId)).toBe(0)
  })

  it("C-11: an unknown field inside an object is named by its path, with that object's nearest field", async () => {
    const platformCustomerId = unique("nested")
    const address = { line1: "1 Main St", lin2: "Flat 2", postalCode: "10001", country: "US", zip: "10001" }
    const r = await server.call("POST", "/customers", individual({ platformCustomerId, address }))
    expectInvalid(r, ["address.lin2", "address.zip"])
    expect(r.json.details.errors).toEqual([
      {
        field: "address.lin2",
        constraint: { unexpected: true, suggestion: "line2" },
        message: "Unknown field; did you mean `line2`?"
      },
      { field: "address.zip", constraint: { unexpected: true }, message: "Unknown field" }
    ])
    expect(await customersWith(platformCustomerId)).toBe(0)
    // A PATCH too: the customer is unchanged.
    const c = (await server.call("POST", "/customers", individual())).json
    const p = await server.call("PATCH", `/customers/${c.id}`, {
      customerType: "INDIVIDUAL",
      address: { line1: "2 Main St", postalCode: "10001", country: "US", flat: "2" }
    })
    expectInvalid(p, ["address.flat"])
    expect((await server.call("GET", `/customers/${c.id}`)).json).toEqual(c)
  })

  it("C-11 CU-01: a tagged body is judged by the member its tag selects: an individual's field on a business is unknown", async () => {
    const platformCustomerId = unique("business")
    const r = await server.call("POST", "/customers", {
      customerType: "BUSINESS",
      platformCustomerId,
      fullName: "Ada Lovelace",
      businessInfo: { legalName: "Analytical Engines Ltd", country: "GB", incorporatedOn: "2019-05-01", taxId: "GB1" }
    })
    expectInvalid(r, ["fullName"])
    expect(await customersWith(platformCustomerId)).toBe(0)
    // W-05: `type` selects the OAUTH member, whose fields are known; a passkey's `nickname` is not one of them.
    const credential = await server.call("POST", "/auth/credentials", {
      type: "OAUTH",
      accountId: "InternalAccount:019542f5-b3e7-1d02-0000-000000000002",
      oidcToken: "header.payload.signature",
      nickname: "phone"
    })
    expectInvalid(credential, ["nickname"])
  })

  it("C-11: an enum value in the wrong case is told the right one, a tag's too; nothing is created", async () => {
    const platformCustomerId = unique("cased")
    const tag = await server.call("POST", "/customers", individual({ platformCustomerId, customerType: "individual" }))
    expectInvalid(tag, ["customerType"])
    expect(tag.json.details.errors[0]).toEqual({
      field: "customerType",
      constraint: { enum: ["INDIVIDUAL", "BUSINESS"], suggestion: "INDIVIDUAL" },
      message: 'Expected one of "INDIVIDUAL", "BUSINESS"; did you mean `INDIVIDUAL`?'
    })
    const idType = await server.call("POST", "/customers", individual({ platformCustomerId, idType: "ssn" }))
    expectInvalid(idType, ["idType"])
    expect(idType.json.details.errors[0].constraint).toEqual({
      enum: ["SSN", "ITIN", "EIN", "NON_US_TAX_ID"],
      suggestion: "SSN"
    })
    expect(idType.json.details.errors[0].message).toMatch(/; did you mean `SSN`\?$/)
    expect(await customersWith(platformCustomerId)).toBe(0)
  })

  it("C-07: a query parameter no operation declares is still ignored (only bodies are strict)", async () => {
    const r = await server.call("GET", "/customers?limit=1&sort=name")
    expect(r.status).toBe(200)
  })
}

onEveryStore("unknown request fields", "request_fields_http", fieldsSuite)

describe("every field an upstream request body defines", () => {
  const server = useTestServer()

  it("C-11: sent alone to the operation that serves it, is not refused as unknown", async () => {
    const upstream = upstreamRequestFields(parse(readFileSync(UPSTREAM_OPENAPI, "utf8")))
    const customer = await onboardCustomer(server)
    const agent = await agentOf(server, customer.id)
    const basic = `Basic ${Buffer.from(`${server.admin.clientId}:${server.admin.clientSecret}`).toString("base64")}`
    const routes: Array<{ readonly name: string; readonly method: string; readonly path: string }> = []
    HttpApi.reflect(Api, {
      onGroup: () => {},
      onEndpoint: ({ group, endpoint }) => {
        if (endpoint.payload.get("application/json") === undefined) return
        routes.push({
          name: `${group.identifier}.${endpoint.identifier}`,
          method: endpoint.method,
          path: endpoint.path
        })
      }
    })
    const refused: Array<string> = []
    const unreached: Array<string> = []
    let sent = 0
    let operations = 0
    for (const route of routes) {
      const body = matchOperation(upstream, route.method, route.path.replace(/:(\w+)/g, "{$1}"))
      if (body === undefined) continue // ours alone
      operations++
      const path = route.path.replace(/:\w+/g, "x")
      const authorization = isAgentRoute(route.name) ? `Bearer ${agent.accessToken}` : basic
      // An operation's probes at once: each is one request that only decodes (or fails on the ids "x").
      await Promise.all(
        body.probes.map(async (probe) => {
          // Sent raw: most probes are invalid bodies, which the upstream conformance check of `call` is not about.
          const response = await fetch(server.baseUrl + path, {
            method: route.method,
            headers: { authorization, "content-type": "application/json" },
            body: JSON.stringify(probe.body)
          })
          sent++
          const json = (await response.json().catch(() => undefined)) as any
          if (response.status === 401 || response.status === 403) unreached.push(`${route.name} ${response.status}`)
          const errors: Array<{ field: string; constraint: { unexpected?: boolean } }> = json?.details?.errors ?? []
          if (errors.some((e) => e.field === probe.field && e.constraint.unexpected === true)) {
            refused.push(`${body.key} ${probe.field} (${JSON.stringify(probe.body)})`)
          }
        })
      )
    }
    expect(unreached, "every probe must reach the body's decoder").toEqual([])
    expect(
      refused,
      "declare these fields of the upstream's request bodies (accepted, or accepted and ignored)"
    ).toEqual([])
    expect(operations).toBeGreaterThan(60)
    expect(sent).toBeGreaterThan(1000)
    console.log(`sent ${sent} probes to ${operations} operations`)
  })
})
