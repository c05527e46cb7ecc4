import { Context } from "effect"
import type { JWTVerifyGetKey } from "jose"

/**
 * Where OIDC token signatures are checked against (W-20): `resolver` finds an issuer's signing key (the HTTP
 * adapter builds one over each issuer's JWKS URL; the testkit's issuer hands a local key set). Without one the
 * engine runs the sandbox rule (W-21): the signature is not checked, the token's identity, freshness and `nonce`
 * still are. A production server must provide a resolver.
 */
export interface OidcKeysService {
  readonly resolver: JWTVerifyGetKey | undefined
}

export const OidcKeys = Context.Reference<OidcKeysService>("paycore/ports/OidcKeys", {
  defaultValue: () => ({ resolver: undefined })
})
