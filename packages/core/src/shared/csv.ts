import { Schema } from "effect"

/**
 * A streaming CSV reader (RFC 4180): fields separated by commas, records by CRLF, LF or a lone CR; fields in
 * double quotes may hold commas, line breaks and doubled quotes (`""`); a UTF-8 byte order mark at the start is
 * dropped. Input arrives as chunks (text or UTF-8 bytes, split anywhere, even inside a character or a CRLF) and
 * records leave one at a time: memory holds one chunk and one record, never the file.
 *
 * Leniency, where files in the wild break the RFC: a quote inside an unquoted field is kept as text; blank lines
 * are skipped; header names are trimmed. Problems of one record (a wrong number of fields, text after a closing
 * quote, a quote never closed) are reported for that record and reading goes on; only problems that make the
 * rest unreadable fail the whole file (`CsvError`).
 */

/** The header: the first record (the names of the columns). */
export interface CsvHeader {
  readonly _tag: "Header"
  readonly line: number
  readonly columns: ReadonlyArray<string>
}

/** A record with as many fields as the header, keyed by column name. */
export interface CsvRecord {
  readonly _tag: "Record"
  /** The line the record starts on (1-based; the header is on line 1 unless blank lines precede it). */
  readonly line: number
  readonly record: Readonly<Record<string, string>>
}

/** A record that cannot be read as a row of the file; the next records are read as usual. */
export interface CsvRowError {
  readonly _tag: "RowError"
  readonly line: number
  /**
   * `ColumnCount`: not as many fields as the header; `Quote`: text after a closing quote, or a quote that is never
   * closed (the record then runs to the end of the file).
   */
  readonly reason: "ColumnCount" | "Quote"
  readonly message: string
  /** The fields as read (for a correlation id, e.g.). */
  readonly fields: ReadonlyArray<string>
}

export type CsvItem = CsvHeader | CsvRecord | CsvRowError

/** The file cannot be read on: no header, a bad header, a record over the size limit, bytes that are not UTF-8. */
export class CsvError extends Schema.TaggedError<CsvError>()("CsvError", {
  reason: Schema.Literals(["Empty", "BadHeader", "RecordTooLarge", "InvalidEncoding"]),
  line: Schema.Number,
  message: Schema.String
}) {}

export interface CsvOptions {
  /**
   * The longest record, in characters (default 1 MiB): a longer one fails the file with `RecordTooLarge`. It
   * bounds the memory a record can take, e.g. behind a quote that is never closed.
   */
  readonly maxRecordChars?: number
}

const DEFAULT_MAX_RECORD_CHARS = 1024 * 1024

const QUOTE = 34 // "
const COMMA = 44 // ,
const CR = 13
const LF = 10

// Tokenizer states.
/** At the start of a field. */
const FIELD_START = 0
/** In a field without quotes. */
const UNQUOTED = 1
/** In a quoted field. */
const QUOTED = 2
/** In a quoted field, just after a quote: a second quote is a literal one, anything else closes the field. */
const QUOTE_IN_QUOTED = 3
type State = typeof FIELD_START | typeof UNQUOTED | typeof QUOTED | typeof QUOTE_IN_QUOTED

/** A raw record: its fields, the line it starts on, and whether its quotes were broken. */
export interface RawCsvRecord {
  readonly fields: Array<string>
  readonly line: number
  readonly badQuote: "TextAfterQuote" | "Unclosed" | undefined
}

/**
 * The tokenizer under `parseCsv`: feed it text in pieces, it hands out complete records. Exposed for callers that
 * want raw records (no header handling).
 */
export class CsvTokenizer {
  private state: State = FIELD_START
  private field = ""
  private fields: Array<string> = []
  /** Something of the current record was read (so `""` alone is a record, and an empty line is not). */
  private started = false
  private chars = 0
  private badQuote: RawCsvRecord["badQuote"] = undefined
  /** The last character was a CR: a LF right after it belongs to the same line break. */
  private afterCR = false
  private line = 1
  private recordLine = 1
  private readonly maxRecordChars: number

  constructor(options: CsvOptions = {}) {
    this.maxRecordChars = options.maxRecordChars ?? DEFAULT_MAX_RECORD_CHARS
  }

  /** The records `text` completes, in order. */
  feed(text: string): Array<RawCsvRecord> {
    const out: Array<RawCsvRecord> = []
    const n = text.length
    let i = 0
    while (i < n) {
      const c = text.charCodeAt(i)
      if (this.afterCR) {
        this.afterCR = false
        if (c === LF) {
          // The LF of a CRLF: the line was already counted (and the record ended, outside quotes).
          if (this.state === QUOTED) {
            this.field += "\n"
            this.grow(1)
          }
          i++
          continue
        }
      }
      switch (this.state) {
        case FIELD_START:
        case UNQUOTED: {
          if (c === QUOTE && this.state === FIELD_START) {
            this.state = QUOTED
            this.started = true
            i++
            break
          }
          // Scan the run of plain characters in one slice.
          let j = i
          while (j < n) {
            const d = text.charCodeAt(j)
            if (d === COMMA || d === CR || d === LF) break
            j++
          }
          if (j > i) {
            this.field += text.slice(i, j)
            this.grow(j - i)
            this.state = UNQUOTED
            this.started = true
          }
          if (j >= n) {
            i = j
            break
          }
          const d = text.charCodeAt(j)
          if (d === COMMA) {
            this.endField()
            this.started = true
            this.grow(1)
          } else {
            this.lineBreak(d)
            this.endRecord(out)
          }
          i = j + 1
          break
        }
        case QUOTED: {
          let j = i
          while (j < n) {
            const d = text.charCodeAt(j)
            if (d === QUOTE || d === CR || d === LF) break
            j++
          }
          if (j > i) {
            this.field += text.slice(i, j)
            this.grow(j - i)
          }
          if (j >= n) {
            i = j
            break
          }
          const d = text.charCodeAt(j)
          if (d === QUOTE) {
            this.state = QUOTE_IN_QUOTED
          } else {
            // A line break inside quotes is data: CRLF, LF and CR are kept as they are.
            this.field += d === CR ? "\r" : "\n"
            this.grow(1)
            this.lineBreak(d)
          }
          i = j + 1
          break
        }
        case QUOTE_IN_QUOTED: {
          if (c === QUOTE) {
            this.field += '"'
            this.grow(1)
            this.state = QUOTED
            i++
          } else if (c === COMMA) {
            this.endField()
            i++
          } else if (c === CR || c === LF) {
            this.lineBreak(c)
            this.endRecord(out)
            i++
          } else {
            // Text after the closing quote: keep it (the record is reported as broken).
            this.badQuote ??= "TextAfterQuote"
            this.state = UNQUOTED
          }
          break
        }
      }
    }
    return out
  }

  /** The last record, when the text ended without a line break after it. */
  end(): RawCsvRecord | undefined {
    if (this.state === QUOTED) this.badQuote = "Unclosed"
    if (!this.started && this.field === "" && this.fields.length === 0) return undefined
    const out: Array<RawCsvRecord> = []
    this.endRecord(out)
    return out[0]
  }

  /** The line the next character is on. */
  get currentLine(): number {
    return this.line
  }

  private grow(count: number): void {
    this.chars += count
    if (this.chars > this.maxRecordChars) {
      throw new CsvError({
        reason: "RecordTooLarge",
        line: this.recordLine,
        message: `The record starting on line ${this.recordLine} is longer than ${this.maxRecordChars} characters`
      })
    }
  }

  private lineBreak(c: number): void {
    this.line++
    if (c === CR) this.afterCR = true
  }

  private endField(): void {
    this.fields.push(this.field)
    this.field = ""
    this.state = FIELD_START
  }

  private endRecord(out: Array<RawCsvRecord>): void {
    if (this.started || this.field !== "" || this.fields.length > 0) {
      this.fields.push(this.field)
      out.push({ fields: this.fields, line: this.recordLine, badQuote: this.badQuote })
    }
    this.fields = []
    this.field = ""
    this.state = FIELD_START
    this.started = false
    this.chars = 0
    this.badQuote = undefined
    this.recordLine = this.line
  }
}

const BOM = "\uFEFF"

/** Decodes chunks of text or UTF-8 bytes into text, dropping a byte order mark at the very start. */
async function* decodeChunks(
  chunks: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  line: () => number
): AsyncGenerator<string> {
  // `ignoreBOM: true` keeps a BOM in the output: it is dropped below, once, whether it came as bytes or text.
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
  let atStart = true
  const decode = (bytes: Uint8Array | undefined): string => {
    try {
      return bytes === undefined ? decoder.decode() : decoder.decode(bytes, { stream: true })
    } catch {
      throw new CsvError({ reason: "InvalidEncoding", line: line(), message: `Line ${line()} is not valid UTF-8` })
    }
  }
  for await (const chunk of chunks) {
    let text = typeof chunk === "string" ? decode(undefined) + chunk : decode(chunk)
    if (atStart && text.length > 0) {
      atStart = false
      if (text.startsWith(BOM)) text = text.slice(1)
    }
    if (text.length > 0) yield text
  }
  const rest = decode(undefined)
  if (rest.length > 0) yield atStart && rest.startsWith(BOM) ? rest.slice(1) : rest
}

/**
 * Reads a CSV file as it streams in: first its `Header`, then, one at a time, a `Record` (keyed by the header's
 * column names) or a `RowError` per record. Fails (throws `CsvError`) when the file has no header, the header
 * has an empty or repeated name, a record passes `maxRecordChars`, or the bytes are not UTF-8.
 */
export async function* parseCsv(
  chunks: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  options: CsvOptions = {}
): AsyncGenerator<CsvItem, void, undefined> {
  const tokenizer = new CsvTokenizer(options)
  let columns: ReadonlyArray<string> | undefined

  const itemOf = (raw: RawCsvRecord): CsvItem => {
    if (columns === undefined) {
      columns = raw.fields.map((name) => name.trim())
      const seen = new Set<string>()
      for (const name of columns) {
        if (name === "" || seen.has(name)) {
          throw new CsvError({
            reason: "BadHeader",
            line: raw.line,
            message: name === "" ? "The header has an empty column name" : `The header names the column "${name}" twice`
          })
        }
        seen.add(name)
      }
      return { _tag: "Header", line: raw.line, columns }
    }
    if (raw.badQuote !== undefined) {
      return {
        _tag: "RowError",
        line: raw.line,
        reason: "Quote",
        message:
          raw.badQuote === "Unclosed"
            ? `The quote opened in the record on line ${raw.line} is never closed`
            : `The record on line ${raw.line} has text after a closing quote`,
        fields: raw.fields
      }
    }
    if (raw.fields.length !== columns.length) {
      return {
        _tag: "RowError",
        line: raw.line,
        reason: "ColumnCount",
        message: `The record on line ${raw.line} has ${raw.fields.length} fields; the header has ${columns.length}`,
        fields: raw.fields
      }
    }
    const header = columns
    return { _tag: "Record", line: raw.line, record: Object.fromEntries(raw.fields.map((v, i) => [header[i]!, v])) }
  }

  for await (const text of decodeChunks(chunks, () => tokenizer.currentLine)) {
    for (const raw of tokenizer.feed(text)) yield itemOf(raw)
  }
  const last = tokenizer.end()
  if (last !== undefined) yield itemOf(last)
  if (columns === undefined) throw new CsvError({ reason: "Empty", line: 1, message: "The file has no header row" })
}

/** A field as RFC 4180 writes it: quoted when it holds a quote, a comma or a line break. */
export const csvField = (value: string): string => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value)

/** One CSV line (without its line break). A record of one empty field is written `""`, so it is not a blank line. */
export const csvLine = (fields: ReadonlyArray<string>): string =>
  fields.length === 1 && fields[0] === "" ? '""' : fields.map(csvField).join(",")
