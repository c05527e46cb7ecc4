import { defineMachine } from "../shared/machine.ts"

/**
 * A stablecoin mint or burn (P-17; docs/design/invitations-stablecoins.md, section 2). Funds from outside (a wire, an
 * ACH debit, a burn's token sent from a wallet) wait in `PENDING_FUNDING` (`AWAIT_FUNDS` at creation) until the
 * provider sees them, or `EXPIRE`; service-held funds (an internal account, the provider's balance) start `CREATED`
 * and the worker hands them over (`FUND`), or the provider refuses (`REFUSE`). Then the provider processes and
 * completes or fails the operation. No event (Q12): platforms poll.
 */
export const stablecoinOperationMachine = defineMachine({
  name: "StablecoinOperation",
  states: ["CREATED", "PENDING_FUNDING", "PENDING_PROVIDER", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED"],
  events: ["AWAIT_FUNDS", "FUND", "REFUSE", "FUNDS_RECEIVED", "EXPIRE", "FAIL", "START", "COMPLETE"],
  initial: "CREATED",
  terminal: ["COMPLETED", "FAILED", "EXPIRED"],
  transitions: {
    CREATED: {
      AWAIT_FUNDS: { to: "PENDING_FUNDING", emits: [] },
      FUND: { to: "PENDING_PROVIDER", emits: [] },
      REFUSE: { to: "FAILED", emits: [] }
    },
    PENDING_FUNDING: {
      FUNDS_RECEIVED: { to: "PENDING_PROVIDER", emits: [] },
      EXPIRE: { to: "EXPIRED", emits: [] },
      FAIL: { to: "FAILED", emits: [] }
    },
    PENDING_PROVIDER: {
      START: { to: "PROCESSING", emits: [] },
      COMPLETE: { to: "COMPLETED", emits: [] },
      FAIL: { to: "FAILED", emits: [] }
    },
    PROCESSING: {
      COMPLETE: { to: "COMPLETED", emits: [] },
      FAIL: { to: "FAILED", emits: [] }
    },
    COMPLETED: {},
    FAILED: {},
    EXPIRED: {}
  }
})
export type StablecoinOperationEvent = (typeof stablecoinOperationMachine.events)[number]

/**
 * A provider account link (P-09, Q11): the provider refusing its credentials (`INVALIDATE`) or revoking the account
 * (`REVOKE`) ends its use; a new link of the same provider account that the provider accepts `RELINK`s it (same id).
 */
export const providerAccountMachine = defineMachine({
  name: "StablecoinProviderAccount",
  states: ["ACTIVE", "INVALID", "REVOKED"],
  events: ["INVALIDATE", "REVOKE", "RELINK"],
  initial: "ACTIVE",
  terminal: [],
  transitions: {
    ACTIVE: {
      INVALIDATE: { to: "INVALID", emits: [] },
      REVOKE: { to: "REVOKED", emits: [] }
    },
    INVALID: { RELINK: { to: "ACTIVE", emits: [] } },
    REVOKED: { RELINK: { to: "ACTIVE", emits: [] } }
  }
})
export type ProviderAccountEvent = (typeof providerAccountMachine.events)[number]
