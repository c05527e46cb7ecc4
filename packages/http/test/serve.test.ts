import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Cause, Context, DateTime, Effect, Schema, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PublicEndpoint } from "../src/annotations.ts"
import { parseBasicAuth } from "../src/credentials.ts"
import type { AnsweredRequest } from "../src/listener-types.ts"
import { makeRequestListener } from "../src/serve.ts"

// --- A toy API -----------------------------------------------------------------------------------------------------

const CustomerId = Schema.String.check(Schema.isStartingWith("cus_"))

// `createdAt` makes the JSON codec do real work (DateTime → ISO string) instead of a plain `JSON.stringify`.
const Customer = Schema.Struct({
  id: CustomerId,
  name: Schema.String,
  country: Schema.String,
  tags: Schema.Array(Schema.String),
  createdAt: Schema.DateTimeUtc
})

const CreateCustomer = Schema.Struct({
  name: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(10)),
  email: Schema.String.check(Schema.isPattern(/^[^@\s]+@[^@\s]+$/)),
  address: Schema.Struct({
    line1: Schema.String,
    postalCode: Schema.String.check(Schema.isPattern(/^\d{5}$/)),
    country: Schema.Literals(["US", "MX"])
  }),
  tags: Schema.optionalKey(Schema.Array(Schema.String.check(Schema.isMaxLength(5))))
})

class CustomerFrozen extends Schema.TaggedError<CustomerFrozen>()("CustomerFrozen", {
  customerId: Schema.String
}) {}

const Customers = HttpApiGroup.make("customers")
  .add(HttpApiEndpoint.get("get", "/customers/:id", { params: { id: CustomerId }, success: Customer }))
  .add(
    HttpApiEndpoint.get("list", "/customers", {
      query: {
        limit: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))),
        status: Schema.optionalKey(Schema.Array(Schema.Literals(["active", "closed"])))
      },
      success: Schema.Struct({ data: Schema.Array(Customer), limit: Schema.Int, status: Schema.Array(Schema.String) })
    })
  )
  .add(
    HttpApiEndpoint.post("create", "/customers", {
      payload: CreateCustomer,
      success: Customer.pipe(HttpApiSchema.status(201))
    })
  )
  .add(HttpApiEndpoint.delete("delete", "/customers/:id", { params: { id: CustomerId } }))
  .add(
    HttpApiEndpoint.post("freeze", "/customers/:id/freeze", {
      params: { id: CustomerId },
      success: Customer,
      error: CustomerFrozen.pipe(HttpApiSchema.status(409))
    })
  )

const EventStream = Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/event-stream" }))
const Streams = HttpApiGroup.make("streams")
  .add(HttpApiEndpoint.get("finite", "/streams/finite", { success: EventStream }))
  .add(HttpApiEndpoint.get("endless", "/streams/endless", { success: EventStream }))

const System = HttpApiGroup.make("system")
  .add(HttpApiEndpoint.get("health", "/health", { success: Schema.Struct({ ok: Schema.Boolean }) }))
  .add(HttpApiEndpoint.get("crash", "/crash", { success: Schema.Struct({ ok: Schema.Boolean }) }))
  .annotate(PublicEndpoint, true)

const Api = HttpApi.make("toy").add(Customers).add(Streams).add(System)

// --- The server ----------------------------------------------------------------------------------------------------

class Directory extends Context.Service<Directory, { readonly tagsFor: (id: string) => Array<string> }>()(
  "test/Directory"
) {}

class BadCredentials extends Error {}

const createdAt = DateTime.makeUnsafe("2025-10-13T09:00:00Z")
const ada = { id: "cus_1", name: "Ada", country: "US", tags: ["vip"], createdAt }
const adaJson = { ...ada, createdAt: "2025-10-13T09:00:00.000Z" }
const defects: Array<string> = []
const answered: Array<AnsweredRequest<{ readonly merchant: string }>> = []

/** Resolved when the endless stream's finalizer runs (its fiber ended), once per stream. */
let endlessEnded: Array<() => void> = []
const endlessStream = Stream.concat(Stream.make("data: first\n\n"), Stream.never).pipe(
  Stream.encodeText,
  Stream.ensuring(
    Effect.sync(() => {
      for (const ended of endlessEnded) ended()
      endlessEnded = []
    })
  )
)

const listener = makeRequestListener({
  api: Api,
  prefix: "/2025-10-13",
  services: Context.make(Directory, { tagsFor: () => ["new"] }),
  authenticate: (authorization: string | undefined) => {
    const credentials = parseBasicAuth(authorization)
    return credentials?.username === "key" && credentials.password === "secret"
      ? { merchant: "m_1" }
      : new BadCredentials("Invalid API credentials")
  },
  publicEndpoints: ["customers.list"],
  handlers: {
    customers: {
      get: ({ params }) => Effect.succeed({ ...ada, id: params.id }),
      list: ({ query, principal }) =>
        Effect.succeed({
          data: principal === undefined ? [] : [ada],
          limit: query.limit ?? 10,
          status: [...(query.status ?? [])]
        }),
      create: ({ payload, principal }) =>
        Effect.gen(function* () {
          const directory = yield* Directory
          // Goes async on purpose: the listener must wait for the fiber.
          yield* Effect.sleep(1)
          return {
            id: `cus_${principal.merchant}`,
            name: payload.name,
            country: payload.address.country,
            tags: directory.tagsFor(payload.name),
            createdAt
          }
        }),
      delete: () => Effect.void,
      freeze: ({ params }) => Effect.fail(new CustomerFrozen({ customerId: params.id }))
    },
    streams: {
      finite: () =>
        Effect.succeed(
          HttpServerResponse.stream(Stream.encodeText(Stream.make("data: a\n\n", "data: b\n\n")), {
            contentType: "text/event-stream"
          })
        ),
      endless: () => Effect.succeed(HttpServerResponse.stream(endlessStream, { contentType: "text/event-stream" }))
    },
    system: {
      health: () => Effect.succeed({ ok: true }),
      crash: () => Effect.die(new Error("secret internals: db password is hunter2"))
    }
  },
  mapError: (error) =>
    error instanceof CustomerFrozen
      ? { status: 409, code: "CUSTOMER_FROZEN", message: "The customer is frozen", details: { id: error.customerId } }
      : undefined,
  onDefect: (cause) => void defects.push(Cause.pretty(cause)),
  onAnswered: (request) => void answered.push(request),
  maxBodyBytes: 1024
})

let server: Server
let base: string

beforeAll(async () => {
  server = createServer(listener)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/2025-10-13`
})

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const auth = { authorization: `Basic ${Buffer.from("key:secret").toString("base64")}` }

const call = async (method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) => {
  const response = await fetch(base + path, {
    method,
    headers: { ...auth, ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
    ...(init.body === undefined ? {} : { body: init.body })
  })
  const text = await response.text()
  const isJson = text !== "" && response.headers.get("content-type") === "application/json"
  return { status: response.status, headers: response.headers, text, json: isJson ? JSON.parse(text) : undefined }
}

const validCustomer = {
  name: "Ada",
  email: "ada@example.com",
  address: { line1: "1 Main St", postalCode: "12345", country: "US" }
}

// --- Tests ---------------------------------------------------------------------------------------------------------

describe("makeRequestListener: streamed answers and onAnswered (issue 18)", () => {
  it("sends a handler's streamed HttpServerResponse chunk by chunk and ends with it; HEAD gets the head only", async () => {
    const finite = await call("GET", "/streams/finite")
    expect(finite.status).toBe(200)
    expect(finite.headers.get("content-type")).toBe("text/event-stream")
    expect(finite.text).toBe("data: a\n\ndata: b\n\n")
    const head = await fetch(`${base}/streams/endless`, { method: "HEAD", headers: auth })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe("")
  })

  it("interrupts an endless stream when its client goes away: its finalizer runs", async () => {
    const ended = new Promise<void>((resolve) => endlessEnded.push(resolve))
    const aborted = new AbortController()
    const response = await fetch(`${base}/streams/endless`, { headers: auth, signal: aborted.signal })
    const reader = response.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: first\n\n")
    aborted.abort()
    await ended
  })

  it("tells onAnswered of each authenticated request: path without query, status, key, error body", async () => {
    answered.length = 0
    await call("GET", "/customers?limit=2&status=active", { headers: { "idempotency-key": "k-1" } })
    await call("POST", "/customers/cus_1/freeze")
    await call("GET", "/customers", { headers: { authorization: "" } })
    await call("GET", "/customers/cus_1", { headers: { authorization: "Basic bm9wZTpub3Bl" } })
    expect(answered.map((a) => [a.method, a.path, a.status, a.idempotencyKey, a.error?.code])).toEqual([
      ["GET", "/2025-10-13/customers", 200, "k-1", undefined],
      ["POST", "/2025-10-13/customers/cus_1/freeze", 409, undefined, "CUSTOMER_FROZEN"]
    ])
    expect(answered[1]!.error).toEqual({
      status: 409,
      code: "CUSTOMER_FROZEN",
      message: "The customer is frozen",
      details: { id: "cus_1" }
    })
    expect(answered[0]!.principal).toEqual({ merchant: "m_1" })
  })
})

describe("makeRequestListener", () => {
  it("serves a GET with decoded path params", async () => {
    const response = await call("GET", "/customers/cus_42")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/json")
    expect(response.json).toEqual({ ...adaJson, id: "cus_42" })
  })

  it("serves a POST through an async Effect handler, with the success schema's status", async () => {
    const response = await call("POST", "/customers", { body: JSON.stringify(validCustomer) })
    expect(response.status).toBe(201)
    expect(response.json).toEqual({
      id: "cus_m_1",
      name: "Ada",
      country: "US",
      tags: ["new"],
      createdAt: "2025-10-13T09:00:00.000Z"
    })
  })

  it("answers a no-content endpoint with 204 and no body", async () => {
    const response = await call("DELETE", "/customers/cus_1")
    expect(response.status).toBe(204)
    expect(response.text).toBe("")
  })

  it("decodes the query string, repeated keys as arrays", async () => {
    const response = await call("GET", "/customers?limit=5&status=active&status=closed")
    expect(response.status).toBe(200)
    expect(response.json).toEqual({ data: [adaJson], limit: 5, status: ["active", "closed"] })
  })

  it("lists every invalid body field at once", async () => {
    const response = await call("POST", "/customers", {
      body: JSON.stringify({
        name: "",
        email: "not-an-email",
        address: { postalCode: "1234", country: "FR" },
        tags: ["ok", "far too long"]
      })
    })
    expect(response.status).toBe(400)
    expect(response.json).toEqual({
      status: 400,
      code: "INVALID_INPUT",
      message: "Invalid input: name, email, address.line1, address.postalCode, address.country, tags.1",
      details: {
        errors: [
          { field: "name", constraint: { minLength: 1 }, message: "Expected a value with a length of at least 1" },
          {
            field: "email",
            constraint: { pattern: "^[^@\\s]+@[^@\\s]+$" },
            message: "Expected a string matching the RegExp ^[^@\\s]+@[^@\\s]+$"
          },
          { field: "address.line1", constraint: { required: true }, message: "Missing key" },
          {
            field: "address.postalCode",
            constraint: { pattern: "^\\d{5}$" },
            message: "Expected a string matching the RegExp ^\\d{5}$"
          },
          { field: "address.country", constraint: { enum: ["US", "MX"] }, message: 'Expected "US" | "MX", got "FR"' },
          { field: "tags.1", constraint: { maxLength: 5 }, message: "Expected a value with a length of at most 5" }
        ]
      }
    })
  })

  it("reports path and query errors under `path.` and `query.`", async () => {
    const params = await call("GET", "/customers/acct_1")
    expect(params.status).toBe(400)
    expect(params.json.details.errors).toEqual([
      { field: "path.id", constraint: { startsWith: "cus_" }, message: 'Expected a string starting with "cus_"' }
    ])
    const query = await call("GET", "/customers?limit=500&status=open")
    expect(query.status).toBe(400)
    expect(query.json.details.errors.map((error: { field: string }) => error.field)).toEqual([
      "query.limit",
      "query.status.0"
    ])
  })

  it("rejects malformed JSON, a body that is not an object, and non-JSON content", async () => {
    const malformed = await call("POST", "/customers", { body: "{ nope" })
    expect(malformed.status).toBe(400)
    expect(malformed.json.code).toBe("INVALID_INPUT")
    expect(malformed.json.details.errors).toEqual([
      { field: "body", constraint: { format: "json" }, message: "Malformed JSON" }
    ])
    const notObject = await call("POST", "/customers", { body: "[1]" })
    expect(notObject.json.details.errors[0]).toMatchObject({ field: "body", constraint: { type: "object" } })
    const text = await call("POST", "/customers", { body: "name=Ada", headers: { "content-type": "text/plain" } })
    expect(text.status).toBe(415)
    expect(text.json.code).toBe("UNSUPPORTED_MEDIA_TYPE")
  })

  it("refuses bodies over the size limit with 413, declared or streamed", async () => {
    const big = JSON.stringify({ ...validCustomer, pad: "x".repeat(2000) })
    const declared = await call("POST", "/customers", { body: big })
    expect(declared.status).toBe(413)
    expect(declared.json.code).toBe("PAYLOAD_TOO_LARGE")
    // A stream body is sent chunked, without content-length: the limit applies while reading.
    const streamed = await fetch(`${base}/customers`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: new Blob([big]).stream(),
      duplex: "half"
    } as RequestInit)
    expect(streamed.status).toBe(413)
    expect(((await streamed.json()) as { code: string }).code).toBe("PAYLOAD_TOO_LARGE")
  })

  it("maps a tagged failure through mapError", async () => {
    const response = await call("POST", "/customers/cus_1/freeze")
    expect(response.status).toBe(409)
    expect(response.json).toEqual({
      status: 409,
      code: "CUSTOMER_FROZEN",
      message: "The customer is frozen",
      details: { id: "cus_1" }
    })
  })

  it("C-30: turns a defect into a bare 500 and reports the cause to onDefect", async () => {
    const response = await call("GET", "/crash")
    expect(response.status).toBe(500)
    expect(response.json).toEqual({ status: 500, code: "INTERNAL_ERROR", message: "Internal error" })
    expect(response.text).not.toContain("hunter2")
    expect(defects.at(-1)).toContain("hunter2")
  })

  it("answers unknown routes with 404, other methods with 405, OPTIONS with Allow", async () => {
    const unknown = await call("GET", "/nothing-here")
    expect(unknown.status).toBe(404)
    expect(unknown.json).toEqual({ status: 404, code: "NOT_FOUND", message: "No such route" })
    const wrongMethod = await call("PUT", "/customers/cus_1")
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.json.code).toBe("METHOD_NOT_ALLOWED")
    expect(wrongMethod.headers.get("allow")).toBe("GET, DELETE, HEAD, OPTIONS")
    const options = await call("OPTIONS", "/customers")
    expect(options.status).toBe(204)
    expect(options.headers.get("allow")).toBe("GET, POST, HEAD, OPTIONS")
  })

  it("answers HEAD like GET without a body", async () => {
    const response = await call("HEAD", "/customers/cus_1")
    expect(response.status).toBe(200)
    expect(Number(response.headers.get("content-length"))).toBeGreaterThan(0)
    expect(response.text).toBe("")
  })

  it("requires Basic credentials except on public endpoints", async () => {
    for (const authorization of ["", `Basic ${Buffer.from("key:wrong").toString("base64")}`]) {
      const response = await call("GET", "/customers/cus_1", { headers: { authorization } })
      expect(response.status).toBe(401)
      expect(response.headers.get("www-authenticate")).toBe('Basic realm="paycore"')
      expect(response.json).toEqual({ status: 401, code: "UNAUTHORIZED", message: "Invalid API credentials" })
    }
    // Public by annotation (the whole group) and by name; credentials, when valid, still identify the caller.
    expect((await call("GET", "/health", { headers: { authorization: "" } })).status).toBe(200)
    const anonymous = await call("GET", "/customers", { headers: { authorization: "" } })
    expect(anonymous.json.data).toEqual([])
    expect((await call("GET", "/customers")).json.data).toEqual([adaJson])
  })

  it("serves the OpenAPI document and a reference page without credentials", async () => {
    const document = await call("GET", "/openapi.json", { headers: { authorization: "" } })
    expect(document.status).toBe(200)
    expect(document.json.openapi).toBe("3.1.0")
    expect(document.json.servers).toEqual([{ url: "/2025-10-13" }])
    expect(Object.keys(document.json.paths)).toEqual(
      expect.arrayContaining(["/customers/{id}", "/customers", "/customers/{id}/freeze", "/health"])
    )
    expect(document.json.paths["/customers/{id}"].get.security).toEqual([{ basicAuth: [] }])
    expect(document.json.paths["/health"].get.security).toEqual([])
    expect(document.json.components.securitySchemes.basicAuth).toEqual({ type: "http", scheme: "basic" })
    const page = await call("GET", "/docs", { headers: { authorization: "" } })
    expect(page.headers.get("content-type")).toContain("text/html")
    // Relative to the page, so a host that mounts the API under a prefix of its own serves a page that still works.
    expect(page.text).toContain('data-url="openapi.json"')
    expect(page.text).toContain('<script src="docs/renderer.js">')
    const pageUrl = "http://host.example/mount/2025-10-13/docs"
    expect(new URL("openapi.json", pageUrl).pathname).toBe("/mount/2025-10-13/openapi.json")
    expect(new URL("docs/renderer.js", pageUrl).pathname).toBe("/mount/2025-10-13/docs/renderer.js")
    expect(page.text).not.toMatch(/https?:\/\//)
    const renderer = await call("GET", "/docs/renderer.js", { headers: { authorization: "" } })
    expect(renderer.status).toBe(200)
    expect(renderer.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
    expect(renderer.text).toContain("createApiReference")
  })
})
