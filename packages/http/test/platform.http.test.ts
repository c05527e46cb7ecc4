import { HttpApi } from "effect/http-api"
import { describe, expect, it } from "vitest"
import { API_VERSION, Api } from "../src/index.ts"
import { type CallResult, errorOf, expectInvalid, expectUnauthorized, useTestServer } from "./harness.ts"

const server = useTestServer()

const expectForbidden = (r: CallResult, permission: string) => {
  expect(r.status).toBe(403)
  expect(r.json).toEqual({
    status: 403,
    code: "FORBIDDEN",
    message: expect.stringContaining(`lacks the ${permission} permission`)
  })
}

const READS = ["/tokens", "/config", "/exchange-rates?sourceCurrency=USD", "/discoveries", "/uma-providers"]

describe("platform group: credentials and permissions (A-02, A-04, C-12)", () => {
  it("C-12 every endpoint answers 401 UNAUTHORIZED with www-authenticate without credentials", async () => {
    for (const path of READS) expectUnauthorized(await server.call("GET", path, undefined, { auth: null }))
    expectUnauthorized(await server.call("PATCH", "/config", { umaDomain: "x.example" }, { auth: null }))
    expectUnauthorized(await server.call("POST", "/tokens", { name: "x", permissions: ["VIEW"] }, { auth: null }))
  })

  it("A-02 a wrong secret is 401 on reads and writes", async () => {
    const auth = { clientId: server.admin.clientId, clientSecret: "0".repeat(64) }
    for (const path of READS) expectUnauthorized(await server.call("GET", path, undefined, { auth }))
    expectUnauthorized(await server.call("PATCH", "/config", { umaDomain: "x.example" }, { auth }))
  })

  it("A-04 a VIEW token reads everything in the group", async () => {
    const auth = await server.token(["VIEW"])
    for (const path of READS) expect((await server.call("GET", path, undefined, { auth })).status).toBe(200)
  })

  it("A-04 PATCH /config needs MANAGE: VIEW and TRANSACT get 403 FORBIDDEN and nothing changes", async () => {
    const before = (await server.call("GET", "/config")).json
    for (const permissions of [["VIEW"], ["TRANSACT"]] as const) {
      const auth = await server.token([...permissions])
      expectForbidden(await server.call("PATCH", "/config", { umaDomain: "hijack.example" }, { auth }), "MANAGE")
    }
    expect((await server.call("GET", "/config")).json).toEqual(before)
    const manager = await server.token(["MANAGE"])
    const ok = await server.call("PATCH", "/config", { umaDomain: before.umaDomain }, { auth: manager })
    expect(ok.status).toBe(200)
  })
})

describe("GET /config (P-05)", () => {
  it("P-05 returns the configuration with its defaults", async () => {
    const r = await server.call("GET", "/config")
    expect(r.status).toBe(200)
    expect(r.json.id).toMatch(/^PlatformConfig:[0-9a-f-]{36}$/)
    expect(r.json.umaDomain).toBe("sandbox.paycore.dev")
    const codes = r.json.supportedCurrencies.map((c: { currencyCode: string }) => c.currencyCode)
    expect(codes).toEqual(expect.arrayContaining(["USD", "EUR", "MXN", "BRL", "USDC"]))
    expect(r.json.isRegulatedFinancialInstitution).toBe(false)
    expect(r.json.feeConfigs).toEqual([])
    expect(r.json.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/)
    // Stable across reads.
    expect((await server.call("GET", "/config")).json.id).toBe(r.json.id)
  })
})

describe("PATCH /config (P-01 .. P-04)", () => {
  it("P-02 stores USD fee configs; omitted fields keep their values", async () => {
    const before = (await server.call("GET", "/config")).json
    const feeConfigs = [
      {
        feeType: "CROSS_CURRENCY_TRANSACTION",
        sourceCurrency: "USD",
        variableFeeBps: 25,
        fixedFee: { amount: 30, currency: "USD" }
      }
    ]
    const r = await server.call("PATCH", "/config", { feeConfigs })
    expect(r.status).toBe(200)
    expect(r.json.feeConfigs).toEqual(feeConfigs)
    expect(r.json.umaDomain).toBe(before.umaDomain)
    expect(r.json.supportedCurrencies).toEqual(before.supportedCurrencies)
    expect(r.json.id).toBe(before.id)
    expect(r.json.createdAt).toBe(before.createdAt)
    expect(r.json.updatedAt >= before.updatedAt).toBe(true)
    expect((await server.call("GET", "/config")).json.feeConfigs).toEqual(feeConfigs)
    // Reset for the other tests.
    expect((await server.call("PATCH", "/config", { feeConfigs: [] })).json.feeConfigs).toEqual([])
  })

  it("P-02 a non-USD fee source currency is 400 naming the field, and nothing is stored", async () => {
    const before = (await server.call("GET", "/config")).json
    const r = await server.call("PATCH", "/config", {
      umaDomain: "changed.example",
      feeConfigs: [{ feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "EUR", variableFeeBps: 50 }]
    })
    expectInvalid(r, ["feeConfigs.0.sourceCurrency"])
    expect(errorOf(r, "feeConfigs.0.sourceCurrency")?.constraint).toEqual({ enum: ["USD"] })
    expect((await server.call("GET", "/config")).json).toEqual(before)
  })

  it("P-02 reports every broken fee rule at once (currency, fixed-fee currency, neither part, duplicate)", async () => {
    const before = (await server.call("GET", "/config")).json
    const r = await server.call("PATCH", "/config", {
      feeConfigs: [
        { feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "MXN", fixedFee: { amount: 10, currency: "MXN" } },
        { feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "USD" },
        { feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "USD", variableFeeBps: 10 }
      ]
    })
    // [1] has neither part; [2] duplicates [1]'s fee type and source currency.
    expectInvalid(r, ["feeConfigs.0.sourceCurrency", "feeConfigs.0.fixedFee.currency", "feeConfigs.1", "feeConfigs.2"])
    expect(errorOf(r, "feeConfigs.1")?.constraint).toEqual({ anyOf: ["variableFeeBps", "fixedFee"] })
    expect((await server.call("GET", "/config")).json).toEqual(before)
  })

  it("C-11 reports every schema violation at once and stores nothing", async () => {
    const before = (await server.call("GET", "/config")).json
    const r = await server.call("PATCH", "/config", {
      umaDomain: "",
      webhookEndpoint: "ftp://example.com/hook",
      feeConfigs: [{ feeType: "FLAT", sourceCurrency: "USD", variableFeeBps: 10_001 }],
      cardConfigs: { maxSpendPerDay: -5 },
      cardTokenization2faConfig: { logoUrl: "http://insecure.example/logo.png" },
      skipVerificationPaperwork: "yes"
    })
    expectInvalid(r, [
      "umaDomain",
      "webhookEndpoint",
      "feeConfigs.0.feeType",
      "feeConfigs.0.variableFeeBps",
      "cardConfigs.maxSpendPerDay",
      "cardTokenization2faConfig.logoUrl",
      "skipVerificationPaperwork"
    ])
    expect(errorOf(r, "feeConfigs.0.variableFeeBps")?.constraint).toEqual({ minimum: 0, maximum: 10_000 })
    expect((await server.call("GET", "/config")).json).toEqual(before)
  })

  it("P-03 card caps merge key by key; null clears one cap", async () => {
    const set = await server.call("PATCH", "/config", {
      cardConfigs: { maxSpendPerTransaction: 50_000, maxSpendPerDay: 200_000 }
    })
    expect(set.status).toBe(200)
    expect(set.json.cardConfigs).toEqual({ maxSpendPerTransaction: 50_000, maxSpendPerDay: 200_000 })
    const merged = await server.call("PATCH", "/config", {
      cardConfigs: { maxSpendPerDay: null, maxTransactionsPerDay: 10 }
    })
    expect(merged.json.cardConfigs).toEqual({
      maxSpendPerTransaction: 50_000,
      maxSpendPerDay: null,
      maxTransactionsPerDay: 10
    })
  })

  it("P-04 stores the card tokenization 2FA branding", async () => {
    const branding = {
      displayName: "Acme Pay",
      logoUrl: "https://acme.example/logo.png",
      sms: { templateSid: "HX123", bodyText: "Your code is {{code}}" }
    }
    const r = await server.call("PATCH", "/config", { cardTokenization2faConfig: branding })
    expect(r.status).toBe(200)
    expect(r.json.cardTokenization2faConfig).toEqual(branding)
    expect((await server.call("GET", "/config")).json.cardTokenization2faConfig).toEqual(branding)
  })

  it("P-01 webhookEndpoint: saved, returned by GET, and a new URL sends one TEST event to it", async () => {
    const url = "https://platform.example/webhooks"
    server.webhooks.reset()
    const r = await server.call("PATCH", "/config", { webhookEndpoint: url })
    expect(r.status).toBe(200)
    expect(r.json.webhookEndpoint).toBe(url)
    expect((await server.call("GET", "/config")).json.webhookEndpoint).toBe(url)
    await server.dispatch()
    const tests = server.webhooks.requests().filter((w) => JSON.parse(w.body).type === "TEST")
    expect(tests).toHaveLength(1)
    expect(tests[0]!.url).toBe(url)
    expect(JSON.parse(tests[0]!.body)).toMatchObject({ type: "TEST", data: {} })

    // Saving the same URL again sends nothing new.
    server.webhooks.reset()
    expect((await server.call("PATCH", "/config", { webhookEndpoint: url })).status).toBe(200)
    await server.dispatch()
    expect(server.webhooks.requests()).toHaveLength(0)
  })

  it("C-31 malformed JSON and a non-JSON content type are refused", async () => {
    const malformed = await server.call("PATCH", "/config", "{umaDomain:")
    expectInvalid(malformed, ["body"])
    expect(malformed.json.details.errors[0].constraint).toEqual({ format: "json" })
    const before = (await server.call("GET", "/config")).json
    const raw = await fetch(`${server.baseUrl}/config`, {
      method: "PATCH",
      headers: {
        authorization: `Basic ${Buffer.from(`${server.admin.clientId}:${server.admin.clientSecret}`).toString("base64")}`,
        "content-type": "text/plain"
      },
      body: JSON.stringify({ umaDomain: "x.example" })
    })
    expect(raw.status).toBe(415)
    expect(((await raw.json()) as { code: string }).code).toBe("UNSUPPORTED_MEDIA_TYPE")
    expect((await server.call("GET", "/config")).json).toEqual(before)
  })
})

describe("GET /exchange-rates (P-06, P-07)", () => {
  it("P-06 one rate per repeated destinationCurrency, 10000 minor units by default, fees included", async () => {
    const r = await server.call(
      "GET",
      "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&destinationCurrency=MXN"
    )
    expect(r.status).toBe(200)
    expect(Object.keys(r.json)).toEqual(["data"])
    expect(r.json.data.map((x: { destinationCurrency: { code: string } }) => x.destinationCurrency.code)).toEqual([
      "EUR",
      "MXN"
    ])
    for (const rate of r.json.data) {
      expect(rate.sourceCurrency).toEqual({ code: "USD", name: "United States Dollar", symbol: "$", decimals: 2 })
      expect(rate.sendingAmount).toBe(10_000)
      expect(Number.isInteger(rate.receivingAmount)).toBe(true)
      expect(rate.receivingAmount).toBeGreaterThan(0)
      expect(rate.minSendingAmount).toBeLessThanOrEqual(rate.sendingAmount)
      expect(rate.maxSendingAmount).toBeGreaterThanOrEqual(rate.sendingAmount)
      expect(rate.fees.total).toBeGreaterThanOrEqual(rate.fees.fixed)
      // The rate is receiving major units per sending major unit (both currencies have 2 decimals here).
      expect(rate.exchangeRate).toBeCloseTo(rate.receivingAmount / rate.sendingAmount, 4)
      expect(rate.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/)
    }
    expect(r.json.data[0].destinationPaymentRail).toMatch(/^SEPA/)
    expect(r.json.data[1].destinationPaymentRail).toBe("SPEI")
  })

  it("P-06 a single destinationCurrency and a sendingAmount", async () => {
    const r = await server.call("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&sendingAmount=5000")
    expect(r.status).toBe(200)
    expect(r.json.data).toHaveLength(1)
    expect(r.json.data[0].sendingAmount).toBe(5_000)
    expect(r.json.data[0].destinationCurrency.code).toBe("EUR")
  })

  it("P-06 without destinationCurrency: every other supported currency", async () => {
    const supported: Array<string> = (await server.call("GET", "/config")).json.supportedCurrencies.map(
      (c: { currencyCode: string }) => c.currencyCode
    )
    const r = await server.call("GET", "/exchange-rates?sourceCurrency=USD")
    expect(r.status).toBe(200)
    const codes = r.json.data.map((x: { destinationCurrency: { code: string } }) => x.destinationCurrency.code)
    expect(codes).not.toContain("USD")
    for (const code of codes) expect(supported).toContain(code)
    expect(codes.length).toBeGreaterThanOrEqual(3)
  })

  it("P-06 bad parameters are 400 naming each query field", async () => {
    expectInvalid(await server.call("GET", "/exchange-rates"), ["query.sourceCurrency"])
    expectInvalid(await server.call("GET", "/exchange-rates?sourceCurrency=usd&sendingAmount=-1"), [
      "query.sourceCurrency",
      "query.sendingAmount"
    ])
    const bad = await server.call(
      "GET",
      "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&destinationCurrency=ZZZ"
    )
    expect(bad.status).toBe(400)
    expect(bad.json.code).toBe("INVALID_INPUT")
    const fields: Array<string> = bad.json.details.errors.map((e: { field: string }) => e.field)
    expect(fields.length).toBeGreaterThan(0)
    for (const f of fields) expect(f).toMatch(/^query\.destinationCurrency(\.1)?$/)
  })
})

describe("GET /discoveries (AC-40)", () => {
  it("AC-40 without filters lists every institution", async () => {
    const r = await server.call("GET", "/discoveries")
    expect(r.status).toBe(200)
    expect(Object.keys(r.json)).toEqual(["data"])
    const countries = new Set(r.json.data.map((i: { country: string }) => i.country))
    expect(countries).toEqual(
      new Set(
        ["US", "MX", "BR", "DE", "FR", "ES", "NL", "GB", "IN", "PH", "NG", "CA", "ZA", "CO", "SV", "GT", "JM"].concat([
          "BD",
          "CN",
          "EG",
          "GH",
          "PK",
          "HK",
          "ID",
          "MY",
          "SG",
          "TH",
          "VN"
        ])
      )
    )
    for (const i of r.json.data) {
      expect(Object.keys(i).sort()).toEqual(["bankName", "country", "currency", "displayName"])
    }
  })

  it("AC-40 filters by country, by currency, and by both", async () => {
    const mx = await server.call("GET", "/discoveries?country=MX")
    expect(mx.json.data.map((i: { displayName: string }) => i.displayName)).toEqual([
      "BBVA México",
      "Santander México",
      "Banorte"
    ])
    for (const i of mx.json.data) expect(i).toMatchObject({ country: "MX", currency: "MXN" })

    const eur = await server.call("GET", "/discoveries?currency=EUR")
    expect(eur.json.data).toHaveLength(8)
    for (const i of eur.json.data) expect(i.currency).toBe("EUR")

    const de = await server.call("GET", "/discoveries?country=DE&currency=EUR")
    expect(de.json.data.map((i: { bankName: string }) => i.bankName)).toEqual(["Deutsche Bank AG", "Commerzbank AG"])

    const none = await server.call("GET", "/discoveries?country=MX&currency=EUR")
    expect(none.json).toEqual({ data: [] })
  })

  it("AC-40 bad filters are 400 naming each", async () => {
    expectInvalid(await server.call("GET", "/discoveries?country=mex&currency=PESO"), [
      "query.country",
      "query.currency"
    ])
  })
})

describe("GET /uma-providers (AC-41)", () => {
  it("AC-41 lists providers with UMA address, name and supported currencies", async () => {
    const r = await server.call("GET", "/uma-providers")
    expect(r.status).toBe(200)
    expect(r.json.totalCount).toBe(8)
    expect(r.json.hasMore).toBe(false)
    const sandbox = r.json.data.find((p: { id: string }) => p.id === "uma-sandbox")
    expect(sandbox).toMatchObject({
      name: "UMA Sandbox",
      umaAddress: expect.stringMatching(/^\$[^@]+@.+$/),
      allowListStatus: true
    })
    expect(sandbox.supportedCurrencies.map((c: { code: string }) => c.code)).toEqual(["USD", "EUR", "MXN"])
  })

  it("C-07 pages with limit and cursor: each provider exactly once, in both sort orders", async () => {
    const all = (await server.call("GET", "/uma-providers?limit=100")).json.data.map((p: { id: string }) => p.id)
    expect(all).toHaveLength(8)
    for (const sortOrder of ["asc", "desc"]) {
      const seen: Array<string> = []
      let cursor: string | undefined
      let pages = 0
      do {
        const r = await server.call(
          "GET",
          `/uma-providers?limit=3&sortOrder=${sortOrder}${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
        )
        expect(r.status).toBe(200)
        expect(r.json.totalCount).toBe(8)
        expect(r.json.data.length).toBeLessThanOrEqual(3)
        seen.push(...r.json.data.map((p: { id: string }) => p.id))
        cursor = r.json.hasMore ? r.json.nextCursor : undefined
        if (r.json.hasMore) expect(cursor).toBeTypeOf("string")
        pages++
      } while (cursor !== undefined && pages < 10)
      expect(pages).toBe(3)
      expect(new Set(seen).size).toBe(8)
      const sorted = [...seen].sort()
      expect(seen).toEqual(sortOrder === "asc" ? sorted : sorted.reverse())
    }
  })

  it("AC-41 filters by countryCode and currencyCode", async () => {
    const gb = await server.call("GET", "/uma-providers?countryCode=GB")
    expect(gb.json.data.map((p: { id: string }) => p.id)).toEqual(["uma-thames"])
    expect(gb.json.totalCount).toBe(1)
    const cad = await server.call("GET", "/uma-providers?currencyCode=CAD")
    expect(cad.json.data.map((p: { name: string }) => p.name)).toEqual(["Maple Transfer"])
    const mxUsd = await server.call("GET", "/uma-providers?countryCode=MX&currencyCode=USD")
    expect(mxUsd.json.data.map((p: { id: string }) => p.id).sort()).toEqual(["uma-aurora", "uma-sandbox"])
  })

  it("C-07 a bad cursor and bad filters are 400", async () => {
    expectInvalid(await server.call("GET", "/uma-providers?cursor=bogus"), ["cursor"])
    expectInvalid(await server.call("GET", "/uma-providers?countryCode=gbr&limit=500&sortOrder=up"), [
      "query.countryCode",
      "query.limit",
      "query.sortOrder"
    ])
  })
})

describe("routing, documents (C-01, C-50)", () => {
  it("C-01 GET /openapi.json is JSON listing every route of the API under the version prefix", async () => {
    const response = await fetch(`${server.baseUrl}/openapi.json`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("application/json")
    const spec = JSON.parse(await response.text())
    expect(spec.openapi).toMatch(/^3\./)
    expect(spec.servers).toEqual([{ url: `/${API_VERSION}` }])
    expect(server.baseUrl.endsWith(`/${API_VERSION}`)).toBe(true)
    const routes: Array<string> = []
    HttpApi.reflect(Api, {
      onGroup: () => {},
      onEndpoint: ({ endpoint }) => {
        routes.push(`${endpoint.method.toLowerCase()} ${endpoint.path.replace(/:(\w+)/g, "{$1}")}`)
      }
    })
    expect(routes.length).toBeGreaterThanOrEqual(35)
    for (const route of routes) {
      const [method, path] = route.split(" ") as [string, string]
      expect(spec.paths[path]?.[method], route).toBeTypeOf("object")
    }
    const documented = Object.entries(spec.paths).flatMap(([path, ops]) =>
      Object.keys(ops as object)
        .filter((m) => ["get", "post", "patch", "put", "delete"].includes(m))
        .map((m) => `${m} ${path}`)
    )
    expect(documented.sort()).toEqual([...routes].sort())
    // Protected operations declare HTTP Basic.
    expect(spec.paths["/customers"].post.security).toEqual([{ basicAuth: [] }])
    expect(spec.components.securitySchemes.basicAuth).toEqual({ type: "http", scheme: "basic" })
  })

  it("C-01 GET /docs serves an HTML page without credentials", async () => {
    const response = await fetch(`${server.baseUrl}/docs`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
    const html = await response.text()
    expect(html).toMatch(/^<!doctype html>/i)
    // The document is named relative to the page, which is where the API's own document is served.
    const specUrl = /data-url="([^"]+)"/.exec(html)?.[1] ?? /href="([^"]+openapi\.json)"/.exec(html)?.[1]
    expect(new URL(specUrl ?? "", `${server.baseUrl}/docs`).pathname).toBe(`/${API_VERSION}/openapi.json`)
  })

  it("V-01, V-09: an unknown route is 404 NOT_FOUND (JSON), with or without credentials; so is another version segment", async () => {
    for (const auth of [undefined, null] as const) {
      const r = await server.call("GET", "/no-such-thing", undefined, auth === null ? { auth } : undefined)
      expect(r.status).toBe(404)
      expect(r.json).toEqual({ status: 404, code: "NOT_FOUND", message: expect.any(String) })
    }
    // Routes live under the version prefix only.
    const unversioned = await fetch(server.baseUrl.replace(`/${API_VERSION}`, "/config"))
    expect(unversioned.status).toBe(404)
    // The version is the path's date segment, and only 2025-10-13 is served (no header selects another).
    expect(API_VERSION).toBe("2025-10-13")
    const basic = Buffer.from(`${server.admin.clientId}:${server.admin.clientSecret}`).toString("base64")
    const other = await fetch(server.baseUrl.replace(`/${API_VERSION}`, "/2024-01-01/config"), {
      headers: { authorization: `Basic ${basic}` }
    })
    expect(other.status).toBe(404)
  })

  it("C-50 a known path with another method is 405 METHOD_NOT_ALLOWED with Allow", async () => {
    const r = await server.call("DELETE", "/config")
    expect(r.status).toBe(405)
    expect(r.json).toEqual({ status: 405, code: "METHOD_NOT_ALLOWED", message: expect.stringContaining("DELETE") })
    expect(r.headers.get("allow")?.split(", ").sort()).toEqual(["GET", "HEAD", "OPTIONS", "PATCH"])
    const put = await server.call("PUT", "/tokens/Token:01234567-89ab-7def-8123-456789abcdef", {})
    expect(put.status).toBe(405)
    expect(put.headers.get("allow")?.split(", ").sort()).toEqual(["DELETE", "GET", "HEAD", "OPTIONS"])
    const options = await server.call("OPTIONS", "/exchange-rates")
    expect(options.status).toBe(204)
    expect(options.headers.get("allow")).toBe("GET, HEAD, OPTIONS")
  })
})
