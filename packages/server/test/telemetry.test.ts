/**
 * Issue 33 item 5, telemetry: a payment's trace read from an in-memory exporter (HTTP → service → store, one trace,
 * nothing secret in any attribute), `GET /metrics` of `serve` after a payment and a declined card authorization, and
 * the JSON log line of a request.
 */
import { randomUUID } from "node:crypto"
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  PeriodicExportingMetricReader
} from "@opentelemetry/sdk-metrics"
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { ConfigProvider, Effect, Exit, Layer, Redacted, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { activeCard, cardholder, cardPlatform } from "../../http/test/cards-kit.ts"
import {
  addUsPayee,
  type CallResult,
  fundAccount,
  onboardCustomer,
  quoteBody,
  type TestServer,
  useTestServer
} from "../../http/test/harness.ts"
import { serve, telemetryLayer } from "../src/index.ts"

const ACCOUNT_NUMBER = "987654321777"
const ROUTING_NUMBER = "021000021"
const IBAN = "DE89370400440532013000"

/** Every attribute value of a span and of its events, as text. */
const attributeTexts = (span: ReadableSpan): Array<string> => [
  span.name,
  ...Object.entries(span.attributes).map(([key, value]) => `${key}=${String(value)}`),
  ...span.events.flatMap((event) => [
    event.name,
    ...Object.entries(event.attributes ?? {}).map(([key, value]) => `${key}=${String(value)}`)
  ])
]

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId

// The app with an OpenTelemetry tracer over an in-memory exporter (the harness, on the memory store).
const exporter = new InMemorySpanExporter()
const server = useTestServer(async () => {}, {
  extraLayer: telemetryLayer({ serviceName: "paycore-test", spanProcessors: [new SimpleSpanProcessor(exporter)] })
})

describe("issue 33 item 5: a payment's trace", () => {
  it("POST /quotes and its execution: HTTP → service → store spans in one trace each, no secret or account number in any attribute", async () => {
    const payer = await onboardCustomer(server, { currencies: ["USD", "EUR"] })
    await fundAccount(server, payer.accounts.USD!, 100_000)
    await fundAccount(server, payer.accounts.EUR!, 100_000)
    const usPayee = await addUsPayee(server, payer.id, { accountNumber: ACCOUNT_NUMBER })
    const ibanPayee = await server.call("POST", "/customers/external-accounts", {
      customerId: payer.id,
      currency: "EUR",
      accountInfo: {
        accountType: "IBAN",
        iban: IBAN,
        swiftCode: "COBADEFFXXX",
        bankName: "Commerzbank AG",
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Emmy Noether", countryOfResidence: "DE" }
      }
    })
    expect(ibanPayee.status, JSON.stringify(ibanPayee.json)).toBe(201)
    exporter.reset()

    // With an Idempotency-Key: the stored answer's transaction is in the request's trace too.
    const quote = await server.call("POST", "/quotes", quoteBody(payer.accounts.USD!, usPayee, 2_500), {
      headers: { "idempotency-key": randomUUID() }
    })
    expect(quote.status, JSON.stringify(quote.json)).toBe(201)
    const executed = await server.call("POST", `/quotes/${quote.json.id}/execute`, undefined, {
      headers: { "x-request-id": "req-telemetry-1" }
    })
    expect(executed.status, JSON.stringify(executed.json)).toBe(200)
    expect(executed.headers.get("x-request-id")).toBe("req-telemetry-1")
    expect(quote.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
    const euro = await server.call(
      "POST",
      "/quotes",
      quoteBody(payer.accounts.EUR!, ibanPayee.json.id, 1_500, { immediatelyExecute: true })
    )
    expect(euro.status, JSON.stringify(euro.json)).toBe(201)
    await server.processDue()
    await server.dispatch()

    const spans = exporter.getFinishedSpans()
    const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]))
    const http = spans.find((span) => span.name === "POST /2025-10-13/quotes/:quoteId/execute")
    expect(http, spans.map((s) => s.name).join(", ")).toBeDefined()
    expect(http!.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.route": "/2025-10-13/quotes/:quoteId/execute",
      "http.response.status_code": 200,
      "paycore.request_id": "req-telemetry-1"
    })
    expect(parentOf(http!)).toBeUndefined()
    const traceId = http!.spanContext().traceId
    const trace = spans.filter((span) => span.spanContext().traceId === traceId)
    // Every span of the trace leads up to the request's span through its parents.
    const root = (span: ReadableSpan): ReadableSpan => {
      const parent = parentOf(span)
      return parent === undefined ? span : root(byId.get(parent)!)
    }
    for (const span of trace) expect(root(span), span.name).toBe(http)
    const service = trace.find((span) => span.name === "Quotes.execute")
    expect(service, trace.map((s) => s.name).join(", ")).toBeDefined()
    expect(parentOf(service!)).toBe(http!.spanContext().spanId)
    const stored = trace.filter((span) => span.name === "Store.transaction")
    expect(stored.length).toBeGreaterThan(0)
    for (const span of stored) {
      expect(span.attributes["paycore.store"]).toBe("memory")
      expect(span.attributes["paycore.store.attempts"]).toBe(1)
      expect(span.attributes["paycore.store.committed"]).toBe(true)
    }
    // The quote's own request is a trace of its own, with its service span.
    const created = spans.find((span) => span.name === "POST /2025-10-13/quotes")!
    const creation = spans.filter((span) => span.spanContext().traceId === created.spanContext().traceId)
    for (const span of creation) expect(root(span), span.name).toBe(created)
    expect(creation.map((span) => span.name)).toEqual(expect.arrayContaining(["Quotes.create", "Store.transaction"]))

    const secrets = [server.admin.clientSecret, ACCOUNT_NUMBER, ROUTING_NUMBER, IBAN, IBAN.slice(-10)]
    for (const span of spans) {
      for (const text of attributeTexts(span)) {
        for (const secret of secrets) expect(text, span.name).not.toContain(secret)
      }
    }
  })
})

/** The value of the Prometheus sample `name{labels}` (labels in the order written), 0 when absent. */
const sample = (text: string, name: string, labels: string): number => {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}} `))
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1))
}

describe("issue 33 item 5: serve's GET /metrics and JSON logs", () => {
  let scope: Scope.Closeable
  let origin: string
  let api: TestServer
  const lines: Array<string> = []

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    const env = ConfigProvider.fromEnvRecord({
      PAYCORE_STORE: "memory",
      PAYCORE_LOG_FORMAT: "json",
      PAYCORE_SANDBOX_SPEEDUP: "1000000000"
    })
    const write = process.stdout.write.bind(process.stdout)
    vi.spyOn(process.stdout, "write").mockImplementation(((chunk: string | Uint8Array, ...rest: Array<never>) => {
      const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString()
      if (text.startsWith("{")) lines.push(...text.trim().split("\n"))
      else return write(chunk, ...rest)
      return true
    }) as typeof process.stdout.write)
    const sandbox = await Effect.runPromise(
      serve({ port: 0 }).pipe(Effect.provideService(ConfigProvider.ConfigProvider, env), Scope.provide(scope))
    )
    origin = new URL(sandbox.baseUrl).origin
    api = clientOf(sandbox.baseUrl, sandbox.clientId, Redacted.value(sandbox.clientSecret))
  })
  afterAll(async () => {
    vi.restoreAllMocks()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  // Metrics live in effect's registry, one per process: serve's /metrics shows what the harness's app counted too.
  it("counts a payment's state changes and a declined card authorization by reason, in the Prometheus text format", async () => {
    const before = await (await fetch(`${origin}/metrics`)).text()
    const payer = await onboardCustomer(server, { currencies: ["USD"] })
    await fundAccount(server, payer.accounts.USD!, 100_000)
    const payee = await addUsPayee(server, payer.id)
    const paid = await server.call(
      "POST",
      "/quotes",
      quoteBody(payer.accounts.USD!, payee, 700, { immediatelyExecute: true })
    )
    expect(paid.status, JSON.stringify(paid.json)).toBe(201)
    await server.processDue()
    await server.call("PATCH", "/config", { webhookEndpoint: "https://platform.example.com/hooks" })
    await server.dispatch()
    await cardPlatform(server)
    const holder = await cardholder(server)
    const card = await activeCard(server, holder)
    // Nothing on the card's funding account: declined for INSUFFICIENT_FUNDS.
    const declined = await server.call("POST", `/sandbox/cards/${card.id}/simulate/authorization`, {
      amount: 5_000,
      currency: { code: "USD" },
      merchant: { descriptor: "Coffee Shop", mcc: "5814", country: "US" }
    })
    expect(declined.status, JSON.stringify(declined.json)).toBeLessThan(300)

    const metrics = await fetch(`${origin}/metrics`)
    expect(metrics.status).toBe(200)
    expect(metrics.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
    const text = await metrics.text()
    expect(text).toContain("# TYPE paycore_payment_transitions_total counter")
    const delta = (name: string, labels: string) => sample(text, name, labels) - sample(before, name, labels)
    expect(delta("paycore_payment_transitions_total", 'status="PENDING",type="OUTGOING"')).toBeGreaterThanOrEqual(1)
    expect(delta("paycore_payment_transitions_total", 'status="COMPLETED",type="OUTGOING"')).toBeGreaterThanOrEqual(1)
    expect(delta("paycore_webhook_attempts_total", 'outcome="delivered"')).toBeGreaterThanOrEqual(1)
    expect(text).toMatch(/^paycore_webhook_attempt_seconds_bucket\{outcome="delivered",le="\+Inf"\} \d+$/m)
    // serve's own worker and dispatcher passed at start.
    expect(text).toMatch(/^paycore_worker_pass_seconds_count\{worker="payments"\} \d+$/m)
    expect(text).toMatch(/^paycore_worker_pass_seconds_count\{worker="webhooks"\} \d+$/m)
    expect(text).toMatch(/^paycore_outbox_lag_seconds \d/m)
    expect(
      delta("paycore_card_authorizations_total", 'outcome="declined",reason="INSUFFICIENT_FUNDS",kind="AUTHORIZATION"')
    ).toBe(1)
    expect(text).not.toContain(ACCOUNT_NUMBER)
  })

  it("writes one JSON line per request: method, route, status, duration, request id and trace id", async () => {
    lines.length = 0
    const r = await api.call("GET", "/customers?limit=1", undefined, { headers: { "x-request-id": "req-log-1" } })
    expect(r.status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 50))
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    const entry = entries.find((e) => e.requestId === "req-log-1")
    expect(entry, lines.join("\n")).toMatchObject({
      level: "INFO",
      message: "http request",
      method: "GET",
      route: "/2025-10-13/customers",
      status: 200,
      requestId: "req-log-1"
    })
    expect(entry!.traceId).toMatch(/^[0-9a-f]{32}$/)
    expect(entry!.durationMs).toBeTypeOf("number")
    expect(Date.parse(entry!.timestamp as string)).not.toBeNaN()
    for (const line of lines) expect(line).not.toContain(api.admin.clientSecret)
  })

  it("the same metrics reach an OpenTelemetry metric reader through @effect/opentelemetry's bridge", async () => {
    const reader = new PeriodicExportingMetricReader({
      exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
      exportIntervalMillis: 3_600_000
    })
    const readerScope = Effect.runSync(Scope.make())
    try {
      await Effect.runPromise(
        Layer.build(telemetryLayer({ serviceName: "paycore-metrics-test", metricReaders: [reader] })).pipe(
          Scope.provide(readerScope)
        )
      )
      const { resourceMetrics } = await reader.collect()
      expect(resourceMetrics.resource.attributes["service.name"]).toBe("paycore-metrics-test")
      const names = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics.map((m) => m.descriptor.name))
      expect(names).toEqual(
        expect.arrayContaining(["paycore_payment_transitions_total", "paycore_card_authorizations_total"])
      )
    } finally {
      await Effect.runPromise(Scope.close(readerScope, Exit.void))
    }
  })

  it("GET /metrics takes no credentials and sits outside the versioned API", async () => {
    const r = await fetch(`${origin}/metrics`)
    expect(r.status).toBe(200)
    expect((await fetch(`${origin}/2025-10-13/metrics`)).status).toBe(404)
  })
})

/** A `TestServer` whose `call` reaches `baseUrl` with the token (the harness's helpers only call). */
const clientOf = (baseUrl: string, clientId: string, clientSecret: string): TestServer => {
  const authorization = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}`
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    options?: { readonly headers?: Record<string, string> }
  ): Promise<CallResult> => {
    const response = await fetch(baseUrl + path, {
      method,
      headers: {
        authorization,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...options?.headers
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    return { status: response.status, headers: response.headers, json: text === "" ? undefined : JSON.parse(text) }
  }
  return { baseUrl, admin: { clientId, clientSecret }, call } as unknown as TestServer
}
