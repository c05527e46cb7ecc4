import { assert } from "@effect/vitest"
import { type LookupFilter, type LookupId, type LookupRecord, Store } from "@paycore/core"
import { Effect } from "effect"
import type { CollectionCase } from "./collections.ts"
import { type It, makeScope, newId, plusSeconds, type Scope } from "./ids.ts"

// ---- records ----

/** A lookup of an external account that asks nothing of the payer, made without a sender. */
export const lookupMinimal = (s: Scope, id: string = newId("Lookup")): LookupRecord => {
  const createdAt = s.next()
  return {
    id: id as LookupId,
    destinationType: "ACCOUNT",
    receiver: newId("ExternalAccount"),
    requiredPayerDataFields: [],
    createdAt,
    expiresAt: plusSeconds(createdAt, 900)
  }
}

/** A lookup of an UMA address made for a sender, its receiver asking for payer data (one field optional). */
export const lookupFull = (s: Scope, id?: string): LookupRecord => ({
  ...lookupMinimal(s, id),
  destinationType: "UMA_ADDRESS",
  receiver: `$zoë.${s.tag}@uma.test`,
  requiredPayerDataFields: [
    { name: "FULL_NAME", mandatory: true },
    { name: "BIRTH_DATE", mandatory: true },
    { name: "NATIONALITY", mandatory: false }
  ],
  customerId: s.customerId
})

export const lookupsCase: CollectionCase<LookupRecord, LookupFilter> = {
  name: "lookups",
  of: (store) => store.lookups,
  newId: () => newId("Lookup"),
  full: lookupFull,
  minimal: lookupMinimal,
  filter: (s) => ({ customerId: s.customerId }),
  exact: true
}

// ---- what quotes rely on beyond a collection ----

export const lookupTests = (it: It) => {
  it.effect("Q-48: a lookup reads back with its payer data fields in order, each with its mandatory flag", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const lookup = lookupFull(s)
      yield* store.transaction(store.lookups.insert(lookup))
      const read = yield* store.lookups.get(lookup.id)
      assert.deepStrictEqual(read?.requiredPayerDataFields, lookup.requiredPayerDataFields)
      assert.strictEqual(read?.receiver, lookup.receiver)
      assert.strictEqual(read?.expiresAt, lookup.expiresAt)
    })
  )
}
