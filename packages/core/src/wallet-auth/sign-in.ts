import { Clock, Effect } from "effect"
import type { Environment, PlatformConfig } from "../platform/model.ts"
import { bundleSignerOf } from "../ports/bundle-signer.ts"
import { OidcKeys } from "../ports/oidc-keys.ts"
import { sha256Hex } from "../shared/digests.ts"
import { InvalidInput } from "../shared/errors.ts"
import { isoAfter, isoOf } from "../shared/time.ts"
import { relyingParty, toAuthMethod } from "./credentials.ts"
import { credentialNotFound, noChallengeForOauth, typeMismatch, walletUnauthorized } from "./errors.ts"
import type {
  ChallengeCredentialRequest,
  PasskeyAuthChallenge,
  SignedRequestRecord,
  SignedRetryInput,
  VerifyCredentialRequest,
  WalletCredentialRecord
} from "./model.ts"
import { nonceFor, verifyOidcToken } from "./oidc.ts"
import { checkOtp, issueOtp, otpTargetKey } from "./otp.ts"
import { verifyPasskeyAssertion } from "./passkey.ts"
import type { WalletAuthPorts } from "./ports.ts"
import { newSession, sessionKeyFor, storeSession, toAuthSession } from "./sessions.ts"
import { refuseSpentRequest, SIGNED_RETRY_SECONDS, signedRetry } from "./signed-retry.ts"

// Signing in with a credential, over the ports of `WalletAuth`: its challenge and its verification (W-12 … W-26).

const activeCredential = Effect.fnUntraced(function* (ports: WalletAuthPorts, id: string) {
  const credential = yield* ports.store.walletCredentials.get(id)
  if (credential === undefined || credential.status !== "ACTIVE") return yield* credentialNotFound(id)
  return credential
})

/**
 * A new session of `credential` stamping with `clientPublicKey`'s session key, written with the credential marked
 * verified (its first sign-in activates a re-added OTP credential: W-07); in the caller's transaction.
 */
const openSession = Effect.fnUntraced(function* (
  ports: WalletAuthPorts,
  credential: WalletCredentialRecord,
  clientPublicKey: string
) {
  const { store, provide } = ports
  const key = yield* sessionKeyFor(clientPublicKey)
  const session = yield* provide(newSession(credential, key.publicKey))
  if (!credential.verified) {
    const current = yield* store.walletCredentials.getForUpdate(credential.id)
    if (current === undefined || current.status !== "ACTIVE") return yield* credentialNotFound(credential.id)
    yield* Effect.orDie(store.walletCredentials.update({ ...current, verified: true, updatedAt: session.createdAt }))
  }
  yield* provide(storeSession(session))
  return toAuthSession(session, key.encryptedKey)
})

/**
 * W-12, W-13: an OTP credential gets a fresh code and HPKE target (429 within `OTP_RESEND_SECONDS`); a passkey
 * gets the hex challenge binding the session it will open; OAuth has no challenge (W-14).
 */
export const challengeCredential = Effect.fnUntraced(function* (
  ports: WalletAuthPorts,
  id: string,
  req: ChallengeCredentialRequest,
  environment: Environment
) {
  const config = yield* ports.platformConfig.get()
  const credential = yield* activeCredential(ports, id)
  switch (credential.type) {
    case "OAUTH":
      return yield* noChallengeForOauth()
    case "PASSKEY": {
      const clientPublicKey = req?.clientPublicKey
      if (clientPublicKey === undefined) {
        return yield* InvalidInput.one(
          "clientPublicKey",
          { required: true },
          "A passkey challenge needs clientPublicKey"
        )
      }
      return yield* passkeyChallenge(ports, credential, clientPublicKey)
    }
    case "EMAIL_OTP":
    case "SMS_OTP": {
      const target = yield* otpTargetKey
      const signer = yield* bundleSignerOf(environment)
      const issued = yield* ports.store.transaction(
        issueOtp(ports, credential, config.embeddedWalletConfig, target, signer)
      )
      yield* issued.send
      return { ...toAuthMethod(credential), otpEncryptionTargetBundle: issued.otpEncryptionTargetBundle }
    }
  }
})

/**
 * W-12: the session-creation body `{accountId, credentialId, clientPublicKey, requestId, expiresAt}` is stored as
 * a `PASSKEY_LOGIN` request; the authenticator signs the lowercase hex SHA-256 of it.
 */
const passkeyChallenge = Effect.fnUntraced(function* (
  ports: WalletAuthPorts,
  credential: WalletCredentialRecord,
  clientPublicKey: string
) {
  const { store, ids } = ports
  const requestId = yield* ids.make("Request")
  const nowMs = yield* Clock.currentTimeMillis
  const expiresAt = isoAfter(nowMs, SIGNED_RETRY_SECONDS)
  const body = JSON.stringify({
    accountId: credential.accountId,
    credentialId: credential.id,
    clientPublicKey,
    requestId,
    expiresAt
  })
  const challenge = sha256Hex(body)
  const record: SignedRequestRecord = {
    id: requestId,
    accountId: credential.accountId,
    operation: "PASSKEY_LOGIN",
    subjectId: credential.id,
    status: "PENDING",
    payloadToSign: body,
    bodySha256: challenge,
    credentialSetSha256: "",
    signer: "PASSKEY",
    bound: { clientPublicKey },
    expiresAt,
    createdAt: isoOf(nowMs),
    updatedAt: isoOf(nowMs)
  }
  yield* Effect.orDie(store.signedRequests.insert(record))
  const answer: PasskeyAuthChallenge = {
    ...toAuthMethod(credential),
    credentialId: credential.passkeyCredentialId ?? "",
    challenge,
    requestId,
    expiresAt
  }
  return answer
})

/** W-17 … W-25. */
export const verifyCredential = Effect.fnUntraced(function* (
  ports: WalletAuthPorts,
  id: string,
  req: VerifyCredentialRequest,
  input: SignedRetryInput
) {
  const { store, provide } = ports
  // W-38: a spent requestId (an OTP verification's, or a passkey challenge's) is 401 before the credential is read.
  if (req.type !== "OAUTH") {
    const operation = req.type === "PASSKEY" ? "PASSKEY_LOGIN" : "VERIFY_OTP"
    yield* provide(refuseSpentRequest({ operation, subjectId: id }, input))
  }
  const config = yield* ports.platformConfig.get()
  const credential = yield* activeCredential(ports, id)
  if (req.type !== credential.type) return yield* typeMismatch(credential.type)
  switch (req.type) {
    case "EMAIL_OTP":
    case "SMS_OTP":
      // W-17: the code opens a signed retry that the key sealed with it must stamp; that key becomes the session's.
      return yield* provide(
        signedRetry(
          {
            operation: "VERIFY_OTP",
            accountId: credential.accountId,
            subjectId: credential.id,
            credentialType: credential.type,
            begin: Effect.map(checkOtp(ports, credential, req.encryptedOtpBundle), (publicKey) => ({
              signer: { kind: "KEY", publicKey } as const,
              parameters: { publicKey }
            })),
            credentialSet: Effect.succeed([credential.id]),
            apply: (_request, signer) => openSession(ports, credential, signer.publicKey)
          },
          input
        )
      )
    case "OAUTH": {
      // W-19 … W-21: every sign-in shows a fresh token of the credential's identity, bound to the session key.
      const { resolver } = yield* OidcKeys
      yield* verifyOidcToken(req.oidcToken, {
        keys: resolver,
        now: new Date(yield* Clock.currentTimeMillis),
        expected: {
          iss: credential.oidcIssuer ?? "",
          aud: credential.oidcAudience ?? "",
          sub: credential.oidcSubject ?? ""
        },
        nonce: nonceFor(req.clientPublicKey)
      }).pipe(
        Effect.mapError((e) =>
          e.reason === "MALFORMED"
            ? InvalidInput.one("oidcToken", { format: "jwt" }, e.message)
            : walletUnauthorized(`The OIDC token was refused: ${e.message}`)
        )
      )
      return yield* store.transaction(openSession(ports, credential, req.clientPublicKey))
    }
    case "PASSKEY":
      return yield* verifyPasskey(ports, credential, req.assertion, config, input.requestId)
  }
})

/** W-22, W-23: the assertion over the challenge of `Request-Id`, once; the counter never goes back. */
const verifyPasskey = Effect.fnUntraced(function* (
  ports: WalletAuthPorts,
  credential: WalletCredentialRecord,
  assertion: Extract<VerifyCredentialRequest, { type: "PASSKEY" }>["assertion"],
  config: PlatformConfig,
  requestId: string | undefined
) {
  const { store } = ports
  const refused = walletUnauthorized("The passkey assertion was refused")
  if (requestId === undefined)
    return yield* walletUnauthorized("A passkey sign-in needs the Request-Id of its challenge")
  const nowMs = yield* Clock.currentTimeMillis
  const usable = (row: SignedRequestRecord | undefined): row is SignedRequestRecord =>
    row !== undefined &&
    row.operation === "PASSKEY_LOGIN" &&
    row.subjectId === credential.id &&
    row.status === "PENDING" &&
    nowMs <= Date.parse(row.expiresAt)
  const row = yield* store.signedRequests.get(requestId)
  if (!usable(row)) return yield* refused
  const rp = relyingParty(config.embeddedWalletConfig)
  const verified = yield* verifyPasskeyAssertion({
    ...assertion,
    expectedHexChallenge: row.bodySha256,
    rpId: rp.rpId,
    origins: rp.origins,
    stored: {
      credentialId: credential.passkeyCredentialId ?? "",
      publicKey: credential.passkeyPublicKey ?? "",
      signCount: credential.signCount ?? 0
    }
  }).pipe(Effect.mapError(() => refused))
  return yield* store.transaction(
    Effect.gen(function* () {
      const locked = yield* store.signedRequests.getForUpdate(requestId)
      const current = yield* store.walletCredentials.getForUpdate(credential.id)
      if (!usable(locked) || current === undefined || current.status !== "ACTIVE") return yield* refused
      // A racing sign-in with the same authenticator moved the counter meanwhile.
      if (verified.signCount !== 0 && verified.signCount <= (current.signCount ?? 0)) return yield* refused
      const now = isoOf(yield* Clock.currentTimeMillis)
      yield* Effect.orDie(store.signedRequests.update({ ...locked, status: "CONSUMED", updatedAt: now }))
      const next = { ...current, signCount: verified.signCount, verified: true, updatedAt: now }
      yield* Effect.orDie(store.walletCredentials.update(next))
      return yield* openSession(ports, next, locked.bound?.clientPublicKey ?? "")
    })
  )
})
