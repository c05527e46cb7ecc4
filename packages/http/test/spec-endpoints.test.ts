/**
 * The spec's endpoint list (`spec-endpoints.ts`) against the route table (`routeTable()`, no server): every endpoint
 * the spec, FEATURES.md or its upstream-only list names is served; everything served is one of them or ours.
 */

import { describe, expect, it } from "vitest"
import { routeTable } from "./fuzzer.ts"
import { ENDPOINTS, OURS, templateKey } from "./spec-endpoints.ts"

const routes = new Set(routeTable().map((route) => templateKey(route.method, route.path)))
const served = (entry: { readonly method: string; readonly path: string }) =>
  routes.has(templateKey(entry.method, entry.path))
const label = (entry: { readonly method: string; readonly path: string }) => `${entry.method} ${entry.path}`

const inApi = [...ENDPOINTS, ...OURS.filter((entry) => entry.outsideApi === undefined)]

describe("the spec's endpoints against the route table", () => {
  it("serves every endpoint of the spec's tables, the FEATURES rows and the upstream-only list", () => {
    const missing = inApi.filter((entry) => !served(entry)).map(label)
    expect(missing, "listed endpoints with no route").toEqual([])
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

  it("keeps the pages served beside the Api out of the route table", () => {
    const pages = OURS.filter((entry) => entry.outsideApi === true)
    expect(pages.filter(served).map(label)).toEqual([])
  })

  it("lists each endpoint once", () => {
    const keys = [...ENDPOINTS, ...OURS].map((entry) => templateKey(entry.method, entry.path))
    expect(keys.filter((key, index) => keys.indexOf(key) !== index)).toEqual([])
  })
})
