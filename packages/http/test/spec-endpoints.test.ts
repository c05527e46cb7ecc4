/**
 * The spec's endpoint list (`spec-endpoints.ts`) against the route table (`routeTable()`, no server): every endpoint
 * the spec, FEATURES.md or its upstream-only list names is served or listed as not built yet; everything served is
 * one of them or ours. See `spec-endpoints.ts` for how issue 17's slices keep `notBuiltYet`.
 */

import { describe, expect, it } from "vitest"
import { routeTable } from "./fuzzer.ts"
import { ENDPOINTS, notBuiltYet, OURS, templateKey } from "./spec-endpoints.ts"

const routes = new Set(routeTable().map((route) => templateKey(route.method, route.path)))
const served = (entry: { readonly method: string; readonly path: string }) =>
  routes.has(templateKey(entry.method, entry.path))
const label = (entry: { readonly method: string; readonly path: string }) => `${entry.method} ${entry.path}`

const pending = new Set(notBuiltYet)
const inApi = [...ENDPOINTS, ...OURS.filter((entry) => entry.outsideApi === undefined)]

describe("the spec's endpoints against the route table", () => {
  it("serves every listed endpoint that is not in notBuiltYet", () => {
    const missing = inApi.filter((entry) => !pending.has(label(entry)) && !served(entry)).map(label)
    expect(missing, "listed endpoints with no route (build them, or add them to notBuiltYet)").toEqual([])
  })

  it("lists every route: as a spec, FEATURES or upstream-only endpoint, or in OURS", () => {
    const listed = new Set(inApi.map((entry) => templateKey(entry.method, entry.path)))
    const unlisted = routeTable()
      .filter((route) => !listed.has(templateKey(route.method, route.path)))
      .map((route) => `${route.method} ${route.path} (${route.name})`)
    expect(
      unlisted,
      "routes in no list of spec-endpoints.ts (add to OURS with why, or record the spec's path)"
    ).toEqual([])
  })

  it("has no route yet for any notBuiltYet line (whoever builds one deletes its line)", () => {
    const built = notBuiltYet.filter((key) => {
      const [method, path] = key.split(" ") as [string, string]
      return served({ method, path })
    })
    expect(built, "built now: delete these lines from notBuiltYet in packages/http/test/spec-endpoints.ts").toEqual([])
  })

  it("names only listed endpoints in notBuiltYet", () => {
    const labels = new Set(inApi.map(label))
    expect(notBuiltYet.filter((key) => !labels.has(key))).toEqual([])
  })

  it("keeps the pages served beside the Api out of the route table", () => {
    const pages = OURS.filter((entry) => entry.outsideApi === true)
    expect(pages.filter(served).map(label)).toEqual([])
  })

  it("lists each endpoint once", () => {
    const keys = [...ENDPOINTS, ...OURS].map((entry) => templateKey(entry.method, entry.path))
    expect(keys.filter((key, index) => keys.indexOf(key) !== index)).toEqual([])
    expect(notBuiltYet.filter((key, index) => notBuiltYet.indexOf(key) !== index)).toEqual([])
  })
})
