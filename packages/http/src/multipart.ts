import { Effect, Exit, Schema } from "effect"

/**
 * A streaming `multipart/form-data` reader (RFC 7578 over RFC 2046): small text fields are read whole (with size
 * and count caps); the one file part is handed out as a stream of byte chunks while it arrives, never buffered.
 *
 * - The boundary comes from the request's `Content-Type` (`boundary=...`, quoted or not, any parameter order).
 * - Delimiters are found wherever the body's chunks are cut (a chunk may end inside `\r\n--boundary`).
 * - Line breaks are CRLF, as the RFC requires; bytes inside a part (bare CR or LF included) are data.
 * - The preamble before the first boundary and the epilogue after the last are ignored (the epilogue is not read).
 * - A part is the file when its name is the file field (`file` by default); another part with a filename is
 *   refused, so is a second file. The file part may come anywhere, fields after it included.
 */

export class MultipartError extends Schema.TaggedError<MultipartError>()("MultipartError", {
  reason: Schema.Literals([
    /** The request's Content-Type is not multipart/form-data. */
    "NotMultipart",
    /** No boundary parameter, or not a valid one (1-70 characters of the RFC 2046 set, not ending in a space). */
    "BadBoundary",
    /** The body ended before the closing boundary. */
    "TruncatedBody",
    /** Reading the body failed (the connection broke). */
    "ReadFailed",
    /** Not multipart as the RFC writes it: no boundary at the start, no CRLF after one, a part without a name. */
    "MalformedPart",
    /** A part's headers are longer than `maxHeaderBytes`. */
    "HeadersTooLarge",
    /** More text fields than `maxFields`. */
    "TooManyFields",
    /** A text field longer than `maxFieldBytes`. */
    "FieldTooLarge",
    /** Two fields with one name. */
    "DuplicateField",
    /** No part named as the file field. */
    "MissingFile",
    /** A second part named as the file field. */
    "TooManyFiles",
    /** A part other than the file field carries a file (a filename). */
    "UnexpectedFile"
  ]),
  message: Schema.String,
  /** The part's name, when the error is about one part. */
  field: Schema.optional(Schema.String)
}) {}

export type MultipartErrorReason = MultipartError["reason"]

export interface MultipartLimits {
  /** Text fields at most (default 32). */
  readonly maxFields?: number
  /** Bytes of one text field's value at most (default 16 KiB). */
  readonly maxFieldBytes?: number
  /** Bytes of one part's header block at most, and of the preamble (default 8 KiB). */
  readonly maxHeaderBytes?: number
}

const DEFAULT_LIMITS: Required<MultipartLimits> = { maxFields: 32, maxFieldBytes: 16 * 1024, maxHeaderBytes: 8 * 1024 }

const failWith = (reason: MultipartErrorReason, message: string, field?: string): MultipartError =>
  new MultipartError(field === undefined ? { reason, message } : { reason, message, field })

// ---------------------------------------------------------------------------------------------
// Header parameters
// ---------------------------------------------------------------------------------------------

/**
 * Parameters of a header value after its first `;` (`type; a=1; b="x;y"`), names lowercased, the first of a
 * repeated name kept. Quoted values unescape `\"` and `\\` only: browsers send file names with raw backslashes
 * (`C:\dir\a.pdf`).
 */
export const headerParams = (value: string): Map<string, string> => {
  const params = new Map<string, string>()
  let i = value.indexOf(";")
  if (i < 0) return params
  const n = value.length
  while (i < n) {
    while (i < n && (value[i] === ";" || value[i] === " " || value[i] === "\t")) i++
    const nameStart = i
    while (i < n && value[i] !== "=" && value[i] !== ";") i++
    const name = value.slice(nameStart, i).trim().toLowerCase()
    if (i >= n || value[i] === ";") {
      continue
    }
    i++ // "="
    while (i < n && (value[i] === " " || value[i] === "\t")) i++
    let param = ""
    if (value[i] === '"') {
      i++
      while (i < n && value[i] !== '"') {
        if (value[i] === "\\" && (value[i + 1] === '"' || value[i + 1] === "\\")) i++
        param += value[i]
        i++
      }
      i++ // closing quote
      while (i < n && value[i] !== ";") i++
    } else {
      const start = i
      while (i < n && value[i] !== ";") i++
      param = value.slice(start, i).trim()
    }
    if (name !== "" && !params.has(name)) params.set(name, param)
  }
  return params
}

/** The media type of a header value, lowercased, without parameters (`Image/PNG; x=1` → `image/png`). */
export const mediaTypeOf = (value: string): string => {
  const semicolon = value.indexOf(";")
  return (semicolon < 0 ? value : value.slice(0, semicolon)).trim().toLowerCase()
}

const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/

/** The boundary of a `multipart/form-data` Content-Type; throws `MultipartError` when there is none. */
export const boundaryOf = (contentType: string | undefined): string => {
  if (contentType === undefined || mediaTypeOf(contentType) !== "multipart/form-data") {
    throw failWith("NotMultipart", "The request body must be multipart/form-data")
  }
  const boundary = headerParams(contentType).get("boundary")
  if (boundary === undefined) throw failWith("BadBoundary", "The multipart/form-data Content-Type has no boundary")
  if (!BOUNDARY.test(boundary)) {
    throw failWith("BadBoundary", "The multipart boundary must be 1 to 70 allowed characters, not ending in a space")
  }
  return boundary
}

/** `filename*=charset'lang'percent-encoded` (RFC 5987), or `undefined` when it cannot be read. */
const extendedValue = (value: string): string | undefined => {
  const first = value.indexOf("'")
  const second = first < 0 ? -1 : value.indexOf("'", first + 1)
  if (second < 0) return undefined
  const charset = value.slice(0, first) || "utf-8"
  const encoded = value.slice(second + 1)
  const bytes: Array<number> = []
  for (let i = 0; i < encoded.length; i++) {
    const c = encoded[i]!
    if (c === "%" && /^[0-9A-Fa-f]{2}$/.test(encoded.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(encoded.slice(i + 1, i + 3), 16))
      i += 2
    } else {
      bytes.push(...new TextEncoder().encode(c))
    }
  }
  try {
    return new TextDecoder(charset).decode(Uint8Array.from(bytes))
  } catch {
    return undefined
  }
}

// ---------------------------------------------------------------------------------------------
// The reader
// ---------------------------------------------------------------------------------------------

/** A part's headers, as the reader found them. */
export interface PartHeaders {
  /** The `name` of its Content-Disposition. */
  readonly name: string
  /** The `filename` (or `filename*`) of its Content-Disposition, as sent (it may hold a path). */
  readonly filename: string | undefined
  /** Its `Content-Type` as sent; `text/plain` for a field and `application/octet-stream` for a file without one. */
  readonly contentType: string
  /** `contentType`'s media type, lowercased, without parameters: what to check against a list of accepted types. */
  readonly mediaType: string
}

const EMPTY = Buffer.alloc(0)
const CRLF_CRLF = Buffer.from("\r\n\r\n")

type ReaderState = "start" | "afterDelimiter" | "headers" | "body" | "done"

/**
 * Pull-based reader of one multipart body. `nextPart()` answers the next part's headers (or `undefined` after the
 * closing boundary); `partBody()` then streams that part's bytes. Calling `nextPart()` before a part's body was
 * read to its end skips the rest of it. Every failure is a `MultipartError`, thrown, and also kept in `failure`.
 */
export class MultipartReader {
  private buf: Buffer = EMPTY
  private sourceDone = false
  private state: ReaderState = "start"
  private readonly delimiter: Buffer
  private readonly dashBoundary: Buffer
  private readonly limits: Required<MultipartLimits>
  private readonly source: AsyncIterator<Uint8Array>
  /** The first error met (a consumer of a part's body may have swallowed it). */
  failure: MultipartError | undefined

  constructor(body: AsyncIterable<Uint8Array>, boundary: string, limits: MultipartLimits = {}) {
    this.source = body[Symbol.asyncIterator]()
    this.dashBoundary = Buffer.from(`--${boundary}`, "latin1")
    this.delimiter = Buffer.from(`\r\n--${boundary}`, "latin1")
    this.limits = { ...DEFAULT_LIMITS, ...limits }
  }

  private fail(reason: MultipartErrorReason, message: string, field?: string): never {
    const error = failWith(reason, message, field)
    this.failure ??= error
    this.state = "done"
    throw error
  }

  /** Appends the next chunk of the source to the buffer; `false` at its end. */
  private async more(): Promise<boolean> {
    if (this.sourceDone) return false
    let next: IteratorResult<Uint8Array>
    try {
      next = await this.source.next()
    } catch (cause) {
      return this.fail(
        "ReadFailed",
        `Reading the request body failed: ${cause instanceof Error ? cause.message : cause}`
      )
    }
    if (next.done === true) {
      this.sourceDone = true
      return false
    }
    const value: unknown = next.value
    const chunk =
      value instanceof Uint8Array
        ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
        : typeof value === "string"
          ? Buffer.from(value, "latin1")
          : this.fail("ReadFailed", "The request body yielded something other than bytes")
    this.buf = this.buf.byteLength === 0 ? chunk : Buffer.concat([this.buf, chunk])
    return true
  }

  private truncated(): never {
    return this.fail("TruncatedBody", "The multipart body ended before its closing boundary")
  }

  /** Past the preamble and the first boundary. */
  private async readPreamble(): Promise<void> {
    while (true) {
      const dash = this.dashBoundary
      if (this.buf.byteLength >= dash.byteLength && this.buf.subarray(0, dash.byteLength).equals(dash)) {
        this.buf = this.buf.subarray(dash.byteLength)
        break
      }
      const at = this.buf.indexOf(this.delimiter)
      if (at >= 0) {
        this.buf = this.buf.subarray(at + this.delimiter.byteLength)
        break
      }
      if (this.buf.byteLength > this.limits.maxHeaderBytes + this.delimiter.byteLength) {
        this.fail("MalformedPart", "The multipart body does not start with its boundary")
      }
      if (!(await this.more())) {
        if (this.buf.byteLength === 0) this.fail("TruncatedBody", "The multipart body is empty")
        this.fail("MalformedPart", "The multipart body does not contain its boundary")
      }
    }
    this.state = "afterDelimiter"
  }

  /** After a boundary: `--` closes the body; else optional blanks and a CRLF start a part's headers. */
  private async readAfterDelimiter(): Promise<void> {
    while (true) {
      if (this.buf.byteLength >= 2 && this.buf[0] === 0x2d && this.buf[1] === 0x2d) {
        // The close delimiter: the rest (epilogue) is not read.
        this.buf = EMPTY
        this.state = "done"
        return
      }
      const crlf = this.buf.indexOf("\r\n")
      if (crlf >= 0) {
        for (let i = 0; i < crlf; i++) {
          if (this.buf[i] !== 0x20 && this.buf[i] !== 0x09) {
            this.fail("MalformedPart", "A multipart boundary is not followed by a line break")
          }
        }
        this.buf = this.buf.subarray(crlf + 2)
        this.state = "headers"
        return
      }
      for (let i = 0; i < this.buf.byteLength; i++) {
        const b = this.buf[i]
        if (b !== 0x20 && b !== 0x09 && !(i === this.buf.byteLength - 1 && (b === 0x0d || b === 0x2d))) {
          this.fail("MalformedPart", "A multipart boundary is not followed by a line break")
        }
      }
      if (this.buf.byteLength > this.limits.maxHeaderBytes) {
        this.fail("MalformedPart", "A multipart boundary is not followed by a line break")
      }
      if (!(await this.more())) this.truncated()
    }
  }

  private async readHeaders(): Promise<PartHeaders> {
    let block: Buffer
    while (true) {
      if (this.buf.byteLength >= 2 && this.buf[0] === 0x0d && this.buf[1] === 0x0a) {
        block = EMPTY
        this.buf = this.buf.subarray(2)
        break
      }
      const end = this.buf.indexOf(CRLF_CRLF)
      if (end >= 0) {
        block = this.buf.subarray(0, end)
        this.buf = this.buf.subarray(end + 4)
        break
      }
      if (this.buf.byteLength > this.limits.maxHeaderBytes) {
        this.fail("HeadersTooLarge", `A part's headers are longer than ${this.limits.maxHeaderBytes} bytes`)
      }
      if (!(await this.more())) this.truncated()
    }
    if (block.byteLength > this.limits.maxHeaderBytes) {
      this.fail("HeadersTooLarge", `A part's headers are longer than ${this.limits.maxHeaderBytes} bytes`)
    }
    const headers = new Map<string, string>()
    let last: string | undefined
    for (const line of block.toString("utf8").split("\r\n")) {
      if ((line.startsWith(" ") || line.startsWith("\t")) && last !== undefined) {
        headers.set(last, `${headers.get(last)} ${line.trim()}`) // obsolete line folding
        continue
      }
      const colon = line.indexOf(":")
      if (colon <= 0) this.fail("MalformedPart", "A part has a malformed header line")
      last = line.slice(0, colon).trim().toLowerCase()
      if (!headers.has(last)) headers.set(last, line.slice(colon + 1).trim())
    }
    const disposition = headers.get("content-disposition")
    if (disposition === undefined || mediaTypeOf(disposition) !== "form-data") {
      this.fail("MalformedPart", "A part has no Content-Disposition: form-data header")
    }
    const params = headerParams(disposition)
    const name = params.get("name")
    if (name === undefined) this.fail("MalformedPart", "A part's Content-Disposition has no name")
    const extended = params.get("filename*")
    const filename = (extended === undefined ? undefined : extendedValue(extended)) ?? params.get("filename")
    const contentType =
      headers.get("content-type") ?? (filename === undefined ? "text/plain" : "application/octet-stream")
    this.state = "body"
    return { name, filename, contentType, mediaType: mediaTypeOf(contentType) }
  }

  /** The next part's headers, or `undefined` after the closing boundary. Skips what is left of the previous part. */
  async nextPart(): Promise<PartHeaders | undefined> {
    if (this.failure !== undefined) throw this.failure
    if (this.state === "body") for await (const _ of this.partBody()) void _
    if (this.state === "start") await this.readPreamble()
    if (this.state === "afterDelimiter") await this.readAfterDelimiter()
    if (this.state === "done") return undefined
    return this.readHeaders()
  }

  /**
   * The bytes of the current part, chunk by chunk as they arrive, up to the next boundary. The chunks are views
   * into the reader's buffers, never written again. Ends at once when there is no current part.
   */
  async *partBody(): AsyncGenerator<Uint8Array, void, undefined> {
    while (this.state === "body") {
      const at = this.buf.indexOf(this.delimiter)
      if (at >= 0) {
        const data = this.buf.subarray(0, at)
        this.buf = this.buf.subarray(at + this.delimiter.byteLength)
        this.state = "afterDelimiter"
        if (data.byteLength > 0) yield data
        return
      }
      // Everything but a tail that could be the start of a delimiter cut by the chunk edge.
      const keep = Math.min(this.buf.byteLength, this.delimiter.byteLength - 1)
      const ready = this.buf.byteLength - keep
      if (ready > 0) {
        const data = this.buf.subarray(0, ready)
        this.buf = this.buf.subarray(ready)
        yield data
      }
      if (!(await this.more())) this.truncated()
    }
  }

  /** Stops reading: closes the source (without waiting) unless it was read to its end. */
  close(): void {
    if (this.sourceDone || this.source.return === undefined) return
    this.sourceDone = true
    try {
      this.source.return().then(
        () => undefined,
        () => undefined
      )
    } catch {
      // Nothing more to release.
    }
  }
}

/** A part of a multipart body: a text field, read whole, or a file, as a stream (`MultipartReader.partBody`). */
export type MultipartPart =
  | { readonly _tag: "Field"; readonly name: string; readonly value: string }
  | ({ readonly _tag: "File"; readonly body: AsyncIterable<Uint8Array> } & PartHeaders)

/**
 * The parts of a multipart body, in order: a part with a filename is a `File` (read its `body` before asking for
 * the next part, or it is skipped), any other part a `Field` (capped by `maxFields` and `maxFieldBytes`, decoded
 * as UTF-8). Throws `MultipartError`. Breaking out of the loop closes the source.
 */
export async function* parseMultipart(
  body: AsyncIterable<Uint8Array>,
  boundary: string,
  limits: MultipartLimits = {}
): AsyncGenerator<MultipartPart, void, undefined> {
  const reader = new MultipartReader(body, boundary, limits)
  const { maxFields, maxFieldBytes } = { ...DEFAULT_LIMITS, ...limits }
  let fields = 0
  try {
    while (true) {
      const part = await reader.nextPart()
      if (part === undefined) return
      if (part.filename !== undefined) {
        yield { _tag: "File", ...part, body: reader.partBody() }
        continue
      }
      if (++fields > maxFields) throw failWith("TooManyFields", `More than ${maxFields} fields`, part.name)
      yield { _tag: "Field", name: part.name, value: await readField(reader, part.name, maxFieldBytes) }
    }
  } finally {
    reader.close()
  }
}

const readField = async (reader: MultipartReader, name: string, maxBytes: number): Promise<string> => {
  const chunks: Array<Uint8Array> = []
  let size = 0
  for await (const chunk of reader.partBody()) {
    size += chunk.byteLength
    if (size > maxBytes) throw failWith("FieldTooLarge", `The field ${name} is longer than ${maxBytes} bytes`, name)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString("utf8")
}

// ---------------------------------------------------------------------------------------------
// One file and its fields, as an Effect
// ---------------------------------------------------------------------------------------------

/** The file part handed to `onFile`: its headers, the fields that came before it, and its bytes as they arrive. */
export interface MultipartFile extends PartHeaders {
  /** Fields before the file in the body (the others are only known once the file has been read). */
  readonly fieldsBefore: Readonly<Record<string, string>>
  /** Read it once, to its end or not at all (what is left is skipped). */
  readonly body: AsyncIterable<Uint8Array>
}

export interface MultipartUpload<A> {
  /** Every text field, before and after the file. */
  readonly fields: Readonly<Record<string, string>>
  readonly file: PartHeaders
  /** What `onFile` answered. */
  readonly result: A
}

/** A form whose file part may be absent (`readMultipartForm`). */
export interface MultipartForm<A> {
  readonly fields: Readonly<Record<string, string>>
  /** The file part's headers and what `onFile` answered; `undefined` when the body has no file part. */
  readonly file: { readonly headers: PartHeaders; readonly result: A } | undefined
}

export interface MultipartUploadOptions extends MultipartLimits {
  /** The name of the file part (default `file`). */
  readonly fileField?: string
}

/**
 * Reads a `multipart/form-data` request of text fields and at most one file: `onFile` gets the file part as it
 * arrives (e.g. to `DocumentStore.put` it) and the rest of the body is read after it returns. Fails with
 * `MultipartError` (no or bad Content-Type, two files, too many or too large fields, a truncated or malformed
 * body), or with `onFile`'s error. When `onFile` failed because the body broke while it read the file (a
 * truncated body reaches it wrapped, e.g. in a `DocumentBodyError`), the `MultipartError` is what fails. The
 * request body is closed on failure or interruption; after success, its epilogue is left unread.
 *
 * The file is streamed before the fields after it are known: an `onFile` that stores it should be undone by the
 * caller when those fields turn out invalid.
 */
export const readMultipartForm = <A, E, R>(
  contentType: string | undefined,
  body: AsyncIterable<Uint8Array>,
  onFile: (file: MultipartFile) => Effect.Effect<A, E, R>,
  options: MultipartUploadOptions = {}
): Effect.Effect<MultipartForm<A>, MultipartError | E, R> => {
  const fileField = options.fileField ?? "file"
  const { maxFields, maxFieldBytes } = { ...DEFAULT_LIMITS, ...options }
  const asMultipartError = (cause: unknown): MultipartError =>
    cause instanceof MultipartError ? cause : failWith("ReadFailed", String(cause))
  const step = <T>(run: () => Promise<T>) => Effect.tryPromise({ try: run, catch: asMultipartError })

  return Effect.acquireUseRelease(
    Effect.try({
      try: () => new MultipartReader(body, boundaryOf(contentType), options),
      catch: asMultipartError
    }),
    (reader) =>
      Effect.gen(function* () {
        const fields = new Map<string, string>()
        let file: { readonly headers: PartHeaders; readonly result: A } | undefined
        while (true) {
          const part = yield* step(() => reader.nextPart())
          if (part === undefined) break
          if (part.name === fileField) {
            if (file !== undefined) {
              return yield* failWith("TooManyFiles", `More than one ${fileField} part`, part.name)
            }
            const exit = yield* Effect.exit(
              onFile({ ...part, fieldsBefore: Object.fromEntries(fields), body: reader.partBody() })
            )
            if (Exit.isFailure(exit)) {
              // The body broke under the file's consumer: that is the error, not how the consumer wrapped it.
              if (reader.failure !== undefined) return yield* reader.failure
              return yield* Effect.failCause(exit.cause)
            }
            file = { headers: part, result: exit.value }
            continue
          }
          if (part.filename !== undefined) {
            return yield* failWith("UnexpectedFile", `Only the ${fileField} part may carry a file`, part.name)
          }
          if (fields.has(part.name)) {
            return yield* failWith("DuplicateField", `The field ${part.name} is given twice`, part.name)
          }
          if (fields.size >= maxFields)
            return yield* failWith("TooManyFields", `More than ${maxFields} fields`, part.name)
          fields.set(part.name, yield* step(() => readField(reader, part.name, maxFieldBytes)))
        }
        return { fields: Object.fromEntries(fields), file }
      }),
    (reader, exit) => Effect.sync(() => (Exit.isSuccess(exit) ? undefined : reader.close()))
  )
}

/** `readMultipartForm` of a body that must carry the file part: without one it fails with `MissingFile`. */
export const readMultipartUpload = <A, E, R>(
  contentType: string | undefined,
  body: AsyncIterable<Uint8Array>,
  onFile: (file: MultipartFile) => Effect.Effect<A, E, R>,
  options: MultipartUploadOptions = {}
): Effect.Effect<MultipartUpload<A>, MultipartError | E, R> =>
  Effect.flatMap(readMultipartForm(contentType, body, onFile, options), ({ fields, file }) => {
    const fileField = options.fileField ?? "file"
    return file === undefined
      ? Effect.fail(failWith("MissingFile", `The ${fileField} part is missing`, fileField))
      : Effect.succeed({ fields, file: file.headers, result: file.result })
  })
