import { requestFingerprint, runIdempotent, runPrepared } from "./run.ts"

/**
 * `Idempotency.run(scope, key, fingerprint, effect, render)`; `Idempotency.runPrepared(request, prepare, commit,
 * render)`; `Idempotency.fingerprint(method, path, body)`.
 */
export const Idempotency = {
  run: runIdempotent,
  runPrepared,
  fingerprint: requestFingerprint
} as const
