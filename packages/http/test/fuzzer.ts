/**
 * A fuzzer of every endpoint, derived from the route table (`Api`) and each endpoint's Schemas: a case is a
 * schema-valid request (values drawn from the Schema, ids swapped for ids that exist), then perhaps one mutation
 * that makes it hostile. Everything is drawn from `(seed, case index)`, so a run replays from its seed.
 */

import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import { stampWith } from "@paycore/testkit/wallet-client"
import { Arbitrary, Effect, Schema } from "effect"
import { HttpApi } from "effect/http-api"
import { Api } from "../src/index.ts"

// -----------------------------------------------------------------------------
// Randomness: one small PRNG per case, seeded from (run seed, case index)
// -----------------------------------------------------------------------------

export interface Rng {
  /** In [0, 1). */
  readonly next: () => number
  readonly int: (n: number) => number
  readonly pick: <A>(items: ReadonlyArray<A>) => A
  readonly chance: (p: number) => boolean
}

export const rngOf = (seed: number): Rng => {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  return { next, int, pick: (items) => items[int(items.length)]!, chance: (p) => next() < p }
}

/** The seed of case `index` of a run: independent of every other case. */
export const caseSeed = (runSeed: number, index: number): number => {
  let h = (runSeed ^ 0x9e3779b9) >>> 0
  h = Math.imul(h ^ index, 0x85ebca6b) >>> 0
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0
  return (h ^ (h >>> 16)) >>> 0
}

// -----------------------------------------------------------------------------
// The route table, with a sampler per schema
// -----------------------------------------------------------------------------

/** Draws one encoded (JSON) value of a Schema from a seed; `undefined` when the Schema cannot be sampled. */
type Sampler = (seed: number) => unknown

const samplerOf = (schema: Schema.Top | undefined): Sampler | undefined => {
  if (schema === undefined) return undefined
  try {
    const arbitrary = Arbitrary.schema(schema as Schema.Codec<unknown, unknown>)
    const encode = Schema.encodeUnknownSync(Schema.toCodecJson(schema as Schema.Codec<unknown, unknown>))
    return (seed) => {
      const [value] = Effect.runSync(Arbitrary.sampleEffect(arbitrary, { count: 1, seed, size: 6 }))
      return encode(value)
    }
  } catch {
    return () => ({})
  }
}

export interface RouteSpec {
  /** `group.endpoint` */
  readonly name: string
  readonly method: string
  /** The template, without the version prefix: `/customers/:customerId`. */
  readonly path: string
  readonly params: Sampler | undefined
  readonly query: Sampler | undefined
  readonly headers: Sampler | undefined
  readonly body: { readonly kind: "json" | "multipart"; readonly sample: Sampler } | undefined
  /** The route is a wallet action's signed retry (it declares `Service-Wallet-Signature`). */
  readonly signedRetry: boolean
}

export const routeTable = (): ReadonlyArray<RouteSpec> => {
  const routes: Array<RouteSpec> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint }) => {
      const json = endpoint.payload.get("application/json")?.schemas[0]
      const multipart = endpoint.payload.get("multipart/form-data")?.schemas[0]
      const body = json ?? multipart
      routes.push({
        name: `${group.identifier}.${endpoint.identifier}`,
        method: endpoint.method,
        path: endpoint.path,
        params: samplerOf(endpoint.params),
        query: samplerOf(endpoint.query),
        headers: samplerOf(endpoint.headers),
        body: body === undefined ? undefined : { kind: json ? "json" : "multipart", sample: samplerOf(body)! },
        signedRetry: Object.hasOwn(
          (endpoint.headers as { readonly fields?: object } | undefined)?.fields ?? {},
          "service-wallet-signature"
        )
      })
    }
  })
  return routes
}

// -----------------------------------------------------------------------------
// Ids that exist: harvested from fixtures and from every successful answer
// -----------------------------------------------------------------------------

const ID = /^([A-Z][A-Za-z]*):[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

export class IdPool {
  readonly #byType = new Map<string, Array<string>>()

  /** Adds every id-shaped string found in `value`. */
  harvest(value: unknown): void {
    const pending: Array<unknown> = [value]
    while (pending.length > 0) {
      const current = pending.pop()
      if (typeof current === "string") {
        const match = ID.exec(current)
        if (match !== null) {
          const ids = this.#byType.get(match[1]!) ?? []
          if (!ids.includes(current)) ids.push(current)
          this.#byType.set(match[1]!, ids)
        }
      } else if (Array.isArray(current)) pending.push(...current)
      else if (current !== null && typeof current === "object") pending.push(...Object.values(current))
    }
  }

  /** The ids of one type seen so far (`Request` ids come from signed retries' first legs). */
  idsOf(type: string): ReadonlyArray<string> {
    return this.#byType.get(type) ?? []
  }

  /** `value` with id-shaped strings mostly replaced by existing ids of the same type. */
  swapIn(value: unknown, rng: Rng): unknown {
    if (typeof value === "string") {
      const match = ID.exec(value)
      const ids = match === null ? undefined : this.#byType.get(match[1]!)
      return ids !== undefined && rng.chance(0.9) ? rng.pick(ids) : value
    }
    if (Array.isArray(value)) return value.map((item) => this.swapIn(item, rng))
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.swapIn(v, rng)]))
    }
    return value
  }

  get size(): number {
    let n = 0
    for (const ids of this.#byType.values()) n += ids.length
    return n
  }
}

// -----------------------------------------------------------------------------
// Cases
// -----------------------------------------------------------------------------

export interface FuzzCase {
  readonly index: number
  readonly endpoint: string
  readonly mutation: Mutation
  readonly method: string
  /** Path and query, without the version prefix. */
  readonly target: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | Buffer | undefined
  /** A raw HTTP/1.1 request sent over a socket as is (requests `node:http` would not send). */
  readonly raw?: string | undefined
  /** Idempotency keys the case sends. */
  readonly idempotencyKey?: string | undefined
}

export const MUTATIONS = [
  "none",
  "wrongType",
  "missingField",
  "extraField",
  "numberEdge",
  "nulOrSurrogate",
  "oversizedString",
  "oversizedBody",
  "brokenJson",
  "brokenMultipart",
  "oddId",
  "oddQuery",
  "wrongContentType",
  "unknownRoute",
  "unknownMethod",
  "malformedHttp"
] as const
export type Mutation = (typeof MUTATIONS)[number]

// Valid requests are drawn more often: they move the store into states the hostile ones then meet.
const MUTATION_WEIGHTS: Readonly<Record<Mutation, number>> = {
  none: 20,
  wrongType: 8,
  missingField: 6,
  extraField: 4,
  numberEdge: 6,
  nulOrSurrogate: 10,
  oversizedString: 3,
  oversizedBody: 1,
  brokenJson: 5,
  brokenMultipart: 3,
  oddId: 6,
  oddQuery: 5,
  wrongContentType: 4,
  unknownRoute: 3,
  unknownMethod: 2,
  malformedHttp: 2
}
const WEIGHTED: ReadonlyArray<Mutation> = MUTATIONS.flatMap((m) => Array<Mutation>(MUTATION_WEIGHTS[m]).fill(m))

const BAD_TEXT = ["\u0000", "\ud800", "\udfff", "a\u0000b", "\udc00\ud800", "x\ud83d"]
const NUMBER_EDGES = [-1, 0, 0.5, -0.000001, 2 ** 53, 2 ** 53 + 2, -(2 ** 63), 1e21, 1e308, -1e308, 4294967296]
const ODD_IDS = [
  "%00",
  "..",
  "%2e%2e",
  "%2F",
  "%",
  "%ZZ",
  "%ED%A0%80",
  "%F0%9F%92%B8",
  "Customer:not-a-uuid",
  "Quote:01234567-89ab-7def-8123-456789abcdef",
  "CUSTOMER:01234567-89AB-7DEF-8123-456789ABCDEF",
  "a".repeat(4000),
  "%20",
  "null",
  "-1"
]
const ODD_QUERIES = [
  "?",
  "?&&&=",
  "?limit=1&limit=2",
  "?limit=-1",
  "?limit=1e9",
  "?limit=0x10",
  "?__proto__=1&constructor=x",
  "?cursor=%00",
  "?cursor=%ED%A0%80",
  "?sortOrder=DESC",
  "?a=%ZZ",
  "?limit",
  `?cursor=${"z".repeat(9000)}`,
  "?createdAfter=2026-13-45T99:99:99Z",
  "?customerId=%00&currency=US%00D"
]
const CONTENT_TYPES = [
  "text/plain",
  "application/xml",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=zz",
  "application/json",
  "application/json; charset=utf-16",
  "",
  "*/*"
]
const METHODS = ["PROPFIND", "PURGE", "LINK", "MKCOL", "REPORT", "SEARCH", "PATCH", "PUT", "DELETE"]

type Json = unknown

/** Every path to a value inside `value` (the root is `[]`). */
const pathsOf = (value: Json, base: ReadonlyArray<string | number> = []): Array<ReadonlyArray<string | number>> => {
  const out: Array<ReadonlyArray<string | number>> = [base]
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) out.push(...pathsOf(value[i], [...base, i]))
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...base, k]))
  }
  return out
}

const getAt = (value: Json, path: ReadonlyArray<string | number>): Json =>
  path.reduce<Json>((v, k) => (v as Record<string | number, Json>)?.[k], value)

/** `value` with the value at `path` replaced (`undefined` removes it). */
const setAt = (value: Json, path: ReadonlyArray<string | number>, next: Json): Json => {
  if (path.length === 0) return next
  const [head, ...rest] = path
  if (Array.isArray(value)) {
    const copy = [...value]
    if (next === undefined && rest.length === 0) copy.splice(head as number, 1)
    else copy[head as number] = setAt(copy[head as number], rest, next)
    return copy
  }
  const copy: Record<string, Json> = { ...(value as Record<string, Json>) }
  if (next === undefined && rest.length === 0) delete copy[head as string]
  else copy[head as string] = setAt(copy[head as string], rest, next)
  return copy
}

const otherTypeValue = (current: Json, rng: Rng): Json => {
  const options: Array<Json> = [42, -7.5, "text", true, null, [], {}, [1, "a"], { a: 1 }]
  const differing = options.filter((o) => typeof o !== typeof current || Array.isArray(o) !== Array.isArray(current))
  return rng.pick(differing.length > 0 ? differing : options)
}

const injectText = (text: string, rng: Rng): string => {
  const bad = rng.pick(BAD_TEXT)
  const at = rng.int(text.length + 1)
  return text.slice(0, at) + bad + text.slice(at)
}

/** A small PNG, PDF or JPEG head: what document uploads carry. */
const FILES: ReadonlyArray<{ readonly type: string; readonly name: string; readonly bytes: Buffer }> = [
  {
    type: "image/png",
    name: "id.png",
    bytes: Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex")
  },
  { type: "application/pdf", name: "id.pdf", bytes: Buffer.from("%PDF-1.4\n%\u00e2\u00e3\n1 0 obj\n<<>>\nendobj\n") },
  { type: "image/jpeg", name: "id.jpg", bytes: Buffer.from("ffd8ffe000104a46494600010100000100010000ffd9", "hex") }
]

const CSV_HEADER =
  "umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country,email"

const csvFile = (rng: Rng, hostile: boolean): string => {
  const rows = Array.from({ length: 1 + rng.int(3) }, (_, i) => {
    const cells = [
      `$fuzz${rng.int(1e6)}@example.com`,
      `fuzz-${rng.int(1e9)}-${i}`,
      rng.pick(["INDIVIDUAL", "BUSINESS", "ROBOT"]),
      "Ada Lovelace",
      rng.pick(["1990-12-10", "1990-13-45", ""]),
      "1 Market St",
      "San Francisco",
      "CA",
      "94105",
      rng.pick(["US", "ZZ"]),
      "ada@example.com"
    ]
    if (hostile) {
      const at = rng.int(cells.length)
      cells[at] = injectText(cells[at]!, rng)
    }
    return cells.join(",")
  })
  return `${CSV_HEADER}\r\n${rows.join("\r\n")}\r\n`
}

const multipartBody = (
  fields: Readonly<Record<string, Json>>,
  file: { readonly field: string; readonly type: string; readonly name: string; readonly bytes: Buffer } | undefined,
  boundary: string
): Buffer => {
  const parts: Array<Buffer> = []
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue
    const text = typeof value === "string" ? value : JSON.stringify(value)
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${text}\r\n`))
  }
  if (file !== undefined) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\n` +
          `Content-Type: ${file.type}\r\n\r\n`
      ),
      file.bytes,
      Buffer.from("\r\n")
    )
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`))
  return Buffer.concat(parts)
}

/** `encodeURIComponent`, except that a lone surrogate is written as its three WTF-8 bytes instead of throwing. */
const percentEncode = (text: string): string =>
  Array.from(text, (ch) => {
    const code = ch.charCodeAt(0)
    if (ch.length === 1 && code >= 0xd800 && code <= 0xdfff) {
      return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join("")
    }
    return encodeURIComponent(ch)
  }).join("")

/** A multipart body cut short, its boundary or part headers broken, or a second file added. */
const breakForm = (form: Buffer, boundary: string, rng: Rng): Buffer => {
  const text = form.toString("latin1")
  const broken = rng.pick([
    () => text.slice(0, rng.int(text.length)),
    () => text.replaceAll(`--${boundary}--`, `--${boundary}-`),
    () => text.replace("Content-Disposition: form-data;", "Content-Disposition: attachment;"),
    () => text.replace(/name="[^"]*"/, 'name="'),
    () => text.replace(/filename="[^"]*"/, "filename*=utf-8''%ED%A0%80.png"),
    () =>
      text.replace(
        `--${boundary}--`,
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.png"\r\n\r\nx\r\n--${boundary}--`
      ),
    () => `${text.slice(0, text.length - 4)}${"z".repeat(rng.int(5000))}`
  ])()
  return Buffer.from(broken, "latin1")
}

const fillPath = (template: string, params: Readonly<Record<string, Json>>, odd: string | undefined): string =>
  template.replace(/:([A-Za-z]+)/g, (_, name: string) =>
    odd !== undefined ? odd : percentEncode(String(params[name] ?? "x"))
  )

const queryString = (query: Json): string => {
  if (query === null || typeof query !== "object") return ""
  const search = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) {
    if (Array.isArray(v)) for (const item of v) search.append(k, String(item))
    else if (v !== undefined) search.append(k, typeof v === "string" ? v : JSON.stringify(v))
  }
  const text = search.toString()
  return text === "" ? "" : `?${text}`
}

/** `Service-Wallet-Signature` and `Request-Id` of a made-up second leg (either may be left out). */
const walletRetryHeaders = (rng: Rng, pool: IdPool): Record<string, string> => {
  const out: Record<string, string> = {}
  const known = pool.idsOf("Request")
  if (rng.chance(0.8)) {
    out["request-id"] =
      known.length > 0 && rng.chance(0.6) ? rng.pick(known) : rng.pick([`Request:${fakeUuid(rng)}`, "Request:", "x"])
  }
  if (rng.chance(0.8)) {
    const secret = new Uint8Array(32).map(() => rng.int(256))
    secret[0] = 1 + rng.int(0x7e) // below the group order, never zero
    const stamp = stampWith(secret, rng.pick(["{}", "payload", `{"requestId":"${out["request-id"] ?? ""}"}`]))
    out["service-wallet-signature"] = rng.pick([
      stamp,
      stamp.slice(0, rng.int(stamp.length)),
      `${stamp}A`,
      Buffer.from(JSON.stringify({ publicKey: "02", scheme: "x", signature: "30" })).toString("base64url"),
      "not base64url!"
    ])
  }
  return out
}

const fakeUuid = (rng: Rng): string =>
  [8, 4, 4, 4, 12].map((n) => Array.from({ length: n }, () => "0123456789abcdef"[rng.int(16)]).join("")).join("-")

/** The `Authorization` a route group takes: an agent's Bearer token on `/agents/me` (A-07), Basic elsewhere. */
export interface FuzzCredentials {
  /** The platform's `Basic …`. */
  readonly platform: string
  /** An agent's `Bearer gat_…`, for the `agentMe` group (without it those routes get `platform` and answer 401). */
  readonly agent?: string | undefined
}

/** Whether a route is one of the agent's own (`/agents/me`, Bearer only). */
export const isAgentRoute = (endpoint: string): boolean => endpoint.startsWith("agentMe.")

/**
 * Case `index` of a run: a schema-valid request for a route drawn from `routes`, then its mutation. The route's
 * credentials (`FuzzCredentials`) go on every case but the raw ones that test the parser before credentials matter.
 */
export const makeCase = (
  runSeed: number,
  index: number,
  routes: ReadonlyArray<RouteSpec>,
  pool: IdPool,
  credentials: FuzzCredentials
): FuzzCase => {
  const seed = caseSeed(runSeed, index)
  const rng = rngOf(seed)
  const route = rng.pick(routes)
  const drawn = rng.pick(WEIGHTED)
  // A form can only be broken where there is one: elsewhere the JSON body is.
  const mutation = drawn === "brokenMultipart" && route.body?.kind !== "multipart" ? "brokenJson" : drawn
  const draw = (sampler: Sampler | undefined, salt: number): Json =>
    sampler === undefined ? undefined : pool.swapIn(sampler((seed + salt) >>> 0), rng)

  const params = (draw(route.params, 1) ?? {}) as Record<string, Json>
  let query = rng.chance(0.4) ? draw(route.query, 2) : undefined
  const declared = (draw(route.headers, 3) ?? {}) as Record<string, Json>
  let payload = route.body === undefined ? undefined : draw(route.body.sample, 4)
  const authorization = (isAgentRoute(route.name) ? credentials.agent : undefined) ?? credentials.platform
  const headers: Record<string, string> = { authorization }
  let idempotencyKey: string | undefined
  if ("idempotency-key" in declared || (route.method !== "GET" && rng.chance(0.25))) {
    idempotencyKey = `fuzz-${runSeed}-${index}`
    headers["idempotency-key"] = idempotencyKey
  }

  // A signed-retry route half the time gets a second leg's headers: ids that exist or not, stamps that parse or not.
  if (route.signedRetry && rng.chance(0.5)) Object.assign(headers, walletRetryHeaders(rng, pool))

  let odd: string | undefined
  let oddQuery: string | undefined
  let method = route.method
  let path = route.path
  let raw: string | undefined
  let contentType: string | undefined
  let bodyText: string | Buffer | undefined

  const mutateJson = (value: Json, change: (current: Json, path: ReadonlyArray<string | number>) => Json): Json => {
    const paths = pathsOf(value).filter((p) => p.length > 0)
    if (paths.length === 0) return change(value, [])
    const at = rng.pick(paths)
    return setAt(value, at, change(getAt(value, at), at))
  }
  // The part of the request a field-level mutation hits: the body when there is one, else the query.
  const onFields = (change: (current: Json, path: ReadonlyArray<string | number>) => Json) => {
    if (payload !== undefined && (query === undefined || rng.chance(0.8))) payload = mutateJson(payload, change)
    else query = mutateJson(query ?? {}, change)
  }

  switch (mutation) {
    case "none":
      break
    case "wrongType":
      onFields((current) => otherTypeValue(current, rng))
      break
    case "missingField":
      onFields(() => undefined)
      break
    case "extraField":
      onFields((current) =>
        current !== null && typeof current === "object" && !Array.isArray(current)
          ? {
              ...current,
              [rng.pick(["__proto__", "constructor", "extra", "id", "status", ""])]: rng.pick([1, "x", {}])
            }
          : current
      )
      break
    case "numberEdge":
      onFields(() => rng.pick(NUMBER_EDGES))
      break
    case "nulOrSurrogate": {
      const where = rng.int(3)
      if (where === 0 && route.path.includes(":")) {
        odd = percentEncode(injectText(String(Object.values(params)[0] ?? "x"), rng))
      } else if (where === 1 || payload === undefined) {
        query = { ...((query as object) ?? {}), [rng.pick(["platformCustomerId", "name", "reference", "q"])]: "" }
        query = mutateJson(query, (current) => injectText(typeof current === "string" ? current : "", rng))
      } else {
        payload = mutateJson(payload, (current) => injectText(typeof current === "string" ? current : "v", rng))
      }
      break
    }
    case "oversizedString":
      onFields(() => "x".repeat(rng.pick([10_000, 100_000, 600_000])))
      break
    case "oversizedBody":
      bodyText = `{"pad":"${"y".repeat(1024 * 1024 + rng.int(1000))}"}`
      break
    case "brokenJson": {
      const text = JSON.stringify(payload ?? { a: 1 })
      bodyText = rng.pick([
        text.slice(0, rng.int(text.length)),
        `${text}}`,
        `\ufeff${text}`,
        "nul",
        "{'a': 1}",
        `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
        `{"a":${"[".repeat(5000)}"\\u0000"${"]".repeat(5000)}}`,
        '{"a":1,"a":2}',
        "\u0000",
        ""
      ])
      break
    }
    case "brokenMultipart":
      // Applied to the form once it is built, below.
      break
    case "oddId":
      if (route.path.includes(":")) odd = rng.pick(ODD_IDS)
      else path = `${route.path}/${rng.pick(ODD_IDS)}`
      break
    case "oddQuery":
      oddQuery = rng.pick(ODD_QUERIES)
      break
    case "wrongContentType":
      contentType = rng.pick(CONTENT_TYPES)
      break
    case "unknownRoute":
      path = rng.pick([
        `${route.path}/x`,
        `${route.path}x`,
        "/",
        "//customers",
        "/does-not-exist",
        "/%2e%2e/%2e%2e/etc/passwd",
        `/${"a/".repeat(200)}`
      ])
      break
    case "unknownMethod":
      method = rng.pick(METHODS.filter((m) => m !== route.method))
      break
    case "malformedHttp":
      raw = rng.pick([
        `GET /2025-10-13/customers HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\nX-A: a\u0000b\r\n\r\n`,
        `GET /2025-10-13/customers HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n`,
        "GET /2025-10-13/customers HTTP/9.9\r\nHost: x\r\n\r\n",
        `POST /2025-10-13/customers HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{}`,
        `GET /2025-10-13/customers HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(20_000)}\r\n\r\n`,
        `POST /2025-10-13/customers HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
        "\u0000\u0001\u0002\r\n\r\n"
      ])
      break
  }

  // The body as sent.
  if (bodyText === undefined && route.body !== undefined && payload !== undefined) {
    if (route.body.kind === "json") bodyText = JSON.stringify(payload)
    else {
      const fields = { ...(payload as Record<string, Json>) }
      delete fields.file
      const boundary = `fuzz${seed}`
      const isCsv = route.name === "customers.bulkImportCsv"
      const file = isCsv
        ? {
            field: "file",
            type: "text/csv",
            name: "customers.csv",
            bytes: Buffer.from(csvFile(rng, mutation === "nulOrSurrogate"))
          }
        : { field: "file", ...rng.pick(FILES) }
      if (mutation === "nulOrSurrogate" && !isCsv && rng.chance(0.5)) file.name = injectText(file.name, rng)
      const form = multipartBody(fields, rng.chance(0.9) ? file : undefined, boundary)
      bodyText = mutation === "brokenMultipart" ? breakForm(form, boundary, rng) : form
      contentType ??= `multipart/form-data; boundary=${boundary}`
    }
  }
  if (bodyText !== undefined) headers["content-type"] = contentType ?? "application/json"
  else if (contentType !== undefined && contentType !== "") headers["content-type"] = contentType
  if (contentType === "") delete headers["content-type"]

  const target = fillPath(path, params, odd) + (oddQuery ?? queryString(query))
  return {
    index,
    endpoint: route.name,
    mutation,
    method,
    target,
    headers,
    body: bodyText,
    ...(raw === undefined ? {} : { raw }),
    ...(idempotencyKey === undefined ? {} : { idempotencyKey })
  }
}

// -----------------------------------------------------------------------------
// Sending
// -----------------------------------------------------------------------------

export interface FuzzResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string | Array<string> | undefined>>
  readonly text: string
}

/** Sends a case; fails (rejects) when no answer comes within `timeoutMillis`: a hang. */
export const sendCase = (origin: URL, prefix: string, c: FuzzCase, timeoutMillis = 15_000): Promise<FuzzResponse> =>
  c.raw !== undefined ? sendRaw(origin, c.raw, timeoutMillis) : sendHttp(origin, prefix, c, timeoutMillis)

const sendHttp = (origin: URL, prefix: string, c: FuzzCase, timeoutMillis: number): Promise<FuzzResponse> =>
  new Promise((resolve, reject) => {
    const body = c.body === undefined ? undefined : Buffer.isBuffer(c.body) ? c.body : Buffer.from(c.body)
    const req = httpRequest(
      {
        host: origin.hostname,
        port: origin.port,
        method: c.method,
        path: prefix + c.target,
        // A connection per case: a hostile case may leave its connection closed (413, a parse error).
        agent: false,
        headers: { ...c.headers, ...(body === undefined ? {} : { "content-length": String(body.length) }) }
      },
      (res) => {
        // An event stream never ends: its status and headers are the answer.
        if (res.headers["content-type"] === "text/event-stream") {
          clearTimeout(timer)
          res.destroy()
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: "" })
          return
        }
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => {
          clearTimeout(timer)
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") })
        })
      }
    )
    const timer = setTimeout(() => {
      req.destroy()
      reject(new Error(`no answer within ${timeoutMillis} ms`))
    }, timeoutMillis)
    req.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    req.end(body)
  })

const sendRaw = (origin: URL, raw: string, timeoutMillis: number): Promise<FuzzResponse> =>
  new Promise((resolve, reject) => {
    const socket = connect(Number(origin.port), origin.hostname, () => socket.end(Buffer.from(raw, "latin1")))
    const chunks: Array<Buffer> = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer within ${timeoutMillis} ms`))
    }, timeoutMillis)
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    socket.on("close", () => {
      clearTimeout(timer)
      const text = Buffer.concat(chunks).toString("utf8")
      const [head = "", ...rest] = text.split("\r\n\r\n")
      const [statusLine = "", ...headerLines] = head.split("\r\n")
      const headers: Record<string, string> = {}
      for (const line of headerLines) {
        const colon = line.indexOf(":")
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
      }
      resolve({ status: Number(statusLine.split(" ")[1] ?? 0), headers, text: rest.join("\r\n\r\n") })
    })
  })

// -----------------------------------------------------------------------------
// What every answer must be
// -----------------------------------------------------------------------------

/** The problems of an answer: a 5xx, a missing or malformed error body, a 405 without `Allow`. */
/**
 * Designed 5xx answers, not server failures: 501 `NOT_IMPLEMENTED` (upstream `Error501`, CD-42), the card routes where
 * no card issuer is configured; 503 `SERVICE_UNAVAILABLE`, a provider that cannot be reached (the sandbox makes its
 * KYC provider unreachable for a name ending `004`, which a drawn name can be). Any other 5xx is a failure.
 */
export const isDesignedServerAnswer = (status: number, json: unknown): boolean => {
  const code = typeof json === "object" && json !== null ? (json as { code?: unknown }).code : undefined
  return (status === 501 && code === "NOT_IMPLEMENTED") || (status === 503 && code === "SERVICE_UNAVAILABLE")
}

const parsedOrUndefined = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export const answerProblems = (c: FuzzCase, r: FuzzResponse): Array<string> => {
  const problems: Array<string> = []
  const failed = r.status >= 500 && !isDesignedServerAnswer(r.status, parsedOrUndefined(r.text))
  if (r.status < 200 || failed) problems.push(`status ${r.status}`)
  if (r.status >= 400) {
    let body: unknown
    try {
      body = JSON.parse(r.text)
    } catch {
      problems.push(`a ${r.status} without a JSON error body: ${JSON.stringify(r.text.slice(0, 200))}`)
      return problems
    }
    const error = body as { status?: unknown; code?: unknown; message?: unknown; details?: unknown }
    if (error.status !== r.status) problems.push(`body.status ${String(error.status)} is not ${r.status}`)
    if (typeof error.code !== "string" || error.code === "") problems.push("body.code is not a string")
    if (typeof error.message !== "string") problems.push("body.message is not a string")
    if (error.details !== undefined && (typeof error.details !== "object" || error.details === null)) {
      problems.push("body.details is not an object")
    }
    if (r.status === 405 && r.headers.allow === undefined) problems.push("405 without Allow")
  }
  if (c.method === "HEAD" && r.text !== "") problems.push("HEAD answered with a body")
  return problems
}

/** A case as a command to replay it by hand. */
export const describeCase = (c: FuzzCase, baseUrl: string): string => {
  if (c.raw !== undefined) return `raw HTTP over a socket to ${baseUrl}: ${JSON.stringify(c.raw.slice(0, 2000))}`
  const headers = Object.entries(c.headers)
    .map(([k, v]) => `-H ${JSON.stringify(`${k}: ${k === "authorization" ? "<admin>" : v}`)}`)
    .join(" ")
  const body =
    c.body === undefined
      ? ""
      : ` --data-binary ${JSON.stringify((Buffer.isBuffer(c.body) ? c.body.toString("latin1") : c.body).slice(0, 2000))}`
  return `curl -X ${c.method} ${JSON.stringify(baseUrl + c.target)} ${headers}${body}`
}
