import { assert } from "@effect/vitest"
import { type InvitationFilter, type InvitationId, type InvitationRecord, Store } from "@paycore/core"
import { Effect, Exit } from "effect"
import { assertUniqueViolation, expectDue, expectList } from "./assertions.ts"
import type { CollectionCase } from "./collections.ts"
import { type It, makeScope, newId, plusSeconds, type Scope, unique } from "./ids.ts"

// ---- records ----

/** 8 lowercase hex, fresh each call (the form of a real code). */
const freshCode = (): string => unique().slice(8)

/** An invitation just created: no amount, no expiry, no name. */
export const invitationMinimal = (s: Scope, id: string = newId("Invitation")): InvitationRecord => {
  const createdAt = s.next()
  const code = freshCode()
  return {
    id: id as InvitationId,
    code,
    url: `https://uma.test/i/${code}`,
    inviterCustomerId: s.customerId,
    inviterUma: `$inviter-${s.tag}@uma.test`,
    state: "PENDING",
    createdAt,
    updatedAt: createdAt
  }
}

/** A claimed pay-by-link invitation with every optional field (a cancel instant too, which a claim never sets). */
export const invitationFull = (s: Scope, id?: string): InvitationRecord => {
  const minimal = invitationMinimal(s, id)
  return {
    ...minimal,
    inviteeUma: "$invitée@other.test",
    amount: 9_000_000_000_000_000,
    currency: "USD",
    firstName: "Zoë ✓",
    state: "CLAIMED",
    expiresAt: plusSeconds(minimal.createdAt, 86_400),
    claimedAt: plusSeconds(minimal.createdAt, 60),
    cancelledAt: plusSeconds(minimal.createdAt, 61),
    updatedAt: plusSeconds(minimal.createdAt, 61)
  }
}

export const invitationsCase: CollectionCase<InvitationRecord, InvitationFilter> = {
  name: "invitations",
  of: (store) => store.invitations,
  newId: () => newId("Invitation"),
  full: invitationFull,
  minimal: invitationMinimal,
  filter: (s) => ({ inviterCustomerId: s.customerId }),
  exact: true
}

// ---- what invitations rely on beyond a collection ----

export const invitationTests = (it: It) => {
  it.effect("IN-02, IN-03: code is unique; an invitation is found by it", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const first = invitationMinimal(s)
      yield* store.invitations.insert(first)
      assertUniqueViolation(
        yield* Effect.flip(store.invitations.insert({ ...invitationMinimal(s), code: first.code })),
        "code"
      )
      assert.deepStrictEqual(yield* store.invitations.findUnique("code", first.code), first)
      assert.isUndefined(yield* store.invitations.findUnique("code", freshCode()))
    })
  )

  it.effect("IN-10: the sweeper's filter: PENDING rows with expiresAt at or before an instant, none without one", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const due: InvitationRecord = { ...invitationMinimal(s), expiresAt: s.at(100) }
      const dueExactly: InvitationRecord = { ...invitationMinimal(s), expiresAt: s.at(200) }
      const later: InvitationRecord = { ...invitationMinimal(s), expiresAt: s.at(300) }
      const never = invitationMinimal(s)
      const claimed: InvitationRecord = { ...invitationFull(s), expiresAt: s.at(100) }
      for (const row of [due, dueExactly, later, never, claimed]) yield* store.invitations.insert(row)
      const list = store.invitations.list
      const mine = { inviterCustomerId: s.customerId }
      yield* expectList(list, { ...mine, states: ["PENDING"], expiresAtOrBefore: s.at(200) }, [due, dueExactly])
      // The sweeper's walk (issue 34), earliest expiry first.
      yield* expectDue(
        store.invitations,
        { states: ["PENDING"], expiresAtOrBefore: s.at(200) },
        (r) => r.expiresAt,
        [due, dueExactly],
        { among: true, limit: 50, excluded: [later, never, claimed] }
      )
      yield* expectList(list, { ...mine, expiresAtOrBefore: s.at(200) }, [due, dueExactly, claimed])
      yield* expectList(list, { ...mine, states: ["CLAIMED", "CANCELLED"] }, [claimed])
      yield* expectList(list, { ...mine, states: [] }, [])
      yield* expectList(list, mine, [due, dueExactly, later, never, claimed])
    })
  )

  it.effect("getForUpdate holds an invitation's row; a rolled-back move leaves it and frees a new code", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const invitation = invitationMinimal(s)
      yield* store.invitations.insert(invitation)
      const fresh = invitationMinimal(s)
      const exit = yield* Effect.exit(
        store.transaction(
          Effect.gen(function* () {
            const locked = yield* store.invitations.getForUpdate(invitation.id)
            yield* store.invitations.update({ ...locked!, state: "CANCELLED", cancelledAt: s.next() })
            yield* store.invitations.insert(fresh)
            return yield* Effect.fail("abort" as const)
          })
        )
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.deepStrictEqual(yield* store.invitations.get(invitation.id), invitation)
      assert.isUndefined(yield* store.invitations.findUnique("code", fresh.code))
      yield* store.invitations.insert(fresh)
    })
  )
}
