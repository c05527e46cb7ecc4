/**
 * Where the dashboard keeps the signed-in token's credentials (sessionStorage: one tab, this origin); the API
 * reference page of the same origin pre-fills its try-it console with them (issue 32). A module of its own: the
 * dashboard's bundle imports it through `@paycore/http/api`, the listener directly.
 */
export const SIGNED_IN_CREDENTIALS_KEY = "paycore.dashboard.credentials"
