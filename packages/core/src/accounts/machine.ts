import { defineMachine } from "../shared/machine.ts"

/**
 * An external account's ownership lifecycle (AC-13, AC-24 … AC-30). Most accounts are created `ACTIVE`; a
 * `FIRST_PARTY` self-custody wallet of a customer where the Travel Rule applies is created
 * `PENDING_OWNERSHIP_VERIFICATION` (AC-25; `accounts/ownership.ts`). A challenge keeps a pending account pending
 * (it replaces the open one) and brings an `UNVERIFIED` one back to pending; the verification's outcome (a wallet
 * signature, or the liveness provider's verdict) makes it `ACTIVE` or `UNVERIFIED`. Deleting leaves `INACTIVE`.
 * The upstream's `PENDING` and `UNDER_REVIEW` are never produced by this engine.
 */
export const externalAccountMachine = defineMachine({
  name: "ExternalAccount",
  states: ["ACTIVE", "PENDING_OWNERSHIP_VERIFICATION", "UNVERIFIED", "INACTIVE"],
  events: ["CHALLENGE", "VERIFICATION_PASSED", "VERIFICATION_FAILED", "DELETE"],
  initial: "ACTIVE",
  terminal: ["INACTIVE"],
  transitions: {
    ACTIVE: {
      DELETE: { to: "INACTIVE", emits: [] }
    },
    PENDING_OWNERSHIP_VERIFICATION: {
      CHALLENGE: { to: "PENDING_OWNERSHIP_VERIFICATION", emits: [] },
      VERIFICATION_PASSED: { to: "ACTIVE", emits: ["EXTERNAL_ACCOUNT.STATUS_UPDATED"] },
      VERIFICATION_FAILED: { to: "UNVERIFIED", emits: ["EXTERNAL_ACCOUNT.STATUS_UPDATED"] },
      DELETE: { to: "INACTIVE", emits: [] }
    },
    UNVERIFIED: {
      CHALLENGE: { to: "PENDING_OWNERSHIP_VERIFICATION", emits: ["EXTERNAL_ACCOUNT.STATUS_UPDATED"] },
      DELETE: { to: "INACTIVE", emits: [] }
    },
    INACTIVE: {}
  }
})
export type ExternalAccountState = (typeof externalAccountMachine.states)[number]
export type ExternalAccountEvent = (typeof externalAccountMachine.events)[number]
