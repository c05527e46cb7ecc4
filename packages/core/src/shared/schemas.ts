import { Schema } from "effect"

/** ISO 8601 date-time as it travels on the wire; the core keeps it as a string so encoding is free. */
export const DateTimeString = Schema.String.check(
  Schema.isPattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/, {
    expected: "an ISO 8601 date-time"
  })
)
/** `YYYY-MM-DD`. */
export const DateString = Schema.String.check(
  Schema.isPattern(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, { expected: "a date YYYY-MM-DD" })
)
/** ISO 3166-1 alpha-2. */
export const CountryCode = Schema.String.check(
  Schema.isPattern(/^[A-Z]{2}$/, { expected: "an ISO 3166-1 alpha-2 country code" })
)
/** E.164: a plus sign, then 1-15 digits, the first 1-9. */
export const PhoneNumber = Schema.String.check(
  Schema.isPattern(/^\+[1-9]\d{0,14}$/, { expected: "an E.164 phone number" })
)
export const Email = Schema.String.check(
  Schema.isMaxLength(254),
  Schema.isPattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { expected: "an email address" })
)
/** An UMA address `$name@domain`. */
export const UmaAddress = Schema.String.check(
  Schema.isPattern(/^\$[a-zA-Z0-9._+-]{1,64}@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$/, {
    expected: "an UMA address ($name@domain)"
  })
)
export const NonEmptyString = Schema.String.check(Schema.isMinLength(1))
export const boundedString = (max: number) => Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(max))

export const Address = Schema.Struct({
  line1: boundedString(255),
  line2: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(255))),
  city: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(255))),
  state: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(255))),
  postalCode: boundedString(32),
  country: CountryCode
})
export type Address = typeof Address.Type

/** The identification vocabulary shared by individual customers and beneficial owners. */
export const IdentificationType = Schema.Literals(["SSN", "ITIN", "EIN", "NON_US_TAX_ID"])
export type IdentificationType = typeof IdentificationType.Type

/** A boolean query parameter, as the query string carries it (`?isPaused=true`). */
export const BooleanQueryParam = Schema.Literals(["true", "false"])
