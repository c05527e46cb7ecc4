import { Effect } from "effect"
import { customerDeleted } from "../customers/errors.ts"
import { liveCustomer } from "../customers/rules.ts"
import { invalidCursor } from "../platform/errors.ts"
import { Ids } from "../ports/ids.ts"
import { Store } from "../ports/store.ts"
import { pageRequest } from "../shared/paging.ts"
import { nowIso } from "../shared/time.ts"
import { beneficialOwnerNotFound, notABusiness } from "./errors.ts"
import type {
  BeneficialOwner,
  CreateBeneficialOwnerRequest,
  ListBeneficialOwnersQuery,
  UpdateBeneficialOwnerRequest
} from "./model.ts"

// A business customer's beneficial owners (`Onboarding.createBeneficialOwner`, ...): part of its KYB packet.

const dedupe = <A>(values: ReadonlyArray<A>): Array<A> => [...new Set(values)]

/** The beneficial owner operations of `Onboarding`, over the ports of the layer that builds them. */
export const makeBeneficialOwners = Effect.fnUntraced(function* () {
  const store = yield* Store
  const ids = yield* Ids

  const createBeneficialOwner = Effect.fn("Onboarding.createBeneficialOwner")(function* (
    req: CreateBeneficialOwnerRequest
  ) {
    const customer = yield* liveCustomer(yield* store.customers.get(req.customerId), req.customerId)
    if (customer.customerType !== "BUSINESS") return yield* notABusiness(customer.id)
    return yield* store.transaction(
      Effect.gen(function* () {
        const now = yield* nowIso
        const owner: BeneficialOwner = {
          id: yield* ids.make("BeneficialOwner"),
          customerId: customer.id,
          roles: dedupe(req.roles),
          ownershipPercentage: req.ownershipPercentage,
          personalInfo: req.personalInfo,
          kycStatus: "UNVERIFIED",
          createdAt: now,
          updatedAt: now
        }
        yield* Effect.orDie(store.beneficialOwners.insert(owner))
        return owner
      })
    )
  })

  const listBeneficialOwners = Effect.fn("Onboarding.listBeneficialOwners")(function* (
    query: ListBeneficialOwnersQuery
  ) {
    const page = pageRequest(query)
    if (page === undefined) return yield* invalidCursor()
    return yield* store.beneficialOwners.list({ customerId: query.customerId }, page)
  })

  const getBeneficialOwner = Effect.fn("Onboarding.getBeneficialOwner")(function* (id: string) {
    const owner = yield* store.beneficialOwners.get(id)
    if (owner === undefined) return yield* beneficialOwnerNotFound(id)
    return owner
  })

  const updateBeneficialOwner = Effect.fn("Onboarding.updateBeneficialOwner")(function* (
    id: string,
    req: UpdateBeneficialOwnerRequest
  ) {
    return yield* store.transaction(
      Effect.gen(function* () {
        const current = yield* store.beneficialOwners.getForUpdate(id)
        if (current === undefined) return yield* beneficialOwnerNotFound(id)
        const business = yield* store.customers.get(current.customerId)
        if (business?.isDeleted === true) return yield* customerDeleted(current.customerId)
        const now = yield* nowIso
        // A rename never moves kycStatus: only a provider's decision does.
        const next: BeneficialOwner = {
          ...current,
          ...(req.roles === undefined ? {} : { roles: dedupe(req.roles) }),
          ...(req.ownershipPercentage === undefined ? {} : { ownershipPercentage: req.ownershipPercentage }),
          personalInfo: { ...current.personalInfo, ...req.personalInfo },
          updatedAt: now
        }
        yield* Effect.orDie(store.beneficialOwners.update(next))
        return next
      })
    )
  })

  return { createBeneficialOwner, listBeneficialOwners, getBeneficialOwner, updateBeneficialOwner }
})
