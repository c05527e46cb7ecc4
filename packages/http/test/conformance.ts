/**
 * Upstream conformance: every response the HTTP tests see through the harness (`call`) is checked against the
 * upstream OpenAPI document (`packages/http/test/upstream/openapi.yaml`, or `PAYCORE_UPSTREAM_OPENAPI`) for its operation
 * (method and path template) and status. A response that differs fails the calling test, unless the difference is
 * listed, with the spec section that makes the spec's name win, in `upstream-differences.ts`.
 *
 * Libraries: `yaml` (the reference YAML parser: YAML 1.2, full anchors and block scalars; the document is 26,000
 * lines of OpenAPI 3.1) and `ajv` with `ajv-formats` (the most used JSON Schema validator; draft 2020-12, which is
 * OpenAPI 3.1's dialect, with `date-time`, `email`, `uri`, `int64` formats). Both are well kept and have no runtime
 * dependencies of note. The YAML is parsed once per run (the global setup writes it as JSON); each test file's worker
 * reads that JSON and compiles a validator per (operation, status) the first time it is needed.
 */
import { randomUUID } from "node:crypto"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"
import { HttpApi } from "effect/http-api"
import { inject, type ProvidedContext } from "vitest"
import { parse } from "yaml"
import { Api } from "../src/index.ts"
import { type Difference, differences, type OperationAlias, operationAliases } from "./upstream-differences.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** Set by the global setup: the prepared upstream document (JSON) and where each test file writes its figures. */
    readonly paycoreConformance: { readonly upstreamJson: string | null; readonly statsDir: string } | undefined
  }
}

/** Where the upstream document is: a copy in the repository (`test/upstream/openapi.yaml`), or the environment's. */
export const UPSTREAM_OPENAPI =
  process.env.PAYCORE_UPSTREAM_OPENAPI ?? fileURLToPath(new URL("./upstream/openapi.yaml", import.meta.url))

const METHODS = ["get", "put", "post", "patch", "delete", "head", "options"] as const
const DEFS = "https://upstream.invalid/openapi.json"

// -----------------------------------------------------------------------------
// The upstream document, prepared: operations and JSON Schemas ajv can compile
// -----------------------------------------------------------------------------

export interface UpstreamResponse {
  /** The `application/json` schema; `null` when the upstream documents no body. */
  readonly schema: unknown
}

export interface UpstreamOperation {
  /** `POST /customers/{customerId}/kyc-link` */
  readonly key: string
  readonly method: string
  readonly template: string
  readonly segments: ReadonlyArray<string>
  /** By status (`"200"`, `"4XX"`, `"default"`). */
  readonly responses: Readonly<Record<string, UpstreamResponse>>
}

export interface PreparedUpstream {
  readonly operations: ReadonlyArray<UpstreamOperation>
  /** `components.schemas`, rewritten (see `toJsonSchema`). */
  readonly defs: Readonly<Record<string, unknown>>
}

/**
 * An OpenAPI 3.x schema as JSON Schema 2020-12: `$ref`s to components point into `$defs`; `nullable: true` (3.0)
 * admits `null`; a `oneOf` with a `discriminator` becomes a choice by the discriminator's value (the property must
 * hold a mapped value, then that one variant applies), so a body is judged against its own variant and an error
 * points into it, instead of "matches none of the variants".
 */
const toJsonSchema = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(toJsonSchema)
  if (node === null || typeof node !== "object") return node
  const source = node as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(source)) {
    if (key === "$ref" && typeof value === "string") {
      out.$ref = value.startsWith("#/components/schemas/") ? `${DEFS}#/$defs/${value.slice(21)}` : value
    } else if ((key === "properties" || key === "patternProperties") && value !== null && typeof value === "object") {
      out[key] = schemasByName(value as Record<string, unknown>) // field names, not keywords
    } else if (key === "example" || key === "examples" || key === "discriminator" || key === "nullable") {
      // annotations only (a discriminator is rewritten below)
    } else out[key] = toJsonSchema(value)
  }
  if (source.nullable === true) {
    if (typeof out.type === "string") out.type = [out.type, "null"]
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null]
  }
  const discriminator = source.discriminator as { propertyName: string; mapping?: Record<string, string> } | undefined
  if (discriminator !== undefined && Array.isArray(source.oneOf)) {
    const name = discriminator.propertyName
    // Without a mapping, each variant is named by the last segment of its `$ref` (the OpenAPI rule).
    const mapping =
      discriminator.mapping ??
      Object.fromEntries(
        (source.oneOf as Array<{ $ref?: string }>).flatMap((v) =>
          v.$ref === undefined ? [] : [[v.$ref.split("/").pop()!, v.$ref]]
        )
      )
    delete out.oneOf
    out.type = "object"
    out.required = [...((out.required as Array<string> | undefined) ?? []), name]
    out.properties = { ...(out.properties as object | undefined), [name]: { enum: Object.keys(mapping) } }
    out.allOf = [
      ...((out.allOf as Array<unknown> | undefined) ?? []),
      ...Object.entries(mapping).map(([value, ref]) => ({
        if: { properties: { [name]: { const: value } }, required: [name] },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, never awaited
        then: toJsonSchema({ $ref: ref })
      }))
    ]
  }
  return out
}

const schemasByName = (schemas: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, toJsonSchema(schema)]))

/** Reads the upstream YAML and prepares it (what the global setup does once per run). */
export const prepareUpstream = (yamlText: string): PreparedUpstream => {
  const doc = parse(yamlText) as {
    paths: Record<string, Record<string, { responses?: Record<string, any> }>>
    components: { schemas: Record<string, unknown> }
  }
  const operations: Array<UpstreamOperation> = []
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = item[method]
      if (operation === undefined) continue
      const responses: Record<string, UpstreamResponse> = {}
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const schema = response?.content?.["application/json"]?.schema
        responses[status] = { schema: schema === undefined ? null : toJsonSchema(schema) }
      }
      operations.push({
        key: `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        template,
        segments: template.split("/").slice(1),
        responses
      })
    }
  }
  return { operations, defs: schemasByName(doc.components.schemas) }
}

// -----------------------------------------------------------------------------
// Matching a request to an upstream operation
// -----------------------------------------------------------------------------

const isParam = (segment: string) => segment.startsWith("{")

/** `/customers/Customer:…?x=1` → its segments (the query dropped). */
const segmentsOf = (path: string): Array<string> => path.split(/[?#]/)[0]!.split("/").slice(1)

/**
 * The upstream operation a request is for: templates matching the path segment by segment, a literal segment
 * preferred to a parameter at the first place they differ (as a router does), then the method.
 */
export const matchOperation = <O extends Pick<UpstreamOperation, "method" | "segments">>(
  operations: ReadonlyArray<O>,
  method: string,
  path: string
): O | undefined => {
  const segments = segmentsOf(path)
  const candidates = operations.filter(
    (o) =>
      o.method === method.toUpperCase() &&
      o.segments.length === segments.length &&
      o.segments.every((s, i) => (isParam(s) ? segments[i] !== "" : s === segments[i]))
  )
  candidates.sort((a, b) => {
    for (let i = 0; i < a.segments.length; i++) {
      const pa = isParam(a.segments[i]!)
      const pb = isParam(b.segments[i]!)
      if (pa !== pb) return pa ? 1 : -1
    }
    return 0
  })
  return candidates[0]
}

// -----------------------------------------------------------------------------
// Checking one response
// -----------------------------------------------------------------------------

export interface Issue {
  /** `status`: the upstream lists no such status; `body`: a body where none is documented, or the reverse. */
  readonly kind: "schema" | "status" | "body"
  /** JSON pointer into the body of what differs (a missing or extra property named at its own place). */
  readonly pointer: string
  /** The rule broken: keyword and its value in the upstream schema, and where that is. */
  readonly rule: string
  readonly message: string
  /** The value found there (for a `status` issue: the error body's `code`). */
  readonly value?: unknown
}

export type Report =
  | { readonly kind: "extension" }
  | {
      readonly kind: "checked"
      /** The upstream operation, `POST /customers/{customerId}/kyc-link`. */
      readonly operation: string
      readonly status: number
      /** Every difference found (after the listed renames were applied). */
      readonly issues: ReadonlyArray<Issue>
      /** Those no listed difference covers: the response fails. */
      readonly unlisted: ReadonlyArray<Issue>
      /** The ids of the listed differences and operation aliases this response met. */
      readonly used: ReadonlyArray<string>
    }

const short = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 160 ? `${text.slice(0, 157)}...` : text
}

/** Where each schema object of the upstream document is, as a JSON pointer (`#/components/schemas/Customer`). */
type SchemaPlaces = WeakMap<object, string>

const placeSchemas = (places: SchemaPlaces, node: unknown, pointer: string) => {
  if (node === null || typeof node !== "object") return
  if (!Array.isArray(node)) places.set(node, pointer)
  for (const [key, child] of Object.entries(node)) {
    placeSchemas(places, child, `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`)
  }
}

const issueOf = (error: ErrorObject, places: SchemaPlaces): Issue => {
  const params = error.params as Record<string, unknown>
  const named =
    (params.missingProperty as string | undefined) ??
    (params.additionalProperty as string | undefined) ??
    (params.unevaluatedProperty as string | undefined)
  // The rule's place in the upstream document when known (ajv's schemaPath is relative to the referenced schema).
  const place = error.parentSchema === undefined ? undefined : places.get(error.parentSchema)
  return {
    kind: "schema",
    pointer: named === undefined ? error.instancePath : `${error.instancePath}/${named}`,
    rule: `${error.keyword} ${short(error.schema)} (${place === undefined ? error.schemaPath : `${place}/${error.keyword}`})`,
    message: error.message ?? error.keyword,
    ...(error.keyword === "required" ? {} : { value: error.data })
  }
}

/** A pointer with array indices as `*`: `/data/0/id` → `/data/*` + `/id`. */
export const generalPointer = (pointer: string) => pointer.replace(/\/\d+(?=\/|$)/g, "/*")

const concerns = (difference: Difference, operation: string, status: number) =>
  (difference.operations === "*" || difference.operations.includes(operation)) && difference.statuses.includes(status)

/** Whether a listed difference covers an issue of a response to `operation`. */
export const covers = (difference: Difference, operation: string, status: number, issue: Issue): boolean => {
  if (!concerns(difference, operation, status)) return false
  if (difference.values !== undefined && !difference.values.includes(issue.value as string)) return false
  if (issue.kind === "status") return difference.at.includes("status")
  if (issue.kind !== "schema") return false
  const pointer = generalPointer(issue.pointer)
  return difference.at.some((at) => at !== "status" && (pointer === at || pointer.startsWith(`${at}/`)))
}

/**
 * The body as the upstream would name it: where a listed difference says so, our values and property names are
 * replaced by the upstream's, so the rest (the fields of a renamed variant, the types of renamed fields) is still
 * checked. Adds the ids of the differences that renamed something to `used`.
 */
const withUpstreamNames = (json: unknown, renaming: ReadonlyArray<Difference>, used: Set<string>): unknown => {
  const walk = (value: unknown, pointer: string): unknown => {
    const general = generalPointer(pointer)
    const here = renaming.filter((d) => d.at.some((at) => at === general))
    if (typeof value === "string") {
      for (const d of here) {
        const renamed = d.renames?.[value]
        if (renamed !== undefined) {
          used.add(d.id)
          return renamed
        }
      }
      return value
    }
    if (Array.isArray(value)) return value.map((item, i) => walk(item, `${pointer}/${i}`))
    if (value === null || typeof value !== "object") return value
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      const d = here.find((d) => d.renamedKeys?.[key] !== undefined)
      if (d !== undefined) used.add(d.id)
      out[d?.renamedKeys?.[key] ?? key] = walk(item, `${pointer}/${key}`)
    }
    return out
  }
  return renaming.length === 0 ? json : walk(json, "")
}

export interface Checker {
  readonly operations: ReadonlyArray<UpstreamOperation>
  readonly check: (method: string, path: string, status: number, json: unknown) => Report
  /**
   * How `json` differs from the upstream's component schema `name` (`OutgoingPaymentWebhook`): what a webhook's body
   * is held to, having no operation of its own. Only the listed differences naming the operation `WEBHOOK <name>`
   * (status 200) apply.
   */
  readonly checkSchema: (name: string, json: unknown) => ReadonlyArray<Issue>
}

export const makeChecker = (
  prepared: PreparedUpstream,
  listed: ReadonlyArray<Difference> = differences,
  aliases: ReadonlyArray<OperationAlias> = operationAliases
): Checker => {
  // strict off: the upstream's schemas carry OpenAPI keywords (`example`, `discriminator`...) ajv does not know.
  // Referenced schemas compiled once each and unoptimised code: a test file compiles a few hundred ms less, and a
  // response still validates in well under a millisecond.
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    verbose: true,
    inlineRefs: false,
    code: { optimize: false }
  })
  addFormatsModule.default(ajv)
  ajv.addSchema({ $id: DEFS, $defs: prepared.defs })
  const places: SchemaPlaces = new WeakMap()
  placeSchemas(places, prepared.defs, "#/components/schemas")
  for (const operation of prepared.operations) {
    const [method, template] = [
      operation.method.toLowerCase(),
      operation.template.replace(/~/g, "~0").replace(/\//g, "~1")
    ]
    for (const [status, response] of Object.entries(operation.responses)) {
      placeSchemas(
        places,
        response.schema,
        `#/paths/${template}/${method}/responses/${status}/content/application~1json/schema`
      )
    }
  }
  const compiled = new Map<string, ValidateFunction>()
  const validatorOf = (key: string, schema: unknown) => {
    let validate = compiled.get(key)
    if (validate === undefined) {
      validate = ajv.compile(schema as object)
      compiled.set(key, validate)
    }
    return validate
  }
  const errorSchemaOf = (status: number) =>
    prepared.defs[`Error${status}`] === undefined ? undefined : { $ref: `${DEFS}#/$defs/Error${status}` }
  const aliased = aliases.map((alias) => {
    const [method, template] = alias.ours.split(" ") as [string, string]
    const ours: UpstreamOperation = {
      key: alias.ours,
      method,
      template,
      segments: template.split("/").slice(1),
      responses: {}
    }
    return { alias, ours, upstream: prepared.operations.find((o) => o.key === alias.upstream) }
  })

  const check: Checker["check"] = (method, path, status, json) => {
    const used = new Set<string>()
    let operation = matchOperation(prepared.operations, method, path)
    if (operation === undefined) {
      // An operation of ours the spec names at another path than the upstream: checked as the upstream's.
      const alias = aliased.find((a) => a.upstream !== undefined && matchOperation([a.ours], method, path))
      if (alias === undefined) return { kind: "extension" }
      operation = alias.upstream!
      used.add(alias.alias.id)
    }
    const key = operation.key
    const documented =
      operation.responses[String(status)] ??
      operation.responses[`${String(status)[0]}XX`] ??
      operation.responses.default
    const issues: Array<Issue> = []
    let schema: unknown
    let schemaKey: string
    if (documented === undefined) {
      const code = (json as { code?: unknown } | undefined)?.code
      issues.push({
        kind: "status",
        pointer: "",
        rule: `responses (${Object.keys(operation.responses).join(", ")})`,
        message: `the upstream does not list status ${status} for this operation`,
        ...(typeof code === "string" ? { value: code } : {})
      })
      // The body is still an error body: checked against the upstream's `Error<status>` where it has one.
      schema = errorSchemaOf(status)
      schemaKey = `Error${status}`
    } else {
      schema = documented.schema
      schemaKey = `${key} ${status}`
      if (schema === null && json !== undefined) {
        issues.push({ kind: "body", pointer: "", rule: "no content", message: "the upstream documents no body" })
      }
    }
    if (schema !== null && schema !== undefined) {
      if (json === undefined) {
        issues.push({ kind: "body", pointer: "", rule: "content", message: "the upstream documents a JSON body" })
      } else {
        const renaming = listed.filter(
          (d) => (d.renames !== undefined || d.renamedKeys !== undefined) && concerns(d, key, status)
        )
        const validate = validatorOf(schemaKey, schema)
        if (!validate(withUpstreamNames(json, renaming, used))) {
          // An `if` error only says its `then` failed; the `then`'s own errors say where and why.
          for (const error of validate.errors ?? []) if (error.keyword !== "if") issues.push(issueOf(error, places))
        }
      }
    }
    const unlisted: Array<Issue> = []
    for (const issue of issues) {
      const difference = listed.find((d) => covers(d, key, status, issue))
      if (difference === undefined) unlisted.push(issue)
      else used.add(difference.id)
    }
    return { kind: "checked", operation: key, status, issues, unlisted, used: [...used] }
  }
  const checkSchema: Checker["checkSchema"] = (name, json) => {
    // A webhook has no operation: its differences are listed under `WEBHOOK <schema>`, status 200.
    const key = `WEBHOOK ${name}`
    const renaming = listed.filter(
      (d) => (d.renames !== undefined || d.renamedKeys !== undefined) && concerns(d, key, 200)
    )
    const validate = validatorOf(`#/components/schemas/${name}`, { $ref: `${DEFS}#/$defs/${name}` })
    if (validate(withUpstreamNames(json, renaming, new Set()))) return []
    return (validate.errors ?? [])
      .filter((e) => e.keyword !== "if")
      .map((e) => issueOf(e, places))
      .filter((issue) => !listed.some((d) => covers(d, key, 200, issue)))
  }
  return { operations: prepared.operations, check, checkSchema }
}

/** The failure message of a response with unlisted differences: operation, status, pointers, rules, values. */
export const describeFailure = (method: string, path: string, report: Extract<Report, { kind: "checked" }>): string =>
  [
    `upstream conformance: ${method.toUpperCase()} ${path} is ${report.operation} in the upstream; it answered ${report.status}, which differs:`,
    ...report.unlisted.map(
      (i) =>
        `  ${i.kind === "status" ? "(status)" : i.pointer === "" ? "(body)" : i.pointer}: ${i.message}; rule ${i.rule}` +
        (i.value === undefined ? "" : `; ${i.kind === "status" ? "code" : "value"} ${short(i.value)}`)
    ),
    "Fix the response, or (only where the spec's name wins) list it in packages/http/test/upstream-differences.ts."
  ].join("\n")

// -----------------------------------------------------------------------------
// The harness's view: one checker per test file, figures per file
// -----------------------------------------------------------------------------

export interface Figures {
  /** Responses checked against an upstream operation. */
  validated: number
  /** `METHOD /template status` → responses. */
  readonly byOperation: Record<string, number>
  /** Responses of operations the upstream does not have (our extensions). */
  extensions: number
  /** `METHOD /our/template` → responses. */
  readonly extensionOperations: Record<string, number>
  /** Difference (or alias) id → responses it covered. */
  readonly differencesUsed: Record<string, number>
}

/** This test file's figures (a test file has its own modules: vitest isolates test files). */
export const figures: Figures = {
  validated: 0,
  byOperation: {},
  extensions: 0,
  extensionOperations: {},
  differencesUsed: {}
}

type ProvidedConformance = NonNullable<ProvidedContext["paycoreConformance"]>
const provided = (): ProvidedConformance | undefined => {
  try {
    return inject("paycoreConformance")
  } catch {
    return undefined
  }
}

let checker: Checker | null | undefined
/** The checker (built once per test file), or `null` when the upstream document is absent. */
export const upstreamChecker = (): Checker | null => {
  if (checker !== undefined) return checker
  const prepared = provided()?.upstreamJson
  if (prepared != null && existsSync(prepared)) {
    checker = makeChecker(JSON.parse(readFileSync(prepared, "utf8")) as PreparedUpstream)
  } else if (existsSync(UPSTREAM_OPENAPI)) {
    checker = makeChecker(prepareUpstream(readFileSync(UPSTREAM_OPENAPI, "utf8")))
  } else checker = null
  return checker
}

/** Our route templates, to name an extension by its route rather than by its ids. */
let ourRoutes: ReadonlyArray<UpstreamOperation> | undefined
const extensionName = (method: string, path: string): string => {
  ourRoutes ??= (() => {
    const routes: Array<UpstreamOperation> = []
    HttpApi.reflect(Api, {
      onGroup: () => {},
      onEndpoint: ({ endpoint }) => {
        const template = endpoint.path.replace(/:(\w+)/g, "{$1}")
        const key = `${endpoint.method} ${template}`
        routes.push({ key, method: endpoint.method, template, segments: template.split("/").slice(1), responses: {} })
      }
    })
    return routes
  })()
  return matchOperation(ourRoutes, method, path)?.key ?? `${method.toUpperCase()} (no route)`
}

/**
 * Checks one response the harness received and counts it; returns a failure message naming the operation, status,
 * pointers and rules of every difference the list does not cover, or `undefined`.
 */
export const recordResponse = (method: string, path: string, status: number, json: unknown): string | undefined => {
  const upstream = upstreamChecker()
  if (upstream === null) return undefined
  const report = upstream.check(method, path, status, json)
  if (report.kind === "extension") {
    figures.extensions++
    const name = extensionName(method, path)
    figures.extensionOperations[name] = (figures.extensionOperations[name] ?? 0) + 1
    return undefined
  }
  figures.validated++
  const key = `${report.operation} ${status}`
  figures.byOperation[key] = (figures.byOperation[key] ?? 0) + 1
  for (const id of report.used) figures.differencesUsed[id] = (figures.differencesUsed[id] ?? 0) + 1
  return report.unlisted.length === 0 ? undefined : describeFailure(method, path, report)
}

const figuresFile = `${process.pid}-${randomUUID()}.json`
/** Writes this file's figures where the global setup sums them (when a test server closes). */
export const flushFigures = () => {
  const dir = provided()?.statsDir
  if (dir === undefined || (figures.validated === 0 && figures.extensions === 0)) return
  writeFileSync(join(dir, figuresFile), JSON.stringify(figures))
}

// -----------------------------------------------------------------------------
// Request variant names: every upstream value we could be sent where we read that field
// -----------------------------------------------------------------------------

/** A request field with a fixed set of values: `/accountInfo/accountType` in a body, `?status` in the query. */
export interface RequestVariants {
  /** `METHOD /template` */
  readonly operation: string
  readonly at: string
  readonly values: ReadonlyArray<unknown>
}

type Json = Record<string, any>

/** The enum, const and discriminator values of every request body field and query parameter of an OpenAPI document. */
export const requestVariants = (doc: Json): Map<string, Map<string, Set<unknown>>> => {
  const deref = (node: any): any => {
    for (let hops = 0; node?.$ref !== undefined && hops < 32; hops++) {
      node = (node.$ref as string)
        .slice(2)
        .split("/")
        .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
        .reduce((o: any, k) => o?.[k], doc)
    }
    return node
  }
  const add = (out: Map<string, Set<unknown>>, at: string, values: Iterable<unknown>) => {
    const set = out.get(at) ?? new Set()
    for (const v of values) set.add(v)
    out.set(at, set)
  }
  const walk = (node: any, at: string, out: Map<string, Set<unknown>>, depth: number) => {
    node = deref(node)
    if (node === null || typeof node !== "object" || depth > 16) return
    if (Array.isArray(node.enum)) add(out, at, node.enum)
    if (node.const !== undefined) add(out, at, [node.const])
    if (node.discriminator?.mapping !== undefined) {
      add(out, `${at}/${node.discriminator.propertyName}`, Object.keys(node.discriminator.mapping))
    }
    for (const k of ["allOf", "oneOf", "anyOf"]) for (const member of node[k] ?? []) walk(member, at, out, depth + 1)
    for (const [name, property] of Object.entries(node.properties ?? {}))
      walk(property, `${at}/${name}`, out, depth + 1)
    if (node.items !== undefined) walk(node.items, `${at}/*`, out, depth + 1)
  }
  const operations = new Map<string, Map<string, Set<unknown>>>()
  for (const [template, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method]
      if (operation === undefined) continue
      const out = new Map<string, Set<unknown>>()
      const content = deref(operation.requestBody)?.content ?? {}
      const body = content["application/json"]?.schema ?? content["multipart/form-data"]?.schema
      if (body !== undefined) walk(body, "", out, 0)
      for (const parameter of operation.parameters ?? []) {
        const p = deref(parameter)
        if (p?.in === "query") walk(p.schema, `?${p.name}`, out, 0)
      }
      operations.set(`${method.toUpperCase()} ${template}`, out)
    }
  }
  return operations
}

/**
 * Upstream request values we refuse at a field we read (fields we do not read at all are left out): each is an
 * other name for a variant we have (a missing alias) or a variant we do not have.
 */
export const refusedUpstreamValues = (upstream: Json, ours: Json): Array<RequestVariants> => {
  const theirs = requestVariants(upstream)
  const mine = requestVariants(ours)
  const refused: Array<RequestVariants> = []
  for (const [operation, fields] of theirs) {
    const ourFields = mine.get(operation)
    if (ourFields === undefined) continue
    for (const [at, values] of fields) {
      const accepted = ourFields.get(at)
      if (accepted === undefined) continue
      const missing = [...values].filter((v) => !accepted.has(v))
      if (missing.length > 0) refused.push({ operation, at, values: missing })
    }
  }
  return refused
}

// -----------------------------------------------------------------------------
// Request fields: every property the upstream defines in a request body, as a body that carries it
// -----------------------------------------------------------------------------

/** One property of an upstream request body: its dot path, and a body holding it (`null`) in its variant. */
export interface RequestFieldProbe {
  /** `address.line2`, `accountInfo.beneficiary.fullName`, `legs.0.amount` */
  readonly field: string
  /** The property set to `null`, inside objects (arrays of one) that carry the discriminators of its variant. */
  readonly body: unknown
}

/** An upstream operation with a JSON or form request body, and a probe per property its body defines. */
export interface UpstreamRequestBody {
  /** `POST /customers` */
  readonly key: string
  readonly method: string
  readonly segments: ReadonlyArray<string>
  readonly probes: ReadonlyArray<RequestFieldProbe>
}

type Segment = string | number

const withValueAt = (body: unknown, path: ReadonlyArray<Segment>, value: unknown): unknown => {
  if (path.length === 0) return value
  const [head, ...rest] = path as [Segment, ...Array<Segment>]
  const container: Json = body !== null && typeof body === "object" ? body : typeof head === "number" ? [] : {}
  const copy: Json = Array.isArray(container) ? [...container] : { ...container }
  copy[head] = withValueAt(copy[head], rest, value)
  return copy
}

/**
 * Every property of every upstream request body (JSON, or a form's fields), nested ones and array items' included,
 * each in each variant of a discriminated `oneOf` it belongs to (the body then carries the discriminator's value).
 * A property a client may send: sent alone, our decoder must not refuse it as unknown.
 */
export const upstreamRequestFields = (doc: Json): ReadonlyArray<UpstreamRequestBody> => {
  const deref = (node: any): any => {
    for (let hops = 0; node?.$ref !== undefined && hops < 32; hops++) {
      node = (node.$ref as string)
        .slice(2)
        .split("/")
        .reduce((o: any, k) => o?.[k], doc)
    }
    return node
  }
  type Tags = ReadonlyArray<readonly [ReadonlyArray<Segment>, string, string]>
  const walk = (
    node: any,
    path: ReadonlyArray<Segment>,
    tags: Tags,
    out: Map<string, RequestFieldProbe>,
    depth: number
  ) => {
    node = deref(node)
    if (node === null || typeof node !== "object" || depth > 16) return
    for (const member of node.allOf ?? []) walk(member, path, tags, out, depth + 1)
    const mapping = node.discriminator?.mapping as Record<string, string> | undefined
    if (mapping !== undefined) {
      for (const [value, ref] of Object.entries(mapping)) {
        walk({ $ref: ref }, path, [...tags, [path, node.discriminator.propertyName, value]], out, depth + 1)
      }
    } else {
      for (const member of [...(node.oneOf ?? []), ...(node.anyOf ?? [])]) walk(member, path, tags, out, depth + 1)
    }
    for (const [name, property] of Object.entries<unknown>(node.properties ?? {})) {
      const at = [...path, name]
      let body: unknown = {}
      for (const [where, key, value] of tags) body = withValueAt(body, [...where, key], value)
      body = withValueAt(body, at, null)
      const probe = { field: at.join("."), body }
      out.set(JSON.stringify(probe), probe)
      walk(property, at, tags, out, depth + 1)
    }
    if (node.items !== undefined) walk(node.items, [...path, 0], tags, out, depth + 1)
  }
  const bodies: Array<UpstreamRequestBody> = []
  for (const [template, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const content = deref(item[method]?.requestBody)?.content ?? {}
      const schema = content["application/json"]?.schema ?? content["multipart/form-data"]?.schema
      if (schema === undefined) continue
      const probes = new Map<string, RequestFieldProbe>()
      walk(schema, [], [], probes, 0)
      bodies.push({
        key: `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        segments: template.split("/").slice(1),
        probes: [...probes.values()]
      })
    }
  }
  return bodies
}
