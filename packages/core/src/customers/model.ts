import { Schema } from "effect"
import { CurrencyCode } from "../shared/currency.ts"
import { BeneficialOwnerId, CustomerId } from "../shared/ids.ts"
import { PageQueryFields } from "../shared/paging.ts"
import {
  Address,
  BooleanQueryParam,
  boundedString,
  CountryCode,
  DateString,
  DateTimeString,
  Email,
  IdentificationType,
  PhoneNumber,
  UmaAddress
} from "../shared/schemas.ts"

export const CustomerType = Schema.Literals(["INDIVIDUAL", "BUSINESS"])
export type CustomerType = typeof CustomerType.Type

export const KycStatus = Schema.Literals(["UNVERIFIED", "PENDING", "APPROVED", "REJECTED", "HOLD"])
export type KycStatus = typeof KycStatus.Type

export const ContactVerificationStatus = Schema.Literals(["PENDING", "VERIFIED"])
export const ContactVerification = Schema.Struct({
  email: ContactVerificationStatus,
  phone: ContactVerificationStatus
})

export const EndUserTermsConsent = Schema.Struct({
  acceptedAt: DateTimeString,
  ipAddress: Schema.String.check(Schema.isMinLength(3), Schema.isMaxLength(45)),
  termsVersion: boundedString(64),
  acceptanceMethod: Schema.Literals(["CHECKBOX", "CLICK_TO_ACCEPT"])
})
export type EndUserTermsConsent = typeof EndUserTermsConsent.Type

// ---- enhanced due diligence (individuals) ----

const OtherDescription = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(500))
export const EddFields = {
  sourceOfFundsCategories: Schema.optionalKey(
    Schema.Array(
      Schema.Literals([
        "SALARY",
        "SELF_EMPLOYMENT_INCOME",
        "INVESTMENT_INCOME",
        "PENSION",
        "RENTAL_INCOME",
        "GIFT",
        "INHERITANCE",
        "LOAN",
        "SAVINGS",
        "SALE_OF_ASSETS",
        "OTHER"
      ])
    )
  ),
  sourceOfFundsOtherDescription: Schema.optionalKey(OtherDescription),
  sourceOfWealthCategories: Schema.optionalKey(
    Schema.Array(
      Schema.Literals([
        "SALARY",
        "BUSINESS_INCOME",
        "INVESTMENTS",
        "INHERITANCE",
        "PROPERTY_SALE",
        "GIFT",
        "RETIREMENT",
        "SAVINGS",
        "OTHER"
      ])
    )
  ),
  sourceOfWealthOtherDescription: Schema.optionalKey(OtherDescription),
  purposeOfAccount: Schema.optionalKey(
    Schema.Literals([
      "CONTRACTOR_PAYOUTS",
      "CREATOR_PAYOUTS",
      "EMPLOYEE_PAYOUTS",
      "MARKETPLACE_SELLER_PAYOUTS",
      "SUPPLIER_PAYMENTS",
      "CROSS_BORDER_B2B",
      "AR_AUTOMATION",
      "AP_AUTOMATION",
      "EMBEDDED_PAYMENTS",
      "PLATFORM_FEE_COLLECTION",
      "P2P_TRANSFERS",
      "CHARITABLE_DONATIONS",
      "OTHER"
    ])
  ),
  purposeOfAccountOtherDescription: Schema.optionalKey(OtherDescription),
  expectedMonthlyTransactionCount: Schema.optionalKey(
    Schema.Literals(["COUNT_UNDER_10", "COUNT_10_TO_100", "COUNT_100_TO_500", "COUNT_500_TO_1000", "COUNT_OVER_1000"])
  ),
  expectedMonthlyTransactionVolume: Schema.optionalKey(
    Schema.Literals([
      "VOLUME_UNDER_10K",
      "VOLUME_10K_TO_100K",
      "VOLUME_100K_TO_1M",
      "VOLUME_1M_TO_10M",
      "VOLUME_OVER_10M"
    ])
  ),
  annualIncomeRange: Schema.optionalKey(
    Schema.Literals(["UNDER_50K", "RANGE_50K_100K", "RANGE_100K_250K", "RANGE_250K_1M", "OVER_1M"])
  ),
  netWorthRange: Schema.optionalKey(
    Schema.Literals(["UNDER_100K", "RANGE_100K_500K", "RANGE_500K_1M", "RANGE_1M_5M", "RANGE_5M_25M", "OVER_25M"])
  ),
  pepStatus: Schema.optionalKey(Schema.Literals(["NONE", "DOMESTIC", "FOREIGN", "HIO", "FAMILY_OR_ASSOCIATE"]))
}

/** Identity fields of an individual (the vocabulary is shared with beneficial owners). */
export const IndividualFields = {
  fullName: Schema.optionalKey(boundedString(255)),
  birthDate: Schema.optionalKey(DateString),
  nationality: Schema.optionalKey(CountryCode),
  address: Schema.optionalKey(Address),
  idType: Schema.optionalKey(IdentificationType),
  identifier: Schema.optionalKey(boundedString(64)),
  countryOfIssuance: Schema.optionalKey(CountryCode),
  ...EddFields
}

export const EntityType = Schema.Literals([
  "SOLE_PROPRIETORSHIP",
  "PARTNERSHIP",
  "LLC",
  "CORPORATION",
  "S_CORPORATION",
  "NON_PROFIT",
  "PUBLICLY_LISTED_COMPANY",
  "TRUST",
  "PRIVATE_FOUNDATION",
  "CHARITY",
  "OTHER"
])

export const BusinessType = Schema.Literals([
  "AGRICULTURE_FORESTRY_FISHING_AND_HUNTING",
  "MINING_QUARRYING_AND_OIL_AND_GAS_EXTRACTION",
  "UTILITIES",
  "CONSTRUCTION",
  "MANUFACTURING",
  "WHOLESALE_TRADE",
  "RETAIL_TRADE",
  "TRANSPORTATION_AND_WAREHOUSING",
  "INFORMATION",
  "FINANCE_AND_INSURANCE",
  "REAL_ESTATE_AND_RENTAL_AND_LEASING",
  "PROFESSIONAL_SCIENTIFIC_AND_TECHNICAL_SERVICES",
  "MANAGEMENT_OF_COMPANIES_AND_ENTERPRISES",
  "ADMINISTRATIVE_AND_SUPPORT_AND_WASTE_MANAGEMENT_AND_REMEDIATION_SERVICES",
  "EDUCATIONAL_SERVICES",
  "HEALTH_CARE_AND_SOCIAL_ASSISTANCE",
  "ARTS_ENTERTAINMENT_AND_RECREATION",
  "ACCOMMODATION_AND_FOOD_SERVICES",
  "OTHER_SERVICES",
  "PUBLIC_ADMINISTRATION"
])

const businessInfoFields = {
  legalName: boundedString(255),
  doingBusinessAs: Schema.optionalKey(boundedString(255)),
  country: CountryCode,
  registrationNumber: Schema.optionalKey(boundedString(64)),
  incorporatedOn: DateString,
  entityType: Schema.optionalKey(EntityType),
  taxId: boundedString(64),
  countriesOfOperation: Schema.optionalKey(Schema.Array(CountryCode)),
  businessType: Schema.optionalKey(BusinessType),
  purposeOfAccount: Schema.optionalKey(EddFields.purposeOfAccount.schema),
  sourceOfFunds: Schema.optionalKey(boundedString(500)),
  expectedMonthlyTransactionCount: Schema.optionalKey(EddFields.expectedMonthlyTransactionCount.schema),
  expectedMonthlyTransactionVolume: Schema.optionalKey(EddFields.expectedMonthlyTransactionVolume.schema),
  expectedRecipientJurisdictions: Schema.optionalKey(Schema.Array(CountryCode)),
  naicsCode: Schema.optionalKey(
    Schema.String.check(Schema.isPattern(/^\d{2,6}$/, { expected: "a NAICS code (2-6 digits)" }))
  ),
  sourceOfFundsCategories: Schema.optionalKey(
    Schema.Array(
      Schema.Literals([
        "OPERATING_REVENUE",
        "INVESTMENT_INCOME",
        "LOANS",
        "VENTURE_CAPITAL",
        "PERSONAL_SAVINGS",
        "DONATIONS",
        "OTHER"
      ])
    )
  ),
  sourceOfFundsOtherDescription: Schema.optionalKey(OtherDescription),
  purposeOfAccountOtherDescription: Schema.optionalKey(OtherDescription),
  expectedCounterpartyCountries: Schema.optionalKey(Schema.Array(CountryCode)),
  primaryContactFirstName: Schema.optionalKey(boundedString(250)),
  primaryContactLastName: Schema.optionalKey(boundedString(250))
}
export const BusinessInfo = Schema.Struct(businessInfoFields)
export type BusinessInfo = typeof BusinessInfo.Type
/** On update every business field is optional. */
export const BusinessInfoUpdate = Schema.Struct({
  ...businessInfoFields,
  legalName: Schema.optionalKey(businessInfoFields.legalName),
  country: Schema.optionalKey(businessInfoFields.country),
  incorporatedOn: Schema.optionalKey(businessInfoFields.incorporatedOn),
  taxId: Schema.optionalKey(businessInfoFields.taxId)
})

const commonFields = {
  id: CustomerId,
  platformCustomerId: Schema.String,
  region: Schema.optionalKey(CountryCode),
  currencies: Schema.Array(CurrencyCode),
  email: Schema.optionalKey(Email),
  phoneNumber: Schema.optionalKey(PhoneNumber),
  umaAddress: Schema.String,
  contactVerification: ContactVerification,
  endUserTermsConsent: Schema.optionalKey(EndUserTermsConsent),
  isDeleted: Schema.Boolean,
  createdAt: DateTimeString,
  updatedAt: DateTimeString
}

export const IndividualCustomer = Schema.Struct({
  ...commonFields,
  customerType: Schema.Literal("INDIVIDUAL"),
  kycStatus: KycStatus,
  ...IndividualFields
})
export type IndividualCustomer = typeof IndividualCustomer.Type

/**
 * A business customer's `businessInfo`: `incorporatedOn` and `taxId` may be absent on a business imported from a
 * CSV file (its columns have no incorporation date, and the tax id is optional there); KYB asks for them.
 */
export const CustomerBusinessInfo = Schema.Struct({
  ...businessInfoFields,
  incorporatedOn: Schema.optionalKey(businessInfoFields.incorporatedOn),
  taxId: Schema.optionalKey(businessInfoFields.taxId)
})

export const BusinessCustomer = Schema.Struct({
  ...commonFields,
  customerType: Schema.Literal("BUSINESS"),
  kybStatus: KycStatus,
  /** Mirrors `kybStatus` so clients polling `kycStatus` work for both types. */
  kycStatus: KycStatus,
  address: Schema.optionalKey(Address),
  businessInfo: CustomerBusinessInfo
})
export type BusinessCustomer = typeof BusinessCustomer.Type

export const Customer = Schema.Union([IndividualCustomer, BusinessCustomer])
export type Customer = typeof Customer.Type

// ---- beneficial owners ----

export const BeneficialOwnerRole = Schema.Literals([
  "UBO",
  "DIRECTOR",
  "COMPANY_OFFICER",
  "CONTROL_PERSON",
  "TRUSTEE",
  "GENERAL_PARTNER"
])
export type BeneficialOwnerRole = typeof BeneficialOwnerRole.Type

/** Whole percent, 0 to 100 inclusive. */
export const OwnershipPercentage = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 }))

const personalInfoFields = {
  firstName: boundedString(255),
  middleName: Schema.optionalKey(boundedString(255)),
  lastName: boundedString(255),
  birthDate: DateString,
  nationality: CountryCode,
  email: Schema.optionalKey(Email),
  phoneNumber: Schema.optionalKey(PhoneNumber),
  address: Address,
  /** The identification vocabulary shared with individual customers: `idType`, `identifier`, `countryOfIssuance`. */
  idType: IdentificationType,
  identifier: boundedString(64),
  countryOfIssuance: Schema.optionalKey(CountryCode)
}

export const BeneficialOwnerPersonalInfo = Schema.Struct(personalInfoFields)
export type BeneficialOwnerPersonalInfo = typeof BeneficialOwnerPersonalInfo.Type

/** On update every personal field is optional; `address` is replaced whole. */
export const BeneficialOwnerPersonalInfoUpdate = Schema.Struct({
  ...personalInfoFields,
  firstName: Schema.optionalKey(personalInfoFields.firstName),
  lastName: Schema.optionalKey(personalInfoFields.lastName),
  birthDate: Schema.optionalKey(personalInfoFields.birthDate),
  nationality: Schema.optionalKey(personalInfoFields.nationality),
  address: Schema.optionalKey(personalInfoFields.address),
  idType: Schema.optionalKey(personalInfoFields.idType),
  identifier: Schema.optionalKey(personalInfoFields.identifier)
})
export type BeneficialOwnerPersonalInfoUpdate = typeof BeneficialOwnerPersonalInfoUpdate.Type

/** A person who owns or controls a business customer; verified on its own (`kycStatus`) with the business. */
export const BeneficialOwner = Schema.Struct({
  id: BeneficialOwnerId,
  customerId: CustomerId,
  roles: Schema.Array(BeneficialOwnerRole),
  ownershipPercentage: OwnershipPercentage,
  personalInfo: BeneficialOwnerPersonalInfo,
  /** Moved only by the KYC provider's decisions (the `BeneficialOwnerKyc` machine). */
  kycStatus: KycStatus,
  createdAt: DateTimeString,
  updatedAt: DateTimeString
})
export type BeneficialOwner = typeof BeneficialOwner.Type

// ---- customers as answered (CU-06) ----

/**
 * A business customer as the customer routes answer it (the upstream's `BusinessCustomer`): the stored customer with
 * its beneficial owners, as `GET /beneficial-owners` answers them, oldest first.
 */
export const BusinessCustomerView = Schema.Struct({
  ...BusinessCustomer.fields,
  beneficialOwners: Schema.Array(BeneficialOwner)
})
export type BusinessCustomerView = typeof BusinessCustomerView.Type

/** What `POST`, `GET`, `PATCH` and `DELETE` of `/customers` answer (upstream `CustomerOneOf`). */
export const CustomerView = Schema.Union([IndividualCustomer, BusinessCustomerView])
export type CustomerView = typeof CustomerView.Type

const createCommon = {
  platformCustomerId: Schema.optionalKey(boundedString(255)),
  region: Schema.optionalKey(CountryCode),
  currencies: Schema.optionalKey(Schema.Array(CurrencyCode)),
  email: Schema.optionalKey(Email),
  phoneNumber: Schema.optionalKey(PhoneNumber),
  umaAddress: Schema.optionalKey(UmaAddress),
  endUserTermsConsent: Schema.optionalKey(EndUserTermsConsent)
}

/**
 * The status fields the upstream's request bodies carry (`kycStatus`, a business's `kybStatus`): accepted, so a body
 * written for the upstream is not refused as unknown, and ignored, since KYC/KYB alone sets them (CU-06).
 */
const ignoredKycStatus = { kycStatus: Schema.optionalKey(KycStatus) }
const ignoredKybStatus = { kybStatus: Schema.optionalKey(KycStatus) }

export const CreateIndividualRequest = Schema.Struct({
  customerType: Schema.Literal("INDIVIDUAL"),
  ...createCommon,
  ...IndividualFields,
  ...ignoredKycStatus
})
export const CreateBusinessRequest = Schema.Struct({
  customerType: Schema.Literal("BUSINESS"),
  ...createCommon,
  address: Schema.optionalKey(Address),
  businessInfo: BusinessInfo,
  ...ignoredKybStatus
})
export const CreateCustomerRequest = Schema.Union([CreateIndividualRequest, CreateBusinessRequest])
export type CreateCustomerRequest = typeof CreateCustomerRequest.Type

/**
 * A business create request as a row of a bulk CSV import can give it: the CSV has no incorporation date and the
 * tax id is optional there, while `POST /customers` requires both (`CreateBusinessRequest`). Every other field and
 * check is `CreateBusinessRequest`'s.
 */
export const BulkCreateBusinessRequest = Schema.Struct({
  ...CreateBusinessRequest.fields,
  businessInfo: CustomerBusinessInfo
})
export type BulkCreateBusinessRequest = typeof BulkCreateBusinessRequest.Type

/** A customer create request of a bulk import row: an individual's decodes with `CreateIndividualRequest` as it is. */
export const BulkCreateCustomerRequest = Schema.Union([CreateIndividualRequest, BulkCreateBusinessRequest])
export type BulkCreateCustomerRequest = typeof BulkCreateCustomerRequest.Type

// Every common field can change, the UMA address too (409 `UMA_ADDRESS_EXISTS` when another customer has it).
export const UpdateIndividualRequest = Schema.Struct({
  customerType: Schema.Literal("INDIVIDUAL"),
  ...createCommon,
  ...IndividualFields,
  ...ignoredKycStatus
})
export const UpdateBusinessRequest = Schema.Struct({
  customerType: Schema.Literal("BUSINESS"),
  ...createCommon,
  address: Schema.optionalKey(Address),
  businessInfo: Schema.optionalKey(BusinessInfoUpdate),
  ...ignoredKybStatus
})
export const UpdateCustomerRequest = Schema.Union([UpdateIndividualRequest, UpdateBusinessRequest])
export type UpdateCustomerRequest = typeof UpdateCustomerRequest.Type

export const ListCustomersQuery = Schema.Struct({
  platformCustomerId: Schema.optionalKey(Schema.String),
  customerType: Schema.optionalKey(CustomerType),
  region: Schema.optionalKey(CountryCode),
  currency: Schema.optionalKey(CurrencyCode),
  umaAddress: Schema.optionalKey(Schema.String),
  createdAfter: Schema.optionalKey(DateTimeString),
  createdBefore: Schema.optionalKey(DateTimeString),
  updatedAfter: Schema.optionalKey(DateTimeString),
  updatedBefore: Schema.optionalKey(DateTimeString),
  isIncludingDeleted: Schema.optionalKey(BooleanQueryParam),
  ...PageQueryFields
})
export type ListCustomersQuery = typeof ListCustomersQuery.Type
