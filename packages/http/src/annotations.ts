/**
 * Endpoint annotations: what an endpoint of the API definition tells the listener (serve.ts) and the app (app.ts)
 * beyond its schemas. Kept apart from both so the API definition stays free of server code (a browser client
 * bundles it).
 */
import { Context } from "effect"

/**
 * Marks an endpoint (or a whole group / API) as callable without credentials:
 * `HttpApiEndpoint.post(...).annotate(PublicEndpoint, true)`.
 */
export const PublicEndpoint = Context.Reference<boolean>("@paycore/http/PublicEndpoint", {
  defaultValue: () => false
})

/**
 * Marks an endpoint whose answer carries a secret (a token's `clientSecret`, a `whsec_` signing secret, a sealed
 * session key or wallet, a TOTP secret, a device code): the listener sends it with `Cache-Control: no-store`, replayed
 * answers too, so no browser or proxy cache keeps it (issue 32 item 7). The answer is still stored for its
 * `Idempotency-Key` (a retry must get the same token, not a second one); see `SecretAnswer` for answers kept nowhere.
 */
export const CarriesSecret = Context.Reference<boolean>("@paycore/http/CarriesSecret", { defaultValue: () => false })

/**
 * Marks an endpoint whose answer is a bearer secret (a card's reveal URL, CD-33; an agent's access token, AG-15):
 * sent with `Cache-Control: no-store` (as `CarriesSecret`) and kept nowhere, whatever the `Idempotency-Key` (app.ts).
 */
export const SecretAnswer = Context.Reference<boolean>("@paycore/http/SecretAnswer", { defaultValue: () => false })

/**
 * Marks a prepared command (issue 17: "Provider I/O never runs inside a store transaction"): its `Idempotency-Key` is
 * not handled by the app's idempotency transaction; its handler runs `Idempotency.runPrepared` (prepared.ts).
 */
export const PreparedCommand = Context.Reference<boolean>("@paycore/http/PreparedCommand", {
  defaultValue: () => false
})
