/** `DELETE /customers/{customerId}`: a soft delete. */
import { Effect } from "effect"
import { nowIso } from "../shared/time.ts"
import { customerDeleted, customerNotFound } from "./errors.ts"
import type { Customer } from "./model.ts"
import type { CustomersPorts } from "./ports.ts"
import { viewOf } from "./reads.ts"

/** The customer marked `isDeleted` (200 with it); 404 `USER_NOT_FOUND`, and 410 `CUSTOMER_DELETED` again. */
export const deleteCustomer = Effect.fnUntraced(function* (ports: CustomersPorts, id: string) {
  const { store } = ports
  return yield* store.transaction(
    Effect.gen(function* () {
      const current = yield* store.customers.getForUpdate(id)
      if (current === undefined) return yield* customerNotFound(id)
      if (current.isDeleted) return yield* customerDeleted(id)
      const now = yield* nowIso
      const deleted: Customer = { ...current, isDeleted: true, updatedAt: now }
      yield* Effect.orDie(store.customers.update(deleted))
      return yield* viewOf(store, deleted)
    })
  )
})
