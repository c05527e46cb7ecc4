import { Result } from "effect"
import type { KycStatus } from "../customers/model.ts"
import { defineMachine, type Machine, transition } from "../shared/machine.ts"

/**
 * The provider's decision about one subject (a customer or a beneficial owner) in a review:
 * `IN_REVIEW` a complete packet went to (manual) review, `APPROVED` / `REJECTED` final, `HOLD` more
 * information is needed.
 */
export type KycDecision = "IN_REVIEW" | "APPROVED" | "REJECTED" | "HOLD"

const KYC_STATES = ["UNVERIFIED", "PENDING", "APPROVED", "REJECTED", "HOLD"] as const
export const KYC_EVENTS = ["SUBMIT", "APPROVE", "REJECT", "HOLD"] as const
export type KycEvent = (typeof KYC_EVENTS)[number]

/**
 * One table for the three verification subjects; only the webhooks differ (`CUSTOMER.KYC_*` for individuals,
 * `CUSTOMER.KYB_*` for businesses, none for beneficial owners, which upstream announces through their business).
 * Every move is a KYC provider's decision: nothing else (no rename, no PATCH) changes a status. `APPROVED` and
 * `REJECTED` are final. `HOLD` emits no webhook of its own (upstream has none); the verification that put the
 * customer on hold announces it as `VERIFICATION.RESOLVE_ERRORS`.
 */
const kycTable = <const N extends string, const V extends string>(
  name: N,
  emits: {
    readonly pending: ReadonlyArray<V>
    readonly approved: ReadonlyArray<V>
    readonly rejected: ReadonlyArray<V>
  }
): Machine<KycStatus, KycEvent, V> =>
  defineMachine({
    name,
    states: KYC_STATES,
    events: KYC_EVENTS,
    initial: "UNVERIFIED",
    terminal: ["APPROVED", "REJECTED"],
    transitions: {
      UNVERIFIED: {
        SUBMIT: { to: "PENDING", emits: emits.pending },
        APPROVE: { to: "APPROVED", emits: emits.approved },
        REJECT: { to: "REJECTED", emits: emits.rejected }
      },
      PENDING: {
        APPROVE: { to: "APPROVED", emits: emits.approved },
        REJECT: { to: "REJECTED", emits: emits.rejected },
        HOLD: { to: "HOLD", emits: [] }
      },
      HOLD: {
        SUBMIT: { to: "PENDING", emits: emits.pending },
        APPROVE: { to: "APPROVED", emits: emits.approved },
        REJECT: { to: "REJECTED", emits: emits.rejected }
      },
      APPROVED: {},
      REJECTED: {}
    }
  })

/** `kycStatus` of an individual customer. */
export const customerKycMachine = kycTable("CustomerKyc", {
  pending: ["CUSTOMER.KYC_PENDING"],
  approved: ["CUSTOMER.KYC_APPROVED"],
  rejected: ["CUSTOMER.KYC_REJECTED"]
})

/** `kybStatus` (mirrored in `kycStatus`) of a business customer. */
export const customerKybMachine = kycTable("CustomerKyb", {
  pending: ["CUSTOMER.KYB_PENDING"],
  approved: ["CUSTOMER.KYB_APPROVED"],
  rejected: ["CUSTOMER.KYB_REJECTED"]
})

/** `kycStatus` of a beneficial owner. */
export const beneficialOwnerKycMachine = kycTable("BeneficialOwnerKyc", { pending: [], approved: [], rejected: [] })

/**
 * The event a decision means in a state, or `undefined` when it leaves the status as it is: a final status is
 * never overwritten (a rename and a new review cannot undo it), a subject already in review stays there, and
 * `HOLD` applies only to a subject in review (an unverified one simply stays unverified).
 */
export const kycEventFor = (state: KycStatus, decision: KycDecision): KycEvent | undefined => {
  if (customerKycMachine.terminal.includes(state)) return undefined
  switch (decision) {
    case "APPROVED":
      return "APPROVE"
    case "REJECTED":
      return "REJECT"
    case "IN_REVIEW":
      return state === "PENDING" ? undefined : "SUBMIT"
    case "HOLD":
      return state === "PENDING" ? "HOLD" : undefined
  }
}

/** Moves a subject's status by one provider decision through its machine: the next status and the events. */
export const decideKyc = (
  machine: typeof customerKycMachine | typeof customerKybMachine | typeof beneficialOwnerKycMachine,
  state: KycStatus,
  decision: KycDecision | undefined
): { readonly to: KycStatus; readonly emits: ReadonlyArray<string> } | undefined => {
  const event = decision === undefined ? undefined : kycEventFor(state, decision)
  if (event === undefined) return undefined
  const move = transition(machine, state, event)
  // kycEventFor only names moves the table has; anything else is a bug in one of them.
  if (Result.isFailure(move)) throw move.failure
  return move.success
}
