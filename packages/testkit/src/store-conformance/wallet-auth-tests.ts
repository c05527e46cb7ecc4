import { assert } from "@effect/vitest"
import {
  type DelegatedKeyFilter,
  type DelegatedKeyRecord,
  type OtpChallengeFilter,
  type OtpChallengeRecord,
  type SignedRequestFilter,
  type SignedRequestRecord,
  Store,
  type WalletCredentialFilter,
  type WalletCredentialRecord,
  type WalletSessionFilter,
  type WalletSessionRecord
} from "@paycore/core"
import { Effect } from "effect"
import { assertUniqueViolation, expectList } from "./assertions.ts"
import type { CollectionCase } from "./collections.ts"
import { type It, makeScope, newId, plusSeconds, type Scope, scopedId } from "./ids.ts"

// ---- records: the embedded wallet of one scope ----

/** The embedded-wallet account a scope's wallet rows belong to. */
export const walletOf = scopedId("InternalAccount")

export const credentialMinimal = (s: Scope, id: string = newId("AuthMethod")): WalletCredentialRecord => {
  const createdAt = s.next()
  return {
    id: id as WalletCredentialRecord["id"],
    accountId: walletOf(s),
    customerId: s.customerId,
    type: "OAUTH",
    status: "ACTIVE",
    verified: false,
    nickname: `oauth-${s.tag}`,
    createdAt,
    updatedAt: createdAt
  }
}

/** A passkey with every optional field (it holds a slot: fresh per row). */
export const credentialFull = (s: Scope, id: string = newId("AuthMethod")): WalletCredentialRecord => {
  const createdAt = s.next()
  return {
    id: id as WalletCredentialRecord["id"],
    accountId: walletOf(s),
    customerId: s.customerId,
    type: "PASSKEY",
    status: "ACTIVE",
    verified: true,
    nickname: `Passkey ✓ ${s.tag}`,
    contact: `${s.tag}@example.com`,
    passkeyCredentialId: `cred-${id}`,
    passkeyPublicKey: "pQECAyYgASFYIA",
    signCount: 4_294_967_295,
    transports: ["internal", "hybrid"],
    oidcIssuer: "https://issuer.example",
    oidcAudience: "paycore",
    oidcSubject: `sub-${s.tag}`,
    slot: `${walletOf(s)}|PASSKEY|cred-${id}`,
    createdAt,
    updatedAt: plusSeconds(createdAt, 1),
    revokedAt: plusSeconds(createdAt, 2)
  }
}

export const sessionMinimal = (s: Scope, id: string = newId("Session")): WalletSessionRecord => {
  const createdAt = s.next()
  return {
    id: id as WalletSessionRecord["id"],
    accountId: walletOf(s),
    credentialId: newId("AuthMethod"),
    type: "EMAIL_OTP",
    nickname: `${s.tag}@example.com`,
    publicKey: `02${"ab".repeat(32)}`,
    status: "ACTIVE",
    createdAt,
    updatedAt: createdAt,
    expiresAt: plusSeconds(createdAt, 900)
  }
}

export const signedRequestMinimal = (s: Scope, id: string = newId("Request")): SignedRequestRecord => {
  const createdAt = s.next()
  return {
    id,
    accountId: walletOf(s),
    operation: "REVOKE_SESSION",
    subjectId: newId("Session"),
    status: "PENDING",
    payloadToSign: `{"type":"WALLET_REVOKE_SESSION","requestId":"${id}"}`,
    bodySha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    credentialSetSha256: "",
    signer: "ANY_SESSION",
    expiresAt: plusSeconds(createdAt, 300),
    createdAt,
    updatedAt: createdAt
  }
}

export const signedRequestFull = (s: Scope, id?: string): SignedRequestRecord => ({
  ...signedRequestMinimal(s, id),
  status: "PROCESSING",
  bound: { publicKey: `03${"cd".repeat(32)}`, note: '✓ "quoted"' },
  stampSha256: "ff".repeat(32)
})

export const otpChallengeMinimal = (s: Scope, id: string = newId("AuthMethod")): OtpChallengeRecord => {
  const issuedAt = s.next()
  return {
    id: id as OtpChallengeRecord["id"],
    accountId: walletOf(s),
    codeSha256: "00".repeat(32),
    targetPublicKey: `04${"12".repeat(64)}`,
    targetPrivateKeySealed: "v1.iv.data",
    attempts: 0,
    issuedAt,
    expiresAt: plusSeconds(issuedAt, 300)
  }
}

/** A `PENDING` key: no slot. */
export const delegatedKeyMinimal = (s: Scope, id: string = newId("DelegatedKey")): DelegatedKeyRecord => {
  const createdAt = s.next()
  return {
    id: id as DelegatedKeyRecord["id"],
    cardId: `Card:${s.tag}`,
    fundingSourceId: `CardFundingSource:${s.tag}`,
    accountId: walletOf(s),
    publicKey: `02${"ef".repeat(32)}`,
    privateKeySealed: "v1.iv.sealed",
    nickname: `Card key ✓ ${s.tag}`,
    status: "PENDING",
    createdAt,
    updatedAt: createdAt
  }
}

/** An `ACTIVE` key holding its own funding source's slot (fresh per row). */
export const delegatedKeyFull = (s: Scope, id: string = newId("DelegatedKey")): DelegatedKeyRecord => {
  const minimal = delegatedKeyMinimal(s, id)
  const fundingSourceId = `CardFundingSource:${id}`
  return {
    ...minimal,
    fundingSourceId,
    status: "ACTIVE",
    activeSlot: fundingSourceId,
    updatedAt: plusSeconds(minimal.createdAt, 1)
  }
}

// ---- the collection cases ----

export const walletCredentialsCase: CollectionCase<WalletCredentialRecord, WalletCredentialFilter> = {
  name: "walletCredentials",
  of: (store) => store.walletCredentials,
  newId: () => newId("AuthMethod"),
  full: credentialFull,
  minimal: credentialMinimal,
  filter: (s) => ({ accountId: walletOf(s), includeRevoked: true }),
  exact: true
}

/** A live session: it holds its key (fresh per row). */
export const sessionFull = (s: Scope, id?: string): WalletSessionRecord => {
  const base = sessionMinimal(s, id)
  const publicKey = `03${crypto.randomUUID().replaceAll("-", "").repeat(2)}`
  return { ...base, publicKey, liveKey: publicKey }
}

export const walletSessionsCase: CollectionCase<WalletSessionRecord, WalletSessionFilter> = {
  name: "walletSessions",
  of: (store) => store.walletSessions,
  newId: () => newId("Session"),
  full: sessionFull,
  minimal: sessionMinimal,
  filter: (s) => ({ accountId: walletOf(s) }),
  exact: true
}

export const signedRequestsCase: CollectionCase<SignedRequestRecord, SignedRequestFilter> = {
  name: "signedRequests",
  of: (store) => store.signedRequests,
  newId: () => newId("Request"),
  full: signedRequestFull,
  minimal: signedRequestMinimal,
  filter: (s) => ({ accountId: walletOf(s) }),
  exact: true
}

export const otpChallengesCase: CollectionCase<OtpChallengeRecord, OtpChallengeFilter> = {
  name: "otpChallenges",
  of: (store) => store.otpChallenges,
  newId: () => newId("AuthMethod"),
  full: otpChallengeMinimal,
  minimal: otpChallengeMinimal,
  filter: (s) => ({ accountId: walletOf(s) }),
  exact: true
}

export const delegatedKeysCase: CollectionCase<DelegatedKeyRecord, DelegatedKeyFilter> = {
  name: "delegatedKeys",
  of: (store) => store.delegatedKeys,
  newId: () => newId("DelegatedKey"),
  full: delegatedKeyFull,
  minimal: delegatedKeyMinimal,
  filter: (s) => ({ accountId: walletOf(s) }),
  exact: true
}

// ---- what wallet auth relies on beyond a collection ----

export const walletCredentialTests = (it: It) => {
  it.effect("W-09, W-10: an active credential's slot is unique; revoked ones (no slot) do not hold it", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const slot = `${walletOf(s)}|EMAIL_OTP`
      const active: WalletCredentialRecord = { ...credentialMinimal(s), type: "EMAIL_OTP", status: "ACTIVE", slot }
      yield* store.walletCredentials.insert(active)
      const second = yield* Effect.flip(store.walletCredentials.insert({ ...active, id: newId("AuthMethod") }))
      assertUniqueViolation(second, "slot")
      assert.deepStrictEqual(yield* store.walletCredentials.findUnique("slot", slot), active)
      // Revoking frees the slot: a re-added credential takes it, and revoked rows pile up without one.
      const { slot: _slot, ...revoked } = active
      yield* store.walletCredentials.update({ ...revoked, status: "REVOKED", revokedAt: s.next() })
      yield* store.walletCredentials.insert({ ...credentialMinimal(s), type: "EMAIL_OTP" })
      const again: WalletCredentialRecord = { ...active, id: newId("AuthMethod") }
      yield* store.walletCredentials.insert(again)
      assert.strictEqual((yield* store.walletCredentials.findUnique("slot", slot))?.id, again.id)
    })
  )

  it.effect("W-11: lists leave revoked credentials out unless asked; contact filters", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const live = credentialFull(s)
      const { revokedAt: _r, ...liveRow } = live
      const revoked: WalletCredentialRecord = { ...credentialMinimal(s), status: "REVOKED", revokedAt: s.next() }
      const otherRow = credentialMinimal(s)
      for (const row of [liveRow, revoked, otherRow]) yield* store.walletCredentials.insert(row)
      const list = store.walletCredentials.list
      yield* expectList(list, { accountId: walletOf(s), includeRevoked: false }, [liveRow, otherRow])
      yield* expectList(list, { accountId: walletOf(s), includeRevoked: true }, [liveRow, revoked, otherRow])
      yield* expectList(list, { contact: live.contact!, includeRevoked: false }, [liveRow])
    })
  )
}

export const walletSessionTests = (it: It) => {
  it.effect("W-37: a live session's key is unique; ended sessions (no liveKey) do not hold it", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const live = sessionFull(s)
      yield* store.walletSessions.insert(live)
      const twin = yield* Effect.flip(store.walletSessions.insert({ ...sessionFull(s), liveKey: live.liveKey }))
      assertUniqueViolation(twin, "liveKey")
      assert.deepStrictEqual(yield* store.walletSessions.findUnique("liveKey", live.liveKey!), live)
      const { liveKey: _k, ...ended } = live
      yield* store.walletSessions.update({ ...ended, status: "REFRESHED" })
      assert.isUndefined(yield* store.walletSessions.findUnique("liveKey", live.liveKey!))
      const next = { ...sessionFull(s), publicKey: live.publicKey, liveKey: live.liveKey }
      yield* store.walletSessions.insert(next)
      assert.strictEqual((yield* store.walletSessions.findUnique("liveKey", live.liveKey!))?.id, next.id)
    })
  )

  it.effect("W-30: sessions filter by status and credential", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const a = sessionMinimal(s)
      const b = { ...sessionMinimal(s), credentialId: a.credentialId, status: "REVOKED" as const }
      const c = sessionMinimal(s)
      for (const row of [a, b, c]) yield* store.walletSessions.insert(row)
      const list = store.walletSessions.list
      yield* expectList(list, { accountId: walletOf(s), status: "ACTIVE" }, [a, c])
      yield* expectList(list, { credentialId: a.credentialId }, [a, b])
      yield* expectList(list, { credentialId: a.credentialId, status: "ACTIVE" }, [a])
    })
  )
}

export const delegatedKeyTests = (it: It) => {
  it.effect(
    "W-45, L-11: one ACTIVE key per funding source (the unique activeSlot); PENDING and REVOKED keys hold none",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const s = makeScope()
        const fundingSourceId = `CardFundingSource:${newId("DelegatedKey")}`
        const pending = (): DelegatedKeyRecord => ({ ...delegatedKeyMinimal(s), fundingSourceId })
        const a = pending()
        const b = pending()
        // Many PENDING keys for one funding source (W-44: an abandoned one blocks nothing).
        for (const row of [a, b]) yield* store.delegatedKeys.insert(row)
        const activeA: DelegatedKeyRecord = { ...a, status: "ACTIVE", activeSlot: fundingSourceId }
        yield* store.delegatedKeys.update(activeA)
        const second = yield* Effect.flip(
          store.delegatedKeys.update({ ...b, status: "ACTIVE", activeSlot: fundingSourceId })
        )
        assertUniqueViolation(second, "activeSlot")
        assert.deepStrictEqual(yield* store.delegatedKeys.get(b.id), b)
        const inserted = yield* Effect.flip(
          store.delegatedKeys.insert({ ...pending(), status: "ACTIVE", activeSlot: fundingSourceId })
        )
        assertUniqueViolation(inserted, "activeSlot")
        assert.deepStrictEqual(yield* store.delegatedKeys.findUnique("activeSlot", fundingSourceId), activeA)
        // Revoking frees the slot for another key.
        yield* store.delegatedKeys.update({ ...a, status: "REVOKED" })
        assert.strictEqual(yield* store.delegatedKeys.findUnique("activeSlot", fundingSourceId), undefined)
        const activeB: DelegatedKeyRecord = { ...b, status: "ACTIVE", activeSlot: fundingSourceId }
        yield* store.delegatedKeys.update(activeB)
        assert.deepStrictEqual(yield* store.delegatedKeys.findUnique("activeSlot", fundingSourceId), activeB)
      })
  )

  it.effect("list filters: by account, by funding source, by both; every status", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const other = makeScope()
      const a = delegatedKeyMinimal(s)
      const b = delegatedKeyFull(s)
      const c: DelegatedKeyRecord = { ...delegatedKeyMinimal(s), status: "REVOKED" }
      const d: DelegatedKeyRecord = { ...delegatedKeyMinimal(other), fundingSourceId: a.fundingSourceId }
      for (const row of [a, b, c, d]) yield* store.delegatedKeys.insert(row)
      const list = store.delegatedKeys.list
      yield* expectList(list, { accountId: walletOf(s) }, [a, b, c])
      yield* expectList(list, { fundingSourceId: a.fundingSourceId }, [a, c, d])
      yield* expectList(list, { accountId: walletOf(s), fundingSourceId: a.fundingSourceId }, [a, c])
      yield* expectList(list, { fundingSourceId: b.fundingSourceId }, [b])
    })
  )
}
