import { Readable } from "node:stream"
import { assert, describe, it } from "@effect/vitest"
import { DocumentBodyError, DocumentTooLarge, pumpBody } from "@paycore/core"
import { Effect, Exit } from "effect"
import fc from "fast-check"
import {
  boundaryOf,
  headerParams,
  MultipartError,
  type MultipartErrorReason,
  type MultipartFile,
  type MultipartUploadOptions,
  parseMultipart,
  readMultipartUpload
} from "../src/multipart.ts"

// ---------------------------------------------------------------------------------------------
// Building bodies
// ---------------------------------------------------------------------------------------------

interface Part {
  readonly name: string
  readonly data: Uint8Array | string
  readonly filename?: string
  readonly contentType?: string
  /** Raw header lines instead of the generated ones. */
  readonly rawHeaders?: ReadonlyArray<string>
}

const bytesOf = (data: Uint8Array | string): Buffer =>
  typeof data === "string" ? Buffer.from(data) : Buffer.from(data)

const quote = (s: string) => `"${s.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`

/** A multipart body as browsers and curl write it. */
const build = (
  boundary: string,
  parts: ReadonlyArray<Part>,
  options: { readonly preamble?: string; readonly epilogue?: string; readonly padding?: string } = {}
): Buffer => {
  const out: Array<Buffer> = []
  if (options.preamble !== undefined) out.push(Buffer.from(`${options.preamble}\r\n`))
  for (const part of parts) {
    out.push(Buffer.from(`--${boundary}${options.padding ?? ""}\r\n`))
    const headers = part.rawHeaders ?? [
      `Content-Disposition: form-data; name=${quote(part.name)}${part.filename === undefined ? "" : `; filename=${quote(part.filename)}`}`,
      ...(part.contentType === undefined ? [] : [`Content-Type: ${part.contentType}`])
    ]
    out.push(Buffer.from(`${headers.join("\r\n")}\r\n\r\n`))
    out.push(bytesOf(part.data))
    out.push(Buffer.from("\r\n"))
  }
  out.push(Buffer.from(`--${boundary}--`))
  if (options.epilogue !== undefined) out.push(Buffer.from(options.epilogue))
  return Buffer.concat(out)
}

/** `body` cut at the given points, as an async iterable with a turn of the event loop between chunks. */
async function* cut(body: Uint8Array, points: ReadonlyArray<number> = []): AsyncGenerator<Uint8Array> {
  const sorted = [...new Set(points.map((p) => p % (body.byteLength + 1)))].sort((a, b) => a - b)
  let from = 0
  for (const to of [...sorted, body.byteLength]) {
    if (to > from) yield body.subarray(from, to)
    from = to
    await Promise.resolve()
  }
}

const ctype = (boundary: string) => `multipart/form-data; boundary=${boundary}`

/** Reads an upload, collecting the file's bytes. */
const upload = (
  contentType: string | undefined,
  body: AsyncIterable<Uint8Array>,
  options: MultipartUploadOptions = {},
  seen: Array<MultipartFile> = []
) =>
  readMultipartUpload(
    contentType,
    body,
    (file) =>
      Effect.promise(async () => {
        seen.push(file)
        const chunks: Array<Uint8Array> = []
        for await (const chunk of file.body) chunks.push(chunk)
        return Buffer.concat(chunks)
      }),
    options
  )

const reasonOf = <A>(exit: Exit.Exit<A, unknown>): MultipartErrorReason | string => {
  if (Exit.isSuccess(exit)) return "success"
  const reason = exit.cause.reasons[0]
  if (reason?._tag !== "Fail") return `cause ${String(exit.cause)}`
  return reason.error instanceof MultipartError ? reason.error.reason : String(reason.error)
}

const B = "----WebKitFormBoundary7MA4YWxkTrZu0gW"

// ---------------------------------------------------------------------------------------------
// Content-Type
// ---------------------------------------------------------------------------------------------

describe("boundaryOf", () => {
  it("reads the boundary, quoted or not, with other parameters around, any case of names", () => {
    assert.strictEqual(boundaryOf(`multipart/form-data; boundary=${B}`), B)
    assert.strictEqual(boundaryOf(`Multipart/Form-Data;charset=utf-8;BOUNDARY="${B}"`), B)
    assert.strictEqual(boundaryOf(`multipart/form-data; boundary="a b,c=d" ; charset=utf-8`), "a b,c=d")
    assert.strictEqual(boundaryOf(`multipart/form-data ; boundary = x'()+_,-./:=?y`), "x'()+_,-./:=?y")
    assert.strictEqual(boundaryOf(`multipart/form-data; boundary=${"a".repeat(70)}`), "a".repeat(70))
  })

  it("refuses a request that is not multipart/form-data", () => {
    for (const contentType of [undefined, "", "application/json", "multipart/mixed; boundary=x", "text/plain"]) {
      assert.throws(() => boundaryOf(contentType), /multipart\/form-data/)
      try {
        boundaryOf(contentType)
      } catch (error) {
        assert.strictEqual((error as MultipartError).reason, "NotMultipart")
      }
    }
  })

  it("refuses a missing, empty, too long or badly formed boundary", () => {
    for (const contentType of [
      "multipart/form-data",
      "multipart/form-data; charset=utf-8",
      "multipart/form-data; boundary=",
      'multipart/form-data; boundary=""',
      `multipart/form-data; boundary=${"a".repeat(71)}`,
      'multipart/form-data; boundary="ends with space "',
      "multipart/form-data; boundary=bad\u00e9char",
      'multipart/form-data; boundary="semi{brace}"'
    ]) {
      try {
        boundaryOf(contentType)
        assert.fail(`accepted ${contentType}`)
      } catch (error) {
        assert.strictEqual((error as MultipartError).reason, "BadBoundary", contentType)
      }
    }
  })

  it("header parameters: quoted strings with escapes and semicolons, first of a repeated name", () => {
    const params = headerParams('form-data; name="a;b"; filename="C:\\dir\\x \\"y\\".pdf"; name="second"; flag')
    assert.strictEqual(params.get("name"), "a;b")
    assert.strictEqual(params.get("filename"), 'C:\\dir\\x "y".pdf')
    assert.isFalse(params.has("flag"))
  })
})

// ---------------------------------------------------------------------------------------------
// Reading uploads
// ---------------------------------------------------------------------------------------------

describe("readMultipartUpload", () => {
  it.effect("reads fields and the file, whose part Content-Type and filename come with it", () =>
    Effect.gen(function* () {
      const pdf = Buffer.from("%PDF-1.7\r\n--not the boundary\r\n\r\nbinary \u0000\u00ff end")
      const body = build(B, [
        { name: "documentHolder", data: "Customer:019542f5-b3e7-1d02-0000-000000000001" },
        { name: "documentType", data: "PASSPORT" },
        { name: "file", data: pdf, filename: "passport scan.pdf", contentType: "Application/PDF; x=1" },
        { name: "country", data: "US" }
      ])
      const seen: Array<MultipartFile> = []
      const result = yield* upload(ctype(B), cut(body), {}, seen)
      assert.deepStrictEqual(result.fields, {
        documentHolder: "Customer:019542f5-b3e7-1d02-0000-000000000001",
        documentType: "PASSPORT",
        country: "US"
      })
      assert.deepStrictEqual(result.file, {
        name: "file",
        filename: "passport scan.pdf",
        contentType: "Application/PDF; x=1",
        mediaType: "application/pdf"
      })
      assert.isTrue(result.result.equals(pdf))
      // The fields after the file are only known afterwards.
      assert.deepStrictEqual(seen[0]!.fieldsBefore, {
        documentHolder: "Customer:019542f5-b3e7-1d02-0000-000000000001",
        documentType: "PASSPORT"
      })
    })
  )

  it.effect("defaults the Content-Type; reads filename* (RFC 5987) over filename; file as the only part", () =>
    Effect.gen(function* () {
      const body = build(B, [
        {
          name: "file",
          data: "x",
          rawHeaders: [
            `Content-Disposition: form-data; name="file"; filename="fallback.png"; filename*=UTF-8''%E2%82%AC%20rates.png`
          ]
        }
      ])
      const result = yield* upload(ctype(B), cut(body))
      assert.strictEqual(result.file.filename, "€ rates.png")
      assert.strictEqual(result.file.contentType, "application/octet-stream")
      assert.strictEqual(result.file.mediaType, "application/octet-stream")
      assert.deepStrictEqual(result.fields, {})
    })
  )

  it.effect("a file part without a filename is still the file (curl -F 'file=<x'); an empty file is fine", () =>
    Effect.gen(function* () {
      const result = yield* upload(ctype(B), cut(build(B, [{ name: "file", data: "" }])))
      assert.strictEqual(result.file.filename, undefined)
      assert.strictEqual(result.file.contentType, "text/plain")
      assert.strictEqual(result.result.byteLength, 0)
    })
  )

  it.effect("ignores the preamble and the epilogue, and blanks after a boundary; takes a Node Readable", () =>
    Effect.gen(function* () {
      const body = build(
        B,
        [
          { name: "a", data: "1" },
          { name: "file", data: "data", filename: "f.png" }
        ],
        {
          preamble: "This is the preamble.\r\nIt is ignored.",
          epilogue: `\r\nThis is the epilogue, also ignored. --${B}`,
          padding: " \t "
        }
      )
      const result = yield* upload(ctype(B), Readable.from([body.subarray(0, 10), body.subarray(10)]))
      assert.deepStrictEqual(result.fields, { a: "1" })
      assert.strictEqual(result.result.toString(), "data")
    })
  )

  it.effect("keeps CR, LF and near-boundaries inside the file as data", () =>
    Effect.gen(function* () {
      const tricky = [
        "\r",
        "\n",
        "\r\n",
        "\r\n-",
        "\r\n--",
        `\r\n--${B.slice(0, -1)}`,
        `--${B}`, // the boundary not at a line start
        `x\r\n--${B.slice(0, 10)}y\r\n`,
        "\r\r\n\n"
      ]
      for (const data of tricky) {
        for (const ending of ["", "tail"]) {
          const file = Buffer.from(data + ending)
          const body = build(B, [
            { name: "file", data: file, filename: "a.bin" },
            { name: "after", data: data }
          ])
          const result = yield* upload(ctype(B), cut(body, [1, 2, 3, body.byteLength - 5]))
          assert.isTrue(result.result.equals(file), JSON.stringify(data + ending))
          assert.strictEqual(result.fields["after"], data)
        }
      }
    })
  )

  it.effect("streams the file: the consumer gets bytes while the body is still arriving, in bounded chunks", () =>
    Effect.gen(function* () {
      const total = 20 * 1024 * 1024
      let produced = 0
      let producedAtFirstChunk = -1
      let largest = 0
      async function* body(): AsyncGenerator<Uint8Array> {
        yield Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`)
        const block = Buffer.alloc(64 * 1024, 0x61)
        while (produced < total) {
          produced += block.byteLength
          yield block
        }
        yield Buffer.from(`\r\n--${B}--\r\n`)
      }
      const result = yield* readMultipartUpload(ctype(B), body(), (file) =>
        Effect.promise(async () => {
          let size = 0
          for await (const chunk of file.body) {
            if (producedAtFirstChunk < 0) producedAtFirstChunk = produced
            largest = Math.max(largest, chunk.byteLength)
            size += chunk.byteLength
          }
          return size
        })
      )
      assert.strictEqual(result.result, total)
      assert.isAtMost(producedAtFirstChunk, 128 * 1024)
      assert.isAtMost(largest, 64 * 1024 + 128)
    })
  )
})

describe("readMultipartUpload errors", () => {
  const run = (contentType: string | undefined, body: Uint8Array, options: MultipartUploadOptions = {}) =>
    Effect.exit(upload(contentType, cut(body, [7, 50]), options))

  it.effect("no file part: MissingFile; two: TooManyFiles; a file in another part: UnexpectedFile", () =>
    Effect.gen(function* () {
      assert.strictEqual(reasonOf(yield* run(ctype(B), build(B, [{ name: "a", data: "1" }]))), "MissingFile")
      const two = build(B, [
        { name: "file", data: "1", filename: "a.pdf" },
        { name: "file", data: "2", filename: "b.pdf" }
      ])
      assert.strictEqual(reasonOf(yield* run(ctype(B), two)), "TooManyFiles")
      const other = build(B, [
        { name: "file", data: "1", filename: "a.pdf" },
        { name: "extra", data: "2", filename: "b.pdf" }
      ])
      assert.strictEqual(reasonOf(yield* run(ctype(B), other)), "UnexpectedFile")
      // Another file field name can be chosen.
      const named = build(B, [{ name: "csv", data: "a,b", filename: "x.csv" }])
      assert.strictEqual(reasonOf(yield* run(ctype(B), named, { fileField: "csv" })), "success")
    })
  )

  it.effect("too many fields, a field too large, a field given twice", () =>
    Effect.gen(function* () {
      const fields = Array.from({ length: 4 }, (_, i) => ({ name: `f${i}`, data: "v" }))
      const file = { name: "file", data: "x", filename: "a.png" }
      assert.strictEqual(reasonOf(yield* run(ctype(B), build(B, [...fields, file]), { maxFields: 3 })), "TooManyFields")
      assert.strictEqual(reasonOf(yield* run(ctype(B), build(B, [...fields, file]), { maxFields: 4 })), "success")
      const big = build(B, [{ name: "note", data: "x".repeat(101) }, file])
      assert.strictEqual(reasonOf(yield* run(ctype(B), big, { maxFieldBytes: 100 })), "FieldTooLarge")
      const fits = build(B, [{ name: "note", data: "x".repeat(100) }, file])
      assert.strictEqual(reasonOf(yield* run(ctype(B), fits, { maxFieldBytes: 100 })), "success")
      const twice = build(B, [{ name: "a", data: "1" }, file, { name: "a", data: "2" }])
      assert.strictEqual(reasonOf(yield* run(ctype(B), twice)), "DuplicateField")
    })
  )

  it.effect("headers too large; malformed parts", () =>
    Effect.gen(function* () {
      const long = build(B, [{ name: "file", data: "x", filename: "y".repeat(300) }])
      assert.strictEqual(reasonOf(yield* run(ctype(B), long, { maxHeaderBytes: 200 })), "HeadersTooLarge")
      const cases: Array<Buffer> = [
        build(B, [{ name: "file", data: "x", rawHeaders: ["Content-Type: image/png"] }]), // no Content-Disposition
        build(B, [{ name: "file", data: "x", rawHeaders: ["Content-Disposition: attachment; name=file"] }]),
        build(B, [{ name: "file", data: "x", rawHeaders: ['Content-Disposition: form-data; filename="a"'] }]),
        build(B, [{ name: "file", data: "x", rawHeaders: ["not a header line"] }]),
        Buffer.from(`--${B}garbage\r\n\r\nx\r\n--${B}--`), // text after a boundary
        Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"\r\n\r\nx\r\n--${B}X\r\n`),
        Buffer.from("no boundary anywhere in this body\r\n".repeat(3)),
        Buffer.from("x".repeat(20_000))
      ]
      for (const body of cases) {
        assert.strictEqual(reasonOf(yield* run(ctype(B), body)), "MalformedPart", body.toString().slice(0, 80))
      }
    })
  )

  it.effect("a body cut anywhere before its closing boundary is TruncatedBody", () =>
    Effect.gen(function* () {
      const body = build(B, [
        { name: "a", data: "1" },
        { name: "file", data: "file content\r\n", filename: "f.pdf" },
        { name: "b", data: "2" }
      ])
      assert.strictEqual(reasonOf(yield* run(ctype(B), new Uint8Array(0))), "TruncatedBody")
      for (let end = 1; end < body.byteLength - 1; end++) {
        const reason = reasonOf(yield* run(ctype(B), body.subarray(0, end)))
        // Cut inside the first boundary, before it is whole, the body does not contain its boundary.
        const expected = end < B.length + 2 ? "MalformedPart" : "TruncatedBody"
        assert.strictEqual(reason, expected, `cut at ${end}`)
      }
    })
  )

  it.effect("a truncated body under a file consumer that wraps it (DocumentStore.put) fails as TruncatedBody", () =>
    Effect.gen(function* () {
      const body = build(B, [{ name: "file", data: Buffer.alloc(100_000, 1), filename: "f.pdf" }])
      const exit = yield* Effect.exit(
        readMultipartUpload(ctype(B), cut(body.subarray(0, 50_000), [1000, 20_000]), (file) =>
          pumpBody("Document:1", file.body, 1_000_000, () => Effect.void)
        )
      )
      assert.strictEqual(reasonOf(exit), "TruncatedBody")
    })
  )

  it.effect("the consumer's own error fails the upload, and the request body is closed, not read on", () =>
    Effect.gen(function* () {
      let closed = false
      let pulled = 0
      async function* endless(): AsyncGenerator<Uint8Array> {
        try {
          yield Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="x"\r\n\r\n`)
          while (true) {
            pulled++
            yield Buffer.alloc(64 * 1024)
          }
        } finally {
          closed = true
        }
      }
      const exit = yield* Effect.exit(
        readMultipartUpload(ctype(B), endless(), (file) =>
          pumpBody("Document:2", file.body, 1_000_000, () => Effect.void)
        )
      )
      assert.isTrue(Exit.isFailure(exit))
      const reason = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
      assert.isTrue(reason?._tag === "Fail" && reason.error instanceof DocumentTooLarge)
      assert.isAtMost(pulled, 20)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 0)))
      assert.isTrue(closed)
    })
  )

  it.effect("a body that fails to read is ReadFailed (e.g. the client went away)", () =>
    Effect.gen(function* () {
      async function* broken(): AsyncGenerator<Uint8Array> {
        yield Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\n`)
        throw new Error("aborted")
      }
      assert.strictEqual(reasonOf(yield* Effect.exit(upload(ctype(B), broken()))), "ReadFailed")
      // Under a consumer that wraps the error, too.
      async function* brokenFile(): AsyncGenerator<Uint8Array> {
        yield Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="x"\r\n\r\nabc`)
        throw new Error("aborted")
      }
      const exit = yield* Effect.exit(
        readMultipartUpload(ctype(B), brokenFile(), (file) =>
          pumpBody("Document:3", file.body, 1000, () => Effect.void)
        )
      )
      assert.strictEqual(reasonOf(exit), "ReadFailed")
      assert.notInstanceOf(Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined, DocumentBodyError)
    })
  )

  it.effect("a bad Content-Type fails before reading", () =>
    Effect.gen(function* () {
      assert.strictEqual(reasonOf(yield* run("application/json", Buffer.from("{}"))), "NotMultipart")
      assert.strictEqual(reasonOf(yield* run("multipart/form-data", Buffer.from("x"))), "BadBoundary")
    })
  )
})

describe("parseMultipart", () => {
  it("yields fields and files in order; a file left unread is skipped", async () => {
    const body = build(B, [
      { name: "a", data: "1" },
      { name: "skipped", data: "x".repeat(100_000), filename: "s.bin" },
      { name: "file", data: "read me", filename: "r.txt", contentType: "text/plain" },
      { name: "b", data: "é" }
    ])
    const seen: Array<string> = []
    for await (const part of parseMultipart(cut(body, [100, 5000, 50_000]), B)) {
      if (part._tag === "Field") seen.push(`${part.name}=${part.value}`)
      else if (part.name === "file") {
        const chunks: Array<Uint8Array> = []
        for await (const chunk of part.body) chunks.push(chunk)
        seen.push(`file ${part.filename} ${part.mediaType} ${Buffer.concat(chunks).toString()}`)
      } else seen.push(`unread ${part.name}`)
    }
    assert.deepStrictEqual(seen, ["a=1", "unread skipped", "file r.txt text/plain read me", "b=é"])
  })
})

// ---------------------------------------------------------------------------------------------
// Any body, cut anywhere
// ---------------------------------------------------------------------------------------------

const boundaryArb = fc
  .string({ unit: fc.constantFrom(..."abcXYZ019'()+_,-./:=? "), minLength: 1, maxLength: 70 })
  .filter((b) => !b.endsWith(" "))

/** Bytes rich in what a parser trips on: CR, LF, dashes, and pieces of the boundary. */
const trickyBytes = (boundary: string) =>
  fc
    .array(
      fc.oneof(
        fc.constantFrom("\r", "\n", "\r\n", "-", "--", "\r\n--", `\r\n--${boundary.slice(0, -1)}`, `--${boundary}`),
        fc.constant(boundary.slice(0, Math.ceil(boundary.length / 2))),
        fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString("latin1")),
        fc.string({ maxLength: 10 })
      ),
      { maxLength: 30 }
    )
    .map((pieces) => Buffer.from(pieces.join(""), "latin1"))

const scenario = boundaryArb.chain((boundary) =>
  fc.record({
    boundary: fc.constant(boundary),
    fields: fc.uniqueArray(
      fc.record({
        name: fc.string({ unit: fc.constantFrom(..."abcdef_"), minLength: 1, maxLength: 8 }),
        value: trickyBytes(boundary).map((b) => b.toString("latin1"))
      }),
      { selector: (f) => f.name, maxLength: 5 }
    ),
    file: trickyBytes(boundary),
    filePosition: fc.nat(),
    quoted: fc.boolean(),
    preamble: fc.option(fc.constantFrom("preamble", "line one\r\nline two"), { nil: undefined }),
    epilogue: fc.option(fc.constantFrom("\r\n", "epilogue\r\n", `--${boundary}`), { nil: undefined }),
    cuts: fc.array(fc.nat(), { maxLength: 40 })
  })
)

describe("readMultipartUpload (property)", () => {
  it("reads back every field and the file byte-exact, whatever the boundary, content and chunking", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ boundary, fields, file, filePosition, quoted, preamble, epilogue, cuts }) => {
        // A sender picks a boundary that its content does not hold (RFC 2046): such bodies are ambiguous.
        const delimiter = Buffer.from(`\r\n--${boundary}`, "latin1")
        fc.pre(!file.includes(delimiter) && fields.every((f) => !Buffer.from(f.value, "latin1").includes(delimiter)))
        const position = filePosition % (fields.length + 1)
        const parts: Array<Part> = fields
          .filter((f) => f.name !== "file")
          .map((f) => ({ name: f.name, data: Buffer.from(f.value, "latin1") }))
        parts.splice(position, 0, { name: "file", data: file, filename: "scan.png", contentType: "image/png" })
        const body = build(boundary, parts, {
          ...(preamble === undefined ? {} : { preamble }),
          ...(epilogue === undefined ? {} : { epilogue })
        })
        const contentType = `multipart/form-data; boundary=${quoted || /[ ()'+,/:=?]/.test(boundary) ? `"${boundary}"` : boundary}`
        const result = await Effect.runPromise(upload(contentType, cut(body, cuts)))
        assert.isTrue(result.result.equals(file))
        assert.strictEqual(result.file.mediaType, "image/png")
        assert.deepStrictEqual(
          result.fields,
          Object.fromEntries(
            parts.filter((p) => p.name !== "file").map((p) => [p.name, Buffer.from(p.data).toString("utf8")])
          )
        )
      }),
      { numRuns: 400 }
    )
  })
})
