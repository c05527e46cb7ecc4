import { Context, Effect, Layer } from "effect"
import type { Conflict, InvalidInput, LimitExceeded, NotFound, Refused, StoreError } from "../shared/errors.ts"
import type {
  RecordSecurityEventRequest,
  RecordSecurityEventResponse,
  ScaFactorList,
  ScaLoginComplete,
  ScaLoginCompleteRequest,
  ScaLoginStart,
  ScaLoginStartRequest,
  ScaSessionRecord
} from "./model.ts"
import { makeSecurityEvents } from "./security-events.ts"
import { makeSessions } from "./sessions.ts"

// The `Sca` service: Strong Customer Authentication for customers of the SCA regions (S-01 … S-15), one use case
// per file: the login and its session (sessions.ts), the lock ladder (security.ts, pure), who is subject
// (regions.ts), the security events the integrator records (security-events.ts). Factors, quote authorization and
// trust come in later slices (docs/design/sca.md, section 4).

export {
  requireScaSession,
  SCA_CHALLENGE_SECONDS,
  SCA_CODE_RESEND_SECONDS,
  SCA_SESSION_SECONDS,
  subjectCustomer
} from "./sessions.ts"

type ScaError = InvalidInput | NotFound | Refused | Conflict | LimitExceeded | StoreError

export class Sca extends Context.Service<
  Sca,
  {
    /**
     * `GET /sca/factors`: the factors the customer can use; `SMS_OTP` when its phone is verified (or need not be).
     * 404, 410, 409 `CONFLICT` when not subject (S-01).
     */
    readonly listFactors: (customerId: string) => Effect.Effect<ScaFactorList, ScaError>
    /**
     * `POST /sca/login/start` (S-14): an SMS code to the customer's phone, sent after the commit; 300 s to use it.
     * 400 factor not usable; 404; 409 not subject; 423 `ACCOUNT_LOCKED`; 429 `RATE_LIMITED` within 60 s (L-14).
     */
    readonly startLogin: (customerId: string, req: ScaLoginStartRequest) => Effect.Effect<ScaLoginStart, ScaError>
    /**
     * `POST /sca/login/complete` (S-12, S-13, S-15): the code of the started login opens a 180-day session. A wrong
     * or late code is 400 and counted into the lock ladder (423 once it locks, C-41).
     */
    readonly completeLogin: (
      customerId: string,
      req: ScaLoginCompleteRequest
    ) => Effect.Effect<ScaLoginComplete, ScaError>
    /**
     * `POST /sca/record-event` (S-10, C-41): `FAILED_LOGIN_ATTEMPT` counts a failure into the lock ladder (200 with
     * the resulting lock; while already locked it is counted and answers 423 `ACCOUNT_LOCKED`);
     * `RESET_PASSWORD_COMPLETED` lifts a lock or suspension, sets the count to 0 and revokes every SCA session.
     * 404, 410, 409 `CONFLICT` when not subject (S-01).
     */
    readonly recordSecurityEvent: (
      customerId: string,
      req: RecordSecurityEventRequest
    ) => Effect.Effect<RecordSecurityEventResponse, ScaError>
    /** The live session of a subject customer, or 409 `SCA_SESSION_REQUIRED` (S-09). */
    readonly requireSession: (customerId: string) => Effect.Effect<ScaSessionRecord, ScaError>
  }
>()("paycore/sca/Sca") {
  static readonly layer = Layer.effect(
    Sca,
    Effect.gen(function* () {
      return Sca.of({ ...(yield* makeSessions()), ...(yield* makeSecurityEvents()) })
    })
  )
}
