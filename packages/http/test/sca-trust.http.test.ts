/**
 * Trusted beneficiaries on the HTTP surface (issue 14, trust slice; FEATURES AC-22, AC-23, AC-31 … AC-39): trust and
 * untrust of a USDC wallet with an SCA challenge (`POST /customers/external-accounts/{id}/trust` and `/untrust`, each
 * with its `/confirm`), the sandbox code `123456`, only the offered factor, the delete refused while trusted, and the
 * checks every trust route runs first (404, 409 not subject, 423, 409 `SCA_SESSION_REQUIRED`). Time rules are met by
 * ageing rows through `server.store` (the same rules on a TestClock are in packages/core/test/sca-trust.test.ts).
 * The whole file runs on the memory store, on PGlite, and on PostgreSQL.
 */
import { randomBytes, randomUUID } from "node:crypto"
import type { ScaFactorRecord, ScaSessionRecord } from "@paycore/core"
import { expect, it } from "vitest"
import { addUsPayee, expectError, useTestServer } from "./harness.ts"
import {
  ageChallenge,
  END_USER_IP,
  enrolTotp,
  run,
  SANDBOX_CODE,
  type ScaCustomerOptions,
  scaCustomer,
  scaLogin,
  trustMove
} from "./sca-kit.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const UNKNOWN_ACCOUNT = "ExternalAccount:01234567-89ab-7def-8123-456789abcdef"

const trustPath = (accountId: string, move: "trust" | "untrust", confirm = false) =>
  `/customers/external-accounts/${accountId}/${move}${confirm ? "/confirm" : ""}`

const scaTrustSuite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(async (s) => {
    const r = await s.call("PATCH", "/config", { supportedCurrencies: ["USD", "USDC", "USDT"] })
    expect(r.status, JSON.stringify(r.json)).toBe(200)
  }, stores())

  const security = (customerId: string) => run(server.store.scaSecurity.get(customerId))
  const challengeRow = async (id: string) => (await run(server.store.scaChallenges.get(id)))!
  const trustRow = (accountId: string) => run(server.store.trustedBeneficiaries.get(accountId))

  /** A customer of `region` with USD and USDC accounts and a phone, verified unless `phone` says otherwise. */
  const customerIn = async (region: string, phone: ScaCustomerOptions["phone"] = "verified") =>
    (await scaCustomer(server, { region, phone, currencies: ["USD", "USDC"] })).id

  /** A live SCA session written to the store (a customer without a phone cannot log in by SMS first). */
  const seedSession = (customerId: string) => {
    const now = Date.now()
    const session: ScaSessionRecord = {
      id: `ScaSession:${randomUUID()}` as ScaSessionRecord["id"],
      customerId,
      factor: "SMS_OTP",
      endUserIp: END_USER_IP,
      challengeId: `ScaChallenge:${randomUUID()}`,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 86_400_000).toISOString()
    }
    return run(server.store.scaSessions.insert(session))
  }

  /** A wallet of the customer; THIRD_PARTY wallets start ACTIVE (an EEA customer's own ones await ownership). */
  const addWallet = async (
    customerId: string,
    options: { currency?: string; ownershipType?: "FIRST_PARTY" | "THIRD_PARTY" } = {}
  ) => {
    const r = await server.call("POST", "/customers/external-accounts", {
      customerId,
      currency: options.currency ?? "USDC",
      ownershipType: options.ownershipType ?? "THIRD_PARTY",
      accountInfo: { accountType: "ETHEREUM_WALLET", address: `0x${randomBytes(20).toString("hex")}` }
    })
    expect(r.status, JSON.stringify(r.json)).toBe(201)
    return { id: r.json.id as string, status: r.json.status as string }
  }

  /** A logged-in EEA customer (SMS_OTP usable) with an ACTIVE USDC wallet. */
  const trustingCustomer = async () => {
    const customerId = await customerIn("DE")
    await scaLogin(server, customerId)
    const wallet = await addWallet(customerId)
    expect(wallet.status).toBe("ACTIVE")
    return { customerId, accountId: wallet.id }
  }

  const start = (accountId: string, move: "trust" | "untrust" = "trust") =>
    server.call("POST", trustPath(accountId, move))
  const confirm = (accountId: string, body: Record<string, unknown>, move: "trust" | "untrust" = "trust") =>
    server.call("POST", trustPath(accountId, move, true), body)

  /** As if the last failed proof on the challenge were `ms` ago (the 1 s throttle is not what a test waits for). */
  const ageFailure = async (challengeId: string, ms = 1000) => {
    const row = await challengeRow(challengeId)
    if (row.lastFailedAt === undefined) return
    await run(
      server.store.scaChallenges.update({
        ...row,
        lastFailedAt: new Date(Date.parse(row.lastFailedAt) - ms).toISOString()
      })
    )
  }

  it("AC-31, AC-32, AC-36: trust start → an SMS_OTP scaChallenge → confirm with the challengeId and the sandbox 123456 → {trusted: true}; a second trust start is 409", async () => {
    const { customerId, accountId } = await trustingCustomer()
    expect(await trustRow(accountId)).toBeUndefined()
    const started = await start(accountId)
    expect(started.status, JSON.stringify(started.json)).toBe(200)
    const challenge = started.json.scaChallenge
    expect(challenge).toEqual({
      id: expect.stringMatching(/^ScaChallenge:/),
      factor: "SMS_OTP",
      availableFactors: ["SMS_OTP"],
      expiresAt: expect.any(String)
    })
    expect(Date.parse(challenge.expiresAt) - Date.now()).toBeGreaterThan(290_000)
    const row = await challengeRow(challenge.id)
    expect([row.kind, row.subjectId, row.customerId, row.status]).toEqual(["TRUST", accountId, customerId, "OPEN"])

    const confirmed = await confirm(accountId, { challengeId: challenge.id, code: SANDBOX_CODE })
    expect(confirmed.status, JSON.stringify(confirmed.json)).toBe(200)
    expect(confirmed.json).toEqual({ trusted: true })
    expect((await challengeRow(challenge.id)).status).toBe("PASSED")
    expect(await trustRow(accountId)).toMatchObject({ customerId, status: "TRUSTED", challengeId: challenge.id })
    // The external account resource has no trust field (upstream's has none).
    const account = await server.call("GET", `/customers/external-accounts/${accountId}`)
    expect(account.json).not.toHaveProperty("trusted")

    const again = await start(accountId)
    expectError(again, 409, "CONFLICT")
    expect(again.json.message).toContain("already trusted")
    // The passed challenge cannot be used again.
    expectError(await confirm(accountId, { challengeId: challenge.id, code: SANDBOX_CODE }), 409, "CONFLICT")
  })

  it("AC-39: only a USDC wallet address can be trusted: a USDT wallet or a USD bank account is 400 INVALID_INPUT, and no challenge is issued", async () => {
    const customerId = await customerIn("DE")
    await scaLogin(server, customerId)
    const usdt = await addWallet(customerId, { currency: "USDT" })
    const bank = await addUsPayee(server, customerId)
    for (const accountId of [usdt.id, bank]) {
      const refused = await start(accountId)
      expectError(refused, 400, "INVALID_INPUT")
      expect(refused.json.details.errors[0]).toMatchObject({
        field: "externalAccountId",
        constraint: { currency: "USDC", wallet: true }
      })
    }
    const kinds = (
      await run(server.store.scaChallenges.list({ customerId }, { limit: 10, sortOrder: "asc" }))
    ).data.map((c) => c.kind)
    expect(kinds).toEqual(["LOGIN"])
  })

  it("AC-35: a customer outside the SCA regions gets 409 CONFLICT on every trust route; an unknown or deleted account is 404", async () => {
    const us = await customerIn("US", "unverified")
    const wallet = await addWallet(us)
    for (const move of ["trust", "untrust"] as const) {
      expectError(await start(wallet.id, move), 409, "CONFLICT")
      expectError(await confirm(wallet.id, { code: SANDBOX_CODE }, move), 409, "CONFLICT")
      expectError(await start(UNKNOWN_ACCOUNT, move), 404, "REFERENCE_NOT_FOUND")
      expectError(await confirm(UNKNOWN_ACCOUNT, { code: SANDBOX_CODE }, move), 404, "REFERENCE_NOT_FOUND")
    }
    expect((await server.call("DELETE", `/customers/external-accounts/${wallet.id}`)).status).toBe(204)
    expectError(await start(wallet.id), 404, "REFERENCE_NOT_FOUND")
  })

  it("S-09: without a live SCA session every trust route is 409 SCA_SESSION_REQUIRED, and nothing is issued", async () => {
    const customerId = await customerIn("DE")
    const wallet = await addWallet(customerId)
    for (const move of ["trust", "untrust"] as const) {
      expectError(await start(wallet.id, move), 409, "SCA_SESSION_REQUIRED")
      expectError(await confirm(wallet.id, { code: SANDBOX_CODE }, move), 409, "SCA_SESSION_REQUIRED")
    }
    expect((await run(server.store.scaChallenges.list({ customerId }, { limit: 10, sortOrder: "asc" }))).data).toEqual(
      []
    )
  })

  it("AC-31: only an ACTIVE account is trusted: a wallet awaiting ownership verification is 409 CONFLICT", async () => {
    const customerId = await customerIn("DE")
    await scaLogin(server, customerId)
    const own = await addWallet(customerId, { ownershipType: "FIRST_PARTY" })
    expect(own.status).toBe("PENDING_OWNERSHIP_VERIFICATION")
    const refused = await start(own.id)
    expectError(refused, 409, "CONFLICT")
    expect(refused.json.message).toContain("PENDING_OWNERSHIP_VERIFICATION")
  })

  it("AC-37: only the offered factor is accepted: TOTP offered (no phone) → a passkey assertion is 400 uncounted, the TOTP code trusts; PASSKEY offered → a code is 400", async () => {
    const customerId = await customerIn("DE", "none")
    await seedSession(customerId)
    await enrolTotp(server, customerId)
    const wallet = await addWallet(customerId)

    const started = await start(wallet.id)
    expect(started.status, JSON.stringify(started.json)).toBe(200)
    expect(started.json.scaChallenge).toMatchObject({ factor: "TOTP", availableFactors: ["TOTP"] })
    const challengeId = started.json.scaChallenge.id
    const assertion = await confirm(wallet.id, {
      challengeId,
      // A well-formed WebAuthn assertion (W3C JSON): refused for its factor, not its shape.
      passkeyAssertion: {
        id: "AQID",
        rawId: "AQID",
        type: "public-key",
        response: { clientDataJSON: "AQID", authenticatorData: "AQID", signature: "AQID" }
      },
      origin: "https://app.example.com"
    })
    expectError(assertion, 400, "INVALID_INPUT")
    expect(assertion.json.details.errors[0]).toMatchObject({
      field: "passkeyAssertion",
      constraint: { factor: "TOTP" }
    })
    expect(await security(customerId)).toBeUndefined()
    expect((await challengeRow(challengeId)).status).toBe("OPEN")
    const trusted = await confirm(wallet.id, { challengeId, code: SANDBOX_CODE })
    expect(trusted.status, JSON.stringify(trusted.json)).toBe(200)
    expect(trusted.json).toEqual({ trusted: true })

    // A passkey enrolled (written as its slice will write it): PASSKEY comes before TOTP, and a code is refused.
    const now = new Date().toISOString()
    const passkey: ScaFactorRecord = {
      id: `ScaFactor:${randomUUID()}` as ScaFactorRecord["id"],
      customerId,
      factor: "PASSKEY",
      status: "ACTIVE",
      credentialId: randomBytes(16).toString("base64url"),
      publicKey: "pQECAyYgASFYIA",
      signCount: 0,
      createdAt: now,
      updatedAt: now,
      slot: `${customerId}|PASSKEY`
    }
    await run(server.store.scaFactors.insert(passkey))
    const other = await addWallet(customerId)
    const offered = await start(other.id)
    expect(offered.status, JSON.stringify(offered.json)).toBe(200)
    expect(offered.json.scaChallenge).toMatchObject({ factor: "PASSKEY", availableFactors: ["PASSKEY", "TOTP"] })
    const code = await confirm(other.id, { challengeId: offered.json.scaChallenge.id, code: SANDBOX_CODE })
    expectError(code, 400, "INVALID_INPUT")
    expect(code.json.details.errors[0]).toMatchObject({ field: "code", constraint: { factor: "PASSKEY" } })
    expect(await security(customerId)).toBeUndefined()
    expect((await trustRow(other.id))?.status).toBeUndefined()
  })

  it("AC-32: a challengeId that is not the open challenge is 400 on challengeId and counts nothing; a confirm before any start too", async () => {
    const { customerId, accountId } = await trustingCustomer()
    const early = await confirm(accountId, { code: SANDBOX_CODE })
    expectError(early, 400, "INVALID_INPUT")
    expect(early.json.details.errors[0]).toMatchObject({ field: "challengeId", constraint: { open: true } })
    const started = await start(accountId)
    const wrong = await confirm(accountId, { challengeId: `ScaChallenge:${randomUUID()}`, code: SANDBOX_CODE })
    expectError(wrong, 400, "INVALID_INPUT")
    expect(wrong.json.details.errors[0].field).toBe("challengeId")
    // Another account's open challenge is not this one's either.
    const other = await addWallet(customerId)
    const otherStarted = await start(other.id)
    expectError(
      await confirm(accountId, { challengeId: otherStarted.json.scaChallenge.id, code: SANDBOX_CODE }),
      400,
      "INVALID_INPUT"
    )
    expect(await security(customerId)).toBeUndefined()
    expect((await challengeRow(started.json.scaChallenge.id)).status).toBe("OPEN")
    // Without a challengeId the open challenge is the one proved.
    expect((await confirm(accountId, { code: SANDBOX_CODE })).json).toEqual({ trusted: true })
  })

  it("AC-33, AC-34, AC-38: untrust start → a challenge → confirm → {trusted: false}; untrust of an untrusted account is 409; trust again works", async () => {
    const { customerId, accountId } = await trustingCustomer()
    expectError(await start(accountId, "untrust"), 409, "CONFLICT")
    await trustMove(server, accountId, "trust")
    const started = await start(accountId, "untrust")
    expect(started.status, JSON.stringify(started.json)).toBe(200)
    expect(started.json.scaChallenge).toMatchObject({ factor: "SMS_OTP", availableFactors: ["SMS_OTP"] })
    const row = await challengeRow(started.json.scaChallenge.id)
    expect([row.kind, row.subjectId]).toEqual(["UNTRUST", accountId])
    // The untrust's confirm does not take the trust route's proof, and vice versa.
    expectError(await confirm(accountId, { code: SANDBOX_CODE }, "trust"), 409, "CONFLICT")
    const untrusted = await confirm(accountId, { challengeId: row.id, code: SANDBOX_CODE }, "untrust")
    expect(untrusted.status, JSON.stringify(untrusted.json)).toBe(200)
    expect(untrusted.json).toEqual({ trusted: false })
    expect(await trustRow(accountId)).toMatchObject({ customerId, status: "UNTRUSTED", challengeId: row.id })
    expectError(await start(accountId, "untrust"), 409, "CONFLICT")
    await trustMove(server, accountId, "trust")
    expect((await trustRow(accountId))?.status).toBe("TRUSTED")
  })

  it("C-37, AC-22, AC-23: DELETE of a trusted account is 409 BENEFICIARY_TRUSTED and it stays trusted; after untrust DELETE is 204", async () => {
    const { accountId } = await trustingCustomer()
    await trustMove(server, accountId, "trust")
    const refused = await server.call("DELETE", `/customers/external-accounts/${accountId}`)
    expectError(refused, 409, "BENEFICIARY_TRUSTED")
    expect((await trustRow(accountId))?.status).toBe("TRUSTED")
    const account = await server.call("GET", `/customers/external-accounts/${accountId}`)
    expect([account.status, account.json.status]).toEqual([200, "ACTIVE"])

    const untrust = await start(accountId, "untrust")
    expect(
      (await confirm(accountId, { challengeId: untrust.json.scaChallenge.id, code: SANDBOX_CODE }, "untrust")).json
    ).toEqual({ trusted: false })
    expect((await server.call("DELETE", `/customers/external-accounts/${accountId}`)).status).toBe(204)
    expectError(await server.call("GET", `/customers/external-accounts/${accountId}`), 404, "REFERENCE_NOT_FOUND")
  })

  it("AC-23: a DELETE racing a trust confirm: either the delete wins (204, the confirm 404) or the trust (200, the delete 409 BENEFICIARY_TRUSTED); never a deleted account left trusted", async () => {
    for (let round = 0; round < 4; round++) {
      const { accountId } = await trustingCustomer()
      const started = await start(accountId)
      const [confirmed, deleted] = await Promise.all([
        confirm(accountId, { challengeId: started.json.scaChallenge.id, code: SANDBOX_CODE }),
        server.call("DELETE", `/customers/external-accounts/${accountId}`)
      ])
      const account = await run(server.store.externalAccounts.get(accountId))
      const trusted = (await trustRow(accountId))?.status === "TRUSTED"
      if (deleted.status === 204) {
        expectError(confirmed, 404, "REFERENCE_NOT_FOUND")
        expect([account?.status, trusted]).toEqual(["INACTIVE", false])
      } else {
        expectError(deleted, 409, "BENEFICIARY_TRUSTED")
        expect(confirmed.json).toEqual({ trusted: true })
        expect([account?.status, trusted]).toEqual(["ACTIVE", true])
      }
    }
  })

  it("C-34, C-41, L-14: wrong codes are 400 and counted (a retry within 1 s is 429 uncounted); the 5th locks: 423 ACCOUNT_LOCKED on confirm and start", async () => {
    const { customerId, accountId } = await trustingCustomer()
    const started = await start(accountId)
    const challengeId = started.json.scaChallenge.id
    for (let failures = 1; failures <= 4; failures++) {
      const wrong = await confirm(accountId, { challengeId, code: "000000" })
      expectError(wrong, 400, "INVALID_INPUT")
      expect(wrong.json.details.errors[0]).toMatchObject({
        field: "code",
        constraint: { valid: true, attemptsLeftBeforeLock: 4 - failures }
      })
      expect((await security(customerId))?.failedAttempts).toBe(failures)
      if (failures === 1) {
        const tooSoon = await confirm(accountId, { challengeId, code: SANDBOX_CODE })
        expectError(tooSoon, 429, "RATE_LIMITED")
        expect(tooSoon.headers.get("retry-after")).toBe("1")
        expect((await security(customerId))?.failedAttempts).toBe(1)
      }
      await ageFailure(challengeId)
    }
    const fifth = await confirm(accountId, { challengeId, code: "000000" })
    expectError(fifth, 423, "ACCOUNT_LOCKED")
    expect(fifth.json.details).toMatchObject({ suspended: false, failedAttempts: 5 })
    await ageFailure(challengeId)
    // Locked: the right code is refused uncounted, and no new challenge is issued.
    expectError(await confirm(accountId, { challengeId, code: SANDBOX_CODE }), 423, "ACCOUNT_LOCKED")
    expectError(await start(accountId), 423, "ACCOUNT_LOCKED")
    expect((await security(customerId))?.failedAttempts).toBe(5)
    expect((await challengeRow(challengeId)).attempts).toBe(5)
    expect(await trustRow(accountId)).toBeUndefined()
  })

  it("AC-32: a confirm after the challenge's 300 s is 400 expired and counted, the challenge EXPIRED; a new start issues a fresh one", async () => {
    const { customerId, accountId } = await trustingCustomer()
    const first = await start(accountId)
    await ageChallenge(server, first.json.scaChallenge.id, 300_000)
    const late = await confirm(accountId, { challengeId: first.json.scaChallenge.id, code: SANDBOX_CODE })
    expectError(late, 400, "INVALID_INPUT")
    expect(late.json.details.errors[0]).toMatchObject({ field: "code", constraint: { expired: true } })
    expect((await challengeRow(first.json.scaChallenge.id)).status).toBe("EXPIRED")
    expect((await security(customerId))?.failedAttempts).toBe(1)
    expect(await trustRow(accountId)).toBeUndefined()
    const second = await start(accountId)
    expect(second.json.scaChallenge.id).not.toBe(first.json.scaChallenge.id)
    expect((await confirm(accountId, { code: SANDBOX_CODE })).json).toEqual({ trusted: true })
    expect((await security(customerId))?.failedAttempts).toBe(0)
  })

  it("L-14: a second trust start within 60 s of the SMS code is 429 RATE_LIMITED with Retry-After; after 60 s it supersedes the open challenge", async () => {
    const { accountId } = await trustingCustomer()
    const first = await start(accountId)
    const tooSoon = await start(accountId)
    expectError(tooSoon, 429, "RATE_LIMITED")
    expect(Number(tooSoon.headers.get("retry-after"))).toBeGreaterThan(55)
    await ageChallenge(server, first.json.scaChallenge.id, 60_000)
    const second = await start(accountId)
    expect(second.status, JSON.stringify(second.json)).toBe(200)
    expect((await challengeRow(first.json.scaChallenge.id)).status).toBe("SUPERSEDED")
    expectError(
      await confirm(accountId, { challengeId: first.json.scaChallenge.id, code: SANDBOX_CODE }),
      400,
      "INVALID_INPUT"
    )
    expect((await confirm(accountId, { challengeId: second.json.scaChallenge.id, code: SANDBOX_CODE })).json).toEqual({
      trusted: true
    })
  })
}

onEveryStore("SCA trusted beneficiaries", "sca_trust_http", scaTrustSuite)
