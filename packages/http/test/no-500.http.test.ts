import { HttpApi } from "effect/http-api"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Api } from "../src/index.ts"
import { useTestServer } from "./harness.ts"

const server = useTestServer()

interface Route {
  readonly method: string
  readonly path: string
}
const routes: Array<Route> = []
HttpApi.reflect(Api, {
  onGroup: () => {},
  onEndpoint: ({ endpoint }) => routes.push({ method: endpoint.method, path: endpoint.path })
})

const segment = fc.oneof(
  fc.constantFrom("Customer:0", "Quote:01234567-89ab-7def-8123-456789abcdef", "%00", "..", "$x@y.z", "a".repeat(300)),
  fc.string({ maxLength: 40 })
)
const body = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.object({ maxDepth: 3 }), fc.constant(undefined))
const query = fc.dictionary(
  fc.constantFrom("limit", "cursor", "sortOrder", "customerId", "currency", "status", "createdAfter", "sendingAmount"),
  fc.string({ maxLength: 20 })
)

describe("whatever a client sends, the answer is never a 500", () => {
  it("random paths, queries and bodies on every route get a 2xx or a 4xx in the error body", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), segment, query, body, async (route, param, q, payload) => {
        const path = route.path.replace(/:[A-Za-z]+/g, encodeURIComponent(param))
        const search = new URLSearchParams(q).toString()
        const target = search === "" ? path : `${path}?${search}`
        const r = await server.call(route.method, target, route.method === "GET" ? undefined : (payload ?? undefined))
        expect(r.status).toBeLessThan(500)
        if (r.status >= 400) {
          expect(r.json.status).toBe(r.status)
          expect(r.json.code).toBeTypeOf("string")
          expect(r.json.message).toBeTypeOf("string")
        }
      }),
      { numRuns: 300 }
    )
  })
})
