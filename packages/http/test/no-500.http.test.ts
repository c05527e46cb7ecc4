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
/** The routes taking a multipart/form-data body (document uploads, CSV imports). */
const multipartRoutes: Array<Route> = []
HttpApi.reflect(Api, {
  onGroup: () => {},
  onEndpoint: ({ endpoint }) => {
    routes.push({ method: endpoint.method, path: endpoint.path })
    if (endpoint.payload.has("multipart/form-data"))
      multipartRoutes.push({ method: endpoint.method, path: endpoint.path })
  }
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

/** A multipart body: parts with or without a file name and Content-Type, then maybe cut short anywhere. */
const multipartBody = fc
  .record({
    boundary: fc.constantFrom("b0undary", "x", "----WebKitFormBoundary7MA4YWxkTrZu0gW"),
    parts: fc.array(
      fc.record({
        name: fc.constantFrom("file", "documentHolder", "documentType", "country", "side", "x", ""),
        filename: fc.option(fc.constantFrom("a.png", "C:\\dir\\b.pdf", "", "ü.jpg"), { nil: undefined }),
        contentType: fc.option(fc.constantFrom("image/png", "application/pdf", "text/csv", "image/gif", "bogus"), {
          nil: undefined
        }),
        value: fc.oneof(
          fc.constantFrom("PASSPORT", "US", "FRONT", "Customer:0", "umaAddress,platformCustomerId\r\n"),
          fc.string({ maxLength: 30 })
        )
      }),
      { maxLength: 4 }
    ),
    cut: fc.option(fc.nat(), { nil: undefined })
  })
  .map(({ boundary, parts, cut }) => {
    const text =
      parts
        .map(
          (p) =>
            `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"` +
            (p.filename === undefined ? "" : `; filename="${p.filename}"`) +
            (p.contentType === undefined ? "" : `\r\nContent-Type: ${p.contentType}`) +
            `\r\n\r\n${p.value}\r\n`
        )
        .join("") + `--${boundary}--\r\n`
    return { boundary, body: cut === undefined ? text : text.slice(0, cut % (text.length + 1)) }
  })

describe("whatever a client sends, the answer is never a 500", () => {
  it("random multipart bodies on every multipart route get a 2xx or a 4xx in the error body", async () => {
    expect(multipartRoutes.length).toBeGreaterThan(0)
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...multipartRoutes), segment, multipartBody, async (route, param, form) => {
        const path = route.path.replace(/:[A-Za-z]+/g, encodeURIComponent(param))
        const r = await server.call(route.method, path, form.body, {
          headers: { "content-type": `multipart/form-data; boundary=${form.boundary}` }
        })
        expect(r.status).toBeLessThan(500)
        if (r.status >= 400) {
          expect(r.json.status).toBe(r.status)
          expect(r.json.code).toBeTypeOf("string")
        }
      }),
      { numRuns: 200 }
    )
  })

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
