import { defineMachine } from "../shared/machine.ts"

/**
 * A quote. Webhooks are about its transaction, so the quote machine emits nothing itself.
 * EXECUTE_SCA / AUTHORIZE are for customers who need Strong Customer Authentication (S-03, S-04): a quote waiting
 * for authorization does not expire by its own `expiresAt` (the rate was accepted at execute); its challenge's
 * expiry fails it (S-11). A real-time-funded quote is authorized before its deposit (S-06): AUTHORIZE_FUNDING
 * brings it back to PENDING with its payment instructions. Once executed, a quote follows its transaction to
 * COMPLETED or FAILED; a payout returned after it completed fails the transaction, not the quote (the quote's
 * conversion did complete).
 */
export const quoteMachine = defineMachine({
  name: "Quote",
  states: ["PENDING", "PENDING_AUTHORIZATION", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED"],
  events: ["EXECUTE", "EXECUTE_SCA", "AUTHORIZE", "AUTHORIZE_FUNDING", "COMPLETE", "FAIL", "EXPIRE"],
  initial: "PENDING",
  terminal: ["COMPLETED", "FAILED", "EXPIRED"],
  transitions: {
    PENDING: {
      EXECUTE: { to: "PROCESSING", emits: [] },
      EXECUTE_SCA: { to: "PENDING_AUTHORIZATION", emits: [] },
      EXPIRE: { to: "EXPIRED", emits: [] }
    },
    PENDING_AUTHORIZATION: {
      AUTHORIZE: { to: "PROCESSING", emits: [] },
      AUTHORIZE_FUNDING: { to: "PENDING", emits: [] },
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
export type QuoteState = (typeof quoteMachine.states)[number]
export type QuoteEvent = (typeof quoteMachine.events)[number]
