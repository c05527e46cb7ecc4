import { defineMachine } from "../shared/machine.ts"

/**
 * A wallet credential (W-27 … W-29). Revoking needs a signed retry by a session of another credential and leaves
 * the account at least one verified credential; the credential's sessions are revoked with it.
 */
export const credentialMachine = defineMachine({
  name: "WalletCredential",
  states: ["ACTIVE", "REVOKED"],
  events: ["REVOKE"],
  initial: "ACTIVE",
  terminal: ["REVOKED"],
  transitions: {
    ACTIVE: { REVOKE: { to: "REVOKED", emits: [] } },
    REVOKED: {}
  }
})

/**
 * A wallet session (W-30 … W-32). `EXPIRED` is read from `expiresAt` (no worker writes it); a refresh replaces the
 * session by a new one; revoking a credential revokes its sessions.
 */
export const sessionMachine = defineMachine({
  name: "WalletSession",
  states: ["ACTIVE", "REVOKED", "REFRESHED", "EXPIRED"],
  events: ["REVOKE", "REFRESH", "EXPIRE"],
  initial: "ACTIVE",
  terminal: ["REVOKED", "REFRESHED", "EXPIRED"],
  transitions: {
    ACTIVE: {
      REVOKE: { to: "REVOKED", emits: [] },
      REFRESH: { to: "REFRESHED", emits: [] },
      EXPIRE: { to: "EXPIRED", emits: [] }
    },
    REVOKED: {},
    REFRESHED: {},
    EXPIRED: {}
  }
})

/**
 * The first leg of a signed retry (W-35 … W-41). `ACCEPT` consumes it with the action's effect, in one store
 * transaction; `ACCEPT_PENDING` answers `PROCESSING` (the effect waits on a port) and the identical resend
 * `SETTLE`s or `REFUSE`s it. `EXPIRED` is read from `expiresAt`. A refused retry (bad stamp, wrong body) changes
 * nothing: the client may fix it before `expiresAt`.
 */
export const signedRequestMachine = defineMachine({
  name: "SignedRequest",
  states: ["PENDING", "PROCESSING", "CONSUMED", "FAILED", "EXPIRED"],
  events: ["ACCEPT", "ACCEPT_PENDING", "SETTLE", "REFUSE", "EXPIRE"],
  initial: "PENDING",
  terminal: ["CONSUMED", "FAILED", "EXPIRED"],
  transitions: {
    PENDING: {
      ACCEPT: { to: "CONSUMED", emits: [] },
      ACCEPT_PENDING: { to: "PROCESSING", emits: [] },
      EXPIRE: { to: "EXPIRED", emits: [] }
    },
    PROCESSING: {
      SETTLE: { to: "CONSUMED", emits: [] },
      REFUSE: { to: "FAILED", emits: [] },
      EXPIRE: { to: "EXPIRED", emits: [] }
    },
    CONSUMED: {},
    FAILED: {},
    EXPIRED: {}
  }
})

/**
 * A delegated key (W-42 … W-47): the second leg stores it `PENDING` (it cannot sign, and does not block another
 * key), the third activates it; at most one `ACTIVE` key per card funding source (the store enforces it).
 */
export const delegatedKeyMachine = defineMachine({
  name: "DelegatedKey",
  states: ["PENDING", "ACTIVE", "REVOKED"],
  events: ["ACTIVATE", "REVOKE"],
  initial: "PENDING",
  terminal: ["REVOKED"],
  transitions: {
    PENDING: { ACTIVATE: { to: "ACTIVE", emits: [] } },
    ACTIVE: { REVOKE: { to: "REVOKED", emits: [] } },
    REVOKED: {}
  }
})
