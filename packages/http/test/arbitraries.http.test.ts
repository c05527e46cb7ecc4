/**
 * `@paycore/testkit/arbitraries` against a running server (C-02, C-10, C-11): for every JSON request body of the
 * Api, valid bodies get no 5xx (a 2xx, or a refusal by a business rule: an id that does not exist, a currency not
 * supported), and each near-valid body gets 400 `INVALID_INPUT` with an error at the field it names (`body` for the
 * body itself). Path parameters are drawn from their Schemas: ids of the right shape that mostly do not exist.
 */
import { bodyErrors, nearValidBody, requestBodies, validBody } from "@paycore/testkit/arbitraries"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isAgentRoute, isDesignedServerAnswer, routeTable } from "./fuzzer.ts"
import { useTestServer } from "./harness.ts"

const VALID = 3
const NEAR_VALID = 6
const routes = new Map(routeTable().map((route) => [route.name, route]))
// The agent's own routes answer a platform's credentials 401 before reading the body; their bodies are the payments
// routes' Schemas (CreateQuoteRequest, TransferOutRequest, TransferInRequest), covered there.
const bodies = requestBodies().filter((body) => !isAgentRoute(body.operation))

const pathOf = (operation: string, seed: number): string => {
  const route = routes.get(operation)!
  const params = (route.params?.(seed) ?? {}) as Record<string, unknown>
  return route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(String(params[name] ?? "x")))
}

// A route that declares an `Idempotency-Key` gets a fresh one; other declared headers are left out (an error about
// one comes beside the body's, which the test does not mind).
let requests = 0
const headersOf = (operation: string): Record<string, string> =>
  Object.hasOwn((routes.get(operation)!.headers?.(0) ?? {}) as object, "idempotency-key")
    ? { "idempotency-key": `arbitraries-${operation}-${++requests}` }
    : {}

describe("request-body arbitraries over HTTP (C-02, C-10, C-11)", () => {
  const server = useTestServer()

  it.each(bodies.map((body) => [body.operation, body.method] as const))(
    "%s: valid bodies get no 5xx; near-valid ones 400 INVALID_INPUT naming the broken field",
    async (operation, method) => {
      const seed = 29
      for (const [i, body] of fc.sample(validBody(operation), { numRuns: VALID, seed }).entries()) {
        const r = await server.call(method, pathOf(operation, seed + i), body, { headers: headersOf(operation) })
        expect(
          r.status >= 500 && !isDesignedServerAnswer(r.status, r.json),
          `${r.status} ${JSON.stringify(r.json)}`
        ).toBe(false)
      }
      for (const [i, near] of fc.sample(nearValidBody(operation), { numRuns: NEAR_VALID, seed }).entries()) {
        // The body is refused whatever the path parameters and headers: an error about them may come along.
        const r = await server.call(method, pathOf(operation, seed + i), near.body, {
          headers: headersOf(operation)
        })
        const context = `${near.mutation} at ${near.path || "body"}: ${JSON.stringify(near.body)} -> ${r.status} ${JSON.stringify(r.json)}`
        expect(r.status, context).toBe(400)
        expect(r.json.code, context).toBe("INVALID_INPUT")
        const fields = (r.json.details.errors as Array<{ field: string }>).map((e) => e.field)
        expect(fields, context).toContain(near.path === "" ? "body" : near.path)
        // Every field the kit's decoder names, the server names too (under a union the server may name more: a
        // member's fields beside the tag).
        const body = fields.filter((f) => !/^(path|headers|query)\./.test(f))
        for (const error of bodyErrors(operation, near.body)) expect(body, context).toContain(error.field || "body")
      }
    }
  )
})
