/**
 * Delegated keys (W-42 … W-47, L-11, the upstream list and get): the three-leg creation with the client kit, the one
 * `ACTIVE` key per funding source (409, and a race of two activations on PostgreSQL), the 404s and 400s, list, get
 * and revoke, and a key abandoned after its second leg. Cards do not exist yet: funding sources are registered
 * through the testkit's `cardFundingSourcesRegistry`.
 */
import { createPublicKey, verify } from "node:crypto"
import { Store, signWithDelegatedKey } from "@paycore/core"
import { cardFundingSourcesRegistry } from "@paycore/testkit"
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { approveKyc, cardBody, cardRow, endingIn, extraAccount, issued } from "./cards-kit.ts"
import { type CallResult, expectError, expectInvalid, individualPacket, UUID, useTestServer } from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"
import { expectChallenge, retry, type SignedInWallet, walletKit } from "./wallet-kit.ts"

const PATH = "/auth/delegated-keys"
const UNKNOWN_WALLET = "InternalAccount:01234567-89ab-7def-8123-456789abcdef"
const UNKNOWN_KEY = "DelegatedKey:01234567-89ab-7def-8123-456789abcdef"

/** Whether `signature` (DER hex) is an ECDSA P-256 / SHA-256 signature of `payload` by `publicKey` (compressed hex). */
const verifies = (publicKey: string, payload: string, signature: string): boolean => {
  // SubjectPublicKeyInfo of a P-256 key, the point compressed (OpenSSL reads it as it is).
  const spki = Buffer.from(`3039301306072a8648ce3d020106082a8648ce3d030107032200${publicKey}`, "hex")
  const key = createPublicKey({ key: spki, format: "der", type: "spki" })
  return verify("sha256", Buffer.from(payload), { key, dsaEncoding: "der" }, Buffer.from(signature, "hex"))
}

const delegatedKeysSuite = (stores: () => StoresUnderTest) => {
  const cards = cardFundingSourcesRegistry()
  const server = useTestServer(
    async (s) => {
      const r = await s.call("PATCH", "/config", { supportedCurrencies: ["USD", "USDB"] })
      expect(r.status).toBe(200)
    },
    { ...stores(), extraLayer: cards.layer }
  )

  const { signedInWallet, signedCall, snapshot } = walletKit(server)

  /** An embedded wallet (W-04) with a USD account beside it, signed in with the sandbox code. */
  const newWallet = () => signedInWallet({ fullName: "Delia Delegate", currencies: ["USD", "USDB"] })

  /** A card funded by the wallet, and the create body for it. */
  const newCard = (w: SignedInWallet, nickname = "Card payments key") => {
    const source = cards.register({ internalAccountId: w.accountId })
    return { ...source, body: { cardId: source.cardId, internalAccountId: w.accountId, nickname } }
  }

  /** Legs 1 and 2 (W-42): the second 202, its key stored PENDING. */
  const pendingKey = async (w: SignedInWallet, body: object) => {
    const { first, done: second } = await signedCall("POST", PATH, body, w.key)
    expect(second.status, JSON.stringify(second.json)).toBe(202)
    return { first, second, keyId: JSON.parse(second.json.payloadToSign).parameters.delegatedKeyId as string }
  }

  /** The three legs (W-42): the 201 key. */
  const activeKey = async (w: SignedInWallet, body: object) => {
    const { second } = await pendingKey(w, body)
    const done = await server.call("POST", PATH, body, { headers: retry(second, w.key) })
    expect(done.status, JSON.stringify(done.json)).toBe(201)
    return done.json
  }

  const sign = (keyId: string, payload: string) =>
    Effect.runPromise(
      Effect.exit(signWithDelegatedKey(keyId, payload).pipe(Effect.provideService(Store, server.store)))
    )

  describe("creation in three legs", () => {
    it("W-42, W-43, W-47: one body on three legs: 202, 202 binding the new key, then 201 the ACTIVE key, which signs", async () => {
      const w = await newWallet()
      const card = newCard(w)
      const first = await server.call("POST", PATH, card.body)
      expect(expectChallenge(first)).toMatchObject({
        type: "WALLET_CREATE_DELEGATED_KEY",
        requestId: first.json.requestId,
        accountId: w.accountId,
        parameters: { cardId: card.cardId, fundingSourceId: card.fundingSourceId }
      })
      // The first leg makes nothing.
      expect((await server.call("GET", `${PATH}?accountId=${w.accountId}`)).json).toEqual({ data: [] })

      const second = await server.call("POST", PATH, card.body, { headers: retry(first, w.key) })
      expect(second.status, JSON.stringify(second.json)).toBe(202)
      expect(second.json.requestId).not.toBe(first.json.requestId)
      const bound = JSON.parse(second.json.payloadToSign).parameters
      expect(bound).toEqual({
        cardId: card.cardId,
        fundingSourceId: card.fundingSourceId,
        delegatedKeyId: expect.stringMatching(new RegExp(`^DelegatedKey:${UUID}$`)),
        publicKey: expect.stringMatching(/^0[23][0-9a-f]{64}$/)
      })
      const pending = await server.call("GET", `${PATH}/${bound.delegatedKeyId}`)
      expect(pending.json).toMatchObject({ status: "PENDING", publicKey: bound.publicKey })

      const done = await server.call("POST", PATH, card.body, { headers: retry(second, w.key) })
      expect(done.status, JSON.stringify(done.json)).toBe(201)
      expect(done.json).toEqual({
        id: bound.delegatedKeyId,
        cardId: card.cardId,
        fundingSourceId: card.fundingSourceId,
        accountId: w.accountId,
        publicKey: bound.publicKey,
        nickname: "Card payments key",
        status: "ACTIVE",
        createdAt: expect.any(String),
        updatedAt: expect.any(String)
      })
      expect(await server.call("GET", `${PATH}/${done.json.id}`)).toMatchObject({ status: 200, json: done.json })
      // Each requestId is used once (W-38).
      for (const answer of [first, second]) {
        expectError(await server.call("POST", PATH, card.body, { headers: retry(answer, w.key) }), 401, "UNAUTHORIZED")
      }

      // W-47: the service signs raw payloads with it; the private key is in no answer.
      const signed = await sign(done.json.id, "any raw payload ✓")
      expect(Exit.isSuccess(signed)).toBe(true)
      if (Exit.isSuccess(signed)) expect(verifies(done.json.publicKey, "any raw payload ✓", signed.value)).toBe(true)
      const stored = await Effect.runPromise(server.store.delegatedKeys.get(done.json.id))
      for (const answer of [first, second, done, pending]) {
        expect(JSON.stringify(answer.json)).not.toContain(stored!.privateKeySealed)
      }
    })

    it("W-42, W-37, W-38: legs 2 and 3 need a stamp by a session of the wallet, the same body, a fresh requestId", async () => {
      const w = await newWallet()
      const other = await newWallet()
      const card = newCard(w)
      /** A stamp by a session of another wallet, and another body under this wallet's stamp: refused. */
      const refusals = async (answer: CallResult) => {
        expectError(
          await server.call("POST", PATH, card.body, { headers: retry(answer, other.key) }),
          401,
          "WALLET_SIGNATURE_INVALID"
        )
        expectError(
          await server.call("POST", PATH, { ...card.body, nickname: "Another" }, { headers: retry(answer, w.key) }),
          401,
          "WALLET_SIGNATURE_BODY_MISMATCH"
        )
      }
      const first = await server.call("POST", PATH, card.body)
      const before = await snapshot()
      // A session of another wallet, another body, no stamp: refused, nothing made.
      await refusals(first)
      expectError(
        await server.call("POST", PATH, card.body, { headers: { "request-id": first.json.requestId } }),
        401,
        "WALLET_SIGNATURE_MISSING"
      )
      expect(await snapshot()).toEqual(before)
      const second = await server.call("POST", PATH, card.body, { headers: retry(first, w.key) })
      expect(second.status).toBe(202)
      // Leg 1's requestId is spent; leg 3 with another body or by another wallet is refused too.
      expectError(await server.call("POST", PATH, card.body, { headers: retry(first, w.key) }), 401, "UNAUTHORIZED")
      await refusals(second)
      const done = await server.call("POST", PATH, card.body, { headers: retry(second, w.key) })
      expect(done.status).toBe(201)
    })

    it("W-45: 404 for an unknown card, a card the wallet does not fund, an unknown wallet; 400 for another account type or a bad body", async () => {
      const w = await newWallet()
      const other = await newWallet()
      const card = newCard(w)
      const before = await snapshot()
      const cases: Array<[object, number, string]> = [
        [{ ...card.body, cardId: `Card:${crypto.randomUUID()}` }, 404, "REFERENCE_NOT_FOUND"],
        [{ ...card.body, internalAccountId: other.accountId }, 404, "REFERENCE_NOT_FOUND"],
        [{ ...card.body, internalAccountId: UNKNOWN_WALLET }, 404, "REFERENCE_NOT_FOUND"]
      ]
      for (const [body, status, code] of cases) expectError(await server.call("POST", PATH, body), status, code)

      // The customer's USD account is no embedded wallet, even when registered as a card's funding source.
      const fiat = await server.call(
        "GET",
        `/customers/internal-accounts?customerId=${w.customerId}&type=INTERNAL_FIAT`
      )
      expect(fiat.json.data).toHaveLength(1)
      const fiatId: string = fiat.json.data[0].id
      const source = cards.register({ internalAccountId: fiatId })
      expectInvalid(
        await server.call("POST", PATH, { cardId: source.cardId, internalAccountId: fiatId, nickname: "Fiat" }),
        ["internalAccountId"]
      )
      expectInvalid(await server.call("POST", PATH, { ...card.body, nickname: "" }), ["nickname"])
      expectInvalid(await server.call("POST", PATH, { ...card.body, nickname: "n".repeat(257) }), ["nickname"])
      expectInvalid(await server.call("POST", PATH, { cardId: card.cardId }), ["internalAccountId", "nickname"])
      expectInvalid(await server.call("POST", PATH, { ...card.body, internalAccountId: "Customer:1" }), [
        "internalAccountId"
      ])
      // 256 characters is the most a nickname may have (L-20).
      expect((await server.call("POST", PATH, { ...card.body, nickname: "n".repeat(256) })).status).toBe(202)
      const after = await snapshot()
      // Only the last request issued a requestId; no key was made.
      expect(after.collections.delegatedKeys).toEqual(before.collections.delegatedKeys)
    })
  })

  describe("one ACTIVE key per funding source", () => {
    it("W-45, L-11: a second key while one is ACTIVE is 409 CONFLICT at its first or second leg; after revoking, a new one is made", async () => {
      const w = await newWallet()
      const card = newCard(w)
      const late = await server.call("POST", PATH, card.body)
      expect(late.status).toBe(202)
      const key = await activeKey(w, card.body)
      expectError(await server.call("POST", PATH, card.body), 409, "CONFLICT")
      // A flow begun before the key became ACTIVE is refused at its next leg, and makes no key.
      const before = await snapshot()
      expectError(await server.call("POST", PATH, card.body, { headers: retry(late, w.key) }), 409, "CONFLICT")
      expect(await snapshot()).toEqual(before)
      // Another card's funding source of the same wallet is free.
      const other = newCard(w, "Second card")
      expect((await activeKey(w, other.body)).status).toBe("ACTIVE")
      expect((await server.call("DELETE", `${PATH}/${key.id}`)).status).toBe(204)
      const next = await activeKey(w, card.body)
      expect(next.id).not.toBe(key.id)
      const listed = await server.call("GET", `${PATH}?fundingSourceId=${card.fundingSourceId}`)
      expect(listed.json.data.map((k: { id: string; status: string }) => [k.id, k.status])).toEqual([
        [key.id, "REVOKED"],
        [next.id, "ACTIVE"]
      ])
    })

    it("W-44, W-45: a key abandoned after leg 2 stays PENDING, cannot sign, and blocks no other key; its late leg 3 is 409", async () => {
      const w = await newWallet()
      const card = newCard(w)
      const abandoned = await pendingKey(w, card.body)
      const signedByPending = await sign(abandoned.keyId, "payload")
      expect(Exit.isFailure(signedByPending)).toBe(true)
      expect(JSON.stringify(signedByPending)).toContain("INVALID_INPUT")
      const active = await activeKey(w, card.body)
      const listed = await server.call("GET", `${PATH}?accountId=${w.accountId}`)
      expect(listed.json.data.map((k: { id: string; status: string }) => [k.id, k.status])).toEqual([
        [abandoned.keyId, "PENDING"],
        [active.id, "ACTIVE"]
      ])
      const before = await snapshot()
      expectError(
        await server.call("POST", PATH, card.body, { headers: retry(abandoned.second, w.key) }),
        409,
        "CONFLICT"
      )
      expect(await snapshot()).toEqual(before)
    })

    it("W-45, L-11: two leg-3 retries for two PENDING keys of one funding source at once: one 201, one 409, one ACTIVE key", async () => {
      const w = await newWallet()
      // A few funding sources: each a race of its own.
      for (let round = 0; round < 3; round++) {
        const card = newCard(w)
        const a = await pendingKey(w, card.body)
        const b = await pendingKey(w, card.body)
        const answers = await Promise.all([
          server.call("POST", PATH, card.body, { headers: retry(a.second, w.key) }),
          server.call("POST", PATH, card.body, { headers: retry(b.second, w.key) })
        ])
        expect(answers.map((r) => r.status).sort()).toEqual([201, 409])
        expectError(answers.find((r) => r.status === 409)!, 409, "CONFLICT")
        const winner = answers.find((r) => r.status === 201)!.json.id
        const rows = await Effect.runPromise(
          server.store.delegatedKeys.list({ fundingSourceId: card.fundingSourceId }, { limit: 10, sortOrder: "asc" })
        )
        expect(rows.data.filter((k) => k.status === "ACTIVE").map((k) => k.id)).toEqual([winner])
        expect(rows.data.filter((k) => k.status === "PENDING")).toHaveLength(1)
      }
    })
  })

  describe("list, get, revoke", () => {
    it("list: by accountId, fundingSourceId or both, every status; none is 400; unknown ids list nothing", async () => {
      const w = await newWallet()
      const card = newCard(w)
      const other = newCard(w, "Other card")
      const pending = await pendingKey(w, card.body)
      const active = await activeKey(w, other.body)
      const ids = (r: CallResult) => r.json.data.map((k: { id: string }) => k.id)
      expect(ids(await server.call("GET", `${PATH}?accountId=${w.accountId}`))).toEqual([pending.keyId, active.id])
      expect(ids(await server.call("GET", `${PATH}?fundingSourceId=${other.fundingSourceId}`))).toEqual([active.id])
      expect(
        ids(await server.call("GET", `${PATH}?accountId=${w.accountId}&fundingSourceId=${card.fundingSourceId}`))
      ).toEqual([pending.keyId])
      expect((await server.call("GET", `${PATH}?accountId=${UNKNOWN_WALLET}`)).json).toEqual({ data: [] })
      expect((await server.call("GET", `${PATH}?fundingSourceId=CardFundingSource:nothing`)).json).toEqual({
        data: []
      })
      expectInvalid(await server.call("GET", PATH), ["accountId"])
      expectInvalid(await server.call("GET", `${PATH}?accountId=Customer:1`), ["query.accountId"])
      for (const key of (await server.call("GET", `${PATH}?accountId=${w.accountId}`)).json.data) {
        expect(Object.keys(key).sort()).toEqual([
          "accountId",
          "cardId",
          "createdAt",
          "fundingSourceId",
          "id",
          "nickname",
          "publicKey",
          "status",
          "updatedAt"
        ])
      }
    })

    it("get: 404 REFERENCE_NOT_FOUND for an unknown key, 400 for a malformed id", async () => {
      expectError(await server.call("GET", `${PATH}/${UNKNOWN_KEY}`), 404, "REFERENCE_NOT_FOUND")
      expectInvalid(await server.call("GET", `${PATH}/Session:1`), ["path.id"])
    })

    it("W-46: DELETE revokes an ACTIVE key with Basic auth alone (204, REVOKED, it signs no more); a non-ACTIVE key is 400", async () => {
      const w = await newWallet()
      const card = newCard(w)
      const active = await activeKey(w, card.body)
      expect(Exit.isSuccess(await sign(active.id, "before"))).toBe(true)
      const revoked = await server.call("DELETE", `${PATH}/${active.id}`)
      expect(revoked.status).toBe(204)
      expect(revoked.json).toBeUndefined()
      const after = await server.call("GET", `${PATH}/${active.id}`)
      expect(after.json).toMatchObject({ id: active.id, status: "REVOKED" })
      expect(Exit.isFailure(await sign(active.id, "after"))).toBe(true)

      const pending = await pendingKey(w, card.body)
      const before = await snapshot()
      expectError(await server.call("DELETE", `${PATH}/${active.id}`), 400, "INVALID_INPUT")
      expectError(await server.call("DELETE", `${PATH}/${pending.keyId}`), 400, "INVALID_INPUT")
      expectError(await server.call("DELETE", `${PATH}/${UNKNOWN_KEY}`), 404, "REFERENCE_NOT_FOUND")
      expectInvalid(await server.call("DELETE", `${PATH}/Session:1`), ["path.id"])
      expect(await snapshot()).toEqual(before)
    })
  })

  describe("on real cards (issue 15)", () => {
    /** A signed-in wallet whose customer's KYC the sandbox approved, so it can hold a card. */
    const cardholderWallet = async () => {
      expect((await server.call("PATCH", "/config", { skipVerificationPaperwork: true })).status).toBe(200)
      const w = await signedInWallet(individualPacket("Delia Delegate", { currencies: ["USD", "USDB"] }))
      await approveKyc(server, w.customerId)
      return w
    }

    it("W-42, W-45, W-46, CD-13, CD-24: a card's embedded-wallet source takes a key (202, 202, 201), kept while the wallet stays bound, revoked when it leaves or the card closes; then 404", async () => {
      const w = await cardholderWallet()
      const fiat = await extraAccount(server, w.customerId, { currency: "USDB" })
      const card = await issued(
        server,
        cardBody(w.customerId, [w.accountId, fiat], { platformCardId: endingIn("000") })
      )
      expect(card).toMatchObject({ state: "ACTIVE", currency: "USDB", fundingSources: [w.accountId, fiat] })
      const body = { cardId: card.id, internalAccountId: w.accountId, nickname: "Card payments key" }
      const walletBinding = (await cardRow(server, card.id))?.bindings.find((b) => b.accountId === w.accountId)
      const key = await activeKey(w, body)
      expect(key).toMatchObject({ cardId: card.id, accountId: w.accountId, status: "ACTIVE" })
      expect(key.fundingSourceId).toBe(walletBinding?.id)
      // Only a card's own wallet source: the fiat account is no embedded wallet (400), another card 404.
      expectError(await server.call("POST", PATH, { ...body, internalAccountId: fiat }), 400, "INVALID_INPUT")
      const statusOf = async (id: string) => (await server.call("GET", `${PATH}/${id}`)).json.status

      const patch = (b: unknown) => server.call("PATCH", `/cards/${card.id}`, b)
      expect((await patch({ fundingSources: [fiat, w.accountId] })).status).toBe(200)
      expect(await statusOf(key.id)).toBe("ACTIVE")
      expect((await patch({ fundingSources: [fiat] })).status).toBe(200)
      expect(await statusOf(key.id)).toBe("REVOKED")
      expectError(await server.call("POST", PATH, body), 404, "REFERENCE_NOT_FOUND")

      expect((await patch({ fundingSources: [w.accountId, fiat] })).status).toBe(200)
      const again = await activeKey(w, body)
      expect(again.fundingSourceId).not.toBe(key.fundingSourceId)
      expect((await patch({ state: "CLOSED" })).status).toBe(200)
      expect(await statusOf(again.id)).toBe("REVOKED")
      expectError(await server.call("POST", PATH, body), 404, "REFERENCE_NOT_FOUND")
    })
  })
}

onEveryStore("delegated keys", "wallet_delegated_keys_http", delegatedKeysSuite)
