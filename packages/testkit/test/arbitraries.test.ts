/**
 * The request-body arbitraries against the Schemas they come from (C-02: JSON bodies; C-11: every invalid field
 * reported by its dot path): for every JSON request body of the API, 100 valid bodies decode with the endpoint's
 * payload Schema, and 100 near-valid ones are refused with an error at the path they name. The same over HTTP is
 * packages/http/test/arbitraries.http.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Effect, Schema } from "effect"
import * as fc from "fast-check"
import { bodyErrors, nearValidBody, requestBodies, requestBody, validBody } from "../src/arbitraries.ts"

const RUNS = 100
const operations = requestBodies().map((body) => body.operation)

describe("request-body arbitraries (@paycore/testkit/arbitraries)", () => {
  it("find every JSON request body of the Api, multipart forms aside (C-02)", () => {
    expect(operations).toContain("customers.create")
    expect(operations).toContain("payments.createQuote")
    expect(operations).toContain("stablecoins.createMint")
    expect(operations).not.toContain("customers.bulkImportCsv")
    expect(operations.length).toBeGreaterThan(60)
    expect(new Set(operations).size).toBe(operations.length)
    expect(() => requestBody("customers.nope")).toThrow(/customers\.create/)
  })

  describe.each(operations)("%s", (operation) => {
    it(`${RUNS} valid bodies decode with the payload Schema (C-02)`, () => {
      const decode = Schema.decodeUnknownExit(
        requestBody(operation).schema as unknown as Schema.ConstraintDecoder<unknown>
      )
      fc.assert(
        fc.property(validBody(operation), (body) => {
          expect(bodyErrors(operation, body)).toEqual([])
          expect(decode(body)._tag).toBe("Success")
          // What a client sends: JSON text, parsed by the server.
          expect(JSON.parse(JSON.stringify(body))).toEqual(body)
        }),
        { numRuns: RUNS }
      )
    })

    it(`${RUNS} near-valid bodies are refused at the field they name (C-11)`, () => {
      fc.assert(
        fc.property(nearValidBody(operation), ({ body, path }) => {
          const fields = bodyErrors(operation, body).map((error) => error.field)
          expect(fields).toContain(path)
        }),
        { numRuns: RUNS }
      )
    })
  })

  it("generation is constructive: 100 bodies of each cost fewer than 20 discarded draws", () => {
    for (const { schema } of requestBodies()) {
      const arbitrary = Arbitrary.schema(schema as unknown as Schema.Codec<unknown, unknown>)
      const sampled = Effect.runSync(
        Arbitrary.sampleEffect(arbitrary, { count: 100, seed: 29, size: 6, maxDiscards: 20 })
      )
      expect(sampled).toHaveLength(100)
    }
  })

  it("a field can be pinned to the test's own values, by dot path", () => {
    const customerId = "Customer:01234567-89ab-7def-8123-456789abcdef"
    fc.assert(
      fc.property(
        validBody("accounts.createExternal", { fields: { customerId: fc.constant(customerId) } }),
        (body) =>
          (body as { customerId?: string }).customerId === undefined ||
          (body as { customerId: string }).customerId === customerId
      ),
      { numRuns: 20 }
    )
  })

  it("near-valid bodies cover every kind of mutation across the Api", () => {
    const seen = new Set<string>()
    for (const operation of operations) {
      for (const near of fc.sample(nearValidBody(operation), { numRuns: 20, seed: 29 })) seen.add(near.mutation)
    }
    expect([...seen].sort()).toEqual([
      "missingField",
      "offPattern",
      "outOfRange",
      "unknownField",
      "unknownValue",
      "wrongType"
    ])
  })
})
