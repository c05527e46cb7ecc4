/**
 * An OIDC identity provider for tests: an ES256 key, its JWKS, and ID tokens minted with the claims the wallet checks
 * (W-06, W-19…W-21). `mintUnsigned` makes the JWT-shaped unsigned tokens the sandbox accepts.
 */
import {
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
  SignJWT,
  UnsecuredJWT
} from "jose"

export interface IdTokenClaims {
  readonly sub: string
  readonly email?: string
  readonly nonce?: string
  /** Seconds since the epoch; now by default. */
  readonly iat?: number
  /** Seconds since the epoch; `iat` + 300 by default. */
  readonly exp?: number
  /** Another issuer or audience than the provider's, for negative tests. */
  readonly iss?: string
  readonly aud?: string | ReadonlyArray<string>
}

export interface OidcIssuer {
  readonly iss: string
  readonly aud: string
  /** An ID token signed with the provider's key (ES256, with its `kid`). */
  mint(claims: IdTokenClaims): Promise<string>
  /** The same claims in an unsigned (`alg: none`) JWT: the shape the sandbox takes. */
  mintUnsigned(claims: IdTokenClaims): string
  readonly jwks: JSONWebKeySet
  /** The key resolver over `jwks` (`jose.createLocalJWKSet`), what an `OidcKeys` port answers for `iss`. */
  readonly keys: JWTVerifyGetKey
}

const claimsSet = (issuer: { iss: string; aud: string }, claims: IdTokenClaims) => {
  const iat = claims.iat ?? Math.floor(Date.now() / 1000)
  return {
    iss: claims.iss ?? issuer.iss,
    aud: claims.aud === undefined ? issuer.aud : typeof claims.aud === "string" ? claims.aud : [...claims.aud],
    sub: claims.sub,
    iat,
    exp: claims.exp ?? iat + 300,
    ...(claims.email === undefined ? {} : { email: claims.email, email_verified: true }),
    ...(claims.nonce === undefined ? {} : { nonce: claims.nonce })
  }
}

export const oidcIssuer = async (options: { iss: string; aud: string }): Promise<OidcIssuer> => {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true })
  const kid = crypto.randomUUID()
  const jwks: JSONWebKeySet = { keys: [{ ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" }] }
  return {
    iss: options.iss,
    aud: options.aud,
    mint: (claims) =>
      new SignJWT(claimsSet(options, claims)).setProtectedHeader({ alg: "ES256", kid, typ: "JWT" }).sign(privateKey),
    mintUnsigned: (claims) => new UnsecuredJWT(claimsSet(options, claims)).encode(),
    jwks,
    keys: createLocalJWKSet(jwks)
  }
}
