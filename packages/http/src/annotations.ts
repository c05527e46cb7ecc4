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
 * Marks an endpoint whose answer is a bearer secret (a card's reveal URL, CD-33; an agent's access token, AG-15):
 * sent with `Cache-Control: no-store` and kept nowhere, whatever the `Idempotency-Key` (app.ts).
 */
export const SecretAnswer = Context.Reference<boolean>("@paycore/http/SecretAnswer", { defaultValue: () => false })
