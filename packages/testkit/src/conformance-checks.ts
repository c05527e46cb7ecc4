/**
 * What each port kit's entry point (`/rail-conformance`, `/kyc-conformance`, `/card-issuer-conformance`) gives its
 * users of `port-checks.ts`: the checks' type, their failure, and `failingChecks` to run them against a
 * deliberately broken adapter. The helpers the kits are written with stay private.
 */
export { type ConformanceCheck, ConformanceFailure, type FailedCheck, failingChecks } from "./port-checks.ts"
