import { Conflict, InvalidInput, LimitExceeded, NotFound, Refused, type StoreError } from "../shared/errors.ts"

/** 404 `QUOTE_NOT_FOUND`. */
export const quoteNotFound = (id: string): NotFound =>
  new NotFound({ code: "QUOTE_NOT_FOUND", message: `Quote ${id} was not found` })

/** 409 `QUOTE_EXPIRED`: executed at or after `expiresAt`; the quote (and its transaction) are now EXPIRED. */
export const quoteExpired = (id: string, expiresAt: string): Conflict =>
  new Conflict({
    code: "QUOTE_EXPIRED",
    message: `Quote ${id} expired at ${expiresAt}; create a new quote`,
    details: { expiresAt }
  })

/** 409 `QUOTE_ALREADY_EXECUTED`: a quote executes once. */
export const quoteAlreadyExecuted = (id: string, status: string): Conflict =>
  new Conflict({
    code: "QUOTE_ALREADY_EXECUTED",
    message: `Quote ${id} was already executed (status ${status})`,
    details: { status }
  })

/** 409 `QUOTE_NOT_EXECUTABLE`: a quote funded by payment instructions runs when the deposit arrives. */
export const quoteNotExecutable = (id: string): Conflict =>
  new Conflict({
    code: "QUOTE_NOT_EXECUTABLE",
    message: `Quote ${id} is funded by payment instructions: it executes when the deposit arrives, not by a call`
  })

/** 403 (http table) `END_USER_TERMS_NOT_ACCEPTED`: unregulated platforms need the customer's consent on file. */
export const endUserTermsNotAccepted = (customerId: string): Refused =>
  new Refused({
    code: "END_USER_TERMS_NOT_ACCEPTED",
    message: `Customer ${customerId} has not accepted the end-user terms; record endUserTermsConsent first`
  })

/** 400 `TRANSACTION_SIZE_LIMIT_EXCEEDED`. */
export const transactionSizeLimitExceeded = (currency: string, amount: number, max: number): Refused =>
  new Refused({
    code: "TRANSACTION_SIZE_LIMIT_EXCEEDED",
    message: `The payment of ${amount} ${currency} (smallest unit) is above the limit of ${max} per transaction`,
    details: { currency, amount, maxTransactionAmount: max }
  })

/** 429 `DAILY_VOLUME_LIMIT_EXCEEDED`; `retryAfterSeconds` is the time left until the UTC day ends. */
export const dailyVolumeLimitExceeded = (
  currency: string,
  used: number,
  amount: number,
  max: number,
  retryAfterSeconds: number
): LimitExceeded =>
  new LimitExceeded({
    code: "DAILY_VOLUME_LIMIT_EXCEEDED",
    message: `The payment of ${amount} ${currency} would exceed today's volume limit of ${max} (already used ${used}); the limit resets at 00:00 UTC`,
    retryAfterSeconds
  })

/** 404 `UMA_NOT_FOUND`: a well-formed UMA address with no receiver at the counterparty. */
export const umaNotFound = (address: string): NotFound =>
  new NotFound({ code: "UMA_NOT_FOUND", message: `No receiver exists at UMA address ${address}` })

/** 404 `LOOKUP_REQUEST_NOT_FOUND` (C-23): a `lookupId` this service did not issue, or whose lookup expired. */
export const lookupNotFound = (id: string): NotFound =>
  new NotFound({
    code: "LOOKUP_REQUEST_NOT_FOUND",
    message: `Lookup ${id} was not found or has expired; look the receiver up again (GET /receiver/...)`
  })

/** 400 on `lookupId`: a quote to an UMA address names the lookup of that address. */
export const lookupRequired = (umaAddress: string): InvalidInput =>
  InvalidInput.one(
    "lookupId",
    { required: true },
    `A quote to an UMA address needs the lookupId of GET /receiver/uma/${umaAddress}`
  )

/** 400 on `lookupId`: the lookup named was of another receiver than the quote's destination. */
export const lookupOfAnotherReceiver = (id: string, looked: string, destination: string): InvalidInput =>
  InvalidInput.one(
    "lookupId",
    { receiver: looked },
    `Lookup ${id} was of ${looked}, not of the quote's destination ${destination}`
  )

/**
 * 400 `MISSING_MANDATORY_USER_INFO`: the receiver asked for payer data the quote's `senderCustomerInfo` does
 * not carry; `details.errors` names each field (`senderCustomerInfo.<NAME>`), as a validation error does.
 */
export const missingPayerData = (lookupId: string, missing: ReadonlyArray<string>): Refused =>
  new Refused({
    code: "MISSING_MANDATORY_USER_INFO",
    message: `The receiver of lookup ${lookupId} requires ${missing.join(", ")} about the payer in senderCustomerInfo`,
    details: {
      errors: missing.map((name) => ({
        field: `senderCustomerInfo.${name}`,
        constraint: { required: true },
        message: `The receiver requires ${name} about the payer`
      }))
    }
  })

/** 400 `QUOTE_REQUEST_FAILED` (retryable): no market rate for the pair right now. */
export const quoteRequestFailed = (from: string, to: string): Refused =>
  new Refused({
    code: "QUOTE_REQUEST_FAILED",
    message: `No exchange rate from ${from} to ${to} is available right now; retry later`,
    details: { sourceCurrency: from, destinationCurrency: to, retryable: true }
  })

/** 404 `USER_NOT_FOUND` (the spec's code for an unknown customer). */
export const customerNotFound = (id: string): NotFound =>
  new NotFound({ code: "USER_NOT_FOUND", message: `Customer ${id} was not found` })

/** 410 (http table) `CUSTOMER_DELETED`. */
export const customerDeleted = (id: string): Refused =>
  new Refused({ code: "CUSTOMER_DELETED", message: `Customer ${id} was deleted` })

export { accountNotFound } from "../accounts/errors.ts"

/** 400 `ACCOUNT_NOT_ACTIVE`: a closed, frozen or failed internal account cannot send or receive. */
export const accountNotActive = (id: string, status: string): Refused =>
  new Refused({
    code: "ACCOUNT_NOT_ACTIVE",
    message: `Account ${id} is ${status}; only an ACTIVE account can move money`,
    details: { status }
  })

/** 400 `EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED`: the payee account is not usable yet. */
export const externalAccountNotUsable = (id: string, status: string): Refused =>
  new Refused({
    code: "EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED",
    message: `External account ${id} is ${status}; it must be ACTIVE or PENDING_OWNERSHIP_VERIFICATION to be paid`,
    details: { status }
  })

/** 400 `SELF_PAYMENT`: source and destination are the same account. */
export const selfPayment = (id: string): Refused =>
  new Refused({ code: "SELF_PAYMENT", message: `Account ${id} cannot pay itself` })

/**
 * 400 `AMOUNT_OUT_OF_RANGE`: outside what the receiver accepts, or what the platform allows in the currency
 * (`by`: `supportedCurrencies[].minAmount/maxAmount`, L-19).
 */
export const amountOutOfRange = (
  amount: number,
  currency: string,
  min: number,
  max: number,
  by: "receiver" | "platform" = "receiver"
): Refused =>
  new Refused({
    code: "AMOUNT_OUT_OF_RANGE",
    message:
      by === "receiver"
        ? `The receiver accepts ${min} to ${max} ${currency} (smallest unit), not ${amount}`
        : `The platform allows payments of ${min} to ${max} ${currency} (smallest unit, supportedCurrencies), not ${amount}`,
    details: { amount, currency, min, max }
  })

/** 400 `MISSING_MANDATORY_USER_INFO` (L-19): an UMA sender's institution does not tell what the platform requires. */
export const senderWithholds = (senderUmaAddress: string, missing: ReadonlyArray<string>): Refused =>
  new Refused({
    code: "MISSING_MANDATORY_USER_INFO",
    message: `${senderUmaAddress} does not provide ${missing.join(", ")}, which the platform requires of senders (supportedCurrencies[].requiredCounterpartyFields)`,
    details: { missing }
  })

/** 400 `INVALID_CURRENCY` (L-19): the platform's config does not enable `type` payments in the currency. */
export const currencyNotEnabled = (currency: string, type: "INCOMING" | "OUTGOING", field: string): Refused =>
  new Refused({
    code: "INVALID_CURRENCY",
    message: `${currency} is not enabled for ${type} payments (supportedCurrencies[].enabledTransactionTypes)`,
    details: { currency, transactionType: type, field }
  })

/** 400 `AMOUNT_OUT_OF_RANGE`: the fees would take the whole withdrawal; `min` is the least that nets 1. */
export const withdrawalBelowFees = (amount: number, currency: string, totalFee: number): Refused =>
  new Refused({
    code: "AMOUNT_OUT_OF_RANGE",
    message: `A withdrawal of ${amount} ${currency} (smallest unit) does not cover its fees of ${totalFee}`,
    details: { amount, currency, min: totalFee + 1, totalFee }
  })

export const invalidField = (field: string, constraint: Record<string, unknown>, message: string): InvalidInput =>
  InvalidInput.one(field, constraint, message)

export type QuoteError = InvalidInput | Refused | NotFound | Conflict | LimitExceeded | StoreError

// ---- quotes under Strong Customer Authentication (S-03 … S-08, S-11) ----

/** 400 on `scaFactor` (S-08): a payment's challenge needs a factor that carries dynamic linking; TOTP cannot. */
export const scaFactorNotLinkable = (): InvalidInput =>
  InvalidInput.one(
    "scaFactor",
    { enum: ["SMS_OTP", "PASSKEY"] },
    "TOTP cannot carry the dynamic linking a payment's SCA challenge needs; use SMS_OTP or PASSKEY"
  )

/** 400 on `scaFactor`: the customer cannot use the factor asked for (or none that can carry a payment's challenge). */
export const scaFactorNotUsable = (asked: string | undefined, usable: ReadonlyArray<string>): InvalidInput =>
  InvalidInput.one(
    "scaFactor",
    { enum: usable },
    asked === undefined
      ? "The customer has no factor for a payment's SCA challenge: verify its phone (SMS_OTP) or enrol a passkey"
      : `The customer cannot use ${asked} for a payment's SCA challenge (usable: ${usable.join(", ") || "none"})`
  )

/** 409 `CONFLICT` (S-04): the quote's customer is not subject to SCA (or the quote has none: platform-funded). */
export const quoteNotUnderSca = (quoteId: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `Quote ${quoteId} needs no Strong Customer Authentication: its customer is not in an SCA region`
  })

/** 409 `CONFLICT` (S-04, S-07): the quote has no challenge to authorize (already authorized, failed, or never). */
export const noPendingAuthorization = (quoteId: string, status: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `Quote ${quoteId} has no pending SCA challenge (status ${status})`,
    details: { status }
  })

/** 409 `CONFLICT` (S-07): only an SMS code can be sent again; a passkey challenge is answered on the device. */
export const scaCodeNotResendable = (quoteId: string, factor: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `The SCA challenge of quote ${quoteId} uses ${factor}: there is no code to send again`,
    details: { factor }
  })

/** 400 on `code` (S-11): the challenge expired, so the payment failed (`SCA_NOT_COMPLETED`); a new quote is needed. */
export const quoteChallengeExpired = (quoteId: string): InvalidInput =>
  InvalidInput.one(
    "code",
    { expired: true },
    `The SCA challenge of quote ${quoteId} expired: its payment failed (SCA_NOT_COMPLETED); create a new quote`
  )

/** 403 `COUNTERPARTY_NOT_ALLOWED` (C-49): the receiver's provider is not on the platform's allow list. */
export const counterpartyNotAllowed = (umaAddress: string): Refused =>
  new Refused({
    code: "COUNTERPARTY_NOT_ALLOWED",
    message: `The provider of ${umaAddress} is not on the platform's allow list (GET /uma-providers: allowListStatus)`
  })

/** 412 `UNSUPPORTED_UMA_VERSION` or 424 (C-50): the counterparty could not be dealt with; the code says how. */
export const counterpartyFailed = (failure: { readonly code: string; readonly message: string }): Refused =>
  new Refused({ code: failure.code, message: failure.message })

/** 403 `USER_NOT_READY` (C-49): the customer's KYC was rejected or is on hold, so it can neither send nor receive. */
export const userNotReady = (customerId: string, kycStatus: string): Refused =>
  new Refused({
    code: "USER_NOT_READY",
    message: `Customer ${customerId} cannot send or receive payments: its KYC status is ${kycStatus}`,
    details: { kycStatus }
  })
