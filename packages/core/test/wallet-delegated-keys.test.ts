import { createPublicKey, verify } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { p256 } from "@noble/curves/nist.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { layer as memoryStore } from "@paycore/store-memory"
import { Effect, Layer } from "effect"
import { KeyVault, keyVaultFromKey } from "../src/ports/key-vault.ts"
import { Store } from "../src/ports/store.ts"
import { signWithDelegatedKey } from "../src/wallet-auth/delegated-keys.ts"
import type { DelegatedKeyRecord, DelegatedKeyStatus } from "../src/wallet-auth/model.ts"

const vault = keyVaultFromKey(new Uint8Array(32).fill(7))
const TestLayer = Layer.mergeAll(memoryStore, Layer.succeed(KeyVault, vault))

let n = 0
const keyId = () => `DelegatedKey:01234567-89ab-7def-8123-${String(++n).padStart(12, "0")}` as DelegatedKeyRecord["id"]

/** A stored delegated key in `status`, its private key sealed as the service seals it (context: the key's id). */
const storedKey = Effect.fnUntraced(function* (status: DelegatedKeyStatus) {
  const store = yield* Store
  const id = keyId()
  const secret = p256.utils.randomSecretKey()
  const record: DelegatedKeyRecord = {
    id,
    cardId: "Card:1",
    fundingSourceId: `CardFundingSource:${id}`,
    accountId: "InternalAccount:01234567-89ab-7def-8123-456789abcdef" as DelegatedKeyRecord["accountId"],
    publicKey: bytesToHex(p256.getPublicKey(secret, true)),
    privateKeySealed: yield* vault.seal(secret, id),
    nickname: "Card payments key",
    status,
    ...(status === "ACTIVE" ? { activeSlot: `CardFundingSource:${id}` } : {}),
    createdAt: "2026-03-02T12:00:00.000Z",
    updatedAt: "2026-03-02T12:00:00.000Z"
  }
  yield* store.delegatedKeys.insert(record)
  return record
})

/** Verified by node:crypto, apart from the signer's library: DER ECDSA P-256 / SHA-256 under a compressed key. */
const verifies = (publicKey: string, payload: Uint8Array, signature: string): boolean => {
  const spki = Buffer.from(`3039301306072a8648ce3d020106082a8648ce3d030107032200${publicKey}`, "hex")
  const key = createPublicKey({ key: spki, format: "der", type: "spki" })
  return verify("sha256", payload, { key, dsaEncoding: "der" }, Buffer.from(signature, "hex"))
}

const codeOf = (error: { readonly _tag: string }): string => ("code" in error ? String(error.code) : error._tag)

describe("signWithDelegatedKey (W-47)", () => {
  it.effect(
    "W-47: an ACTIVE key signs raw payloads (text as UTF-8, or bytes); each signature verifies with its public key",
    () =>
      Effect.gen(function* () {
        const key = yield* storedKey("ACTIVE")
        const text = '{"spark":"token transaction ✓"}'
        const signed = yield* signWithDelegatedKey(key.id, text)
        assert.match(signed, /^30[0-9a-f]+$/)
        assert.isTrue(verifies(key.publicKey, new TextEncoder().encode(text), signed))
        const bytes = Uint8Array.from([0, 1, 2, 254, 255])
        assert.isTrue(verifies(key.publicKey, bytes, yield* signWithDelegatedKey(key.id, bytes)))
        // Not by another key.
        const other = yield* storedKey("ACTIVE")
        assert.isFalse(verifies(other.publicKey, bytes, yield* signWithDelegatedKey(key.id, bytes)))
      }).pipe(Effect.provide(TestLayer))
  )

  it.effect("W-44, W-46: a PENDING or REVOKED key refuses to sign; an unknown key is 404", () =>
    Effect.gen(function* () {
      for (const status of ["PENDING", "REVOKED"] as const) {
        const key = yield* storedKey(status)
        const refused = yield* Effect.flip(signWithDelegatedKey(key.id, "payload"))
        assert.strictEqual(refused._tag, "Refused")
        assert.strictEqual(codeOf(refused), "INVALID_INPUT")
      }
      const unknown = yield* Effect.flip(signWithDelegatedKey(keyId(), "payload"))
      assert.strictEqual(unknown._tag, "NotFound")
      assert.strictEqual(codeOf(unknown), "REFERENCE_NOT_FOUND")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect(
    "W-47: a sealed private key opens only for its own key (copied into another record, it does not sign)",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const a = yield* storedKey("ACTIVE")
        const b = yield* storedKey("ACTIVE")
        yield* store.delegatedKeys.update({ ...b, privateKeySealed: a.privateKeySealed })
        const refused = yield* Effect.flip(signWithDelegatedKey(b.id, "payload"))
        assert.strictEqual(refused._tag, "Refused")
        // Under another key-encryption key, nothing opens.
        const elsewhere = yield* Effect.flip(
          signWithDelegatedKey(a.id, "payload").pipe(
            Effect.provideService(KeyVault, keyVaultFromKey(new Uint8Array(32).fill(8)))
          )
        )
        assert.strictEqual(elsewhere._tag, "Refused")
      }).pipe(Effect.provide(TestLayer))
  )
})
