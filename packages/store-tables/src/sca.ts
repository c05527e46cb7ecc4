import type {
  ScaChallengeFilter,
  ScaChallengeRecord,
  ScaFactorFilter,
  ScaFactorRecord,
  ScaFactorResetFilter,
  ScaFactorResetRecord,
  ScaSecurityFilter,
  ScaSecurityRecord,
  ScaSessionFilter,
  ScaSessionRecord,
  TrustedBeneficiaryFilter,
  TrustedBeneficiaryRecord
} from "@paycore/core"
import {
  after,
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

/**
 * SCA challenges (S-02): the code only as its SHA-256. `open_slot` (`<kind>|<subject or customer>`) is held only while
 * `OPEN`: one open challenge per login, quote step or trust operation.
 */
export const scaChallenges = table<ScaChallengeRecord, ScaChallengeFilter, "openSlot">()({
  name: "sca_challenges",
  columns: {
    id: key("id"),
    customerId: key("customer_id"),
    kind: text("kind"),
    subjectId: optional(key("subject_id")),
    step: bigint("step"),
    purpose: optional(text("purpose")),
    factor: text("factor"),
    availableFactors: textArray("available_factors"),
    status: text("status"),
    codeSha256: optional(text("code_sha256")),
    passkeyChallenge: optional(text("passkey_challenge")),
    linked: optional(json("linked")),
    attempts: bigint("attempts"),
    sends: bigint("sends"),
    lastSentAt: optional(instant("last_sent_at")),
    lastFailedAt: optional(instant("last_failed_at")),
    createdAt: instant("created_at"),
    expiresAt: instant("expires_at"),
    settledAt: optional(instant("settled_at")),
    openSlot: optional(text("open_slot"))
  },
  primaryKey: ["id"],
  unique: { openSlot: { column: "openSlot" } },
  filters: { customerId: eq("customerId") }
})

/** SCA login sessions (S-12, S-13): live while not revoked and `expires_at` is ahead. */
export const scaSessions = table<ScaSessionRecord, ScaSessionFilter>()({
  name: "sca_sessions",
  columns: {
    id: key("id"),
    customerId: key("customer_id"),
    factor: text("factor"),
    endUserIp: text("end_user_ip"),
    challengeId: key("challenge_id"),
    createdAt: instant("created_at"),
    expiresAt: instant("expires_at"),
    revokedAt: optional(instant("revoked_at"))
  },
  primaryKey: ["id"],
  filters: {
    customerId: eq("customerId"),
    expiresAfter: after("expiresAt"),
    includeRevoked: includesDeleted("revokedAt")
  }
})

/** A customer's consecutive failed SCA proofs and lock (C-41); the row's id is the customer's. */
export const scaSecurity = table<ScaSecurityRecord, ScaSecurityFilter>()({
  name: "sca_security",
  columns: {
    id: key("id"),
    failedAttempts: bigint("failed_attempts"),
    lockedUntil: optional(instant("locked_until")),
    suspended: boolean("suspended"),
    updatedAt: instant("updated_at")
  },
  primaryKey: ["id"]
})

/**
 * SCA factors (S-02): a TOTP secret only sealed by the KeyVault, the last accepted time step (replay guard), recovery
 * codes only as SHA-256. `slot` is held while `ACTIVE`, `pending_slot` while `PENDING` (`<customer>|<factor>`): one
 * active and one pending factor of each kind per customer.
 */
export const scaFactors = table<ScaFactorRecord, ScaFactorFilter, "slot" | "pendingSlot">()({
  name: "sca_factors",
  columns: {
    id: key("id"),
    customerId: key("customer_id"),
    factor: text("factor"),
    status: text("status"),
    name: optional(text("name")),
    credentialId: optional(key("credential_id")),
    publicKey: optional(text("public_key")),
    signCount: optional(bigint("sign_count")),
    totpSecretSealed: optional(text("totp_secret_sealed")),
    totpLastStep: optional(bigint("totp_last_step")),
    recoveryCodeHashes: optional(textArray("recovery_code_hashes")),
    phone: optional(text("phone")),
    enrolChallenge: optional(text("enrol_challenge")),
    enrolExpiresAt: optional(instant("enrol_expires_at")),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at"),
    slot: optional(text("slot")),
    pendingSlot: optional(text("pending_slot"))
  },
  primaryKey: ["id"],
  unique: { slot: { column: "slot" }, pendingSlot: { column: "pendingSlot" } },
  filters: { customerId: eq("customerId"), status: eq("status") }
})

/**
 * Trusted beneficiaries (AC-31 … AC-38): one row per external account a customer trusted (its id is the account's);
 * `status` `TRUSTED` or `UNTRUSTED` after an untrust. `challenge_id` is the passed challenge of the last move.
 */
export const trustedBeneficiaries = table<TrustedBeneficiaryRecord, TrustedBeneficiaryFilter>()({
  name: "trusted_beneficiaries",
  columns: {
    id: key("id"),
    customerId: key("customer_id"),
    status: text("status"),
    challengeId: key("challenge_id"),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at")
  },
  primaryKey: ["id"],
  filters: { customerId: eq("customerId") }
})

/**
 * SCA factor resets: the liveness session's reference (`liveness_nonce`) and handles, the 30-minute window. The
 * start limit (5 per rolling 24 h) lists a customer's rows by `created_at`.
 */
export const scaFactorResets = table<ScaFactorResetRecord, ScaFactorResetFilter>()({
  name: "sca_factor_resets",
  columns: {
    id: key("id"),
    customerId: key("customer_id"),
    factor: text("factor"),
    status: text("status"),
    livenessNonce: text("liveness_nonce"),
    verificationLink: optional(text("verification_link")),
    livenessToken: optional(text("liveness_token")),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at"),
    expiresAt: instant("expires_at"),
    completedAt: optional(instant("completed_at"))
  },
  primaryKey: ["id"],
  filters: { customerId: eq("customerId"), createdAfter: after("createdAt") }
})
