/**
 * Issue 33 item 5: every public operation's span is named `Service.op` after the service class it belongs to and the
 * member it is bound to (`Quotes.execute`), in every context's service.ts, so traces read the same everywhere.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const SRC = join(import.meta.dirname, "../src")

const services = readdirSync(SRC, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((entry) => {
    try {
      return [{ context: entry.name, text: readFileSync(join(SRC, entry.name, "service.ts"), "utf8") }]
    } catch {
      return []
    }
  })

describe("span names of the services' public operations", () => {
  it("finds the services and their spans", () => {
    expect(services.length).toBeGreaterThan(10)
    const spans = services.flatMap((s) => [...s.text.matchAll(/\w+:\s*operation\("/g)])
    expect(spans.length).toBeGreaterThan(150)
  })

  it.each(services.map((s) => [s.context, s.text] as const))(
    "%s: each span is `Class.member` of its file",
    (_, text) => {
      const classes = new Set([...text.matchAll(/export class (\w+) extends Context\.Service/g)].map((m) => m[1]))
      const spans = [...text.matchAll(/(\w+):\s*(?:operation|command)\(\s*"([A-Za-z]+)\.([A-Za-z]+)"/g)]
      for (const [, member, service, op] of spans) {
        expect(classes, `${service}.${op}`).toContain(service)
        expect(op, `${member} is bound to the span ${service}.${op}`).toBe(member)
      }
      // A public operation is an `operation` (a span only under a tracer), never an `Effect.fn` (see shared/tracing.ts).
      expect(text).not.toMatch(/Effect\.fn\(/)
    }
  )
})
