export * from "./annotations.ts"
export * from "./api.ts"
export * from "./app.ts"
export * from "./auth.ts"
export { AuthenticationRefused, RequestRefused } from "./credentials.ts"
export * from "./errors.ts"
export { defaultMissBudgetKey, type MissBudgetKey, type MissBudgetRequest } from "./handlers/shared.ts"
export type * from "./listener-types.ts"
export * from "./oidc-keys.ts"
export { type OpenApiDocumentOptions, openApiDocument, referencePageHtml } from "./openapi.ts"
export { type AuthFailureLimit, parseLimitPair, type RateLimit } from "./rate-limits.ts"
export * from "./serve.ts"
export * from "./stamp-verifier.ts"
export {
  jsonLogger,
  makeRequestTelemetry,
  REQUEST_ID_HEADER,
  type RequestTelemetry,
  type RequestTelemetryOptions,
  telemetryReferences
} from "./telemetry.ts"
export * from "./webhook-transport.ts"
