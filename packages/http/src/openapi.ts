/**
 * The OpenAPI 3.1 document of an `HttpApi` (from the same Schemas that drive routing and validation) and a
 * self-contained reference page for it: no CDN, the page renders the document with a small inline script.
 */
import { HttpApi, OpenApi } from "effect/http-api"

export interface OpenApiDocumentOptions {
  /** Base URL of every path (the listener's prefix, e.g. `/2025-10-13`). */
  readonly serverUrl?: string | undefined
  /** Operations this returns `true` for are documented as requiring HTTP Basic credentials. */
  readonly requiresAuth?: ((group: string, endpoint: string) => boolean) | undefined
}

const BASIC_SCHEME = "basicAuth"

/** `/customers/:id` → `/customers/{id}`, as `OpenApi.fromApi` names paths. */
const openApiPath = (path: string): string => path.replace(/:(\w+)/g, "{$1}")

export const openApiDocument = (
  api: HttpApi.HttpApi<any, any>,
  options: OpenApiDocumentOptions = {}
): OpenApi.OpenAPISpec => {
  const spec = OpenApi.fromApi(api)
  if (options.serverUrl !== undefined && spec.servers === undefined) spec.servers = [{ url: options.serverUrl }]
  const requiresAuth = options.requiresAuth
  if (requiresAuth !== undefined) {
    spec.components.securitySchemes[BASIC_SCHEME] = { type: "http", scheme: "basic" }
    HttpApi.reflect(api, {
      onGroup: () => {},
      onEndpoint: ({ group, endpoint }) => {
        const operation = spec.paths[openApiPath(endpoint.path)]?.[endpoint.method.toLowerCase() as "get"]
        if (operation !== undefined && requiresAuth(group.identifier, endpoint.identifier)) {
          operation.security = [{ [BASIC_SCHEME]: [] }]
        }
      }
    })
  }
  return spec
}

const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/**
 * An HTML API reference that fetches the OpenAPI document at `specUrl` and renders its operations (parameters,
 * request body, responses, security) and component schemas. Works offline: everything is inline.
 */
export const referencePageHtml = (specUrl: string, title = "API reference"): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1c2330;background:#f6f7f9}
main{max-width:960px;margin:0 auto;padding:24px}
h1{margin:0 0 4px}h2{margin:32px 0 8px;border-bottom:1px solid #d5d9e0}
.op{background:#fff;border:1px solid #d5d9e0;border-radius:6px;margin:10px 0;padding:10px 14px}
.op summary{cursor:pointer;font-weight:600}
.m{display:inline-block;min-width:60px;font:600 13px monospace;color:#fff;border-radius:3px;padding:1px 6px;text-align:center}
.get{background:#2f7d32}.post{background:#1565c0}.put,.patch{background:#b26a00}.delete{background:#c62828}
code,pre{font:13px/1.4 ui-monospace,monospace}pre{background:#f0f2f5;padding:8px;overflow:auto;border-radius:4px}
table{border-collapse:collapse}td,th{border:1px solid #d5d9e0;padding:3px 8px;text-align:left}
.lock{color:#b26a00;font-size:13px}
</style>
</head>
<body>
<main id="app"><p>Loading <code>${escapeHtml(specUrl)}</code>…</p></main>
<script>
(async () => {
  const app = document.getElementById("app")
  const el = (tag, attrs, ...children) => {
    const node = document.createElement(tag)
    Object.assign(node, attrs)
    for (const child of children) if (child != null) node.append(child)
    return node
  }
  const json = (value) => el("pre", {}, JSON.stringify(value, null, 2))
  let spec
  try {
    const response = await fetch(${JSON.stringify(specUrl).replace(/</g, "\\u003c")})
    spec = await response.json()
  } catch (error) {
    app.replaceChildren(el("p", {}, "Could not load the OpenAPI document: " + error))
    return
  }
  const base = (spec.servers && spec.servers[0] && spec.servers[0].url) || ""
  app.replaceChildren(el("header", {},
    el("h1", {}, spec.info.title),
    el("p", {}, "Version " + spec.info.version + " · OpenAPI " + spec.openapi + " · ", el("a", { href: ${JSON.stringify(specUrl).replace(/</g, "\\u003c")} }, "openapi.json")),
    spec.info.description ? el("p", {}, spec.info.description) : null))
  const byTag = new Map()
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = (op.tags && op.tags[0]) || "default"
      if (!byTag.has(tag)) byTag.set(tag, [])
      byTag.get(tag).push([method, path, op])
    }
  }
  for (const [tag, ops] of byTag) {
    app.append(el("h2", {}, tag))
    for (const [method, path, op] of ops) {
      const details = el("details", { className: "op" },
        el("summary", {}, el("span", { className: "m " + method }, method.toUpperCase()), " ", el("code", {}, base + path), " ",
          op.summary || op.operationId || "", op.security && op.security.length ? el("span", { className: "lock" }, " 🔒 auth") : null))
      if (op.description) details.append(el("p", {}, op.description))
      if (op.parameters && op.parameters.length) {
        const rows = op.parameters.map((p) => el("tr", {}, el("td", {}, el("code", {}, p.name)), el("td", {}, p.in),
          el("td", {}, p.required ? "required" : "optional"), el("td", {}, el("code", {}, JSON.stringify(p.schema)))))
        details.append(el("h4", {}, "Parameters"), el("table", {}, el("tr", {}, el("th", {}, "Name"), el("th", {}, "In"), el("th", {}, ""), el("th", {}, "Schema")), ...rows))
      }
      if (op.requestBody) {
        for (const [type, media] of Object.entries(op.requestBody.content || {})) details.append(el("h4", {}, "Request body (" + type + ")"), json(media.schema))
      }
      for (const [status, response] of Object.entries(op.responses || {})) {
        details.append(el("h4", {}, "Response " + status + " — " + (response.description || "")))
        for (const media of Object.values(response.content || {})) details.append(json(media.schema))
      }
      app.append(details)
    }
  }
  const schemas = Object.entries((spec.components && spec.components.schemas) || {})
  if (schemas.length) {
    app.append(el("h2", {}, "Schemas"))
    for (const [name, schema] of schemas) app.append(el("details", { className: "op", id: "schema-" + name }, el("summary", {}, name), json(schema)))
  }
})()
</script>
</body>
</html>
`
