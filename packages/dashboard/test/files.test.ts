/**
 * Issue 18 item 1: the dashboard is served by the sandbox server at /dashboard/ from the files built at install,
 * fetches nothing from outside (its page, style sheet and bundle name no other origin), is revalidated on every
 * load (no-cache + ETag), and a server started without the built files answers a 503 page that says what to do.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createApiServer, makeRequestListener, type StaticFile } from "@paycore/http"
import { Context } from "effect"
import { HttpApi } from "effect/http-api"
import { afterAll, describe, expect, it } from "vitest"
import { dashboardFiles } from "../src/index.ts"

const dist = join(import.meta.dirname, "..", "dist")

/** A listener with no API: only the given files. */
const serve = async (files: ReadonlyArray<StaticFile>): Promise<{ url: string; server: Server }> => {
  const server = createApiServer(
    makeRequestListener({ api: HttpApi.make("none"), handlers: {}, services: Context.empty(), docs: false, files })
  )
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

describe("the built dashboard (issue 18 item 1)", () => {
  const servers: Array<Server> = []
  afterAll(() => Promise.all(servers.map((s) => new Promise((done) => s.close(done)))))

  it("was built at install: dist/ holds the page, the style sheet and the bundle", () => {
    const paths = dashboardFiles().map((file) => file.path)
    expect(paths, "dist/ is missing: run npm install (the root prepare script builds it)").toEqual([
      "/dashboard",
      "/dashboard/app.js",
      "/dashboard/app.css"
    ])
  })

  it("names no other origin: the page loads only its own files, the style sheet no font or import", () => {
    const html = readFileSync(join(dist, "index.html"), "utf8")
    const loaded = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1])
    // No `data:` icon either: a `default-src 'self'` policy refuses it.
    expect(loaded).toEqual(["/dashboard/app.css", "/dashboard/app.js"])
    const css = readFileSync(join(dist, "app.css"), "utf8")
    expect(css).not.toMatch(/url\(|@import|@font-face/)
    const js = readFileSync(join(dist, "app.js"), "utf8")
    // No script, style or font pulled in from elsewhere; the API is called on the page's own origin.
    expect(js).not.toMatch(/import\(\s*["']https?:|<script[^>]+src=["']https?:|fonts\.googleapis|cdn\./)
  })

  it("answers /dashboard/ and its files with no-cache and an ETag, and 304 while unchanged", async () => {
    const { url, server } = await serve(dashboardFiles())
    servers.push(server)
    for (const path of ["/dashboard", "/dashboard/"]) {
      const page = await fetch(`${url}${path}`)
      expect(page.status).toBe(200)
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(await page.text()).toContain('<script type="module" src="/dashboard/app.js">')
    }
    const bundle = await fetch(`${url}/dashboard/app.js`)
    expect(bundle.status).toBe(200)
    expect(bundle.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
    expect(bundle.headers.get("cache-control")).toBe("no-cache")
    const etag = bundle.headers.get("etag")
    expect(etag).toMatch(/^"[\w-]+"$/)
    const again = await fetch(`${url}/dashboard/app.js`, { headers: { "if-none-match": etag! } })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe("")
    expect((await fetch(`${url}/dashboard/app.css`)).headers.get("content-type")).toBe("text/css; charset=utf-8")
    expect((await fetch(`${url}/dashboard/nothing-here.js`)).status).toBe(404)
  })

  it("issue 32 item 7: the page and its files send a Content-Security-Policy of its own origin (no framing, no inline script), nosniff and a Referrer-Policy", async () => {
    const { url, server } = await serve(dashboardFiles())
    servers.push(server)
    for (const path of ["/dashboard/", "/dashboard/app.js", "/dashboard/app.css"]) {
      const answer = await fetch(`${url}${path}`)
      expect(answer.status, path).toBe(200)
      const policy = answer.headers.get("content-security-policy") ?? ""
      expect(policy.split(";").map((d) => d.trim())).toEqual(
        expect.arrayContaining(["default-src 'self'", "frame-ancestors 'none'"])
      )
      // Neither scripts nor styles are widened: both fall back to default-src 'self'.
      expect(policy).not.toMatch(/script-src|style-src|unsafe/)
      expect(answer.headers.get("x-content-type-options"), path).toBe("nosniff")
      expect(answer.headers.get("referrer-policy"), path).toBe("no-referrer")
    }
    // The page itself has no inline script or style to allow.
    const html = readFileSync(join(dist, "index.html"), "utf8")
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=/)
  })

  it("answers a 503 page saying to run npm install where dist/ is missing", async () => {
    const empty = mkdtempSync(join(tmpdir(), "paycore-dashboard-"))
    try {
      const { url, server } = await serve(dashboardFiles(empty))
      servers.push(server)
      for (const path of ["/dashboard", "/dashboard/", "/dashboard/app.js"]) {
        const answer = await fetch(`${url}${path}`)
        expect(answer.status, path).toBe(503)
        expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8")
        expect(await answer.text()).toContain("run <code>npm install</code>")
      }
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })
})
