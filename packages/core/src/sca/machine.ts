import { defineMachine } from "../shared/machine.ts"

/**
 * An SCA challenge (S-02, S-11, S-15). A wrong proof or a resend leaves it `OPEN` (its attempts or sends counted);
 * `EXPIRE` is read lazily (`now ≥ expiresAt`) or, for a quote, by the settlement worker; a new login or trust start
 * `SUPERSEDE`s the open one; `CANCEL` when the quote it belongs to failed another way.
 */
export const scaChallengeMachine = defineMachine({
  name: "ScaChallenge",
  states: ["OPEN", "PASSED", "EXPIRED", "SUPERSEDED", "CANCELLED"],
  events: ["PASS", "EXPIRE", "SUPERSEDE", "CANCEL"],
  initial: "OPEN",
  terminal: ["PASSED", "EXPIRED", "SUPERSEDED", "CANCELLED"],
  transitions: {
    OPEN: {
      PASS: { to: "PASSED", emits: [] },
      EXPIRE: { to: "EXPIRED", emits: [] },
      SUPERSEDE: { to: "SUPERSEDED", emits: [] },
      CANCEL: { to: "CANCELLED", emits: [] }
    },
    PASSED: {},
    EXPIRED: {},
    SUPERSEDED: {},
    CANCELLED: {}
  }
})

/**
 * An SCA login session (S-12, S-13, L-09): 180 days, not sliding. `EXPIRED` is read as `now ≥ expiresAt` (no
 * worker writes it); `REVOKE` on a completed password reset.
 */
export const scaSessionMachine = defineMachine({
  name: "ScaSession",
  states: ["ACTIVE", "EXPIRED", "REVOKED"],
  events: ["EXPIRE", "REVOKE"],
  initial: "ACTIVE",
  terminal: ["EXPIRED", "REVOKED"],
  transitions: {
    ACTIVE: {
      EXPIRE: { to: "EXPIRED", emits: [] },
      REVOKE: { to: "REVOKED", emits: [] }
    },
    EXPIRED: {},
    REVOKED: {}
  }
})

/**
 * An enrolled SCA factor (TOTP, PASSKEY; an SMS_OTP row holds a number set by a reset). `POST /sca/factors` stores it
 * `PENDING` (600 s to confirm; a new start `RESTART`s the pending one, a late confirm finds it `EXPIRE`d); the
 * confirm moves it `ACTIVE` and `REPLACE`s an active TOTP; `DELETE /sca/factors/{credentialId}` removes it, and so
 * does a completed factor reset (`RESET`). A reset's new SMS number is confirmed at once (its proof was the
 * liveness check).
 */
export const scaFactorMachine = defineMachine({
  name: "ScaFactor",
  states: ["PENDING", "ACTIVE", "REMOVED"],
  events: ["CONFIRM", "EXPIRE", "RESTART", "DELETE", "REPLACE", "RESET"],
  initial: "PENDING",
  terminal: ["REMOVED"],
  transitions: {
    PENDING: {
      CONFIRM: { to: "ACTIVE", emits: [] },
      EXPIRE: { to: "REMOVED", emits: [] },
      RESTART: { to: "REMOVED", emits: [] }
    },
    ACTIVE: {
      DELETE: { to: "REMOVED", emits: [] },
      REPLACE: { to: "REMOVED", emits: [] },
      RESET: { to: "REMOVED", emits: [] }
    },
    REMOVED: {}
  }
})

/**
 * A trusted beneficiary (AC-31 … AC-38): an external account (a USDC wallet) whose payouts skip the per-transaction
 * challenge. `TRUST` is the trust confirm with a passed `TRUST` challenge, `UNTRUST` the untrust confirm with a passed
 * `UNTRUST` challenge; both can happen again. A delete of a trusted account is no move: it is refused (409
 * `BENEFICIARY_TRUSTED`, AC-22, AC-23). No webhook: the challenges are the history.
 */
export const trustedBeneficiaryMachine = defineMachine({
  name: "TrustedBeneficiary",
  states: ["UNTRUSTED", "TRUSTED"],
  events: ["TRUST", "UNTRUST"],
  initial: "UNTRUSTED",
  terminal: [],
  transitions: {
    UNTRUSTED: {
      TRUST: { to: "TRUSTED", emits: [] }
    },
    TRUSTED: {
      UNTRUST: { to: "UNTRUSTED", emits: [] }
    }
  }
})
export type ScaFactorEvent = (typeof scaFactorMachine.events)[number]

/**
 * A factor reset (upstream 2FA reset): `INITIATED` at the start with a liveness session; the provider's verdict
 * (`SUBMIT` when the end user handed in the check and it is reviewed, then `PASS` or `REJECT`; the sandbox gives
 * it) and the platform's `COMPLETE` once it passed. `EXPIRE` 30 min after the start, read lazily (`now ≥
 * expiresAt`) and written by the next command on it. No webhook: the spec has no type for it (docs/design/sca.md
 * Q11).
 */
export const scaFactorResetMachine = defineMachine({
  name: "ScaFactorReset",
  states: ["INITIATED", "PENDING_REVIEW", "LIVENESS_PASSED", "COMPLETED", "REJECTED", "EXPIRED"],
  events: ["SUBMIT", "PASS", "REJECT", "COMPLETE", "EXPIRE"],
  initial: "INITIATED",
  terminal: ["COMPLETED", "REJECTED", "EXPIRED"],
  transitions: {
    INITIATED: {
      SUBMIT: { to: "PENDING_REVIEW", emits: [] },
      PASS: { to: "LIVENESS_PASSED", emits: [] },
      REJECT: { to: "REJECTED", emits: [] },
      EXPIRE: { to: "EXPIRED", emits: [] }
    },
    PENDING_REVIEW: {
      PASS: { to: "LIVENESS_PASSED", emits: [] },
      REJECT: { to: "REJECTED", emits: [] },
      EXPIRE: { to: "EXPIRED", emits: [] }
    },
    LIVENESS_PASSED: {
      COMPLETE: { to: "COMPLETED", emits: [] },
      EXPIRE: { to: "EXPIRED", emits: [] }
    },
    COMPLETED: {},
    REJECTED: {},
    EXPIRED: {}
  }
})
export type ScaFactorResetEvent = (typeof scaFactorResetMachine.events)[number]
