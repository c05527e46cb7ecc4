import { assert } from "@effect/vitest"
import {
  type ScaChallengeFilter,
  type ScaChallengeRecord,
  type ScaFactorFilter,
  type ScaFactorRecord,
  type ScaFactorResetFilter,
  type ScaFactorResetRecord,
  type ScaSecurityFilter,
  type ScaSecurityRecord,
  type ScaSessionFilter,
  type ScaSessionRecord,
  Store,
  type TrustedBeneficiaryFilter,
  type TrustedBeneficiaryRecord
} from "@paycore/core"
import { Effect } from "effect"
import { assertUniqueViolation, expectList } from "./assertions.ts"
import type { CollectionCase } from "./collections.ts"
import { type It, makeScope, newId, plusSeconds, type Scope } from "./ids.ts"

// ---- records ----

/** A passed login challenge: no open slot, no optional field. */
export const scaChallengeMinimal = (s: Scope, id: string = newId("ScaChallenge")): ScaChallengeRecord => {
  const createdAt = s.next()
  return {
    id: id as ScaChallengeRecord["id"],
    customerId: s.customerId,
    kind: "LOGIN",
    step: 1,
    factor: "SMS_OTP",
    availableFactors: [],
    status: "PASSED",
    attempts: 0,
    sends: 0,
    createdAt,
    expiresAt: plusSeconds(createdAt, 300)
  }
}

/** An open quote challenge with every optional field (it holds its own open slot). */
export const scaChallengeFull = (s: Scope, id: string = newId("ScaChallenge")): ScaChallengeRecord => {
  const minimal = scaChallengeMinimal(s, id)
  const quoteId = newId("Quote")
  return {
    ...minimal,
    kind: "QUOTE",
    subjectId: quoteId,
    step: 2,
    purpose: "CURRENCY_CONVERSION",
    factor: "PASSKEY",
    availableFactors: ["SMS_OTP", "PASSKEY"],
    status: "OPEN",
    codeSha256: "ab".repeat(32),
    passkeyChallenge: "cd".repeat(32),
    linked: { amount: 1250, currency: "EUR", payee: "…9f3a ✓" },
    attempts: 2,
    sends: 5,
    lastSentAt: plusSeconds(minimal.createdAt, 60),
    lastFailedAt: plusSeconds(minimal.createdAt, 61),
    settledAt: plusSeconds(minimal.createdAt, 62),
    openSlot: `QUOTE|${quoteId}|2`
  }
}

export const scaSessionMinimal = (s: Scope, id: string = newId("ScaSession")): ScaSessionRecord => {
  const createdAt = s.next()
  return {
    id: id as ScaSessionRecord["id"],
    customerId: s.customerId,
    factor: "SMS_OTP",
    endUserIp: "203.0.113.42",
    challengeId: newId("ScaChallenge"),
    createdAt,
    expiresAt: plusSeconds(createdAt, 180 * 86_400)
  }
}

export const scaSessionFull = (s: Scope, id?: string): ScaSessionRecord => {
  const minimal = scaSessionMinimal(s, id)
  return { ...minimal, endUserIp: "2001:db8::1", revokedAt: plusSeconds(minimal.createdAt, 5) }
}

export const scaSecurityMinimal = (s: Scope, id: string = newId("Customer")): ScaSecurityRecord => ({
  id,
  failedAttempts: 0,
  suspended: false,
  updatedAt: s.next()
})

export const scaSecurityFull = (s: Scope, id?: string): ScaSecurityRecord => {
  const minimal = scaSecurityMinimal(s, id)
  return { ...minimal, failedAttempts: 5, lockedUntil: plusSeconds(minimal.updatedAt, 900) }
}

/** A removed TOTP factor: no optional field (no slot held). */
export const scaFactorMinimal = (s: Scope, id: string = newId("ScaFactor")): ScaFactorRecord => {
  const createdAt = s.next()
  return {
    id: id as ScaFactorRecord["id"],
    customerId: s.customerId,
    factor: "TOTP",
    status: "REMOVED",
    createdAt,
    updatedAt: createdAt
  }
}

/** A pending passkey enrolment with every optional field (it holds both slots, which no real row does). */
export const scaFactorFull = (s: Scope, id?: string): ScaFactorRecord => {
  const minimal = scaFactorMinimal(s, id)
  return {
    ...minimal,
    factor: "PASSKEY",
    status: "PENDING",
    name: "Pixel ✓",
    credentialId: "AQIDBAUGBwgJCgsMDQ4PEA",
    publicKey: "pQECAyYgASFYIA",
    signCount: 7,
    totpSecretSealed: "v1.aXY.ZGF0YQ",
    totpLastStep: 59_000_000,
    recoveryCodeHashes: ["ab".repeat(32), "cd".repeat(32)],
    phone: "+4915112345678",
    enrolChallenge: "ef".repeat(32),
    enrolExpiresAt: plusSeconds(minimal.createdAt, 600),
    updatedAt: plusSeconds(minimal.createdAt, 1),
    slot: `${minimal.customerId}|PASSKEY|${minimal.id}`,
    pendingSlot: `${minimal.customerId}|PASSKEY|${minimal.id}`
  }
}

/** An account trusted once and untrusted since (every field is required). */
export const trustedBeneficiaryMinimal = (
  s: Scope,
  id: string = newId("ExternalAccount")
): TrustedBeneficiaryRecord => {
  const createdAt = s.next()
  return {
    id: id as TrustedBeneficiaryRecord["id"],
    customerId: s.customerId,
    status: "UNTRUSTED",
    challengeId: newId("ScaChallenge"),
    createdAt,
    updatedAt: plusSeconds(createdAt, 60)
  }
}

/** A trusted account. */
export const trustedBeneficiaryFull = (s: Scope, id?: string): TrustedBeneficiaryRecord => ({
  ...trustedBeneficiaryMinimal(s, id),
  status: "TRUSTED"
})

/** A reset just started: no optional field. */
export const scaFactorResetMinimal = (s: Scope, id: string = newId("ScaFactorReset")): ScaFactorResetRecord => {
  const createdAt = s.next()
  return {
    id: id as ScaFactorResetRecord["id"],
    customerId: s.customerId,
    factor: "SMS_OTP",
    status: "INITIATED",
    livenessNonce: "0f".repeat(16),
    createdAt,
    updatedAt: createdAt,
    expiresAt: plusSeconds(createdAt, 1800)
  }
}

/** A completed reset with every optional field. */
export const scaFactorResetFull = (s: Scope, id?: string): ScaFactorResetRecord => {
  const minimal = scaFactorResetMinimal(s, id)
  return {
    ...minimal,
    factor: "PASSKEY",
    status: "COMPLETED",
    verificationLink: "https://sandbox.paycore.dev/liveness/0f0f?ü=✓",
    livenessToken: "tok_ü✓",
    updatedAt: plusSeconds(minimal.createdAt, 60),
    completedAt: plusSeconds(minimal.createdAt, 60)
  }
}

// ---- the collection cases ----

export const scaChallengesCase: CollectionCase<ScaChallengeRecord, ScaChallengeFilter> = {
  name: "scaChallenges",
  of: (store) => store.scaChallenges,
  newId: () => newId("ScaChallenge"),
  full: scaChallengeFull,
  minimal: scaChallengeMinimal,
  filter: (s) => ({ customerId: s.customerId }),
  exact: true
}

export const scaSessionsCase: CollectionCase<ScaSessionRecord, ScaSessionFilter> = {
  name: "scaSessions",
  of: (store) => store.scaSessions,
  newId: () => newId("ScaSession"),
  full: scaSessionFull,
  minimal: scaSessionMinimal,
  filter: (s) => ({ customerId: s.customerId, includeRevoked: true }),
  exact: true
}

export const scaSecurityCase: CollectionCase<ScaSecurityRecord, ScaSecurityFilter> = {
  name: "scaSecurity",
  of: (store) => store.scaSecurity,
  newId: () => newId("Customer"),
  full: scaSecurityFull,
  minimal: scaSecurityMinimal,
  filter: () => ({}),
  exact: false
}

export const scaFactorsCase: CollectionCase<ScaFactorRecord, ScaFactorFilter> = {
  name: "scaFactors",
  of: (store) => store.scaFactors,
  newId: () => newId("ScaFactor"),
  full: scaFactorFull,
  minimal: scaFactorMinimal,
  filter: (s) => ({ customerId: s.customerId }),
  exact: true
}

export const trustedBeneficiariesCase: CollectionCase<TrustedBeneficiaryRecord, TrustedBeneficiaryFilter> = {
  name: "trustedBeneficiaries",
  of: (store) => store.trustedBeneficiaries,
  newId: () => newId("ExternalAccount"),
  full: trustedBeneficiaryFull,
  minimal: trustedBeneficiaryMinimal,
  filter: (s) => ({ customerId: s.customerId }),
  exact: true
}

export const scaFactorResetsCase: CollectionCase<ScaFactorResetRecord, ScaFactorResetFilter> = {
  name: "scaFactorResets",
  of: (store) => store.scaFactorResets,
  newId: () => newId("ScaFactorReset"),
  full: scaFactorResetFull,
  minimal: scaFactorResetMinimal,
  filter: (s) => ({ customerId: s.customerId }),
  exact: true
}

// ---- what SCA relies on beyond a collection ----

export const scaChallengeTests = (it: It) => {
  it.effect("S-14: one OPEN challenge per slot (openSlot is unique); settled ones (no slot) do not hold it", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const slot = `LOGIN|${s.customerId}`
      const open: ScaChallengeRecord = { ...scaChallengeMinimal(s), status: "OPEN", openSlot: slot }
      yield* store.scaChallenges.insert(open)
      const second = yield* Effect.flip(store.scaChallenges.insert({ ...open, id: newId("ScaChallenge") }))
      assertUniqueViolation(second, "openSlot")
      assert.deepStrictEqual(yield* store.scaChallenges.findUnique("openSlot", slot), open)
      // Superseding frees the slot for the next login's challenge.
      const { openSlot: _slot, ...rest } = open
      const superseded: ScaChallengeRecord = { ...rest, status: "SUPERSEDED", settledAt: s.next() }
      yield* store.scaChallenges.update(superseded)
      assert.isUndefined(yield* store.scaChallenges.findUnique("openSlot", slot))
      const next: ScaChallengeRecord = { ...open, id: newId("ScaChallenge") }
      yield* store.scaChallenges.insert(next)
      assert.strictEqual((yield* store.scaChallenges.findUnique("openSlot", slot))?.id, next.id)
      yield* expectList(store.scaChallenges.list, { customerId: s.customerId }, [superseded, next])
    })
  )
}

export const scaSessionTests = (it: It) => {
  it.effect("S-09, S-13: live sessions are those not revoked whose expiresAt is after the instant asked", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const early = scaSessionMinimal(s)
      const late: ScaSessionRecord = { ...scaSessionMinimal(s), expiresAt: plusSeconds(early.expiresAt, 86_400) }
      const revoked = scaSessionFull(s)
      for (const row of [early, late, revoked]) yield* store.scaSessions.insert(row)
      const list = store.scaSessions.list
      yield* expectList(list, { customerId: s.customerId, includeRevoked: false }, [early, late])
      yield* expectList(list, { customerId: s.customerId, includeRevoked: true }, [early, late, revoked])
      // Strictly after: a session whose expiresAt is the instant asked has lapsed.
      yield* expectList(list, { customerId: s.customerId, expiresAfter: early.expiresAt, includeRevoked: false }, [
        late
      ])
      yield* expectList(list, { customerId: s.customerId, expiresAfter: late.expiresAt, includeRevoked: true }, [])
    })
  )
}

export const scaFactorTests = (it: It) => {
  it.effect(
    "S-02: one ACTIVE and one PENDING factor of a kind per customer (slot, pendingSlot); REMOVED holds none",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const s = makeScope()
        const slot = `${s.customerId}|TOTP`
        const active: ScaFactorRecord = { ...scaFactorMinimal(s), status: "ACTIVE", slot }
        const pending: ScaFactorRecord = { ...scaFactorMinimal(s), status: "PENDING", pendingSlot: slot }
        yield* store.scaFactors.insert(active)
        yield* store.scaFactors.insert(pending)
        assertUniqueViolation(
          yield* Effect.flip(store.scaFactors.insert({ ...active, id: newId("ScaFactor") as ScaFactorRecord["id"] })),
          "slot"
        )
        assertUniqueViolation(
          yield* Effect.flip(store.scaFactors.insert({ ...pending, id: newId("ScaFactor") as ScaFactorRecord["id"] })),
          "pendingSlot"
        )
        assert.strictEqual((yield* store.scaFactors.findUnique("slot", slot))?.id, active.id)
        assert.strictEqual((yield* store.scaFactors.findUnique("pendingSlot", slot))?.id, pending.id)
        // The confirm: the active one is replaced (slot freed), then the pending one takes the slot.
        const { slot: _slot, ...replaced } = active
        yield* store.scaFactors.update({ ...replaced, status: "REMOVED" })
        const { pendingSlot: _pending, ...confirmed } = pending
        yield* store.scaFactors.update({ ...confirmed, status: "ACTIVE", slot })
        assert.strictEqual((yield* store.scaFactors.findUnique("slot", slot))?.id, pending.id)
        assert.isUndefined(yield* store.scaFactors.findUnique("pendingSlot", slot))
        yield* expectList(store.scaFactors.list, { customerId: s.customerId, status: "ACTIVE" }, [
          { ...confirmed, status: "ACTIVE", slot }
        ])
      })
  )
}

export const scaFactorResetTests = (it: It) => {
  it.effect("a customer's resets started strictly after an instant (the rolling 24 h of the start limit)", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const other = makeScope()
      const first = scaFactorResetMinimal(s)
      const second = scaFactorResetFull(s)
      const third = scaFactorResetMinimal(s)
      const elsewhere = scaFactorResetMinimal(other)
      for (const row of [first, second, third, elsewhere]) yield* store.scaFactorResets.insert(row)
      const list = store.scaFactorResets.list
      yield* expectList(list, { customerId: s.customerId }, [first, second, third])
      yield* expectList(list, { customerId: s.customerId, createdAfter: first.createdAt }, [second, third])
      yield* expectList(list, { customerId: s.customerId, createdAfter: third.createdAt }, [])
      // The customer filter holds with the instant: another customer's row of the same window is not listed.
      yield* expectList(list, { customerId: other.customerId, createdAfter: plusSeconds(elsewhere.createdAt, -1) }, [
        elsewhere
      ])
      yield* expectList(list, { customerId: s.customerId, createdAfter: plusSeconds(elsewhere.createdAt, -1) }, [
        ...[first, second, third].filter((row) => row.createdAt > plusSeconds(elsewhere.createdAt, -1))
      ])
    })
  )
}
