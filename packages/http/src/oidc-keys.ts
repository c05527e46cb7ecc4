import type { OidcKeysService } from "@paycore/core"
import { createRemoteJWKSet, type JWTVerifyGetKey } from "jose"

/**
 * The `OidcKeys` port over issuers' published key sets (W-20): `issuers` maps an issuer (`iss`) to its JWKS URL;
 * a token's key is looked up in its issuer's set (fetched and cached by jose, refreshed on an unknown `kid`). A token
 * of an issuer not listed has no key, so it is refused.
 */
export const remoteOidcKeys = (issuers: Readonly<Record<string, string>>): OidcKeysService => {
  const sets = new Map<string, JWTVerifyGetKey>(
    Object.entries(issuers).map(([iss, url]) => [iss, createRemoteJWKSet(new URL(url))])
  )
  const resolver: JWTVerifyGetKey = (header, token) => {
    const payload = typeof token.payload === "string" ? token.payload : Buffer.from(token.payload).toString("utf8")
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { readonly iss?: unknown }
    const set = typeof claims.iss === "string" ? sets.get(claims.iss) : undefined
    if (set === undefined) throw new Error("OIDC: the token's issuer is not configured")
    return set(header, token)
  }
  return { resolver }
}

/** Parses `PAYCORE_OIDC_ISSUERS`: `<iss>=<jwks url>` pairs separated by spaces or commas. */
export const parseOidcIssuers = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split(/[\s,]+/)
      .filter((pair) => pair !== "")
      .map((pair) => {
        const at = pair.indexOf("=")
        if (at <= 0) throw new Error(`PAYCORE_OIDC_ISSUERS: expected <iss>=<jwks url>, got ${pair}`)
        return [pair.slice(0, at), pair.slice(at + 1)]
      })
  )
