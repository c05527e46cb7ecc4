import { Effect } from "effect"
import { customerDeleted } from "../customers/errors.ts"
import type { BeneficialOwner } from "../customers/model.ts"
import { liveCustomer } from "../customers/rules.ts"
import { invalidCursor } from "../platform/errors.ts"
import { pageRequest } from "../shared/paging.ts"
import { nowIso } from "../shared/time.ts"
import { beneficialOwnerNotFound, notABusiness } from "./errors.ts"
import type { CreateBeneficialOwnerRequest, ListBeneficialOwnersQuery, UpdateBeneficialOwnerRequest } from "./model.ts"
import type { OnboardingPorts } from "./ports.ts"

// A business customer's beneficial owners (`Onboarding.createBeneficialOwner`, ...): part of its KYB packet.

const dedupe = <A>(values: ReadonlyArray<A>): Array<A> => [...new Set(values)]

/** `POST /beneficial-owners`: for BUSINESS customers only; `kycStatus` starts `UNVERIFIED`. */
export const createBeneficialOwner = Effect.fnUntraced(function* (
  ports: OnboardingPorts,
  req: CreateBeneficialOwnerRequest
) {
  const { store, ids } = ports
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

/** `GET /beneficial-owners?customerId=`: paged. */
export const listBeneficialOwners = Effect.fnUntraced(function* (
  ports: OnboardingPorts,
  query: ListBeneficialOwnersQuery
) {
  const page = pageRequest(query)
  if (page === undefined) return yield* invalidCursor()
  return yield* ports.store.beneficialOwners.list({ customerId: query.customerId }, page)
})

/** `GET /beneficial-owners/{beneficialOwnerId}`: 404 `REFERENCE_NOT_FOUND`. */
export const getBeneficialOwner = Effect.fnUntraced(function* (ports: OnboardingPorts, id: string) {
  const owner = yield* ports.store.beneficialOwners.get(id)
  if (owner === undefined) return yield* beneficialOwnerNotFound(id)
  return owner
})

/** `PATCH /beneficial-owners/{beneficialOwnerId}`: supplied fields only; never changes `kycStatus`. */
export const updateBeneficialOwner = Effect.fnUntraced(function* (
  ports: OnboardingPorts,
  id: string,
  req: UpdateBeneficialOwnerRequest
) {
  const { store } = ports
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
