import { Conflict, InvalidInput, LimitExceeded, NotFound, Refused, type StoreError } from "../shared/errors.ts"

// ---- the signed retry's 401s (W-37, W-38); the HTTP binding maps every code here to 401 ----

/** The codes a signed retry refuses with, each answered 401. */
export const WALLET_UNAUTHORIZED_CODES = [
  "WALLET_SIGNATURE_MISSING",
  "WALLET_SIGNATURE_MALFORMED",
  "WALLET_SIGNATURE_BODY_MISMATCH",
  "WALLET_SIGNATURE_INVALID",
  "REQUEST_ID_MISSING",
  "UNAUTHORIZED"
] as const

const refused = (code: (typeof WALLET_UNAUTHORIZED_CODES)[number], message: string) => new Refused({ code, message })

export const signatureMissing = (
  message = "This wallet action needs a Service-Wallet-Signature header with its Request-Id"
) => refused("WALLET_SIGNATURE_MISSING", message)
export const requestIdMissing = () =>
  refused("REQUEST_ID_MISSING", "A signed retry needs the Request-Id header of its first answer")
export const signatureMalformed = () =>
  refused(
    "WALLET_SIGNATURE_MALFORMED",
    "Service-Wallet-Signature is not base64url JSON {publicKey, scheme: SIGNATURE_SCHEME_TK_API_P256, signature}"
  )
export const bodyMismatch = () =>
  refused("WALLET_SIGNATURE_BODY_MISMATCH", "The retry's body differs from the body of the first request")
export const signatureInvalid = () =>
  refused(
    "WALLET_SIGNATURE_INVALID",
    "The signature does not verify over payloadToSign with a key of an active session allowed to sign this action"
  )

/**
 * 401 `UNAUTHORIZED` (W-24, W-38): a reused, expired, unknown or foreign `requestId`, or a failed sign-in (wrong
 * code, token or assertion). Unlike a refused platform credential, it carries no `WWW-Authenticate` challenge.
 */
export const walletUnauthorized = (message: string) => refused("UNAUTHORIZED", message)
export const requestIdRefused = () =>
  walletUnauthorized("The Request-Id is unknown, already used, expired, or issued for another request")

// ---- credentials and sessions ----

export const accountNotFound = (id: string) =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `Embedded wallet account ${id} was not found` })
export const credentialNotFound = (id: string) =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `Authentication credential ${id} was not found` })
export const sessionNotFound = (id: string) =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `No active session ${id}` })

export const notAnEmbeddedWallet = (field: string, id: string) =>
  InvalidInput.one(field, { accountType: "EMBEDDED_WALLET" }, `${id} is not an embedded wallet account`)

const ALREADY_EXISTS = {
  EMAIL_OTP: "EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS",
  SMS_OTP: "SMS_OTP_CREDENTIAL_ALREADY_EXISTS",
  PASSKEY: "PASSKEY_CREDENTIAL_ALREADY_EXISTS",
  // The catalogue has no OAuth code: a second credential of one provider identity is an invalid input.
  OAUTH: "INVALID_INPUT"
} as const

/** W-09, W-10: 400 with the type's code. */
export const credentialExists = (type: keyof typeof ALREADY_EXISTS) =>
  new Refused({ code: ALREADY_EXISTS[type], message: `The account already has this ${type} credential` })

/** W-29. */
export const lastCredential = () =>
  new Refused({
    code: "INVALID_INPUT",
    message: "An embedded wallet keeps at least one verified credential: add another before revoking this one"
  })

/** W-14. */
export const noChallengeForOauth = () =>
  InvalidInput.one("type", { challenge: false }, "OAuth credentials have no challenge step: verify with a fresh token")

export const typeMismatch = (expected: string) =>
  InvalidInput.one("type", { enum: [expected] }, `This credential is of type ${expected}`)

/** W-15: 429 with `Retry-After`. */
export const challengeTooSoon = (retryAfterSeconds: number) =>
  new LimitExceeded({
    code: "RATE_LIMITED",
    message: `A new code can be sent in ${retryAfterSeconds} s`,
    retryAfterSeconds
  })

/**
 * A session key stamps for one live session: another wallet's live session holds this one (400: the client fixes it
 * with a new key; the upstream catalogue has no 409 on sign-in).
 */
export const keyInUse = () =>
  InvalidInput.one(
    "clientPublicKey",
    { unique: "live session key" },
    "This public key belongs to a live session of another wallet: use a new key"
  )

/** The set of credentials an action changes moved between its two legs (CU-18 names its own code). */
export const credentialSetChanged = () =>
  new Conflict({ code: "CONFLICT", message: "The account's credentials changed since the first request: start again" })

// ---- delegated keys ----

export const delegatedKeyNotFound = (id: string) =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `Delegated key ${id} was not found` })

/** W-45: an unknown card, or one the embedded wallet does not fund. */
export const fundingSourceNotFound = (cardId: string, accountId: string) =>
  new NotFound({
    code: "REFERENCE_NOT_FOUND",
    message: `Card ${cardId} has no funding source backed by the embedded wallet ${accountId}`
  })

/** W-45, L-11 (design open question 8: the generic code). */
export const activeKeyExists = (fundingSourceId: string) =>
  new Conflict({
    code: "CONFLICT",
    message: `Funding source ${fundingSourceId} already has an ACTIVE delegated key: revoke it before creating another`
  })

/** W-46 (revoking), W-44 and W-47 (signing): only an `ACTIVE` key. */
export const delegatedKeyNotActive = (id: string, status: string) =>
  new Refused({ code: "INVALID_INPUT", message: `Delegated key ${id} is ${status}, not ACTIVE` })

export const delegatedKeyFilterMissing = () =>
  InvalidInput.one("accountId", { required: true }, "Provide accountId, fundingSourceId or both")

export type WalletAuthError = InvalidInput | Refused | NotFound | Conflict | LimitExceeded | StoreError
