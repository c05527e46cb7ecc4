/**
 * The embedded-wallet client kit: what an integrator's client does around the wallet API (session keys and stamps,
 * HPKE bundles, a WebAuthn authenticator, an OIDC provider), for tests and as a worked example.
 */
export * from "./authenticator.ts"
export * from "./hpke.ts"
export * from "./oidc-issuer.ts"
export * from "./session-key.ts"
