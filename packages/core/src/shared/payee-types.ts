/**
 * The payee account types of every corridor (the upstream's 46 `accountInfo` variants; AC-15, AC-19,
 * docs/payees.md): one description each — the currencies it holds, the rails it is paid on, its fields as Schemas,
 * the fields naming the account, the routes (which fields open which rails), the rules across fields, and the account
 * the service answers in deposit instructions. The accounts context derives its `accountInfo` Schemas, checks, rails
 * and deposit instructions from this table, quotes their default rails, the docs their table. Pure.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js"
import { Schema } from "effect"
import { eip55ChecksumHolds } from "./address-checksums.ts"
import {
  AbaRoutingNumber,
  Bic,
  BrazilTaxId,
  bicCountry,
  Clabe,
  clabeOf,
  Digits,
  Iban,
  Ifsc,
  ibanOf,
  MobileNumber,
  PIX_KEY_EXPECTED,
  PIX_KEY_FORMATS,
  pixQrCode,
  Vpa
} from "./bank-identifiers.ts"
import type { FieldError } from "./errors.ts"
import { Address, boundedString, CountryCode, DateString, Email, PhoneNumber } from "./schemas.ts"
import { sparkAddressOf, sparkIdentityKey } from "./spark-address.ts"

/** The networks crypto moves on: rails of their own, and where a stablecoin deposit or withdrawal goes. */
export const CRYPTO_NETWORKS = [
  "SOLANA",
  "ETHEREUM",
  "BASE",
  "POLYGON",
  "TRON",
  "PLASMA",
  "SPARK",
  "LIGHTNING",
  "BITCOIN"
] as const

export const PaymentRail = Schema.Literals([
  "ACH",
  "ACH_COLOMBIA",
  "BANK_TRANSFER",
  "BRE_B",
  "CIPS",
  "FAST",
  "FASTER_PAYMENTS",
  "FEDNOW",
  "INSTAPAY",
  "MOBILE_MONEY",
  "NEFT",
  "PAYNOW",
  "PESONET",
  "PIX",
  "RTGS",
  "RTP",
  "SEPA",
  "SEPA_INSTANT",
  "SPEI",
  "SWIFT",
  "UNIONPAY",
  "UPI",
  "WIRE",
  "INTERNAL",
  ...CRYPTO_NETWORKS
])
export type PaymentRail = typeof PaymentRail.Type

// ---- payee account types: every `accountInfo` variant (AC-15, AC-19; docs/payees.md) ----

const beneficiaryFields = {
  beneficiaryType: Schema.Literal("INDIVIDUAL"),
  fullName: boundedString(255),
  birthDate: Schema.optionalKey(DateString),
  nationality: Schema.optionalKey(CountryCode),
  email: Schema.optionalKey(Email),
  phoneNumber: Schema.optionalKey(PhoneNumber),
  countryOfResidence: Schema.optionalKey(CountryCode),
  address: Schema.optionalKey(Address)
}
export const IndividualBeneficiary = Schema.Struct(beneficiaryFields)
export const BusinessBeneficiary = Schema.Struct({
  beneficiaryType: Schema.Literal("BUSINESS"),
  legalName: boundedString(255),
  registrationNumber: Schema.optionalKey(boundedString(64)),
  taxId: Schema.optionalKey(boundedString(64)),
  email: Schema.optionalKey(Email),
  phoneNumber: Schema.optionalKey(PhoneNumber),
  countryOfResidence: Schema.optionalKey(CountryCode),
  address: Schema.optionalKey(Address)
})
export const Beneficiary = Schema.Union([IndividualBeneficiary, BusinessBeneficiary])

/** A corridor's beneficiary: an individual with more fields (or more of them required), or any business. */
const beneficiaryWith = <const F extends Schema.Struct.Fields>(fields: F) =>
  Schema.Union([
    Schema.Struct({ ...beneficiaryFields, ...fields } as Omit<typeof beneficiaryFields, keyof F> & F),
    BusinessBeneficiary
  ])

/** The upstream's per-corridor individual beneficiaries that ask for more than a name. */
const beneficiaries = {
  /** EUR: where the person lives. */
  resident: beneficiaryWith({ countryOfResidence: CountryCode }),
  /** AED: the person's address. */
  addressed: beneficiaryWith({ address: Address }),
  /** GTQ: where the person lives and a phone. */
  residentReachable: beneficiaryWith({ countryOfResidence: CountryCode, phoneNumber: PhoneNumber }),
  /** JMD: the person's address and a phone. */
  addressedReachable: beneficiaryWith({ address: Address, phoneNumber: PhoneNumber }),
  /** COP: the identity document banks match the name against. */
  colombian: beneficiaryWith({
    documentType: Schema.optionalKey(Schema.Literals(["CC", "CE", "TI", "NIT", "PP"])),
    documentNumber: Schema.optionalKey(boundedString(50))
  }),
  /** CAD: a registration number. */
  canadian: beneficiaryWith({ registrationNumber: Schema.optionalKey(boundedString(64)) })
}

/** What the service draws a deposit account's numbers from (a digest of the internal account), and its reference. */
export interface DepositSeed {
  readonly reference: string
  /** `n` digits of the digest, always the same ones for the same account and `n`. */
  readonly digits: (n: number) => string
}

/**
 * One payee account type: what it holds, the rails it is paid on, its fields (the Schema), and the rules beside them.
 * Everything else (the `accountInfo` Schemas, the checks, the rails of an account, the deposit instructions of a
 * currency's internal accounts, the docs' table) is derived from these descriptions.
 */
export interface PayeeType<
  F extends Schema.Struct.Fields = Schema.Struct.Fields,
  D extends Readonly<Record<string, string>> = Readonly<Record<string, string>>
> {
  /** The currencies it holds; `"FIAT"`: every fiat currency this service knows (SWIFT). */
  readonly currencies: ReadonlyArray<string> | "FIAT"
  /** Every rail it can be paid on, the default first (the upstream's `paymentRails`). */
  readonly rails: readonly [PaymentRail, ...Array<PaymentRail>]
  /** The fields besides `accountType`. */
  readonly fields: F
  /** The fields naming the account: an owner's two accounts with the same values are one account (409). */
  readonly identity: ReadonlyArray<keyof F & string>
  /**
   * When the type is paid more than one way: each route's fields, all given, open its rails; one route at least
   * must be given (a 400 naming the routes otherwise).
   */
  readonly routes?: ReadonlyArray<{
    readonly fields: ReadonlyArray<keyof F & string>
    readonly rails: ReadonlyArray<PaymentRail>
  }>
  /** Rules across fields (a PIX key of its kind, a BIC of the account's country): the 400s they find. */
  readonly check?: (info: Schema.Struct.Type<F>) => ReadonlyArray<FieldError>
  /** `bankName` is free text, not one of `GET /discoveries` (AC-18 applies to every other type with a `bankName`). */
  readonly bankNameUnlisted?: true
  /**
   * The account the service's deposit instructions name for the type's currency, when the type is how that currency
   * is paid in (the reference tells depositors apart).
   */
  readonly deposit?: (seed: DepositSeed) => D
}

/** A checksum-valid ABA routing number that belongs to no real bank. */
const SANDBOX_ROUTING_NUMBER = "123456780"

const payeeType = <
  const F extends Schema.Struct.Fields,
  const D extends Readonly<Record<string, string>> = Readonly<Record<string, string>>
>(
  type: PayeeType<F, D>
) => type

const opt = Schema.optionalKey
const bankName = boundedString(255)
const accountNumber = boundedString(34)
const bankAccountType = Schema.Literals(["CHECKING", "SAVINGS"])
const provider = boundedString(255)
/** Sandbox BICs: the bank code PCSB, the country, location 2L. */
const sandboxBic = (country: string) => `PCSB${country}2L`

/** A country's bank account with a BIC (the upstream's HKD, MYR, THB, VND). */
const bankWithBic = (currency: string, country: string) =>
  payeeType({
    currencies: [currency],
    rails: ["BANK_TRANSFER"],
    fields: { bankName, accountNumber, swiftCode: Bic, beneficiary: Beneficiary },
    identity: ["swiftCode", "accountNumber"],
    deposit: ({ digits }) => ({ accountNumber: digits(12), swiftCode: sandboxBic(country) })
  })

/** A bank account number of the scheme's lengths at a listed bank (the upstream's NGN, PHP, ZAR). */
const nationalBank = (currency: string, [min, max]: readonly [number, number], what: string) =>
  payeeType({
    currencies: [currency],
    rails: ["BANK_TRANSFER"],
    fields: { accountNumber: Digits(min, max, what), bankName, beneficiary: Beneficiary },
    identity: ["accountNumber"],
    deposit: ({ digits }) => ({ accountNumber: digits(Math.min(max, min + 2)) })
  })

/** Mobile money: a phone number of the country (calling codes and national lengths) at a provider. */
const mobileMoney = (currency: string, countries: Readonly<Record<string, readonly [number, number]>>) => {
  const [code, [length]] = Object.entries(countries)[0]!
  return payeeType({
    currencies: [currency],
    rails: ["MOBILE_MONEY"],
    fields: { phoneNumber: MobileNumber(countries), provider, beneficiary: Beneficiary },
    identity: ["phoneNumber"],
    deposit: ({ digits }) => ({ phoneNumber: `+${code}${digits(length)}`, provider: "Sandbox Mobile Money" })
  })
}

/** West and Central African mobile money: the country is named too, and the number must be of it. */
const regionalMobileMoney = (
  currency: string,
  regions: Readonly<Record<string, readonly [string, number, number]>>
) => {
  const codes = Object.fromEntries(Object.values(regions).map(([code, min, max]) => [code, [min, max] as const]))
  const [region, [code, length]] = Object.entries(regions)[0]!
  return payeeType({
    currencies: [currency],
    rails: ["MOBILE_MONEY"],
    fields: {
      phoneNumber: MobileNumber(codes),
      provider,
      region: Schema.Literals(Object.keys(regions) as [string, ...Array<string>]),
      beneficiary: Beneficiary
    },
    identity: ["phoneNumber"],
    check: (info) => {
      const prefix = `+${regions[info.region]![0]}`
      return info.phoneNumber.startsWith(prefix)
        ? []
        : [
            {
              field: "accountInfo.phoneNumber",
              constraint: { prefix },
              message: `A number in ${info.region} starts ${prefix}`
            }
          ]
    },
    deposit: ({ digits }) => ({ phoneNumber: `+${code}${digits(length)}`, provider: "Sandbox Mobile Money", region })
  })
}

/** A bank account or a mobile wallet of the country (the upstream's BDT, CNY, GHS). */
const bankOrMobile = (currency: string, calling: string, length: number) =>
  payeeType({
    currencies: [currency],
    rails: ["BANK_TRANSFER", "MOBILE_MONEY"],
    fields: {
      accountNumber: opt(accountNumber),
      bankName,
      phoneNumber: opt(MobileNumber({ [calling]: [length, length] })),
      beneficiary: Beneficiary
    },
    identity: ["accountNumber", "phoneNumber"],
    routes: [
      { fields: ["accountNumber"], rails: ["BANK_TRANSFER"] },
      { fields: ["phoneNumber"], rails: ["MOBILE_MONEY"] }
    ],
    deposit: ({ digits }) => ({ accountNumber: digits(13) })
  })

const WALLET_CURRENCIES = ["USDC", "USDT"]
/** The exchange or custodian holding the wallet, one of `GET /vasps` (checked by `Accounts`, not by the schema). */
const vaspName = opt(boundedString(255))
/**
 * An address on any chain the wallet types take: an EVM `0x` address or a base58 one. A mixed-case `0x` address must
 * carry a right EIP-55 checksum (a typo in it is told so, issue 31 item 6); all one case carries none. Generated
 * values draw lower-case hex as often as the shape's.
 */
const walletAddress = Schema.String.check(
  Schema.isPattern(/^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/, { expected: "a wallet address" }).abort(),
  Schema.makeFilter((address: string) => !address.startsWith("0x") || eip55ChecksumHolds(address), {
    expected: "a wallet address whose EIP-55 checksum (the case of its letters) is right",
    message: "The address's EIP-55 checksum (the case of its letters) is wrong: it is mistyped",
    representation: { id: "paycore/checksum/EIP-55", payload: { checksum: "EIP-55" } },
    arbitraryConstraint: { patterns: [{ source: "^0x[0-9a-f]{40}$", flags: "" }] }
  })
)
const wallet = (rail: PaymentRail, currencies: ReadonlyArray<string> = WALLET_CURRENCIES) =>
  payeeType({
    currencies,
    rails: [rail],
    fields: { address: walletAddress, vaspName, beneficiary: opt(Beneficiary) },
    identity: ["address"]
  })
/** Addresses of the keys 1·G, 2·G, 3·G: what generated values of the Spark address are drawn from. */
const sparkSamples = [1n, 2n, 3n].map((k) => sparkAddressOf(secp256k1.Point.BASE.multiply(k).toBytes(true)))

/**
 * Every payee account type the upstream has (46), by its name. The spec's names `US_ACCOUNT`, `CLABE` (and `IBAN`,
 * `PIX` by the same rule) are other names of four of them (`PAYEE_TYPE_ALIASES`).
 */
export const PAYEE_TYPES = {
  USD_ACCOUNT: payeeType({
    currencies: ["USD"],
    rails: ["ACH", "WIRE", "RTP", "FEDNOW"],
    fields: {
      accountNumber: Digits(1, 34, "1-34 digits"),
      routingNumber: AbaRoutingNumber,
      bankName: opt(boundedString(140)),
      bankAccountType: opt(bankAccountType),
      intermediaryBankName: opt(boundedString(140)),
      intermediaryRoutingNumber: opt(AbaRoutingNumber),
      fiToFiInformation: opt(boundedString(210)),
      beneficiary: Beneficiary
    },
    identity: ["routingNumber", "accountNumber"],
    deposit: ({ digits }) => ({ accountNumber: `8${digits(11)}`, routingNumber: SANDBOX_ROUTING_NUMBER })
  }),
  MXN_ACCOUNT: payeeType({
    currencies: ["MXN"],
    rails: ["SPEI"],
    fields: { clabeNumber: Clabe, bankName: opt(boundedString(140)), beneficiary: Beneficiary },
    identity: ["clabeNumber"],
    deposit: ({ digits }) => ({ clabeNumber: clabeOf(`646180${digits(11)}`) })
  }),
  EUR_ACCOUNT: payeeType({
    currencies: ["EUR"],
    rails: ["SEPA", "SEPA_INSTANT"],
    fields: {
      iban: Iban(),
      swiftCode: opt(Bic),
      bankName: opt(boundedString(140)),
      beneficiary: beneficiaries.resident
    },
    identity: ["iban"],
    deposit: ({ digits }) => ({ iban: ibanOf("DE", `10010010${digits(10)}`) })
  }),
  BRL_ACCOUNT: payeeType({
    currencies: ["BRL"],
    rails: ["PIX"],
    fields: {
      pixKey: boundedString(77),
      pixKeyType: Schema.Literals(["CPF", "CNPJ", "EMAIL", "PHONE", "RANDOM"]),
      taxId: BrazilTaxId,
      bankName: opt(boundedString(140)),
      beneficiary: Beneficiary
    },
    identity: ["pixKeyType", "pixKey"],
    check: (info) =>
      PIX_KEY_FORMATS[info.pixKeyType](info.pixKey)
        ? []
        : [
            {
              field: "accountInfo.pixKey",
              constraint: { format: info.pixKeyType },
              message: `Expected ${PIX_KEY_EXPECTED[info.pixKeyType]}`
            }
          ],
    deposit: ({ reference, digits }) => {
      const d = digits(30)
      const pixKey = `${d.slice(0, 8)}-${d.slice(8, 12)}-4${d.slice(12, 15)}-8${d.slice(15, 18)}-${d.slice(18, 30)}`
      return { pixKey, qrCode: pixQrCode(pixKey, "PAYCORE SANDBOX", "SAO PAULO", reference) }
    }
  }),
  GBP_ACCOUNT: payeeType({
    currencies: ["GBP"],
    rails: ["FASTER_PAYMENTS"],
    fields: {
      sortCode: Digits(6, 6, "a 6-digit sort code"),
      accountNumber: Digits(8, 8, "an 8-digit account number"),
      beneficiary: Beneficiary
    },
    identity: ["sortCode", "accountNumber"],
    deposit: ({ digits }) => ({ sortCode: "040004", accountNumber: digits(8) })
  }),
  CAD_ACCOUNT: payeeType({
    currencies: ["CAD"],
    rails: ["BANK_TRANSFER"],
    fields: {
      bankCode: Digits(3, 3, "a 3-digit institution number"),
      branchCode: Digits(5, 5, "a 5-digit transit number"),
      accountNumber: Digits(7, 12, "7-12 digits"),
      beneficiary: beneficiaries.canadian
    },
    identity: ["bankCode", "branchCode", "accountNumber"],
    deposit: ({ digits }) => ({ bankCode: "001", branchCode: "00011", accountNumber: digits(10) })
  }),
  INR_ACCOUNT: payeeType({
    currencies: ["INR"],
    rails: ["UPI", "NEFT", "RTGS"],
    fields: {
      vpa: opt(Vpa),
      accountNumber: opt(Digits(9, 18, "9-18 digits")),
      ifsc: opt(Ifsc),
      /** Which bank rail to use first (UPI needs only the `vpa`). */
      rail: opt(Schema.Literals(["NEFT", "RTGS"])),
      bankName: opt(bankName),
      beneficiary: Beneficiary
    },
    identity: ["vpa", "ifsc", "accountNumber"],
    routes: [
      { fields: ["vpa"], rails: ["UPI"] },
      { fields: ["accountNumber", "ifsc"], rails: ["NEFT", "RTGS"] }
    ],
    deposit: ({ digits }) => ({ vpa: `paycore.${digits(8)}@sandbox`, accountNumber: digits(12), ifsc: "PCSB0000001" })
  }),
  NGN_ACCOUNT: nationalBank("NGN", [10, 10], "a 10-digit NUBAN"),
  PHP_ACCOUNT: nationalBank("PHP", [8, 16], "8-16 digits"),
  ZAR_ACCOUNT: nationalBank("ZAR", [9, 13], "9-13 digits"),
  DKK_ACCOUNT: payeeType({
    currencies: ["DKK"],
    rails: ["SEPA", "SEPA_INSTANT"],
    fields: { iban: Iban(/^DK[0-9]{16}$/, "DK"), swiftCode: opt(Bic), beneficiary: Beneficiary },
    identity: ["iban"],
    deposit: ({ digits }) => ({ iban: ibanOf("DK", `0040${digits(10)}`) })
  }),
  AED_ACCOUNT: payeeType({
    currencies: ["AED"],
    rails: ["BANK_TRANSFER"],
    fields: { iban: Iban(/^AE[0-9]{21}$/, "AE"), swiftCode: opt(Bic), beneficiary: beneficiaries.addressed },
    identity: ["iban"],
    deposit: ({ digits }) => ({ iban: ibanOf("AE", `033${digits(16)}`) })
  }),
  EGP_ACCOUNT: payeeType({
    currencies: ["EGP"],
    rails: ["BANK_TRANSFER", "MOBILE_MONEY"],
    fields: {
      iban: opt(Iban(/^EG[0-9]{27}$/, "EG")),
      bankName,
      phoneNumber: opt(MobileNumber({ "20": [10, 10] })),
      beneficiary: Beneficiary
    },
    identity: ["iban", "phoneNumber"],
    routes: [
      { fields: ["iban"], rails: ["BANK_TRANSFER"] },
      { fields: ["phoneNumber"], rails: ["MOBILE_MONEY"] }
    ],
    deposit: ({ digits }) => ({ iban: ibanOf("EG", `00190005${digits(17)}`) })
  }),
  PKR_ACCOUNT: payeeType({
    currencies: ["PKR"],
    rails: ["BANK_TRANSFER", "MOBILE_MONEY"],
    fields: {
      bankName,
      accountNumber: opt(accountNumber),
      iban: opt(Iban(/^PK[0-9]{2}[A-Z]{4}[0-9]{16}$/, "PK")),
      phoneNumber: opt(MobileNumber({ "92": [10, 10] })),
      beneficiary: Beneficiary
    },
    identity: ["iban", "accountNumber", "phoneNumber"],
    routes: [
      { fields: ["accountNumber"], rails: ["BANK_TRANSFER"] },
      { fields: ["iban"], rails: ["BANK_TRANSFER"] },
      { fields: ["phoneNumber"], rails: ["MOBILE_MONEY"] }
    ],
    deposit: ({ digits }) => ({ iban: ibanOf("PK", `PCSB${digits(16)}`) })
  }),
  COP_ACCOUNT: payeeType({
    currencies: ["COP"],
    rails: ["BANK_TRANSFER", "MOBILE_MONEY"],
    fields: {
      accountNumber: opt(accountNumber),
      bankAccountType: opt(bankAccountType),
      bankName,
      phoneNumber: opt(MobileNumber({ "57": [10, 10] })),
      beneficiary: beneficiaries.colombian
    },
    identity: ["accountNumber", "phoneNumber"],
    routes: [
      { fields: ["accountNumber", "bankAccountType"], rails: ["BANK_TRANSFER"] },
      { fields: ["phoneNumber"], rails: ["MOBILE_MONEY"] }
    ],
    deposit: ({ reference }) => ({ paymentUrl: `https://pse.sandbox.paycore.dev/pay/${reference}` })
  }),
  BDT_ACCOUNT: payeeType({
    ...bankOrMobile("BDT", "880", 10),
    fields: {
      ...bankOrMobile("BDT", "880", 10).fields,
      branchCode: opt(Digits(5, 5, "a 5-digit branch code")),
      swiftCode: opt(Bic)
    }
  }),
  CNY_ACCOUNT: bankOrMobile("CNY", "86", 11),
  GHS_ACCOUNT: bankOrMobile("GHS", "233", 9),
  GTQ_ACCOUNT: payeeType({
    currencies: ["GTQ"],
    rails: ["BANK_TRANSFER"],
    fields: { accountNumber, bankAccountType, bankName, beneficiary: beneficiaries.residentReachable },
    identity: ["accountNumber"],
    deposit: ({ digits }) => ({ accountNumber: digits(12), bankAccountType: "CHECKING" })
  }),
  JMD_ACCOUNT: payeeType({
    currencies: ["JMD"],
    rails: ["BANK_TRANSFER"],
    fields: {
      accountNumber,
      branchCode: Digits(5, 5, "a 5-digit branch code"),
      bankAccountType,
      bankName,
      beneficiary: beneficiaries.addressedReachable
    },
    identity: ["branchCode", "accountNumber"],
    deposit: ({ digits }) => ({ accountNumber: digits(10), branchCode: "00001", bankAccountType: "CHECKING" })
  }),
  HKD_ACCOUNT: bankWithBic("HKD", "HK"),
  MYR_ACCOUNT: bankWithBic("MYR", "MY"),
  THB_ACCOUNT: bankWithBic("THB", "TH"),
  VND_ACCOUNT: bankWithBic("VND", "VN"),
  IDR_ACCOUNT: payeeType({
    ...bankWithBic("IDR", "ID"),
    fields: { ...bankWithBic("IDR", "ID").fields, phoneNumber: MobileNumber({ "62": [9, 12] }) },
    deposit: ({ digits }) => ({
      accountNumber: digits(12),
      swiftCode: sandboxBic("ID"),
      phoneNumber: `+62${digits(10)}`
    })
  }),
  SGD_ACCOUNT: payeeType({
    currencies: ["SGD"],
    rails: ["PAYNOW", "FAST", "BANK_TRANSFER"],
    fields: { bankName: opt(bankName), accountNumber, swiftCode: Bic, beneficiary: Beneficiary },
    identity: ["swiftCode", "accountNumber"],
    deposit: ({ digits }) => ({ accountNumber: digits(12), swiftCode: sandboxBic("SG") })
  }),
  /** El Salvador, whose currency is the US dollar: a bank account or a mobile wallet. */
  SLV_ACCOUNT: payeeType({
    currencies: ["USD"],
    rails: ["BANK_TRANSFER", "MOBILE_MONEY"],
    fields: {
      bankName: opt(bankName),
      accountNumber: opt(accountNumber),
      bankAccountType: opt(bankAccountType),
      phoneNumber: opt(MobileNumber({ "503": [8, 8] })),
      beneficiary: Beneficiary
    },
    identity: ["accountNumber", "phoneNumber"],
    routes: [
      { fields: ["bankName", "accountNumber", "bankAccountType"], rails: ["BANK_TRANSFER"] },
      { fields: ["phoneNumber"], rails: ["MOBILE_MONEY"] }
    ]
  }),
  KES_ACCOUNT: mobileMoney("KES", { "254": [9, 9] }),
  TZS_ACCOUNT: mobileMoney("TZS", { "255": [9, 9] }),
  RWF_ACCOUNT: mobileMoney("RWF", { "250": [9, 9] }),
  ZMW_ACCOUNT: mobileMoney("ZMW", { "260": [9, 9] }),
  MWK_ACCOUNT: mobileMoney("MWK", { "265": [9, 9] }),
  UGX_ACCOUNT: mobileMoney("UGX", { "256": [9, 9] }),
  BWP_ACCOUNT: mobileMoney("BWP", { "267": [8, 8] }),
  HTG_ACCOUNT: payeeType({
    currencies: ["HTG"],
    rails: ["MOBILE_MONEY"],
    fields: { phoneNumber: MobileNumber({ "509": [8, 8] }), beneficiary: Beneficiary },
    identity: ["phoneNumber"],
    deposit: ({ digits }) => ({ phoneNumber: `+509${digits(8)}` })
  }),
  XOF_ACCOUNT: regionalMobileMoney("XOF", {
    SN: ["221", 9, 9],
    CI: ["225", 10, 10],
    BJ: ["229", 8, 10],
    TG: ["228", 8, 8]
  }),
  XAF_ACCOUNT: regionalMobileMoney("XAF", { CM: ["237", 9, 9], CG: ["242", 9, 9] }),
  /** An international wire to a bank in `country`, in any currency: for corridors without a local rail. */
  SWIFT_ACCOUNT: payeeType({
    currencies: "FIAT",
    rails: ["SWIFT"],
    fields: {
      country: CountryCode,
      swiftCode: Bic,
      bankName,
      accountNumber: opt(accountNumber),
      iban: opt(Iban()),
      beneficiary: Beneficiary
    },
    identity: ["swiftCode", "accountNumber", "iban"],
    routes: [
      { fields: ["accountNumber"], rails: ["SWIFT"] },
      { fields: ["iban"], rails: ["SWIFT"] }
    ],
    check: (info) =>
      bicCountry(info.swiftCode) === info.country
        ? []
        : [
            {
              field: "accountInfo.swiftCode",
              constraint: { country: info.country },
              message: `Expected a BIC of a bank in ${info.country}`
            }
          ],
    bankNameUnlisted: true,
    deposit: ({ digits }) => ({ country: "US", swiftCode: sandboxBic("US"), accountNumber: digits(12) })
  }),
  SOLANA_WALLET: wallet("SOLANA"),
  ETHEREUM_WALLET: wallet("ETHEREUM"),
  BASE_WALLET: wallet("BASE"),
  POLYGON_WALLET: wallet("POLYGON"),
  TRON_WALLET: wallet("TRON"),
  PLASMA_WALLET: wallet("PLASMA", ["USDT"]),
  /** A Spark wallet: a bech32m Spark address (shared/spark-address.ts), keyed by a Bitcoin identity key. */
  SPARK_WALLET: payeeType({
    currencies: ["BTC"],
    rails: ["SPARK"],
    fields: {
      address: Schema.String.check(
        Schema.makeFilter((address: string) => sparkIdentityKey(address) !== undefined, {
          expected: "a Spark address (bech32m, spark1…)",
          arbitraryConstraint: { patterns: [{ source: `^(${sparkSamples.join("|")})$`, flags: "" }] }
        })
      ),
      vaspName,
      beneficiary: opt(Beneficiary)
    },
    identity: ["address"]
  }),
  LIGHTNING: payeeType({
    currencies: ["BTC"],
    rails: ["LIGHTNING"],
    fields: {
      lightningAddress: opt(
        Schema.String.check(Schema.isPattern(/^[^\s@]+@[^\s@]+$/, { expected: "a lightning address" }))
      ),
      invoice: opt(Schema.String.check(Schema.isPattern(/^ln[a-z0-9]+$/i, { expected: "a BOLT11 invoice" }))),
      bolt12: opt(Schema.String.check(Schema.isPattern(/^lno1[a-z0-9]+$/i, { expected: "a BOLT12 offer" }))),
      beneficiary: opt(Beneficiary)
    },
    identity: ["lightningAddress", "invoice", "bolt12"],
    routes: [
      { fields: ["invoice"], rails: ["LIGHTNING"] },
      { fields: ["lightningAddress"], rails: ["LIGHTNING"] },
      { fields: ["bolt12"], rails: ["LIGHTNING"] }
    ]
  })
}
export type PayeeTypeName = keyof typeof PAYEE_TYPES

/** The spec's names of four payee types: accepted on input and answered as sent (AC-05, AC-15). */
export const PAYEE_TYPE_ALIASES = {
  US_ACCOUNT: "USD_ACCOUNT",
  CLABE: "MXN_ACCOUNT",
  IBAN: "EUR_ACCOUNT",
  PIX: "BRL_ACCOUNT"
} as const satisfies Readonly<Record<string, PayeeTypeName>>

/** The names the service gives a deposit account of a type where the spec names it (`US_ACCOUNT`, AC-05; `CLABE`). */
export const DEPOSIT_NAMES = { USD_ACCOUNT: "US_ACCOUNT", MXN_ACCOUNT: "CLABE" } as const

export type AccountTypeName = PayeeTypeName | keyof typeof PAYEE_TYPE_ALIASES
export type PayeeTypeOf<N extends AccountTypeName> = N extends keyof typeof PAYEE_TYPE_ALIASES
  ? (typeof PAYEE_TYPE_ALIASES)[N]
  : N
export type FieldsOf<N extends AccountTypeName> = (typeof PAYEE_TYPES)[PayeeTypeOf<N>]["fields"]

/** The payee types of a currency's own (not SWIFT's, which takes every fiat currency), in the table's order. */
export const localPayeeTypes = (currency: string): ReadonlyArray<PayeeTypeName> =>
  (Object.keys(PAYEE_TYPES) as Array<PayeeTypeName>).filter((name) => {
    const { currencies } = describePayeeType(name)
    return currencies !== "FIAT" && currencies.includes(currency)
  })

/** A payee type's description with its fields' types forgotten: what the generic rules read. */
export const describePayeeType = (name: PayeeTypeName): PayeeType => PAYEE_TYPES[name] as unknown as PayeeType

/** The payee type an `accountType` names (an alias names its upstream type). */
export const payeeTypeName = (accountType: AccountTypeName): PayeeTypeName =>
  (PAYEE_TYPE_ALIASES as Readonly<Record<string, PayeeTypeName>>)[accountType] ?? (accountType as PayeeTypeName)

/** Every `accountType` accepted, each alias before the type it names. */
export const ACCOUNT_TYPE_NAMES: ReadonlyArray<AccountTypeName> = (
  Object.keys(PAYEE_TYPES) as Array<PayeeTypeName>
).flatMap((name) => [
  ...(Object.keys(PAYEE_TYPE_ALIASES) as Array<keyof typeof PAYEE_TYPE_ALIASES>).filter(
    (a) => PAYEE_TYPE_ALIASES[a] === name
  ),
  name
])
