import { Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { BulkCreateCustomerRequest, CreateCustomerRequest } from "../src/customers/model.ts"
import {
  type BulkImportError,
  CUSTOMER_CSV_COLUMNS,
  type CustomerCsvRow,
  checkCustomerCsvHeader,
  customerFromCsv
} from "../src/onboarding/customer-csv.ts"
import { type CsvItem, type CsvRecord, type CsvRowError, parseCsv } from "../src/shared/csv.ts"

const record = (values: Record<string, string>, line = 7): CsvRecord => ({ _tag: "Record", line, record: values })

const individual: Record<string, string> = {
  umaAddress: "$ada@uma.example.com",
  platformCustomerId: "cust-001",
  customerType: "INDIVIDUAL",
  fullName: "Ada Lovelace",
  birthDate: "1990-01-15",
  addressLine1: "123 Main St",
  city: "San Francisco",
  state: "CA",
  postalCode: "94105",
  country: "US"
}

const business: Record<string, string> = {
  umaAddress: "$acme@uma.example.com",
  platformCustomerId: "biz-456",
  customerType: "BUSINESS",
  businessLegalName: "Acme Corp",
  addressLine1: "400 Commerce Way",
  city: "Austin",
  state: "TX",
  postalCode: "78701",
  country: "US"
}

const ok = (item: CsvRecord | CsvRowError): CustomerCsvRow => {
  const result = customerFromCsv(item)
  if (Result.isFailure(result)) throw new Error(`expected a valid row: ${result.failure.message}`)
  return result.success
}

const failed = (item: CsvRecord | CsvRowError): BulkImportError => {
  const result = customerFromCsv(item)
  if (Result.isSuccess(result)) throw new Error("expected an invalid row")
  return result.failure
}

const fieldsOf = (error: BulkImportError) =>
  ((error.details?.["errors"] ?? []) as ReadonlyArray<{ field: string; constraint: unknown }>).map((e) => e.field)

describe("customerFromCsv: valid rows", () => {
  it("an individual row makes a request that CreateCustomerRequest decodes", () => {
    const row = ok(
      record({
        ...individual,
        umaAddress: "  ada@uma.example.com ", // trimmed, `$` added (the upstream example has none)
        addressLine2: "Apt 4",
        email: "ada@example.com",
        platformAccountId: "acct-9",
        description: "imported",
        unknownColumn: "ignored"
      })
    )
    const expected = {
      customerType: "INDIVIDUAL",
      platformCustomerId: "cust-001",
      umaAddress: "$ada@uma.example.com",
      fullName: "Ada Lovelace",
      birthDate: "1990-01-15",
      email: "ada@example.com",
      address: {
        line1: "123 Main St",
        line2: "Apt 4",
        city: "San Francisco",
        state: "CA",
        postalCode: "94105",
        country: "US"
      }
    }
    expect(row).toEqual({
      line: 7,
      correlationId: "cust-001",
      request: expected,
      platformAccountId: "acct-9",
      description: "imported"
    })
    expect(Schema.decodeUnknownSync(CreateCustomerRequest)(row.request)).toEqual(expected)
  })

  it("empty optional cells are left out", () => {
    const row = ok(record({ ...individual, addressLine2: " ", email: "", platformAccountId: "", description: "" }))
    expect(row).not.toHaveProperty("platformAccountId")
    expect(row).not.toHaveProperty("description")
    expect(row.request).not.toHaveProperty("email")
    expect(row.request.address).not.toHaveProperty("line2")
  })

  it("a business row makes a request with businessInfo (country from the address)", () => {
    const row = ok(record({ ...business, businessRegistrationNumber: "REG-1", businessTaxId: "12-3456789" }))
    const expected = {
      customerType: "BUSINESS",
      platformCustomerId: "biz-456",
      umaAddress: "$acme@uma.example.com",
      address: { line1: "400 Commerce Way", city: "Austin", state: "TX", postalCode: "78701", country: "US" },
      businessInfo: { legalName: "Acme Corp", country: "US", registrationNumber: "REG-1", taxId: "12-3456789" }
    }
    expect(row.request).toEqual(expected)
    expect(Schema.decodeUnknownSync(BulkCreateCustomerRequest)(row.request)).toEqual(expected)
  })

  it("a business row without a tax id is valid for the CSV; POST /customers would also want incorporatedOn", () => {
    const row = ok(record(business))
    expect(row.request).toMatchObject({ businessInfo: { legalName: "Acme Corp", country: "US" } })
    // The gap the customers service has to bridge for bulk creation (see BulkCreateBusinessRequest).
    expect(() => Schema.decodeUnknownSync(CreateCustomerRequest)(row.request)).toThrow()
    expect(() =>
      Schema.decodeUnknownSync(CreateCustomerRequest)({
        ...row.request,
        businessInfo: { ...(row.request as any).businessInfo, taxId: "1", incorporatedOn: "2020-01-01" }
      })
    ).not.toThrow()
  })
})

describe("customerFromCsv: missing required columns", () => {
  const cases = [
    ...CUSTOMER_CSV_COLUMNS.all.required.map((column) => ({ type: "INDIVIDUAL", base: individual, column })),
    ...CUSTOMER_CSV_COLUMNS.all.required.map((column) => ({ type: "BUSINESS", base: business, column })),
    ...CUSTOMER_CSV_COLUMNS.INDIVIDUAL.required.map((column) => ({ type: "INDIVIDUAL", base: individual, column })),
    ...CUSTOMER_CSV_COLUMNS.BUSINESS.required.map((column) => ({ type: "BUSINESS", base: business, column }))
  ]

  it.each(cases)(
    "$type without $column (empty cell, or no such column) is reported once, by column",
    ({ base, column }) => {
      const empty = { ...base, [column]: "  " }
      const { [column]: _absent, ...absent } = base
      for (const values of [empty, absent]) {
        const error = failed(record(values))
        expect(error.code).toBe("INVALID_INPUT")
        expect(error.correlationId).toBe(column === "platformCustomerId" ? "7" : base["platformCustomerId"])
        expect(error.details?.["line"]).toBe(7)
        expect(error.details?.["errors"]).toEqual([
          { field: column, constraint: { required: true }, message: `The column ${column} is required` }
        ])
        expect(error.message).toBe(`Line 7: ${column}: The column ${column} is required`)
      }
    }
  )

  it("every missing column of a row is listed at once", () => {
    expect(fieldsOf(failed(record({ customerType: "INDIVIDUAL" })))).toEqual([
      "umaAddress",
      "platformCustomerId",
      ...CUSTOMER_CSV_COLUMNS.INDIVIDUAL.required
    ])
    expect(fieldsOf(failed(record({ customerType: "BUSINESS", platformCustomerId: "b-1" })))).toEqual([
      "umaAddress",
      ...CUSTOMER_CSV_COLUMNS.BUSINESS.required
    ])
    expect(fieldsOf(failed(record({})))).toEqual([...CUSTOMER_CSV_COLUMNS.all.required])
  })

  it("an individual row does not need business columns, nor a business row individual ones", () => {
    ok(record(individual))
    ok(record(business))
  })
})

describe("customerFromCsv: invalid values", () => {
  it("an unknown customerType is named with its accepted values", () => {
    const error = failed(record({ ...individual, customerType: "individual" }))
    expect(error.details?.["errors"]).toEqual([
      {
        field: "customerType",
        constraint: { enum: ["INDIVIDUAL", "BUSINESS"] },
        message: 'Expected "INDIVIDUAL" or "BUSINESS"'
      }
    ])
    expect(error.correlationId).toBe("cust-001")
  })

  it("bad formats are reported by column name, all at once", () => {
    const error = failed(
      record({ ...individual, birthDate: "15/01/1990", country: "usa", email: "nope", umaAddress: "not an address" })
    )
    expect(error.code).toBe("INVALID_INPUT")
    const errors = error.details?.["errors"] as ReadonlyArray<{ field: string; constraint: Record<string, unknown> }>
    expect(errors.map((e) => e.field).sort()).toEqual(["birthDate", "country", "email", "umaAddress"])
    expect(errors.find((e) => e.field === "birthDate")?.constraint).toHaveProperty("pattern")
  })

  it("a business's bad country is reported once although it feeds two fields", () => {
    const error = failed(record({ ...business, country: "Texas" }))
    expect(fieldsOf(error)).toEqual(["country"])
  })

  it("a row the CSV reader could not read is INVALID_REQUEST_FORMAT, correlated by line", () => {
    const error = failed({
      _tag: "RowError",
      line: 12,
      reason: "ColumnCount",
      message: "The record on line 12 has 2 fields; the header has 3",
      fields: ["a", "b"]
    })
    expect(error).toEqual({
      correlationId: "12",
      code: "INVALID_REQUEST_FORMAT",
      message: "The record on line 12 has 2 fields; the header has 3",
      details: { line: 12, reason: "ColumnCount" }
    })
  })
})

describe("checkCustomerCsvHeader", () => {
  it("accepts a header with the columns every row needs", () => {
    expect(checkCustomerCsvHeader({ _tag: "Header", line: 1, columns: Object.keys(individual) })).toBeUndefined()
    expect(
      checkCustomerCsvHeader({ _tag: "Header", line: 1, columns: ["platformCustomerId", "customerType", "umaAddress"] })
    ).toBeUndefined()
  })

  it("refuses a header without them, naming each", () => {
    const error = checkCustomerCsvHeader({ _tag: "Header", line: 1, columns: ["platformCustomerId", "fullName"] })
    expect(error).toMatchObject({
      correlationId: "1",
      code: "INVALID_INPUT",
      message: "The header lacks the required columns umaAddress, customerType"
    })
    expect(error && fieldsOf(error)).toEqual(["umaAddress", "customerType"])
  })
})

describe("parseCsv + customerFromCsv", () => {
  it("imports a mixed file row by row: good rows pass, bad rows fail alone", async () => {
    const csv = [
      "umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country,businessLegalName,email",
      "$ada@uma.example.com,cust-1,INDIVIDUAL,Ada Lovelace,1990-01-15,123 Main St,San Francisco,CA,94105,US,,ada@example.com",
      '$acme@uma.example.com,biz-1,BUSINESS,,,"400 Commerce Way, Suite 5",Austin,TX,78701,US,"Acme, Inc.",',
      "$bob@uma.example.com,cust-2,INDIVIDUAL,,1990-01-15,1 Road,Town,ST,12345,US,,",
      "$short@uma.example.com,cust-3,INDIVIDUAL"
    ].join("\r\n")
    const outcomes: Array<string> = []
    for await (const item of parseCsv([csv]) as AsyncIterable<CsvItem>) {
      if (item._tag === "Header") {
        expect(checkCustomerCsvHeader(item)).toBeUndefined()
        continue
      }
      const result = customerFromCsv(item)
      outcomes.push(
        Result.isSuccess(result)
          ? `ok ${result.success.correlationId}`
          : `${result.failure.code} ${result.failure.correlationId} ${fieldsOfSafe(result.failure)}`
      )
    }
    expect(outcomes).toEqual(["ok cust-1", "ok biz-1", "INVALID_INPUT cust-2 fullName", "INVALID_REQUEST_FORMAT 5 "])
  })
})

const fieldsOfSafe = (error: BulkImportError): string =>
  Array.isArray(error.details?.["errors"]) ? fieldsOf(error).join(",") : ""

describe("customerFromCsv: the text rule (issue 12, CU-20)", () => {
  it("a cell holding NUL or an unpaired surrogate fails its row, named by its column, and is not also 'missing'", () => {
    const result = customerFromCsv(record({ ...individual, fullName: "Ada\u0000", city: "\ud800" }))
    expect(Result.isFailure(result)).toBe(true)
    const errors = Result.isFailure(result) ? (result.failure.details?.errors as ReadonlyArray<{ field: string }>) : []
    expect(errors).toEqual([
      { field: "fullName", constraint: { text: "NUL" }, message: expect.any(String) },
      { field: "city", constraint: { text: "UNPAIRED_SURROGATE" }, message: expect.any(String) }
    ])
  })

  it("a header whose column name holds NUL is refused, naming the column by position", () => {
    const bad = checkCustomerCsvHeader({ _tag: "Header", line: 1, columns: [...Object.keys(individual), "x\u0000"] })
    expect(bad?.details?.errors).toEqual([
      {
        field: `column ${Object.keys(individual).length + 1}`,
        constraint: { text: "NUL" },
        message: expect.any(String)
      }
    ])
  })
})
