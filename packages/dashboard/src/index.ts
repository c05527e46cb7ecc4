/**
 * The sandbox dashboard's files, served by the sandbox server at `/dashboard/` (a static single page that calls the
 * public API with the reader's credentials). The page is built into dist/ by `npm run build` (at install: `npm install`
 * / `npm ci` run the root `prepare` script; the published package ships it); without it every dashboard path answers a
 * 503 page that says so.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { StaticFile } from "@paycore/http"

/** Where the dashboard is served. */
export const DASHBOARD_PATH = "/dashboard/"

const contentTypes = {
  "index.html": "text/html; charset=utf-8",
  "app.js": "text/javascript; charset=utf-8",
  "app.css": "text/css; charset=utf-8"
} as const

// The browser asks again each time (the bundle changes with every install) and gets a 304 while it is the same.
const cacheControl = "no-cache"

/**
 * The page's `Content-Security-Policy` (issue 32 item 7): it keeps an API secret in sessionStorage and has
 * irreversible buttons, so no script, style or request but its own origin's, no inline script, and no framing.
 */
const DASHBOARD_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")
const headers = { "content-security-policy": DASHBOARD_CONTENT_SECURITY_POLICY }

const missingPage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Dashboard not built</title><link rel="icon" href="data:,"></head>
<body>
<main>
<h1>The dashboard is not built</h1>
<p>Its files are made at install: run <code>npm install</code> (or <code>npm ci</code>) in the repository, then start the server again.</p>
</main>
</body>
</html>
`

/**
 * The dashboard's files from `distDir` (default: this package's dist/, found from src/ and from the compiled dist/
 * alike: both sit one level under the package), or its 503 page when they are missing.
 */
export const dashboardFiles = (distDir = join(import.meta.dirname, "..", "dist")): ReadonlyArray<StaticFile> => {
  const names = Object.keys(contentTypes) as Array<keyof typeof contentTypes>
  if (!names.every((name) => existsSync(join(distDir, name)))) {
    const page = {
      contentType: contentTypes["index.html"],
      body: Buffer.from(missingPage),
      status: 503,
      cacheControl,
      headers
    }
    return [
      { path: "/dashboard", ...page },
      { path: "/dashboard/*", ...page }
    ]
  }
  const file = (name: keyof typeof contentTypes) => ({
    contentType: contentTypes[name],
    body: readFileSync(join(distDir, name)),
    cacheControl,
    headers
  })
  // The router answers `/dashboard` and `/dashboard/` with one route.
  return [
    { path: "/dashboard", ...file("index.html") },
    { path: `${DASHBOARD_PATH}app.js`, ...file("app.js") },
    { path: `${DASHBOARD_PATH}app.css`, ...file("app.css") }
  ]
}
