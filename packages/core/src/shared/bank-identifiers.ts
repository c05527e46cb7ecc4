/**
 * The identifiers of bank and mobile-money accounts as their schemes define them: formats, check digits (IBAN ISO 7064
 * mod 97-10, CLABE, ABA routing numbers, CPF and CNPJ) and national phone numbering. Pure. A Schema with check digits
 * carries valid samples, so the values generated from it (the fuzzer, property tests) pass its check.
 */
import { Schema } from "effect"

/** ISO 7064 mod 97-10 of a text of digits and letters (A = 10 … Z = 35). */
const mod97 = (text: string): number => {
  let rest = 0
  for (const char of text.toUpperCase()) {
    const code = char.charCodeAt(0)
    const value = code >= 65 ? String(code - 55) : char
    for (const digit of value) rest = (rest * 10 + Number(digit)) % 97
  }
  return rest
}

/** An IBAN's check digits are right: the country and check digits moved to the end leave 1 modulo 97. */
export const ibanIsValid = (iban: string): boolean => mod97(`${iban.slice(4)}${iban.slice(0, 4)}`) === 1

/** The IBAN of `country` (alpha-2) and `bban`, with its check digits computed. */
export const ibanOf = (country: string, bban: string): string =>
  `${country}${String(98 - mod97(`${bban}${country}00`)).padStart(2, "0")}${bban}`

/** The CLABE check digit of its first 17 digits: weights 3, 7, 1, each product modulo 10, then 10 − sum mod 10. */
export const clabeCheckDigit = (first17: string): number => {
  let sum = 0
  for (let i = 0; i < 17; i++) sum += (Number(first17[i]) * [3, 7, 1][i % 3]!) % 10
  return (10 - (sum % 10)) % 10
}

export const clabeIsValid = (clabe: string): boolean => clabeCheckDigit(clabe) === Number(clabe[17])

/** The CLABE of its first 17 digits (bank, branch, account), with its check digit. */
export const clabeOf = (first17: string): string => `${first17}${clabeCheckDigit(first17)}`

/** An ABA routing number's checksum: 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) is a multiple of 10. */
export const abaIsValid = (routing: string): boolean => {
  let sum = 0
  for (let i = 0; i < 9; i++) sum += Number(routing[i]) * [3, 7, 1][i % 3]!
  return sum % 10 === 0
}

/** A Brazilian CPF (11 digits): two mod-11 check digits; a repeated digit is never a CPF. */
export const cpfIsValid = (cpf: string): boolean => {
  if (!/^\d{11}$/.test(cpf) || /^(\d)\1{10}$/.test(cpf)) return false
  const check = (length: number) => {
    let sum = 0
    for (let i = 0; i < length; i++) sum += Number(cpf[i]) * (length + 1 - i)
    return ((sum * 10) % 11) % 10
  }
  return check(9) === Number(cpf[9]) && check(10) === Number(cpf[10])
}

/** A Brazilian CNPJ (14 digits): two mod-11 check digits, weights 2 … 9 from the right. */
export const cnpjIsValid = (cnpj: string): boolean => {
  if (!/^\d{14}$/.test(cnpj) || /^(\d)\1{13}$/.test(cnpj)) return false
  const check = (length: number) => {
    let sum = 0
    for (let i = 0; i < length; i++) sum += Number(cnpj[length - 1 - i]) * ((i % 8) + 2)
    const rest = sum % 11
    return rest < 2 ? 0 : 11 - rest
  }
  return check(12) === Number(cnpj[12]) && check(13) === Number(cnpj[13])
}

/** Brazil's taxpayer numbers: a person's CPF (11 digits) or a company's CNPJ (14). */
export const brazilTaxIdIsValid = (taxId: string): boolean => cpfIsValid(taxId) || cnpjIsValid(taxId)

const samplesPattern = (samples: ReadonlyArray<string>) => ({
  patterns: [{ source: `^(${samples.join("|")})$`, flags: "" }] as const
})

/**
 * A string of `format` whose check digits `isValid` accepts: the format is checked first (and alone when it fails),
 * then the check digits, reported as `{ checksum: scheme }`.
 */
const withCheckDigits = (
  format: RegExp,
  expected: string,
  scheme: string,
  isValid: (value: string) => boolean,
  samples: ReadonlyArray<string>
) =>
  Schema.String.check(
    Schema.isPattern(format, { expected }).abort(),
    Schema.makeFilter(isValid, {
      expected: `${expected} with valid check digits (${scheme})`,
      representation: { id: `paycore/checksum/${scheme}`, payload: { checksum: scheme } },
      arbitraryConstraint: samplesPattern(samples)
    })
  )

/** IBAN samples with right check digits, one per scheme the Schemas below take. */
const IBAN_SAMPLES = {
  any: ["DE89370400440532013000", "FR1420041010050500013M02606", "NL91ABNA0417164300", "GB29NWBK60161331926819"],
  DK: ["DK5000400440116243"],
  AE: ["AE070331234567890123456"],
  EG: ["EG380019000500000000263180002"],
  PK: ["PK36SCBL0000001123456702"]
} as const

/**
 * An IBAN: `format` (any country by default: two letters, two check digits, 11 to 30 letters and digits) and right
 * ISO 7064 check digits.
 */
export const Iban = (
  format: RegExp = /^[A-Z]{2}[0-9]{2}[A-Za-z0-9]{11,30}$/,
  country: keyof typeof IBAN_SAMPLES = "any"
) =>
  withCheckDigits(
    format,
    country === "any" ? "an IBAN (country, check digits, 11-30 characters)" : `an IBAN of ${country}`,
    "iso7064-mod97",
    ibanIsValid,
    IBAN_SAMPLES[country]
  )

/** An 18-digit CLABE with its check digit. */
export const Clabe = withCheckDigits(/^\d{18,18}$/, "an 18-digit CLABE", "clabe", clabeIsValid, [
  "002010077777777771",
  "032180000118359719",
  "072580010000000001"
])

/** A 9-digit ABA routing number with its checksum. */
export const AbaRoutingNumber = withCheckDigits(/^\d{9,9}$/, "a 9-digit ABA routing number", "aba", abaIsValid, [
  "021000021",
  "026009593",
  "021000089",
  "011000138"
])

/** Brazil's CPF or CNPJ, digits only. */
export const BrazilTaxId = withCheckDigits(
  /^[0-9]{11,14}$/,
  "a CPF (11 digits) or CNPJ (14 digits)",
  "cpf-cnpj",
  brazilTaxIdIsValid,
  ["12345678909", "52998224725", "11222333000181"]
)

/** A BIC (SWIFT code): bank (4 letters), country (2 letters), location (2), optional branch (3). */
export const Bic = Schema.String.check(
  Schema.isPattern(/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/, { expected: "an 8 or 11 character BIC" })
)

/** The country a BIC's bank is in (its 5th and 6th letters). */
export const bicCountry = (bic: string): string => bic.slice(4, 6)

/** An Indian Financial System Code: bank (4 letters), a zero, branch (6 letters or digits). */
export const Ifsc = Schema.String.check(
  Schema.isPattern(/^[A-Z]{4}0[A-Z0-9]{6}$/, { expected: "an IFSC (4 letters, 0, 6 letters or digits)" })
)

/** A UPI virtual payment address: `name@handle`. */
export const Vpa = Schema.String.check(
  Schema.isMinLength(3),
  Schema.isMaxLength(255),
  Schema.isPattern(/^[a-zA-Z0-9.\-_]+@[a-zA-Z0-9]+$/, { expected: "a UPI address (name@handle)" })
)

/** A string of `min` to `max` digits. */
export const Digits = (min: number, max: number, what: string) =>
  Schema.String.check(Schema.isPattern(new RegExp(`^\\d{${min},${max}}$`), { expected: what }))

/**
 * A mobile number of one of the countries named by calling code, in E.164: `+`, the calling code, then the national
 * number of the lengths given (`{ "254": [9, 9] }`: Kenya, 9 digits).
 */
export const MobileNumber = (countries: Readonly<Record<string, readonly [number, number]>>) => {
  const alternatives = Object.entries(countries).map(([code, [min, max]]) => `${code}\\d{${min},${max}}`)
  return Schema.String.check(
    Schema.isPattern(new RegExp(`^\\+(${alternatives.join("|")})$`), {
      expected: `a phone number in E.164 of +${Object.keys(countries).join(", +")}`
    })
  )
}

/** The kinds of PIX keys and what each key looks like. */
export const PIX_KEY_FORMATS = {
  CPF: cpfIsValid,
  CNPJ: cnpjIsValid,
  EMAIL: (key: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(key),
  PHONE: (key: string) => /^\+55\d{10,11}$/.test(key),
  RANDOM: (key: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(key)
} as const satisfies Readonly<Record<string, (key: string) => boolean>>

export const PIX_KEY_EXPECTED: Readonly<Record<keyof typeof PIX_KEY_FORMATS, string>> = {
  CPF: "a CPF: 11 digits with valid check digits",
  CNPJ: "a CNPJ: 14 digits with valid check digits",
  EMAIL: "an email address",
  PHONE: "+55, then the area code and number (10 or 11 digits)",
  RANDOM: "a random key (a UUID)"
}

/** CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF) of `text`, 4 hex digits: what closes an EMV QR payload. */
const crc16 = (text: string): string => {
  let crc = 0xffff
  for (const char of text) {
    crc ^= char.charCodeAt(0) << 8
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc.toString(16).toUpperCase().padStart(4, "0")
}

/** One EMV tag-length-value field. */
const emv = (tag: string, value: string): string => `${tag}${String(value.length).padStart(2, "0")}${value}`

/**
 * A static PIX QR code payload ("copia e cola", the BR Code of EMV QRCPS): the receiver's key, name and city, and
 * `txid` as the payment's identifier, closed by its CRC.
 */
export const pixQrCode = (key: string, name: string, city: string, txid: string): string => {
  const body = [
    emv("00", "01"),
    emv("26", `${emv("00", "br.gov.bcb.pix")}${emv("01", key)}`),
    emv("52", "0000"),
    emv("53", "986"),
    emv("58", "BR"),
    emv("59", name.slice(0, 25)),
    emv("60", city.slice(0, 15)),
    emv("62", emv("05", txid.slice(0, 25))),
    "6304"
  ].join("")
  return `${body}${crc16(body)}`
}
