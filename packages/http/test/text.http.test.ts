/**
 * The text rule (issue 12; C-03, E-01): a string holding NUL (U+0000) or an unpaired UTF-16 surrogate is refused
 * with 400 INVALID_INPUT naming the field, wherever the API accepts text — bodies, query strings, path
 * parameters, headers, multipart fields and file names, CSV cells — and nothing is stored. Well-formed text, astral
 * characters included, is stored exactly. On every store: PostgreSQL cannot hold NUL in text, and these strings
 * used to answer 500 there.
 */
import { connect } from "node:net"
import { Store } from "@paycore/core"
import { snapshotStore } from "@paycore/testkit"
import { Effect } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { type CallResult, consent, documentForm, type TestServer, useTestServer } from "./harness.ts"
import { onEveryStore } from "./stores.ts"

const NUL = "a\u0000b"
const LONE = "a\ud800b"

/** 400 INVALID_INPUT whose errors include `field` with the text constraint `fault`. */
const expectTextRefused = (r: CallResult, field: string, fault: "NUL" | "UNPAIRED_SURROGATE") => {
  expect(r.status, JSON.stringify(r.json)).toBe(400)
  expect(r.json.code).toBe("INVALID_INPUT")
  expect(r.json.details.errors).toContainEqual({ field, constraint: { text: fault }, message: expect.any(String) })
}

const customerBody = (overrides: Record<string, unknown> = {}) => ({
  customerType: "INDIVIDUAL",
  fullName: "Ada Lovelace",
  platformCustomerId: "ada-1",
  email: "ada@example.com",
  currencies: ["USD"],
  address: { line1: "1 Market St", city: "San Francisco", postalCode: "94105", country: "US" },
  endUserTermsConsent: consent,
  ...overrides
})

onEveryStore("the text rule", "text", (stores) => {
  const server = useTestServer(async () => {}, stores())
  const snapshot = () =>
    Effect.runPromise(snapshotStore().pipe(Effect.provideService(Store, (server as TestServer).store)))

  /** Runs `request`, and checks the store is as it was. */
  const unchanged = async (request: () => Promise<void>) => {
    const before = await snapshot()
    await request()
    expect(await snapshot()).toEqual(before)
  }

  it("refuses NUL and unpaired surrogates in every body field the report named, and stores nothing", async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ["fullName", { fullName: NUL }],
      ["platformCustomerId", { platformCustomerId: LONE }],
      ["email", { email: `ada${"\u0000"}@example.com` }],
      ["address.line1", { address: { line1: LONE, postalCode: "94105", country: "US" } }],
      ["endUserTermsConsent.ipAddress", { endUserTermsConsent: { ...consent, ipAddress: "203.0.113.7\u0000" } }]
    ]
    for (const [field, override] of cases) {
      await unchanged(async () => {
        const r = await server.call("POST", "/customers", customerBody(override))
        const value = JSON.stringify(override)
        expectTextRefused(r, field, value.includes("\\u0000") ? "NUL" : "UNPAIRED_SURROGATE")
      })
    }
    await unchanged(async () => {
      expectTextRefused(await server.call("POST", "/tokens", { name: NUL, permissions: ["VIEW"] }), "name", "NUL")
      expectTextRefused(await server.call("PATCH", "/config", { umaDomain: LONE }), "umaDomain", "UNPAIRED_SURROGATE")
    })
  })

  it("names every bad field at once, array items and object keys included, beside the schema's own errors", async () => {
    const r = await server.call("POST", "/customers", {
      ...customerBody({ fullName: LONE, currencies: ["USD", "\u0000"] }),
      [`extra${"\ud800"}`]: 1,
      birthDate: "not a date"
    })
    expectTextRefused(r, "fullName", "UNPAIRED_SURROGATE")
    expectTextRefused(r, "currencies.1", "NUL")
    expectTextRefused(r, "extra\ud800", "UNPAIRED_SURROGATE")
    expect(r.json.details.errors.map((e: { field: string }) => e.field)).toContain("birthDate")
  })

  it("refuses them in query strings and path parameters (percent-encoded), naming query.<key> and path.<param>", async () => {
    await unchanged(async () => {
      for (const [path, field] of [
        ["/customers?platformCustomerId=%00", "query.platformCustomerId"],
        ["/customers?umaAddress=%24a%00%40b.c", "query.umaAddress"],
        ["/transactions?accountIdentifier=x%00", "query.accountIdentifier"],
        ["/transactions?reference=%00", "query.reference"],
        ["/tokens?name=%00", "query.name"],
        ["/customers/Customer%3A%00", "path.customerId"]
      ] as const) {
        expectTextRefused(await server.call("GET", path), field, "NUL")
      }
    })
  })

  it("a NUL in a header is refused by the HTTP parser with 400 in the error body", async () => {
    const url = new URL(server.baseUrl)
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () =>
        socket.end(
          `POST ${url.pathname}/customers HTTP/1.1\r\nHost: x\r\nIdempotency-Key: a\u0000b\r\n` +
            "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
        )
      )
      let text = ""
      socket.on("data", (chunk) => {
        text += chunk.toString("utf8")
      })
      socket.on("close", () => resolve(text))
      socket.on("error", reject)
    })
    expect(answer).toMatch(/^HTTP\/1\.1 400 /)
    const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))
    expect(body).toEqual({ status: 400, code: "INVALID_INPUT", message: expect.stringContaining("Malformed HTTP") })
  })

  describe("multipart forms", () => {
    let customerId: string
    beforeAll(async () => {
      customerId = (await server.call("POST", "/customers", customerBody({ platformCustomerId: "multipart" }))).json.id
    })

    it("refuses a text field and a file name holding NUL, and keeps no file", async () => {
      await unchanged(async () => {
        const field = await server.call(
          "POST",
          "/documents",
          documentForm({ documentHolder: customerId, documentType: "PASSPORT", country: "US", documentNumber: NUL })
        )
        expectTextRefused(field, "documentNumber", "NUL")
        const name = await server.call(
          "POST",
          "/documents",
          documentForm(
            { documentHolder: customerId, documentType: "PASSPORT", country: "US" },
            { name: "id\u0000.png" }
          )
        )
        expectTextRefused(name, "file.filename", "NUL")
      })
      expect((await server.call("GET", `/documents?documentHolder=${customerId}`)).json.data).toEqual([])
    })
  })

  it("a CSV cell holding NUL fails its row, naming the column; the other rows are imported", async () => {
    const csv =
      "umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country\r\n" +
      "$nul@example.com,csv-nul,INDIVIDUAL,Bad\u0000Name,1990-12-10,1 Market St,SF,CA,94105,US\r\n" +
      "$ok@example.com,csv-ok,INDIVIDUAL,Good Name,1990-12-10,1 Market St,SF,CA,94105,US\r\n"
    const form = new FormData()
    form.append("file", new Blob([csv], { type: "text/csv" }), "customers.csv")
    const accepted = await server.call("POST", "/customers/bulk/csv", form)
    expect(accepted.status).toBe(202)
    let job = accepted.json
    for (let i = 0; i < 200 && (job.status === "PENDING" || job.status === "PROCESSING"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25))
      job = (await server.call("GET", `/customers/bulk/jobs/${accepted.json.jobId}`)).json
    }
    expect(job.progress).toMatchObject({ total: 2, successful: 1, failed: 1 })
    expect(job.errors).toHaveLength(1)
    expect(job.errors[0].details.errors).toContainEqual({
      field: "fullName",
      constraint: { text: "NUL" },
      message: expect.any(String)
    })
    expect((await server.call("GET", "/customers?platformCustomerId=csv-nul")).json.data).toEqual([])
    expect((await server.call("GET", "/customers?platformCustomerId=csv-ok")).json.data).toHaveLength(1)
  })

  it("stores well-formed text exactly: astral characters, combining marks, right-to-left and control characters", async () => {
    const fullName = "Ада 😀 Ǻ\u0301 عربى \u0007\t"
    const created = await server.call("POST", "/customers", customerBody({ platformCustomerId: "exact", fullName }))
    expect(created.status, JSON.stringify(created.json)).toBe(201)
    expect((await server.call("GET", `/customers/${created.json.id}`)).json.fullName).toBe(fullName)
  })
})
