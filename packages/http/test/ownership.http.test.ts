import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { consent, expectError, expectInvalid, fundAccount, quoteBody, useTestServer } from "./harness.ts"
import { germanPhone, readyForSca } from "./sca-kit.ts"
import { selfCustodyWallet, type WalletType } from "./self-custody-wallets.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

// Ownership verification of self-custody wallets (Travel Rule): docs/ownership-verification.md. Signatures are
// made by real keys (self-custody-wallets.ts) and checked by the server for real.

const UNKNOWN_EXTERNAL = "ExternalAccount:01234567-89ab-7def-8123-456789abcdef"
/** The default Travel Rule threshold of USDC (1 000 USDC, 6 decimals). */
const THRESHOLD = 1_000_000_000

const ownershipSuite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(async (s) => {
    const r = await s.call("PATCH", "/config", {
      supportedCurrencies: ["USD", "USDC"],
      webhookEndpoint: "https://platform.example/hooks"
    })
    expect(r.status).toBe(200)
  }, stores())

  const newCustomer = async (region: string) => {
    const r = await server.call("POST", "/customers", {
      customerType: "INDIVIDUAL",
      fullName: "Ada Lovelace",
      region,
      phoneNumber: germanPhone(),
      currencies: ["USDC"],
      endUserTermsConsent: consent
    })
    expect(r.status).toBe(201)
    return r.json.id as string
  }

  const addWallet = async (
    customerId: string,
    type: WalletType = "ETHEREUM_WALLET",
    extra: Record<string, unknown> = {}
  ) => {
    const wallet = selfCustodyWallet(type)
    const r = await server.call("POST", "/customers/external-accounts", {
      customerId,
      // A Spark wallet holds bitcoin (accounts/variants.ts variantCurrencies).
      currency: type === "SPARK_WALLET" ? "BTC" : "USDC",
      accountInfo: { accountType: type, address: wallet.address },
      ...extra
    })
    expect(r.status).toBe(201)
    return { wallet, account: r.json as { id: string; status: string } }
  }

  /** An EEA customer's FIRST_PARTY wallet: PENDING_OWNERSHIP_VERIFICATION. */
  const pendingWallet = async (type: WalletType = "ETHEREUM_WALLET") => {
    const customerId = await newCustomer("DE")
    return { customerId, ...(await addWallet(customerId, type)) }
  }

  const challenge = (id: string, method: string) =>
    server.call("POST", `/customers/external-accounts/${id}/challenge`, { method })
  const verify = (id: string, signature: string) =>
    server.call("POST", `/customers/external-accounts/${id}/verify`, { signature })
  const statusOf = async (id: string) =>
    (await server.call("GET", `/customers/external-accounts/${id}`)).json.status as string

  /** The EXTERNAL_ACCOUNT.STATUS_UPDATED events of `id` delivered so far, as the statuses they carry. */
  const statusEvents = async (id: string) => {
    await server.dispatch()
    return server.webhooks
      .events()
      .filter((e) => (e.data as { id?: string }).id === id)
      .map((e) => {
        expect(e.type).toBe("EXTERNAL_ACCOUNT.STATUS_UPDATED")
        return (e.data as { status: string }).status
      })
  }

  describe("where the Travel Rule applies (AC-25)", () => {
    it("AC-25, AC-12, AC-13: an EEA customer's FIRST_PARTY self-custody wallet starts PENDING_OWNERSHIP_VERIFICATION; THIRD_PARTY wallets and customers elsewhere start ACTIVE", async () => {
      const eu = await newCustomer("FR")
      for (const type of [
        "ETHEREUM_WALLET",
        "BASE_WALLET",
        "POLYGON_WALLET",
        "TRON_WALLET",
        "SOLANA_WALLET",
        "SPARK_WALLET"
      ] as const) {
        const { account } = await addWallet(eu, type)
        expect(account).toMatchObject({ status: "PENDING_OWNERSHIP_VERIFICATION", ownershipType: "FIRST_PARTY" })
        expect(await statusOf(account.id)).toBe("PENDING_OWNERSHIP_VERIFICATION")
      }
      const thirdParty = await addWallet(eu, "ETHEREUM_WALLET", { ownershipType: "THIRD_PARTY" })
      expect(thirdParty.account.status).toBe("ACTIVE")
      const us = await addWallet(await newCustomer("US"))
      expect(us.account.status).toBe("ACTIVE")
      // Creation is not a status change: no event.
      expect(await statusEvents(thirdParty.account.id)).toEqual([])
    })
  })

  describe("WALLET_SIGNATURE (AC-26, AC-27, AC-29, AC-30)", () => {
    it("WH-17, AC-26, AC-27, AC-29: EVM wallets sign the message with personal_sign (EIP-191) → 200 ACTIVE, one EXTERNAL_ACCOUNT.STATUS_UPDATED", async () => {
      for (const type of ["ETHEREUM_WALLET", "BASE_WALLET", "POLYGON_WALLET"] as const) {
        const { wallet, account } = await pendingWallet(type)
        const issued = await challenge(account.id, "WALLET_SIGNATURE")
        expect(issued.status).toBe(201)
        expect(issued.json).toEqual({
          method: "WALLET_SIGNATURE",
          messageToSign: expect.any(String),
          expiresAt: expect.any(String)
        })
        // The message names the account, the address, a nonce and the expiry.
        const message: string = issued.json.messageToSign
        expect(message).toContain(account.id)
        expect(message).toContain(wallet.address)
        expect(message).toMatch(/Nonce: [0-9a-f]{32}/)
        expect(message).toContain(issued.json.expiresAt)
        expect(Date.parse(issued.json.expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000)

        const verified = await verify(account.id, wallet.signMessage(message))
        expect(verified.status).toBe(200)
        expect(verified.json).toMatchObject({
          id: account.id,
          status: "ACTIVE",
          accountInfo: { address: wallet.address }
        })
        expect(await statusOf(account.id)).toBe("ACTIVE")
        expect(await statusEvents(account.id)).toEqual(["ACTIVE"])
        // Single use: the message cannot be used again, and a verified wallet takes no new challenge.
        expectError(await verify(account.id, wallet.signMessage(message)), 409, "CONFLICT")
        expectError(await challenge(account.id, "WALLET_SIGNATURE"), 409, "CONFLICT")
      }
    })

    it("AC-27, AC-29: a Solana wallet's base58 Ed25519 signature, a TRON wallet's signMessageV2 and a Spark wallet's BIP-137 message signature verify", async () => {
      for (const type of ["SOLANA_WALLET", "TRON_WALLET", "SPARK_WALLET"] as const) {
        const { wallet, account } = await pendingWallet(type)
        const issued = await challenge(account.id, "WALLET_SIGNATURE")
        const verified = await server.call("POST", `/customers/external-accounts/${account.id}/verify`, {
          signature: wallet.signMessage(issued.json.messageToSign),
          signatureScheme: "bip137"
        })
        expect(verified.status).toBe(200)
        expect(verified.json.status).toBe("ACTIVE")
        expect(await statusEvents(account.id)).toEqual(["ACTIVE"])
      }
    })

    it("AC-27, AC-30, AC-25: another key's signature → 400, UNVERIFIED with its event; the challenge is used up; a new challenge → PENDING_OWNERSHIP_VERIFICATION with its event, then success", async () => {
      const { wallet, account } = await pendingWallet()
      const first = await challenge(account.id, "WALLET_SIGNATURE")
      const intruder = selfCustodyWallet("ETHEREUM_WALLET")
      const refused = await verify(account.id, intruder.signMessage(first.json.messageToSign))
      expectError(refused, 400, "INVALID_INPUT")
      expect(refused.json.details.errors).toEqual([
        { field: "signature", constraint: { reason: "SIGNATURE_INVALID" }, message: expect.any(String) }
      ])
      expect(await statusOf(account.id)).toBe("UNVERIFIED")
      // The failed attempt used the message: even the right signature of it is too late now.
      expectError(await verify(account.id, wallet.signMessage(first.json.messageToSign)), 409, "CONFLICT")
      expect(await statusEvents(account.id)).toEqual(["UNVERIFIED"])

      const second = await challenge(account.id, "WALLET_SIGNATURE")
      expect(second.status).toBe(201)
      expect(second.json.messageToSign).not.toBe(first.json.messageToSign)
      expect(await statusOf(account.id)).toBe("PENDING_OWNERSHIP_VERIFICATION")
      expect((await verify(account.id, wallet.signMessage(second.json.messageToSign))).json.status).toBe("ACTIVE")
      expect(await statusEvents(account.id)).toEqual(["UNVERIFIED", "PENDING_OWNERSHIP_VERIFICATION", "ACTIVE"])
    })

    it("AC-27, AC-30: malformed signatures (not hex, wrong length, garbage base58) are failed attempts too: 400 and UNVERIFIED", async () => {
      for (const [type, signature] of [
        ["ETHEREUM_WALLET", "0x1234"],
        ["ETHEREUM_WALLET", `0x${"zz".repeat(65)}`],
        ["ETHEREUM_WALLET", `0x${"00".repeat(64)}1b`],
        ["SOLANA_WALLET", "0OIl"],
        ["TRON_WALLET", "not a signature"],
        ["SPARK_WALLET", btoa("x".repeat(65))]
      ] as const) {
        const { account } = await pendingWallet(type)
        await challenge(account.id, "WALLET_SIGNATURE")
        expectError(await verify(account.id, signature), 400, "INVALID_INPUT")
        expect(await statusOf(account.id)).toBe("UNVERIFIED")
      }
    })

    it("AC-26: a new challenge abandons the previous one: a signature of the first message no longer verifies", async () => {
      const { wallet, account } = await pendingWallet()
      const first = await challenge(account.id, "WALLET_SIGNATURE")
      const second = await challenge(account.id, "WALLET_SIGNATURE")
      expect(second.json.messageToSign).not.toBe(first.json.messageToSign)
      // Re-challenging a pending account is no status change: no event.
      expect(await statusEvents(account.id)).toEqual([])
      expectError(await verify(account.id, wallet.signMessage(first.json.messageToSign)), 400, "INVALID_INPUT")
      expect(await statusOf(account.id)).toBe("UNVERIFIED")
    })

    it("AC-27, AC-30: a signature after expiresAt → 400 (CHALLENGE_EXPIRED) and UNVERIFIED with its event", async () => {
      const { wallet, account } = await pendingWallet()
      const issued = await challenge(account.id, "WALLET_SIGNATURE")
      const row = await Effect.runPromise(server.store.ownershipChallenges.get(account.id))
      await Effect.runPromise(
        server.store.ownershipChallenges.update({ ...row!, expiresAt: "2020-01-01T00:00:00.000Z" })
      )
      const late = await verify(account.id, wallet.signMessage(issued.json.messageToSign))
      expectError(late, 400, "INVALID_INPUT")
      expect(late.json.details.errors[0].constraint).toEqual({ reason: "CHALLENGE_EXPIRED" })
      expect(await statusOf(account.id)).toBe("UNVERIFIED")
      expect(await statusEvents(account.id)).toEqual(["UNVERIFIED"])
    })
  })

  describe("refusals change nothing (AC-26, AC-27)", () => {
    it("AC-26: 409 for a bank account, a THIRD_PARTY wallet and an ACTIVE wallet; 404 for an unknown or deleted account; 400 for a bad method", async () => {
      const eu = await newCustomer("DE")
      const bank = await server.call("POST", "/customers/external-accounts", {
        customerId: eu,
        currency: "USD",
        accountInfo: {
          accountType: "US_ACCOUNT",
          accountNumber: "4400123",
          routingNumber: "021000021",
          beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Grace Hopper" }
        }
      })
      expect(bank.status).toBe(201)
      const thirdParty = await addWallet(eu, "SOLANA_WALLET", { ownershipType: "THIRD_PARTY" })
      const active = await addWallet(await newCustomer("US"))
      for (const id of [bank.json.id, thirdParty.account.id, active.account.id]) {
        for (const method of ["WALLET_SIGNATURE", "LIVENESS"]) {
          const refused = await challenge(id, method)
          expectError(refused, 409, "CONFLICT")
          expect(refused.json.details).toEqual({ externalAccountId: id })
        }
        expect(await statusOf(id)).toBe("ACTIVE")
        expect((await Effect.runPromise(server.store.ownershipChallenges.get(id))) === undefined).toBe(true)
      }
      expectError(await challenge(UNKNOWN_EXTERNAL, "WALLET_SIGNATURE"), 404, "REFERENCE_NOT_FOUND")
      const { account } = await pendingWallet()
      expectInvalid(await challenge(account.id, "SMS"), ["method"])
      expectInvalid(await server.call("POST", `/customers/external-accounts/${account.id}/challenge`, {}), ["method"])
      expect((await server.call("DELETE", `/customers/external-accounts/${account.id}`)).status).toBe(204)
      expectError(await challenge(account.id, "WALLET_SIGNATURE"), 404, "REFERENCE_NOT_FOUND")
      expect(await statusEvents(account.id)).toEqual([])
    })

    it("AC-27: 409 without an open WALLET_SIGNATURE challenge (none yet, or a LIVENESS one); 404 unknown; 400 on a malformed body; nothing changes", async () => {
      const { wallet, account } = await pendingWallet()
      expectError(await verify(account.id, "0x00"), 409, "CONFLICT")
      const liveness = await challenge(account.id, "LIVENESS")
      expectError(await verify(account.id, wallet.signMessage("anything")), 409, "CONFLICT")
      expectError(await verify(UNKNOWN_EXTERNAL, "0x00"), 404, "REFERENCE_NOT_FOUND")
      await challenge(account.id, "WALLET_SIGNATURE")
      for (const body of [{}, { signature: "" }, { signature: 7 }, { signature: "0x00", signatureScheme: "segwit" }]) {
        expect((await server.call("POST", `/customers/external-accounts/${account.id}/verify`, body)).status).toBe(400)
      }
      expect(liveness.status).toBe(201)
      expect(await statusOf(account.id)).toBe("PENDING_OWNERSHIP_VERIFICATION")
      expect(await statusEvents(account.id)).toEqual([])
    })
  })

  describe("LIVENESS (AC-26, AC-28)", () => {
    it("AC-26, AC-28, AC-29, AC-30: a hosted link; the sandbox provider's verdict settles it later: PASSED → ACTIVE, FAILED → UNVERIFIED, each with EXTERNAL_ACCOUNT.STATUS_UPDATED", async () => {
      const passed = await pendingWallet("SOLANA_WALLET")
      const issued = await challenge(passed.account.id, "LIVENESS")
      expect(issued.status).toBe(201)
      expect(issued.json).toEqual({
        method: "LIVENESS",
        verificationLink: expect.stringMatching(/^https:\/\/sandbox\.paycore\.dev\/liveness\/[0-9a-f]{32}$/),
        expiresAt: expect.any(String)
      })
      // Asynchronous: still pending until the provider's verdict.
      expect(await statusOf(passed.account.id)).toBe("PENDING_OWNERSHIP_VERIFICATION")
      const settle = (id: string, result: string) =>
        server.call("POST", `/sandbox/external-accounts/${id}/liveness`, { result })
      const ok = await settle(passed.account.id, "PASSED")
      expect(ok.status).toBe(200)
      expect(ok.json).toMatchObject({ id: passed.account.id, status: "ACTIVE" })
      expect(await statusEvents(passed.account.id)).toEqual(["ACTIVE"])
      // Used: a second verdict has no open challenge.
      expectError(await settle(passed.account.id, "FAILED"), 409, "CONFLICT")

      const failed = await pendingWallet()
      await challenge(failed.account.id, "LIVENESS")
      expect((await settle(failed.account.id, "FAILED")).json.status).toBe("UNVERIFIED")
      expect(await statusEvents(failed.account.id)).toEqual(["UNVERIFIED"])
      // A verdict without a LIVENESS challenge (a WALLET_SIGNATURE one is open) → 409; a bad result → 400.
      await challenge(failed.account.id, "WALLET_SIGNATURE")
      expectError(await settle(failed.account.id, "PASSED"), 409, "CONFLICT")
      expectInvalid(await settle(failed.account.id, "MAYBE"), ["result"])
      expect(await statusOf(failed.account.id)).toBe("PENDING_OWNERSHIP_VERIFICATION")
      // An expired session gives no verdict: 409, the account stays pending.
      await challenge(failed.account.id, "LIVENESS")
      const row = await Effect.runPromise(server.store.ownershipChallenges.get(failed.account.id))
      await Effect.runPromise(
        server.store.ownershipChallenges.update({ ...row!, expiresAt: "2020-01-01T00:00:00.000Z" })
      )
      expectError(await settle(failed.account.id, "PASSED"), 409, "CONFLICT")
      expect(await statusOf(failed.account.id)).toBe("PENDING_OWNERSHIP_VERIFICATION")
    })
  })

  describe("the regulatory threshold (AC-24)", () => {
    it("AC-24: a pending wallet is paid below the threshold; at it POST /quotes and /transfer-out → 400 EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED; once verified the same payment goes", async () => {
      const { customerId, wallet, account } = await pendingWallet()
      const listed = await server.call("GET", `/customers/internal-accounts?customerId=${customerId}&currency=USDC`)
      const source: string = listed.json.data[0].id
      await fundAccount(server, source, 3 * THRESHOLD)
      const receiving = (amount: number) =>
        quoteBody(source, account.id, amount, { lockedCurrencySide: "RECEIVING", lockedCurrencyAmount: amount })

      const below = await server.call("POST", "/quotes", receiving(THRESHOLD - 1))
      expect(below.status).toBe(201)
      const at = await server.call("POST", "/quotes", receiving(THRESHOLD))
      expectError(at, 400, "EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED")
      expect(at.json.details).toEqual({
        status: "PENDING_OWNERSHIP_VERIFICATION",
        amount: THRESHOLD,
        currency: "USDC",
        threshold: THRESHOLD
      })
      const transfer = (amount: number) =>
        server.call("POST", "/transfer-out", {
          source: { accountId: source },
          destination: { accountId: account.id },
          amount
        })
      // transfer-out locks the sending side: twice the threshold still delivers more than it after the wallet's
      // withdrawal fees (Q5).
      expectError(await transfer(2 * THRESHOLD), 400, "EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED")
      // The customer is in an SCA region: the payment below the threshold goes, waiting for its challenge (S-03).
      await readyForSca(server, customerId)
      const paid = await transfer(5_000_000)
      expect(paid.status).toBe(201)
      expect(paid.json.status).toBe("PENDING_AUTHORIZATION")

      const issued = await challenge(account.id, "WALLET_SIGNATURE")
      expect((await verify(account.id, wallet.signMessage(issued.json.messageToSign))).status).toBe(200)
      expect((await server.call("POST", "/quotes", receiving(THRESHOLD))).status).toBe(201)
    })
  })
}

onEveryStore("ownership verification of self-custody wallets", "ownership_http", ownershipSuite)
