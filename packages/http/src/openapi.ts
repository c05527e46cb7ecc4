/**
 * The OpenAPI 3.1 document of an `HttpApi` (from the same Schemas that drive routing and validation) and the reference
 * page that renders it with a locally installed renderer: nothing is fetched from a CDN.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
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
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/**
 * The reference renderer: Scalar's standalone browser build (one self-contained script: schemas, generated examples,
 * a try-it console), read from `node_modules` on first use. It is an optional peer of this package (its install is
 * large; an embedder that serves no docs need not carry it): `undefined` when it is not installed.
 */
let rendererScript: Buffer | null | undefined
export const referenceRendererScript = (): Buffer | undefined => {
  if (rendererScript === undefined) {
    try {
      const entry = createRequire(import.meta.url).resolve("@scalar/api-reference")
      rendererScript = readFileSync(join(dirname(entry), "browser", "standalone.js"))
    } catch {
      rendererScript = null
    }
  }
  return rendererScript ?? undefined
}

/**
 * Nothing leaves the machine: no web fonts, no telemetry, no AI agent, no hosted client or proxy; try-it requests go
 * to the document's own server (the sandbox), with the credentials the reader types.
 */
const rendererConfiguration = {
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  authentication: { preferredSecurityScheme: "basicAuth" },
  hideClientButton: true,
  showDeveloperTools: "never",
  persistAuth: false
}

/**
 * The reference page's `Content-Security-Policy` (issue 32 item 7): scripts, requests and everything else only from
 * the page's own origin (the renderer, the document, try-it calls to the sandbox), never framed. The renderer injects
 * its style sheets at run time, hence inline styles; no inline script runs (its configuration is a data attribute).
 */
export const REFERENCE_PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join("; ")

/**
 * The API reference page for the OpenAPI document at `specUrl`, rendered by the script at `scriptUrl`
 * (`referenceRendererScript`); without the renderer, a page that links the document and says how to get it.
 */
export const referencePageHtml = (specUrl: string, scriptUrl: string | undefined, title = "API reference"): string =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
</head>
<body>
${
  scriptUrl === undefined
    ? `<main><h1>${escapeHtml(title)}</h1><p>The OpenAPI document: <a href="${escapeHtml(specUrl)}">openapi.json</a>.</p>
<p>Install the optional renderer (<code>npm install @scalar/api-reference</code>) to browse it here.</p></main>`
    : `<script id="api-reference" data-url="${escapeHtml(specUrl)}" data-configuration="${escapeHtml(JSON.stringify(rendererConfiguration))}"></script>
<script src="${escapeHtml(scriptUrl)}"></script>`
}
</body>
</html>
`
