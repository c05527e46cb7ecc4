import { Effect, Predicate, Result, Schema } from "effect"
import { decodeJwt, decodeProtectedHeader, type JWTVerifyGetKey, jwtVerify } from "jose"
import { sha256Hex } from "../shared/digests.ts"

/** `iat` may be at most this old (W-20)… */
export const OIDC_MAX_AGE_SECONDS = 60
/** …give or take this clock skew, which also applies to `exp`, `nbf` and an `iat` in the future. */
export const OIDC_SKEW_SECONDS = 5

export class OidcRefused extends Schema.TaggedError<OidcRefused>()("OidcRefused", {
  reason: Schema.Literals(["MALFORMED", "INVALID"]),
  message: Schema.String
}) {}

/** The identity a token proves. `aud` is the expected audience, or the token's only one. */
export interface OidcIdentity {
  readonly iss: string
  readonly aud: string
  readonly sub: string
  readonly email?: string
  readonly nonce?: string
}

export interface OidcExpected {
  readonly iss: string
  readonly aud: string
  readonly sub: string
}

export interface OidcClaimOptions {
  readonly now: Date
  /** The credential's identity (verify): `iss`, `sub` equal, `aud` equal or contained. Absent on create. */
  readonly expected?: OidcExpected | undefined
  /** The `nonce` claim the token must carry, when given (verify: `nonceFor(clientPublicKey)`, W-21). */
  readonly nonce?: string | undefined
}

export interface OidcVerifyOptions extends OidcClaimOptions {
  /** The issuer's keys; `undefined` is the sandbox: the signature is not checked. */
  readonly keys: JWTVerifyGetKey | undefined
}

/** The `nonce` a verify token carries (W-21): lowercase hex SHA-256 of the exact `clientPublicKey` string. */
export const nonceFor = (clientPublicKey: string): string => sha256Hex(clientPublicKey)

const invalid = (message: string) => Result.fail(new OidcRefused({ reason: "INVALID", message }))

const nonEmptyString = (value: unknown): value is string => Predicate.isString(value) && value.length > 0
const numericDate = (value: unknown): value is number => Predicate.isNumber(value) && Number.isFinite(value)

/** The audience the identity records: the expected one when the token names it, else the token's only one. */
const audienceOf = (aud: unknown, expected: OidcExpected | undefined): string | undefined => {
  const audiences = Array.isArray(aud) ? aud : [aud]
  if (audiences.length === 0 || !audiences.every(nonEmptyString)) return undefined
  if (expected !== undefined) return audiences.includes(expected.aud) ? expected.aud : undefined
  return audiences.length === 1 ? audiences[0] : undefined
}

/**
 * The claim rules of both paths (W-20, W-21), pure. With `now` in whole seconds: `iat` a number in
 * [now − 60 − 5, now + 5]; `exp` a number above now − 5; `nbf`, when present, at most now + 5; `iss` and `sub`
 * non-empty strings (equal to the expected ones when given); `aud` a non-empty string or array of them, containing
 * the expected one (or a single one when none is expected); `nonce` equal when required.
 */
export const checkOidcClaims = (
  claims: unknown,
  options: OidcClaimOptions
): Result.Result<OidcIdentity, OidcRefused> => {
  if (!Predicate.isObject(claims) || Array.isArray(claims)) return invalid("the token has no claims set")
  const { iss, sub, aud, iat, exp, nbf, email, nonce } = claims as Record<string, unknown>
  const now = Math.floor(options.now.getTime() / 1000)
  if (!nonEmptyString(iss) || !nonEmptyString(sub)) return invalid("the token lacks iss or sub")
  if (!numericDate(iat) || !numericDate(exp)) return invalid("the token lacks a numeric iat or exp")
  if (iat < now - OIDC_MAX_AGE_SECONDS - OIDC_SKEW_SECONDS) return invalid("the token was issued too long ago")
  if (iat > now + OIDC_SKEW_SECONDS) return invalid("the token is issued in the future")
  if (exp <= now - OIDC_SKEW_SECONDS) return invalid("the token has expired")
  if (nbf !== undefined && (!numericDate(nbf) || nbf > now + OIDC_SKEW_SECONDS))
    return invalid("the token is not valid yet")
  const expected = options.expected
  if (expected !== undefined && (iss !== expected.iss || sub !== expected.sub))
    return invalid("the token's iss or sub is not the credential's")
  const audience = audienceOf(aud, expected)
  if (audience === undefined) return invalid("the token's aud is not the expected audience")
  if (options.nonce !== undefined && nonce !== options.nonce) return invalid("the token's nonce does not match")
  return Result.succeed({
    iss,
    aud: audience,
    sub,
    ...(Predicate.isString(email) ? { email } : {}),
    ...(Predicate.isString(nonce) ? { nonce } : {})
  })
}

// Identity tokens are a few KiB; a far longer one is not looked at.
const MAX_TOKEN_LENGTH = 16_384
const SEGMENT = /^[A-Za-z0-9_-]*$/

/** Three base64url segments, the first two JSON objects (header, claims): otherwise the token is malformed. */
const wellFormed = (token: string): boolean => {
  if (!Predicate.isString(token) || token.length > MAX_TOKEN_LENGTH) return false
  const segments = token.split(".")
  if (segments.length !== 3 || !segments.every((segment) => SEGMENT.test(segment))) return false
  try {
    decodeProtectedHeader(token)
    decodeJwt(token)
    return true
  } catch {
    return false
  }
}

const verifySignature = (token: string, keys: JWTVerifyGetKey, options: OidcClaimOptions) =>
  Effect.tryPromise({
    try: () =>
      jwtVerify(token, keys, {
        currentDate: options.now,
        clockTolerance: OIDC_SKEW_SECONDS,
        maxTokenAge: OIDC_MAX_AGE_SECONDS,
        requiredClaims: ["iss", "sub", "aud", "iat", "exp"],
        ...(options.expected === undefined
          ? {}
          : { issuer: options.expected.iss, audience: options.expected.aud, subject: options.expected.sub })
      }),
    catch: (cause) =>
      new OidcRefused({
        reason: "INVALID",
        message: cause instanceof Error ? cause.message : "the token's signature does not verify"
      })
  })

/**
 * Verifies an OIDC token: `MALFORMED` when it is not three base64url segments with JSON header and claims;
 * `INVALID` for a bad signature (production), a claim rule broken (`checkOidcClaims`) or a key resolver failure.
 * Pass `now` from the effect `Clock`, so `TestClock` drives the freshness rules.
 */
export const verifyOidcToken = Effect.fnUntraced(function* (
  token: string,
  options: OidcVerifyOptions
): Effect.fn.Return<OidcIdentity, OidcRefused> {
  if (!wellFormed(token)) return yield* new OidcRefused({ reason: "MALFORMED", message: "the token is not a JWT" })
  const claims =
    options.keys === undefined ? decodeJwt(token) : (yield* verifySignature(token, options.keys, options)).payload
  return yield* Effect.fromResult(checkOidcClaims(claims, options))
})
