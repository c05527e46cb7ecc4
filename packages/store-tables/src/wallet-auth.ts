import type {
  DelegatedKeyFilter,
  DelegatedKeyRecord,
  OtpChallengeFilter,
  OtpChallengeRecord,
  SignedRequestFilter,
  SignedRequestRecord,
  WalletCredentialFilter,
  WalletCredentialRecord,
  WalletSessionFilter,
  WalletSessionRecord
} from "@paycore/core"
import {
  bigint,
  boolean,
  eq,
  includesDeleted,
  instant,
  json,
  key,
  optional,
  table,
  text,
  textArray
} from "./describe.ts"

/** Embedded-wallet credentials (W-01, W-09, W-10): `slot` is held only while the credential is active. */
export const walletCredentials = table<WalletCredentialRecord, WalletCredentialFilter, "slot">()({
  name: "wallet_credentials",
  columns: {
    id: key("id"),
    accountId: key("account_id"),
    customerId: key("customer_id"),
    type: text("type"),
    status: text("status"),
    verified: boolean("verified"),
    nickname: text("nickname"),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at"),
    contact: optional(text("contact")),
    passkeyCredentialId: optional(text("passkey_credential_id")),
    passkeyPublicKey: optional(text("passkey_public_key")),
    signCount: optional(bigint("sign_count")),
    transports: optional(textArray("transports")),
    oidcIssuer: optional(text("oidc_issuer")),
    oidcAudience: optional(text("oidc_audience")),
    oidcSubject: optional(text("oidc_subject")),
    slot: optional(text("slot")),
    revokedAt: optional(instant("revoked_at"))
  },
  primaryKey: ["id"],
  unique: { slot: { column: "slot" } },
  filters: {
    accountId: eq("accountId"),
    contact: eq("contact"),
    includeRevoked: includesDeleted("revokedAt")
  }
})

/** Wallet sessions (W-02); `EXPIRED` is read from `expires_at`. */
export const walletSessions = table<WalletSessionRecord, WalletSessionFilter, "liveKey">()({
  name: "wallet_sessions",
  columns: {
    id: key("id"),
    accountId: key("account_id"),
    credentialId: key("credential_id"),
    type: text("type"),
    nickname: text("nickname"),
    publicKey: text("public_key"),
    status: text("status"),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at"),
    expiresAt: instant("expires_at"),
    liveKey: optional(text("live_key"))
  },
  primaryKey: ["id"],
  unique: { liveKey: { column: "liveKey" } },
  filters: {
    accountId: eq("accountId"),
    credentialId: eq("credentialId"),
    status: eq("status")
  }
})

/** First legs of signed retries (W-35, W-38): a row is consumed in the transaction of its action's effect. */
export const signedRequests = table<SignedRequestRecord, SignedRequestFilter>()({
  name: "wallet_signed_requests",
  columns: {
    id: key("id"),
    accountId: key("account_id"),
    operation: text("operation"),
    subjectId: key("subject_id"),
    status: text("status"),
    payloadToSign: text("payload_to_sign"),
    bodySha256: text("body_sha256"),
    credentialSetSha256: text("credential_set_sha256"),
    signer: text("signer"),
    expiresAt: instant("expires_at"),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at"),
    bound: optional(json("bound")),
    stampSha256: optional(text("stamp_sha256"))
  },
  primaryKey: ["id"],
  filters: { accountId: eq("accountId") }
})

/** Open OTP challenges, one per credential (its id): the code's hash and the sealed HPKE target key. */
export const otpChallenges = table<OtpChallengeRecord, OtpChallengeFilter>()({
  name: "wallet_otp_challenges",
  columns: {
    id: key("id"),
    accountId: key("account_id"),
    codeSha256: text("code_sha256"),
    targetPublicKey: text("target_public_key"),
    targetPrivateKeySealed: text("target_private_key_sealed"),
    attempts: bigint("attempts"),
    issuedAt: instant("issued_at"),
    expiresAt: instant("expires_at")
  },
  primaryKey: ["id"],
  filters: { accountId: eq("accountId") }
})

/**
 * Delegated keys (W-42 … W-47): the private key only sealed by the KeyVault. `active_slot` (the funding source, while
 * `ACTIVE`) is unique: the store keeps one `ACTIVE` key per card funding source (W-45, L-11).
 */
export const delegatedKeys = table<DelegatedKeyRecord, DelegatedKeyFilter, "activeSlot">()({
  name: "wallet_delegated_keys",
  columns: {
    id: key("id"),
    cardId: key("card_id"),
    fundingSourceId: key("funding_source_id"),
    accountId: key("account_id"),
    publicKey: text("public_key"),
    privateKeySealed: text("private_key_sealed"),
    nickname: text("nickname"),
    status: text("status"),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at"),
    activeSlot: optional(text("active_slot"))
  },
  primaryKey: ["id"],
  unique: { activeSlot: { column: "activeSlot" } },
  filters: {
    accountId: eq("accountId"),
    fundingSourceId: eq("fundingSourceId")
  }
})
