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
