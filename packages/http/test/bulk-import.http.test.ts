/**
 * Bulk customer import on the HTTP surface (FEATURES CU-20..CU-25, C-25): a CSV upload becomes a job, its rows
 * become customers, bad rows are listed without stopping good ones, and the job ends with a webhook.
 * The whole file runs on the memory stores, on PGlite, and on the PostgreSQL server named by DATABASE_URL.
 */
import { BULK_IMPORT_BATCH_ROWS, BULK_IMPORT_CONCURRENCY, csvLine, MAX_BULK_IMPORT_ERRORS } from "@paycore/core"
import { expect, it } from "vitest"
import { type CallResult, expectError, expectInvalid, UUID, useTestServer } from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const HEADER = [
  "umaAddress",
  "platformCustomerId",
  "customerType",
  "fullName",
  "birthDate",
  "addressLine1",
  "addressLine2",
  "city",
  "state",
  "postalCode",
  "country",
  "email",
  "businessLegalName",
  "businessRegistrationNumber",
  "businessTaxId",
  "platformAccountId",
  "description"
]

let seq = 0
const tag = () => `${Date.now().toString(36)}${++seq}`

type Row = Partial<Record<(typeof HEADER)[number], string>>

const individualRow = (id: string, extra: Row = {}): Row => ({
  umaAddress: `${id}@uma.example.com`,
  platformCustomerId: id,
  customerType: "INDIVIDUAL",
  fullName: "John Doe",
  birthDate: "1990-01-15",
  addressLine1: "123 Main St",
  city: "San Francisco",
  state: "CA",
  postalCode: "94105",
  country: "US",
  ...extra
})

const businessRow = (id: string, extra: Row = {}): Row => ({
  umaAddress: `$${id}@uma.example.com`,
  platformCustomerId: id,
  customerType: "BUSINESS",
  businessLegalName: "Acme, Inc.",
  addressLine1: "400 Commerce Way",
  addressLine2: "Suite 5",
  city: "Austin",
  state: "TX",
  postalCode: "78701",
  country: "US",
  ...extra
})

const csvOf = (rows: ReadonlyArray<Row>, header: ReadonlyArray<string> = HEADER): string =>
  `${[csvLine(header), ...rows.map((row) => csvLine(header.map((column) => row[column] ?? "")))].join("\r\n")}\r\n`

const csvForm = (content: string | Uint8Array, name = "customers.csv"): FormData => {
  const form = new FormData()
  form.append("file", new Blob([content], { type: "text/csv" }), name)
  return form
}

const bulkSuite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(async () => {}, stores())

  const upload = async (content: string | Uint8Array): Promise<string> => {
    const r = await server.call("POST", "/customers/bulk/csv", csvForm(content))
    expect(r.status, JSON.stringify(r.json)).toBe(202)
    expect(r.json).toEqual({ jobId: expect.stringMatching(new RegExp(`^Job:${UUID}$`)), status: "PENDING" })
    return r.json.jobId
  }
  /** The job once it has ended (it runs in the background after the 202). */
  const finished = async (jobId: string): Promise<CallResult["json"]> => {
    for (let attempt = 0; attempt < 1000; attempt++) {
      const r = await server.call("GET", `/customers/bulk/jobs/${jobId}`)
      expect(r.status).toBe(200)
      if (r.json.status === "COMPLETED" || r.json.status === "FAILED") return r.json
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    throw new Error(`job ${jobId} did not end`)
  }
  const customerBy = async (platformCustomerId: string) => {
    const r = await server.call("GET", `/customers?platformCustomerId=${encodeURIComponent(platformCustomerId)}`)
    expect(r.status).toBe(200)
    return r.json.data[0]
  }

  it("CU-20..CU-24 individuals and businesses become customers; the job ends COMPLETED with its counts", async () => {
    const [a, b] = [`ind-${tag()}`, `biz-${tag()}`]
    const jobId = await upload(
      csvOf([
        individualRow(a, { email: "john@example.com", addressLine2: "Apt 4", description: "from the CSV" }),
        businessRow(b, { businessRegistrationNumber: "REG-1", businessTaxId: "12-3456789" })
      ])
    )
    const job = await finished(jobId)
    expect(job).toEqual({
      id: jobId,
      status: "COMPLETED",
      progress: { total: 2, processed: 2, successful: 2, failed: 0 },
      errors: [],
      completedAt: expect.any(String)
    })
    expect(await customerBy(a)).toMatchObject({
      customerType: "INDIVIDUAL",
      umaAddress: `$${a}@uma.example.com`,
      fullName: "John Doe",
      birthDate: "1990-01-15",
      email: "john@example.com",
      address: { line1: "123 Main St", line2: "Apt 4", city: "San Francisco", state: "CA", postalCode: "94105" },
      kycStatus: "UNVERIFIED"
    })
    const business = await customerBy(b)
    expect(business).toMatchObject({
      customerType: "BUSINESS",
      umaAddress: `$${b}@uma.example.com`,
      address: { line1: "400 Commerce Way", line2: "Suite 5", city: "Austin", country: "US" },
      businessInfo: { legalName: "Acme, Inc.", country: "US", registrationNumber: "REG-1", taxId: "12-3456789" },
      kybStatus: "UNVERIFIED"
    })
    // KYB asks for what the CSV cannot carry.
    const review = await server.call("POST", "/verifications", { customerId: business.id })
    expect(review.json.errors.map((e: { field?: string }) => e.field)).toEqual(
      expect.arrayContaining(["customer.businessInfo.incorporatedOn", "customer.businessInfo.entityType"])
    )
    // An imported customer has its internal account, as one created through POST /customers.
    const accounts = await server.call("GET", `/customers/internal-accounts?customerId=${business.id}`)
    expect(accounts.json.data.map((x: { currency: string }) => x.currency)).toEqual(["USD"])
  })

  it("CU-21..CU-23 a bad row never stops the good ones; each is listed by platformCustomerId or line", async () => {
    const t = tag()
    const good = [`ok1-${t}`, `ok2-${t}`, `ok3-${t}`]
    const rows: Array<Row> = [
      individualRow(good[0]!),
      individualRow(`bad-date-${t}`, { birthDate: "15/01/1990" }),
      individualRow(`no-name-${t}`, { fullName: "", city: "" }),
      businessRow(`no-legal-${t}`, { businessLegalName: "" }),
      individualRow(`odd-type-${t}`, { customerType: "ROBOT" }),
      individualRow("", { umaAddress: `nobody-${t}@uma.example.com` }),
      individualRow(good[1]!),
      individualRow(good[0]!, { umaAddress: `again-${t}@uma.example.com` }),
      businessRow(good[2]!)
    ]
    const text = `${csvOf(rows)}short,"row"\r\n`
    const job = await finished(await upload(text))
    expect(job.status).toBe("COMPLETED")
    expect(job.progress).toEqual({ total: 10, processed: 10, successful: 3, failed: 7 })
    expect(job.errors.map((e: { correlationId: string; code: string }) => [e.correlationId, e.code])).toEqual([
      [`bad-date-${t}`, "INVALID_INPUT"],
      [`no-name-${t}`, "INVALID_INPUT"],
      [`no-legal-${t}`, "INVALID_INPUT"],
      [`odd-type-${t}`, "INVALID_INPUT"],
      ["7", "INVALID_INPUT"],
      [good[0], "CONFLICT"],
      ["11", "INVALID_REQUEST_FORMAT"]
    ])
    const fields = (i: number) => job.errors[i].details.errors.map((e: { field: string }) => e.field)
    expect(fields(0)).toEqual(["birthDate"])
    expect(fields(1)).toEqual(["fullName", "city"])
    expect(fields(2)).toEqual(["businessLegalName"])
    expect(fields(3)).toEqual(["customerType"])
    expect(fields(4)).toEqual(["platformCustomerId"])
    expect(job.errors[5].details).toEqual({ line: 9 })
    expect(job.errors[6].details).toEqual({ line: 11, reason: "ColumnCount" })
    for (const id of good) expect(await customerBy(id)).toBeDefined()
    expect(await customerBy(`bad-date-${t}`)).toBeUndefined()
  })

  it("rows go in batches: a row the store refuses costs only itself, in any batch; errors stay in file order", async () => {
    const t = tag()
    const count = BULK_IMPORT_BATCH_ROWS * (BULK_IMPORT_CONCURRENCY + 1) + 7
    const rows = Array.from({ length: count }, (_, i) => individualRow(`batch-${t}-${i}`))
    // Refused only when written (taken ids), in the first batch, a middle one and the last one.
    const taken = [3, BULK_IMPORT_BATCH_ROWS * 2 + 50, count - 1]
    for (const i of taken) rows[i] = individualRow(`batch-${t}-0`, { umaAddress: `again-${t}-${i}@uma.example.com` })
    rows[BULK_IMPORT_BATCH_ROWS + 1] = individualRow(`batch-${t}-bad`, { birthDate: "soon" })
    const job = await finished(await upload(csvOf(rows)))
    expect(job.progress).toEqual({ total: count, processed: count, successful: count - 4, failed: 4 })
    expect(job.errors.map((e: { details: { line: number } }) => e.details.line)).toEqual(
      [3, BULK_IMPORT_BATCH_ROWS + 1, ...taken.slice(1)].map((i) => i + 2)
    )
    for (const i of [2, 4, BULK_IMPORT_BATCH_ROWS * 2 + 49, count - 2]) {
      expect(await customerBy(`batch-${t}-${i}`)).toBeDefined()
    }
  })

  it("CU-25 the end of a job is a BULK_UPLOAD.COMPLETED webhook carrying the job", async () => {
    const jobId = await upload(csvOf([individualRow(`hook-${tag()}`)]))
    const job = await finished(jobId)
    const r = await server.call("GET", `/webhooks/deliveries?subject=${jobId}`)
    expect(r.json.data.map((d: { event: unknown }) => d.event)).toEqual([
      expect.objectContaining({ type: "BULK_UPLOAD.COMPLETED", data: job })
    ])
  })

  it("a file whose rows all fail, or that cannot be read, ends FAILED with BULK_UPLOAD.FAILED", async () => {
    const allBad = await finished(await upload(csvOf([individualRow(`x-${tag()}`, { birthDate: "soon" })])))
    expect(allBad).toMatchObject({ status: "FAILED", progress: { total: 1, processed: 1, successful: 0, failed: 1 } })

    const noColumns = await finished(await upload(csvOf([individualRow(`y-${tag()}`)], ["fullName", "city"])))
    expect(noColumns).toMatchObject({
      status: "FAILED",
      progress: { total: 0, processed: 0, successful: 0, failed: 0 }
    })
    expect(noColumns.errors).toEqual([
      expect.objectContaining({
        correlationId: "1",
        code: "INVALID_INPUT",
        message: "The header lacks the required columns umaAddress, platformCustomerId, customerType"
      })
    ])
    const notUtf8 = await finished(await upload(Uint8Array.from([0x75, 0x6d, 0x61, 0xff, 0xfe, 0x0a])))
    expect(notUtf8.status).toBe("FAILED")
    expect(notUtf8.errors).toEqual([expect.objectContaining({ code: "INVALID_REQUEST_FORMAT" })])
    const empty = await finished(await upload(""))
    expect(empty).toMatchObject({
      status: "FAILED",
      errors: [expect.objectContaining({ code: "INVALID_REQUEST_FORMAT" })]
    })
    const hooks = await server.call("GET", `/webhooks/deliveries?subject=${notUtf8.id}`)
    expect(hooks.json.data.map((d: { type: string }) => d.type)).toEqual(["BULK_UPLOAD.FAILED"])
  })

  it("CU-24 progress counts every row; errors lists the first ones (progress.failed counts all)", async () => {
    const t = tag()
    const rows = Array.from({ length: 2 * (MAX_BULK_IMPORT_ERRORS + 10) }, (_, i) =>
      individualRow(`many-${t}-${i}`, { birthDate: i % 2 === 0 ? "1990-01-15" : "bad" })
    )
    const job = await finished(await upload(csvOf(rows)))
    const total = rows.length
    expect(job.progress).toEqual({ total, processed: total, successful: total / 2, failed: total / 2 })
    expect(job.errors).toHaveLength(MAX_BULK_IMPORT_ERRORS)
    expect(job.errors[0].correlationId).toBe(`many-${t}-1`)
  })

  it("C-25 an unknown job → 404 BULK_UPLOAD_JOB_NOT_FOUND; a malformed id → 400", async () => {
    expectError(
      await server.call("GET", "/customers/bulk/jobs/Job:01234567-89ab-7def-8123-456789abcdef"),
      404,
      "BULK_UPLOAD_JOB_NOT_FOUND"
    )
    expectInvalid(await server.call("GET", "/customers/bulk/jobs/Job:1"), ["path.jobId"])
  })

  it("the upload: no file part → 400; not multipart → 415; a VIEW token → 403; none → 401", async () => {
    const form = new FormData()
    form.append("note", "no file here")
    expectInvalid(await server.call("POST", "/customers/bulk/csv", form), ["file"])
    expectError(
      await server.call("POST", "/customers/bulk/csv", "a,b\n1,2\n", { headers: { "content-type": "text/csv" } }),
      415,
      "UNSUPPORTED_MEDIA_TYPE"
    )
    const viewer = await server.token(["VIEW"])
    expectError(await server.call("POST", "/customers/bulk/csv", csvForm("x"), { auth: viewer }), 403, "FORBIDDEN")
    expectError(await server.call("POST", "/customers/bulk/csv", csvForm("x"), { auth: null }), 401, "UNAUTHORIZED")
  })
}

onEveryStore("bulk import", "bulk_import_http", bulkSuite)
