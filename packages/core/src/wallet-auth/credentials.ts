import { Clock, Effect } from "effect"
import type { InternalAccountRecord } from "../accounts/model.ts"
import type { EmbeddedWalletConfig, Environment, PlatformConfig } from "../platform/model.ts"
import { scanAll } from "../platform/paging.ts"
import { bundleSignerOf } from "../ports/bundle-signer.ts"
import { Ids } from "../ports/ids.ts"
import { OidcKeys } from "../ports/oidc-keys.ts"
import { Store } from "../ports/store.ts"
import { InvalidInput } from "../shared/errors.ts"
import { isoOf } from "../shared/time.ts"
import {
  accountNotFound,
  credentialExists,
  credentialNotFound,
  lastCredential,
  notAnEmbeddedWallet,
  walletUnauthorized
} from "./errors.ts"
import type { AuthMethod, CreateCredentialRequest, SignedRetryInput, WalletCredentialRecord } from "./model.ts"
import { verifyOidcToken } from "./oidc.ts"
import { issueOtp, otpTargetKey } from "./otp.ts"
import { verifyPasskeyRegistration } from "./passkey.ts"
import type { WalletAuthPorts } from "./ports.ts"
import { endSession } from "./sessions.ts"
import { refuseSpentRequest, signedRetry } from "./signed-retry.ts"

/** What wallet-auth reads of a customer (the customers context sits above this one). */
interface CustomerContact {
  readonly id: string
  readonly email?: string | undefined
  readonly phoneNumber?: string | undefined
}

/** The API view of a credential (W-01). */
export const toAuthMethod = (c: WalletCredentialRecord): AuthMethod => ({
  id: c.id,
  accountId: c.accountId,
  type: c.type,
  ...(c.passkeyCredentialId === undefined ? {} : { credentialId: c.passkeyCredentialId }),
  nickname: c.nickname,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt
})

/**
 * The passkey relying party of the platform (FEATURES "passkey relying party"): its configured id and origins, or
 * the sandbox's `localhost` with `http(s)://localhost` on any port.
 */
export const relyingParty = (config: EmbeddedWalletConfig | undefined) => ({
  rpId: config?.relyingPartyId ?? "localhost",
  origins: config?.passkeyAllowedOrigins ?? ["http://localhost", "https://localhost"]
})

/** The uniqueness slot of an active credential (W-09, W-10). */
const slotOf = (c: Omit<WalletCredentialRecord, "slot">): string => {
  switch (c.type) {
    case "EMAIL_OTP":
    case "SMS_OTP":
      return `${c.accountId}|${c.type}`
    case "OAUTH":
      return `${c.accountId}|OAUTH|${c.oidcIssuer}|${c.oidcSubject}`
    case "PASSKEY":
      return `${c.accountId}|PASSKEY|${c.passkeyCredentialId}`
  }
}

const withSlot = (c: Omit<WalletCredentialRecord, "slot">): WalletCredentialRecord => ({ ...c, slot: slotOf(c) })

/**
 * The credential an embedded wallet starts with (W-04): `EMAIL_OTP` tied to the customer's email; none when the
 * customer has no email yet (a later email gives it one: `ensureBootstrapCredential`).
 */
export const bootstrapCredential = Effect.fnUntraced(function* (
  account: InternalAccountRecord,
  customer: CustomerContact
) {
  if (account.type !== "EMBEDDED_WALLET" || customer.email === undefined) return undefined
  const ids = yield* Ids
  const now = isoOf(yield* Clock.currentTimeMillis)
  return withSlot({
    id: yield* ids.make("AuthMethod"),
    accountId: account.id,
    customerId: customer.id,
    type: "EMAIL_OTP",
    status: "ACTIVE",
    verified: true,
    nickname: customer.email,
    contact: customer.email,
    createdAt: now,
    updatedAt: now
  })
})

/** The account's active credentials, oldest first. */
export const activeCredentials = (accountId: string) =>
  Effect.flatMap(Store, (store) =>
    scanAll((page) => store.walletCredentials.list({ accountId, includeRevoked: false }, page))
  )

/** The account when it is an embedded wallet: 404 unknown, 400 another type. */
export const walletAccount = Effect.fnUntraced(function* (accountId: string, field = "accountId") {
  const store = yield* Store
  const account = yield* store.internalAccounts.get(accountId)
  if (account === undefined) return yield* accountNotFound(accountId)
  if (account.type !== "EMBEDDED_WALLET") return yield* notAnEmbeddedWallet(field, accountId)
  return account
})

// Credential CRUD of `WalletAuth` (W-04 … W-11, W-27 … W-29), over its ports.

/** W-11: the account's active credentials (unknown account: none). */
export const listCredentials = Effect.fnUntraced(function* (ports: WalletAuthPorts, accountId: string) {
  const rows = yield* ports.provide(activeCredentials(accountId))
  return { data: rows.map(toAuthMethod) }
})

/** What a create request adds, checked (attestation, token) but not stored. */
const candidate = Effect.fnUntraced(function* (
  ports: WalletAuthPorts,
  req: CreateCredentialRequest,
  account: InternalAccountRecord,
  customer: CustomerContact,
  config: PlatformConfig
) {
  const now = isoOf(yield* Clock.currentTimeMillis)
  const common = {
    id: yield* ports.ids.make("AuthMethod"),
    accountId: account.id,
    customerId: customer.id,
    status: "ACTIVE" as const,
    createdAt: now,
    updatedAt: now
  }
  switch (req.type) {
    case "PASSKEY": {
      const rp = relyingParty(config.embeddedWalletConfig)
      const registered = yield* verifyPasskeyRegistration({
        ...req.attestation,
        expectedChallenge: req.challenge,
        rpId: rp.rpId,
        origins: rp.origins
      }).pipe(Effect.mapError((e) => InvalidInput.one("attestation", { webauthn: "registration" }, e.reason)))
      return withSlot({
        ...common,
        type: "PASSKEY",
        verified: true,
        nickname: req.nickname,
        passkeyCredentialId: registered.credentialId,
        passkeyPublicKey: registered.publicKey,
        signCount: registered.signCount,
        transports: registered.transports
      })
    }
    case "OAUTH": {
      const { resolver } = yield* OidcKeys
      const claims = yield* verifyOidcToken(req.oidcToken, {
        keys: resolver,
        now: new Date(yield* Clock.currentTimeMillis)
      }).pipe(
        Effect.mapError((e) =>
          e.reason === "MALFORMED"
            ? InvalidInput.one("oidcToken", { format: "jwt" }, e.message)
            : walletUnauthorized(`The OIDC token was refused: ${e.message}`)
        )
      )
      return withSlot({
        ...common,
        type: "OAUTH",
        verified: true,
        nickname: claims.email ?? claims.sub,
        oidcIssuer: claims.iss,
        oidcAudience: claims.aud,
        oidcSubject: claims.sub
      })
    }
    case "EMAIL_OTP":
    case "SMS_OTP": {
      const contact = req.type === "EMAIL_OTP" ? customer.email : customer.phoneNumber
      if (contact === undefined) {
        const field = req.type === "EMAIL_OTP" ? "email" : "phoneNumber"
        return yield* InvalidInput.one(
          "type",
          { customerField: field },
          `The customer has no ${field} to send codes to`
        )
      }
      // Re-added (W-07): it signs only after its first verification.
      return withSlot({ ...common, type: req.type, verified: false, nickname: contact, contact })
    }
  }
})

/**
 * W-05 … W-10: the first credential of an account is added at once (201); with credentials, by a signed retry
 * stamped by a session of one of them (W-08). An OTP credential's first code goes out with the 201 (W-07).
 */
export const createCredential = Effect.fnUntraced(function* (
  ports: WalletAuthPorts,
  req: CreateCredentialRequest,
  input: SignedRetryInput,
  environment: Environment
) {
  const { store, provide } = ports
  const retried = { operation: "ADD_CREDENTIAL", accountId: req.accountId, subjectId: req.accountId } as const
  yield* provide(refuseSpentRequest(retried, input))
  const config = yield* ports.platformConfig.get()
  const account = yield* provide(walletAccount(req.accountId))
  const customer = account.customerId === undefined ? undefined : yield* store.customers.get(account.customerId)
  if (customer === undefined) return yield* accountNotFound(req.accountId)
  const record = yield* candidate(ports, req, account, customer, config)
  const signer = yield* bundleSignerOf(environment)
  if ((yield* store.walletCredentials.findUnique("slot", record.slot!)) !== undefined) {
    return yield* credentialExists(record.type)
  }
  const insert = Effect.gen(function* () {
    yield* store.walletCredentials
      .insert(record)
      .pipe(Effect.catchTag("UniqueViolation", () => credentialExists(record.type)))
    if (record.type !== "EMAIL_OTP" && record.type !== "SMS_OTP")
      return { method: toAuthMethod(record), send: Effect.void }
    const issued = yield* issueOtp(ports, record, config.embeddedWalletConfig, yield* otpTargetKey, signer)
    return {
      method: { ...toAuthMethod(record), otpEncryptionTargetBundle: issued.otpEncryptionTargetBundle },
      send: issued.send
    }
  })
  const existing = yield* provide(activeCredentials(account.id))
  const result =
    existing.length === 0
      ? yield* store.transaction(insert)
      : yield* provide(
          signedRetry(
            {
              operation: "ADD_CREDENTIAL",
              accountId: account.id,
              subjectId: account.id,
              credentialType: req.type,
              credentialSet: Effect.map(activeCredentials(account.id), (rows) => rows.map((c) => c.id)),
              apply: () => insert
            },
            input
          )
        )
  if (!("method" in result)) return result
  // After the commit: a store transaction may run twice, a code goes out once.
  yield* result.send
  return result.method
})

/**
 * W-27 … W-29: signed by a session of another credential of the account; the account keeps at least one verified
 * credential; the credential's sessions end with it.
 */
export const revokeCredential = Effect.fnUntraced(function* (
  ports: WalletAuthPorts,
  id: string,
  input: SignedRetryInput
) {
  const { store, provide } = ports
  yield* provide(refuseSpentRequest({ operation: "REVOKE_CREDENTIAL", subjectId: id }, input))
  const credential = yield* store.walletCredentials.get(id)
  if (credential === undefined || credential.status !== "ACTIVE") return yield* credentialNotFound(id)
  const others = (rows: ReadonlyArray<WalletCredentialRecord>) => rows.filter((c) => c.id !== id && c.verified)
  if (others(yield* provide(activeCredentials(credential.accountId))).length === 0) return yield* lastCredential()
  return yield* provide(
    signedRetry(
      {
        operation: "REVOKE_CREDENTIAL",
        accountId: credential.accountId,
        subjectId: credential.id,
        credentialType: credential.type,
        begin: Effect.succeed({ signer: { kind: "OTHER_CREDENTIAL", credentialId: credential.id } as const }),
        credentialSet: Effect.succeed([credential.id]),
        apply: () =>
          Effect.gen(function* () {
            const current = yield* store.walletCredentials.getForUpdate(id)
            if (current === undefined || current.status !== "ACTIVE") return yield* credentialNotFound(id)
            if (others(yield* activeCredentials(current.accountId)).length === 0) return yield* lastCredential()
            const now = isoOf(yield* Clock.currentTimeMillis)
            const { slot: _slot, ...rest } = current
            yield* Effect.orDie(
              store.walletCredentials.update({ ...rest, status: "REVOKED", revokedAt: now, updatedAt: now })
            )
            const sessions = yield* scanAll((page) =>
              store.walletSessions.list({ credentialId: id, status: "ACTIVE" }, page)
            )
            for (const s of sessions) {
              yield* Effect.orDie(store.walletSessions.update(endSession(s, "REVOKED", now)))
            }
            return undefined
          })
      },
      input
    )
  )
})
