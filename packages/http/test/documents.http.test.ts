/**
 * Verification documents on the HTTP surface (FEATURES K-25..K-35, L-01, L-02, C-31, C-40): multipart upload
 * streamed into the DocumentStore, screening, list, get, replace, delete, and what the packet review sees.
 * The whole file runs on the memory stores, on PGlite, and on the PostgreSQL server named by DATABASE_URL.
 */
import { DocumentStore, type DocumentType, MAX_DOCUMENT_BYTES } from "@paycore/core"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import {
  documentForm,
  expectError,
  expectInvalid,
  expectUnauthorized,
  ids,
  individualPacket,
  PNG_BYTES,
  UNKNOWN_CUSTOMER,
  UUID,
  uploadDocument,
  useTestServer
} from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const UNKNOWN_DOCUMENT = "Document:01234567-89ab-7def-8123-456789abcdef"
const UNKNOWN_OWNER = "BeneficialOwner:01234567-89ab-7def-8123-456789abcdef"

/** Screening fails an upload whose documentNumber-free file is exactly this long (a stand-in for glare, etc.). */
const REJECTED_SIZE = 13

/** The keys the engine put into the DocumentStore, in order (to check what is left of them). */
const makePutLog = () => {
  const keys: Array<string> = []
  const wrap = (inner: Layer.Layer<DocumentStore, unknown>) =>
    Layer.effect(
      DocumentStore,
      Effect.gen(function* () {
        const files = yield* DocumentStore
        return DocumentStore.of({
          ...files,
          put: (key, contentType, body, options) => {
            keys.push(key)
            return files.put(key, contentType, body, options)
          }
        })
      })
    ).pipe(Layer.provide(Layer.orDie(inner)))
  return { keys, wrap }
}

const documentsSuite = (stores: () => StoresUnderTest) => {
  const puts = makePutLog()
  const given = stores()
  const server = useTestServer(async () => {}, {
    ...given,
    documentStoreLayer: puts.wrap(given.documentStoreLayer),
    sandbox: {
      screenDocument: ({ size }) =>
        size === REJECTED_SIZE ? { _tag: "Rejected", reason: "GLARE" } : { _tag: "Accepted" }
    }
  })

  const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
  const exists = (key: string) => run(server.documentStore.exists(key))
  const recordOf = async (id: string) => (await run(server.store.documents.get(id)))!
  const person = async (fullName = "Ada Lovelace") => {
    const r = await server.call("POST", "/customers", individualPacket(fullName))
    expect(r.status, JSON.stringify(r.json)).toBe(201)
    return r.json.id as string
  }
  const post = (fields: Record<string, string>, file?: Parameters<typeof documentForm>[1]) =>
    server.call("POST", "/documents", documentForm(fields, file))
  const put = (id: string, fields: Record<string, string>, file: Parameters<typeof documentForm>[1] = null) =>
    server.call("PUT", `/documents/${id}`, documentForm(fields, file))
  const passport = (documentHolder: string) => ({ documentHolder, documentType: "PASSPORT", country: "US" })
  const holderDocuments = async (holder: string) => {
    const r = await server.call("GET", `/documents?documentHolder=${holder}`)
    expect(r.status).toBe(200)
    return r.json
  }

  describe("upload (K-25, K-26, K-28, K-29, K-30)", () => {
    it("K-25/K-26 a customer's document: 201 with its metadata and the file's name (no path)", async () => {
      const c = await person()
      const r = await post(
        {
          documentHolder: c,
          documentType: "DRIVERS_LICENSE",
          side: "FRONT",
          country: "MX",
          documentNumber: "DL-12345",
          issuingAuthority: "Secretaría de Movilidad"
        },
        { name: "C:\\scans\\licencia frente.png" }
      )
      expect(r.status, JSON.stringify(r.json)).toBe(201)
      expect(r.json).toEqual({
        id: expect.stringMatching(new RegExp(`^Document:${UUID}$`)),
        documentHolder: c,
        documentType: "DRIVERS_LICENSE",
        side: "FRONT",
        country: "MX",
        documentNumber: "DL-12345",
        issuingAuthority: "Secretaría de Movilidad",
        fileName: "licencia frente.png",
        createdAt: expect.any(String),
        updatedAt: r.json.createdAt
      })
      expect(await server.call("GET", `/documents/${r.json.id}`)).toMatchObject({ status: 200, json: r.json })
      // The bytes are stored as sent.
      const [file] = (await recordOf(r.json.id)).files
      expect(file).toMatchObject({ contentType: "image/png", size: PNG_BYTES.length, status: "ACTIVE" })
      const stored = await run(server.documentStore.get(file!.key))
      expect(stored?.size).toBe(PNG_BYTES.length)
    })

    it("K-25 a beneficial owner's document", async () => {
      const business = await server.call("POST", "/customers", {
        customerType: "BUSINESS",
        businessInfo: { legalName: "Engines Inc", country: "US", incorporatedOn: "2019-05-01", taxId: "12-3456789" }
      })
      const owner = await server.call("POST", "/beneficial-owners", {
        customerId: business.json.id,
        roles: ["DIRECTOR"],
        ownershipPercentage: 0,
        personalInfo: {
          firstName: "Grace",
          lastName: "Hopper",
          birthDate: "1978-06-15",
          nationality: "US",
          address: { line1: "1 Navy Way", postalCode: "22202", country: "US" },
          idType: "SSN",
          identifier: "987-65-4321"
        }
      })
      const document = await uploadDocument(server, owner.json.id, "PASSPORT")
      expect(document.documentHolder).toBe(owner.json.id)
      expect(ids({ json: await holderDocuments(owner.json.id) } as never)).toEqual([document.id])
    })

    it("K-28 PDF, JPEG and PNG are accepted by the part's Content-Type, whatever the file's extension", async () => {
      const c = await person()
      for (const type of ["application/pdf", "image/jpeg", "image/png", "Image/PNG; charset=binary"]) {
        const r = await post(passport(c), { type, name: "scan.exe" })
        expect(r.status, `${type}: ${JSON.stringify(r.json)}`).toBe(201)
        expect(r.json.fileName).toBe("scan.exe")
      }
    })

    it("K-28 any other Content-Type → 400 INVALID_INPUT on file, nothing stored", async () => {
      const c = await person()
      for (const type of ["image/gif", "text/plain", "application/octet-stream", "image/svg+xml"]) {
        const r = await post(passport(c), { type, name: "passport.pdf" })
        expectInvalid(r, ["file"])
        expect(r.json.details.errors[0].constraint).toEqual({
          contentType: ["application/pdf", "image/jpeg", "image/png"]
        })
      }
      expect((await holderDocuments(c)).data).toEqual([])
    })

    it("K-29/L-01 up to 10 MB is accepted; one byte more → 400 INVALID_INPUT, nothing stored", async () => {
      const c = await person()
      const atLimit = await post(passport(c), { type: "application/pdf", bytes: new Uint8Array(MAX_DOCUMENT_BYTES) })
      expect(atLimit.status, JSON.stringify(atLimit.json)).toBe(201)
      const over = await post(passport(c), { type: "application/pdf", bytes: new Uint8Array(MAX_DOCUMENT_BYTES + 1) })
      expectInvalid(over, ["file"])
      expect(over.json.details.errors[0].constraint).toEqual({ maxBytes: MAX_DOCUMENT_BYTES })
      expect(await exists(puts.keys.at(-1)!)).toBe(false)
      expect(ids({ json: await holderDocuments(c) } as never)).toEqual([atLimit.json.id])
    }, 90_000) // 10 MB into PGlite's bytea takes tens of seconds on a loaded 2-core machine

    it("C-40/K-30 screening failure → 422 DOCUMENT_REJECTED with the reason; no document, no file", async () => {
      const c = await person()
      const r = await post(passport(c), { bytes: new Uint8Array(REJECTED_SIZE) })
      expectError(r, 422, "DOCUMENT_REJECTED")
      expect(r.json.details).toEqual({ reason: "GLARE" })
      expect(await exists(puts.keys.at(-1)!)).toBe(false)
      expect((await holderDocuments(c)).data).toEqual([])
    })

    it("C-31 missing and invalid metadata are listed together; the file received is discarded", async () => {
      const r = await post({ documentType: "SELFIE_VIDEO", country: "usa", side: "LEFT" })
      expectInvalid(r, ["documentHolder", "documentType", "country", "side"])
      expect(await exists(puts.keys.at(-1)!)).toBe(false)
      const c = await person()
      expectInvalid(await post(passport(c), null), ["file"])
      expectInvalid(await post(passport(c), { bytes: new Uint8Array(0) }), ["file"])
      expectInvalid(await post({ ...passport(c), documentHolder: "Quote:0" }), ["documentHolder"])
    })

    it("K-25 an unknown holder → 404 REFERENCE_NOT_FOUND; a deleted customer → 410 CUSTOMER_DELETED", async () => {
      expectError(await post(passport(UNKNOWN_CUSTOMER)), 404, "REFERENCE_NOT_FOUND")
      expectError(await post(passport(UNKNOWN_OWNER)), 404, "REFERENCE_NOT_FOUND")
      expect(await exists(puts.keys.at(-1)!)).toBe(false)
      const c = await person()
      expect((await server.call("DELETE", `/customers/${c}`)).status).toBe(200)
      expectError(await post(passport(c)), 410, "CUSTOMER_DELETED")
    })

    it("C-02 a body that is not multipart/form-data → 415; a malformed one → 400 INVALID_INPUT", async () => {
      const c = await person()
      expectError(await server.call("POST", "/documents", passport(c)), 415, "UNSUPPORTED_MEDIA_TYPE")
      const truncated = await server.call(
        "POST",
        "/documents",
        `--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nabc`,
        { headers: { "content-type": "multipart/form-data; boundary=xyz" } }
      )
      expectInvalid(truncated, ["body"])
      expect(truncated.json.details.errors[0].constraint).toEqual({ multipart: "TruncatedBody" })
      const noBoundary = await server.call("POST", "/documents", "x", {
        headers: { "content-type": "multipart/form-data" }
      })
      expectInvalid(noBoundary, ["body"])
      const twoFiles = new FormData()
      twoFiles.append("file", new Blob([PNG_BYTES], { type: "image/png" }), "a.png")
      twoFiles.append("file", new Blob([PNG_BYTES], { type: "image/png" }), "b.png")
      expectInvalid(await server.call("POST", "/documents", twoFiles), ["file"])
    })

    it("credentials: none → 401; a VIEW token may read but not upload, replace or delete (403)", async () => {
      const c = await person()
      const document = await uploadDocument(server, c, "PASSPORT")
      expectUnauthorized(await server.call("POST", "/documents", documentForm(passport(c)), { auth: null }))
      const viewer = await server.token(["VIEW"])
      expect((await server.call("GET", `/documents/${document.id}`, undefined, { auth: viewer })).status).toBe(200)
      expectError(
        await server.call("POST", "/documents", documentForm(passport(c)), { auth: viewer }),
        403,
        "FORBIDDEN"
      )
      expectError(
        await server.call("PUT", `/documents/${document.id}`, documentForm({ country: "GB" }, null), { auth: viewer }),
        403,
        "FORBIDDEN"
      )
      expectError(
        await server.call("DELETE", `/documents/${document.id}`, undefined, { auth: viewer }),
        403,
        "FORBIDDEN"
      )
    })
  })

  describe("list and get (K-31, K-32)", () => {
    it("K-31 filtered by holder, paged newest first; K-32 unknown → 404, malformed id → 400", async () => {
      const a = await person()
      const b = await person()
      const types: Array<DocumentType> = ["PASSPORT", "UTILITY_BILL", "BANK_STATEMENT"]
      const mine: Array<string> = []
      for (const t of types) mine.push((await uploadDocument(server, a, t)).id)
      const theirs = (await uploadDocument(server, b, "NATIONAL_ID")).id
      const page1 = await server.call("GET", `/documents?documentHolder=${a}&limit=2`)
      expect(page1.status).toBe(200)
      expect(ids(page1)).toEqual([mine[2], mine[1]])
      expect(page1.json).toMatchObject({ hasMore: true, totalCount: 3 })
      const page2 = await server.call("GET", `/documents?documentHolder=${a}&limit=2&cursor=${page1.json.nextCursor}`)
      expect(ids(page2)).toEqual([mine[0]])
      const all = await server.call("GET", "/documents?limit=100&sortOrder=asc")
      expect(ids(all)).toEqual(expect.arrayContaining([...mine, theirs]))
      expectError(await server.call("GET", `/documents/${UNKNOWN_DOCUMENT}`), 404, "REFERENCE_NOT_FOUND")
      expectInvalid(await server.call("GET", "/documents/Document:1"), ["path.documentId"])
      expectInvalid(await server.call("GET", "/documents?documentHolder=Quote:1"), ["query.documentHolder"])
      expectInvalid(await server.call("GET", "/documents?cursor=nope!"), ["cursor"])
    })
  })

  describe("replace (K-33, K-34)", () => {
    it("K-33 a new file: 200, the old file stays stored, INACTIVE; the new one is ACTIVE", async () => {
      const c = await person()
      const original = await uploadDocument(server, c, "DRIVERS_LICENSE", { side: "FRONT" })
      const r = await put(original.id, { side: "BACK" }, { type: "application/pdf", name: "back.pdf" })
      expect(r.status, JSON.stringify(r.json)).toBe(200)
      expect(r.json).toEqual({
        ...original,
        side: "BACK",
        fileName: "back.pdf",
        updatedAt: expect.any(String)
      })
      expect(r.json.updatedAt >= original.updatedAt).toBe(true)
      expect((await server.call("GET", `/documents/${original.id}`)).json).toEqual(r.json)
      const files = (await recordOf(original.id)).files
      expect(files.map((f) => [f.fileName, f.contentType, f.status])).toEqual([
        ["id.png", "image/png", "INACTIVE"],
        ["back.pdf", "application/pdf", "ACTIVE"]
      ])
      for (const f of files) expect(await exists(f.key)).toBe(true)
    })

    it("K-33 metadata only: the file is kept; nothing at all → 400", async () => {
      const c = await person()
      const original = await uploadDocument(server, c, "PASSPORT")
      const r = await put(original.id, { documentType: "NATIONAL_ID", documentNumber: "X1" })
      expect(r.status, JSON.stringify(r.json)).toBe(200)
      expect(r.json).toMatchObject({ documentType: "NATIONAL_ID", documentNumber: "X1", fileName: "id.png" })
      expect((await recordOf(original.id)).files).toHaveLength(1)
      expectInvalid(await put(original.id, {}), ["body"])
    })

    it("K-33 the upload rules hold: bad type, too large, rejected, bad field → 4xx and the document unchanged", async () => {
      const c = await person()
      const original = await uploadDocument(server, c, "PASSPORT")
      expectInvalid(await put(original.id, {}, { type: "image/gif" }), ["file"])
      expectInvalid(await put(original.id, {}, { type: "image/png", bytes: new Uint8Array(MAX_DOCUMENT_BYTES + 1) }), [
        "file"
      ])
      expectError(await put(original.id, {}, { bytes: new Uint8Array(REJECTED_SIZE) }), 422, "DOCUMENT_REJECTED")
      expect(await exists(puts.keys.at(-1)!)).toBe(false)
      expectInvalid(await put(original.id, { country: "Mexico" }, {}), ["country"])
      expect(await exists(puts.keys.at(-1)!)).toBe(false)
      expect((await server.call("GET", `/documents/${original.id}`)).json).toEqual(original)
      expect((await recordOf(original.id)).files).toHaveLength(1)
      expectError(await put(UNKNOWN_DOCUMENT, { country: "GB" }), 404, "REFERENCE_NOT_FOUND")
      expectError(
        await server.call("PUT", `/documents/${original.id}`, { country: "GB" }),
        415,
        "UNSUPPORTED_MEDIA_TYPE"
      )
    })

    it("K-34 a document the review found poor is replaced, and the next review sees the new verdict", async () => {
      const c = await person("Ada Lovelace003")
      const document = await uploadDocument(server, c, "PASSPORT")
      const first = await server.call("POST", "/verifications", { customerId: c })
      expect(first.json.verificationStatus).toBe("RESOLVE_ERRORS")
      expect(first.json.errors).toEqual([
        expect.objectContaining({ resourceId: document.id, type: "POOR_QUALITY_DOCUMENT" })
      ])
      expect((await put(document.id, {}, { name: "clear.png" })).status).toBe(200)
      // The sandbox decides by name: the renamed applicant is approved on the replaced document.
      const renamed = await server.call("PATCH", `/customers/${c}`, {
        customerType: "INDIVIDUAL",
        fullName: "Ada Lovelace"
      })
      expect(renamed.status).toBe(200)
      const second = await server.call("POST", "/verifications", { customerId: c })
      expect(second.json).toMatchObject({ verificationStatus: "APPROVED", errors: [] })
    })
  })

  describe("delete (K-35) and the packet review", () => {
    it("K-35 204; then 404 everywhere, and its files are gone", async () => {
      const c = await person()
      const document = await uploadDocument(server, c, "PASSPORT")
      expect((await put(document.id, {}, {})).status).toBe(200)
      const keys = (await recordOf(document.id)).files.map((f) => f.key)
      const r = await server.call("DELETE", `/documents/${document.id}`)
      expect(r.status).toBe(204)
      expect(r.json).toBeUndefined()
      expectError(await server.call("GET", `/documents/${document.id}`), 404, "REFERENCE_NOT_FOUND")
      expectError(await server.call("DELETE", `/documents/${document.id}`), 404, "REFERENCE_NOT_FOUND")
      expectError(await put(document.id, { country: "GB" }), 404, "REFERENCE_NOT_FOUND")
      expect((await holderDocuments(c)).data).toEqual([])
      for (const key of keys) expect(await exists(key)).toBe(false)
    })

    it("K-35 a document a review included → 409 CONFLICT and it stays; one uploaded after may go", async () => {
      const c = await person("Ada Lovelace001")
      const reviewed = await uploadDocument(server, c, "PASSPORT")
      const v = await server.call("POST", "/verifications", { customerId: c })
      expect(v.json.verificationStatus).toBe("PENDING_MANUAL_REVIEW")
      expectError(await server.call("DELETE", `/documents/${reviewed.id}`), 409, "CONFLICT")
      expect((await server.call("GET", `/documents/${reviewed.id}`)).status).toBe(200)
      // Replacing it stays possible (K-34).
      expect((await put(reviewed.id, {}, {})).status).toBe(200)
      const later = await uploadDocument(server, c, "UTILITY_BILL")
      expect((await server.call("DELETE", `/documents/${later.id}`)).status).toBe(204)
    })

    it("K-03 the review sees the documents on file: a deleted one no longer counts", async () => {
      const c = await person()
      const document = await uploadDocument(server, c, "NATIONAL_ID")
      expect((await server.call("DELETE", `/documents/${document.id}`)).status).toBe(204)
      const v = await server.call("POST", "/verifications", { customerId: c })
      expect(v.json.verificationStatus).toBe("RESOLVE_ERRORS")
      expect(v.json.errors.map((e: { type: string }) => e.type)).toEqual(["MISSING_IDENTITY_DOCUMENT"])
      await uploadDocument(server, c, "NATIONAL_ID")
      const again = await server.call("POST", "/verifications", { customerId: c })
      expect(again.json).toMatchObject({ verificationStatus: "APPROVED", errors: [] })
    })
  })
}

onEveryStore("documents", "documents_http", documentsSuite)
