import { Result } from "effect"
import {
  BulkCreateBusinessRequest,
  type BulkCreateCustomerRequest,
  CreateIndividualRequest
} from "../customers/model.ts"
import type { CsvHeader, CsvRecord, CsvRowError } from "../shared/csv.ts"
import type { FieldError } from "../shared/errors.ts"
import { decodeAll, textFault, textFieldError } from "../shared/validation.ts"
import type { BulkImportErrorEntry } from "./model.ts"

/**
 * Rows of a bulk customer CSV (`POST /customers/bulk/csv`) to customer create requests, one row at a time, pure.
 *
 * Columns (spec, "CSV columns for /customers/bulk/csv"):
 *
 * | Applies to | Required | Optional |
 * |---|---|---|
 * | All | `umaAddress`, `platformCustomerId`, `customerType` | `addressLine2`, `platformAccountId`, `description` |
 * | INDIVIDUAL | `fullName`, `birthDate`, `addressLine1`, `city`, `state`, `postalCode`, `country` | `email` |
 * | BUSINESS | `businessLegalName`, `addressLine1`, `city`, `state`, `postalCode`, `country` | `businessRegistrationNumber`, `businessTaxId` |
 *
 * Values are trimmed; an empty cell is a missing value. Other columns are ignored. `umaAddress` may omit the
 * leading `$` (the upstream example does): it is added. A business's `country` is both its address country and
 * `businessInfo.country`.
 */

export const CUSTOMER_CSV_COLUMNS = {
  all: {
    required: ["umaAddress", "platformCustomerId", "customerType"],
    optional: ["addressLine2", "platformAccountId", "description"]
  },
  INDIVIDUAL: {
    required: ["fullName", "birthDate", "addressLine1", "city", "state", "postalCode", "country"],
    optional: ["email"]
  },
  BUSINESS: {
    required: ["businessLegalName", "addressLine1", "city", "state", "postalCode", "country"],
    optional: ["businessRegistrationNumber", "businessTaxId"]
  }
} as const

/** One failed entry of a bulk import job (`errors[]` of the job): its row's `platformCustomerId` (or line), code, message. */
export type BulkImportError = BulkImportErrorEntry

/** A row that makes a customer create request. */
export interface CustomerCsvRow {
  readonly line: number
  readonly correlationId: string
  readonly request: BulkCreateCustomerRequest
  /** Optional columns with no customer field: kept for the caller. */
  readonly platformAccountId?: string
  readonly description?: string
}

// Where each request field comes from, to name columns in errors.
const COLUMN_OF_FIELD: Readonly<Record<string, string>> = {
  umaAddress: "umaAddress",
  platformCustomerId: "platformCustomerId",
  customerType: "customerType",
  fullName: "fullName",
  birthDate: "birthDate",
  email: "email",
  address: "addressLine1",
  "address.line1": "addressLine1",
  "address.line2": "addressLine2",
  "address.city": "city",
  "address.state": "state",
  "address.postalCode": "postalCode",
  "address.country": "country",
  businessInfo: "businessLegalName",
  "businessInfo.legalName": "businessLegalName",
  "businessInfo.registrationNumber": "businessRegistrationNumber",
  "businessInfo.taxId": "businessTaxId",
  "businessInfo.country": "country"
}

const decodeIndividual = decodeAll(CreateIndividualRequest)
const decodeBusiness = decodeAll(BulkCreateBusinessRequest)

const CUSTOMER_TYPES = ["INDIVIDUAL", "BUSINESS"] as const

const required = (column: string): FieldError => ({
  field: column,
  constraint: { required: true },
  message: `The column ${column} is required`
})

const summary = (line: number, errors: ReadonlyArray<FieldError>): string =>
  `Line ${line}: ${errors.map((e) => `${e.field}: ${e.message}`).join("; ")}`

/**
 * Checks the header of a bulk customer CSV: the columns every row needs must be there (the columns of one
 * customer type may be absent when the file holds none of that type; such rows fail one by one).
 */
export const checkCustomerCsvHeader = (header: CsvHeader): BulkImportError | undefined => {
  // A column name that breaks the text rule is named by its position: the name itself cannot be kept.
  const badNames = header.columns.flatMap((column, i) => {
    const fault = textFault(column)
    return fault === undefined ? [] : [textFieldError(`column ${i + 1}`, fault)]
  })
  if (badNames.length > 0) {
    return {
      correlationId: String(header.line),
      code: "INVALID_INPUT",
      message: `The header has unacceptable column names: ${badNames.map((e) => e.field).join(", ")}`,
      details: { line: header.line, errors: badNames }
    }
  }
  const missing = CUSTOMER_CSV_COLUMNS.all.required.filter((column) => !header.columns.includes(column))
  if (missing.length === 0) return undefined
  const errors = missing.map(required)
  return {
    correlationId: String(header.line),
    code: "INVALID_INPUT",
    message: `The header lacks the required column${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`,
    details: { line: header.line, errors }
  }
}

/**
 * One CSV item (from `parseCsv`) as a customer create request, or the job error of its row. Every problem of a
 * row is reported at once, in `details.errors`, by column name.
 */
export const customerFromCsv = (item: CsvRecord | CsvRowError): Result.Result<CustomerCsvRow, BulkImportError> => {
  const line = item.line
  if (item._tag === "RowError") {
    return Result.fail({
      correlationId: String(line),
      code: "INVALID_REQUEST_FORMAT",
      message: item.message,
      details: { line, reason: item.reason }
    })
  }
  const values = new Map<string, string>()
  const errors: Array<FieldError> = []
  // A cell that breaks the text rule is reported by its column, and nothing of it is kept.
  const faulty = new Set<string>()
  for (const [column, raw] of Object.entries(item.record)) {
    const value = raw.trim()
    const fault = textFault(value)
    if (fault !== undefined) {
      faulty.add(column)
      errors.push(textFieldError(column, fault))
    } else if (value !== "") values.set(column, value)
  }
  const platformCustomerId = values.get("platformCustomerId")
  const correlationId = platformCustomerId ?? String(line)
  const missing = new Set<string>()
  const need = (columns: ReadonlyArray<string>) => {
    for (const column of columns) {
      if (!values.has(column) && !faulty.has(column)) {
        missing.add(column)
        errors.push(required(column))
      }
    }
  }
  need(CUSTOMER_CSV_COLUMNS.all.required)

  const customerType = values.get("customerType")
  const known = CUSTOMER_TYPES.find((t) => t === customerType)
  if (customerType !== undefined && known === undefined) {
    errors.push({
      field: "customerType",
      constraint: { enum: [...CUSTOMER_TYPES] },
      message: 'Expected "INDIVIDUAL" or "BUSINESS"'
    })
  }
  if (known !== undefined) need(CUSTOMER_CSV_COLUMNS[known].required)

  const optional = (column: string) => values.get(column)
  const umaAddress = optional("umaAddress")
  const address = {
    ...(values.has("addressLine1") ? { line1: values.get("addressLine1")! } : {}),
    ...(values.has("addressLine2") ? { line2: values.get("addressLine2")! } : {}),
    ...(values.has("city") ? { city: values.get("city")! } : {}),
    ...(values.has("state") ? { state: values.get("state")! } : {}),
    ...(values.has("postalCode") ? { postalCode: values.get("postalCode")! } : {}),
    ...(values.has("country") ? { country: values.get("country")! } : {})
  }
  const common = {
    ...(platformCustomerId === undefined ? {} : { platformCustomerId }),
    ...(umaAddress === undefined ? {} : { umaAddress: umaAddress.startsWith("$") ? umaAddress : `$${umaAddress}` }),
    address
  }

  let decoded: Result.Result<BulkCreateCustomerRequest, { readonly errors: ReadonlyArray<FieldError> }> | undefined
  if (known === "INDIVIDUAL") {
    decoded = decodeIndividual({
      customerType: known,
      ...common,
      ...(values.has("fullName") ? { fullName: values.get("fullName") } : {}),
      ...(values.has("birthDate") ? { birthDate: values.get("birthDate") } : {}),
      ...(values.has("email") ? { email: values.get("email") } : {})
    })
  } else if (known === "BUSINESS") {
    decoded = decodeBusiness({
      customerType: known,
      ...common,
      businessInfo: {
        ...(values.has("businessLegalName") ? { legalName: values.get("businessLegalName") } : {}),
        ...(values.has("country") ? { country: values.get("country") } : {}),
        ...(values.has("businessRegistrationNumber")
          ? { registrationNumber: values.get("businessRegistrationNumber") }
          : {}),
        ...(values.has("businessTaxId") ? { taxId: values.get("businessTaxId") } : {})
      }
    })
  }

  if (decoded !== undefined && Result.isFailure(decoded)) {
    const seen = new Set(errors.map((e) => `${e.field}\u0000${e.message}`))
    for (const error of decoded.failure.errors) {
      const field = COLUMN_OF_FIELD[error.field] ?? error.field
      // A missing column is reported once, as missing (a business's `country` feeds two fields).
      if (missing.has(field) || faulty.has(field)) continue
      const key = `${field}\u0000${error.message}`
      if (seen.has(key)) continue
      seen.add(key)
      errors.push({ ...error, field })
    }
  }

  if (errors.length > 0 || decoded === undefined || Result.isFailure(decoded)) {
    return Result.fail({
      correlationId,
      code: "INVALID_INPUT",
      message: summary(line, errors),
      details: { line, errors }
    })
  }
  const platformAccountId = optional("platformAccountId")
  const description = optional("description")
  return Result.succeed({
    line,
    correlationId,
    request: decoded.success,
    ...(platformAccountId === undefined ? {} : { platformAccountId }),
    ...(description === undefined ? {} : { description })
  })
}
