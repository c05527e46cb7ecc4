/**
 * The platform's own accounts (issue 17 slice E; docs/architecture.md "Platform-owned accounts"): internal accounts,
 * one per supported currency (AC-01), and external accounts with ownership verification of the platform's
 * self-custody wallets (AC-26, AC-27), apart from the customers' (404 both ways); wallet `vaspName` (AC-06, the
 * upstream-only list), on every store.
 */
import { Store } from "@paycore/core"
import { SANDBOX_VASPS } from "@paycore/sandbox"
import { ledgerViolations } from "@paycore/testkit"
import { Effect } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import {
  addUsPayee,
  expectError,
  expectInvalid,
  fundAccount,
  type Onboarded,
  onboardCustomer,
  quoteBody,
  type TestServer,
  useTestServer
} from "./harness.ts"
import { selfCustodyWallet } from "./self-custody-wallets.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const SUPPORTED = ["USD", "EUR", "USDC", "USDB"]

interface Account {
  readonly id: string
  readonly customerId?: string
  readonly currency: string
  readonly type: string
  readonly status: string
  readonly balance: { readonly amount: number }
}

/** A US account whose number ends in 000: the sandbox rail's plain success (any other suffix may be a magic outcome). */
const usAccountInfo = (accountNumber: string) => ({
  accountType: "US_ACCOUNT",
  accountNumber: `${accountNumber}000`,
  routingNumber: "021000021",
  beneficiary: { beneficiaryType: "BUSINESS", legalName: "Platform Treasury LLC" }
})

const ledgerIsBalanced = async (server: TestServer) =>
  expect(
    await Effect.runPromise(ledgerViolations.pipe(Effect.provideService(Store, server.store), Effect.orDie))
  ).toEqual([])

const suite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(async (s) => {
    const r = await s.call("PATCH", "/config", { supportedCurrencies: SUPPORTED })
    expect(r.status).toBe(200)
  }, stores())

  const platformInternal = async (query = ""): Promise<Array<Account>> => {
    const r = await server.call("GET", `/platform/internal-accounts${query}`)
    expect(r.status, JSON.stringify(r.json)).toBe(200)
    expect(Object.keys(r.json)).toEqual(["data"])
    return r.json.data
  }
  const platformAccountOf = async (currency: string) => (await platformInternal(`?currency=${currency}`))[0]!

  let accountCounter = 100_000
  const createPlatformExternal = async (body: Record<string, unknown> = {}) => {
    const r = await server.call("POST", "/platform/external-accounts", {
      currency: "USD",
      accountInfo: usAccountInfo(String(accountCounter++)),
      ...body
    })
    expect(r.status, JSON.stringify(r.json)).toBe(201)
    return r.json as { id: string; status: string; customerId?: string; platformAccountId?: string }
  }

  let customer: Onboarded
  beforeAll(async () => {
    customer = await onboardCustomer(server, { currencies: ["USD"] })
  })

  describe("platform internal accounts (AC-01)", () => {
    it("AC-01, AC-02: one ACTIVE account per supported currency, without customerId, created once; USDB is INTERNAL_CRYPTO (no embedded wallet); currency and type filters", async () => {
      const first = await platformInternal()
      expect(first.map((a) => a.currency).sort()).toEqual([...SUPPORTED].sort())
      for (const account of first) {
        expect(account.customerId).toBeUndefined()
        expect(account).not.toHaveProperty("platformCurrency")
        expect(account.status).toBe("ACTIVE")
        expect(account.balance).toEqual({ amount: 0, currency: expect.objectContaining({ code: account.currency }) })
      }
      expect(Object.fromEntries(first.map((a) => [a.currency, a.type]))).toEqual({
        USD: "INTERNAL_FIAT",
        EUR: "INTERNAL_FIAT",
        USDC: "INTERNAL_CRYPTO",
        USDB: "INTERNAL_CRYPTO"
      })
      // A second list creates nothing: the same accounts.
      expect((await platformInternal()).map((a) => a.id).sort()).toEqual(first.map((a) => a.id).sort())

      expect((await platformInternal("?currency=EUR")).map((a) => a.currency)).toEqual(["EUR"])
      expect((await platformInternal("?type=INTERNAL_CRYPTO")).map((a) => a.currency).sort()).toEqual(["USDB", "USDC"])
      expect(await platformInternal("?currency=EUR&type=INTERNAL_CRYPTO")).toEqual([])
      expectInvalid(await server.call("GET", "/platform/internal-accounts?type=CHECKING"), ["query.type"])

      // A currency added to the configuration gets its account on the next list; the others stay.
      expect((await server.call("PATCH", "/config", { supportedCurrencies: [...SUPPORTED, "MXN"] })).status).toBe(200)
      const after = await platformInternal()
      expect(after.map((a) => a.currency).sort()).toEqual([...SUPPORTED, "MXN"].sort())
      expect(
        after
          .filter((a) => a.currency !== "MXN")
          .map((a) => a.id)
          .sort()
      ).toEqual(first.map((a) => a.id).sort())
      expect((await server.call("PATCH", "/config", { supportedCurrencies: SUPPORTED })).status).toBe(200)
    })

    it("AC-01: 10 concurrent first lists create each currency's account once", async () => {
      const currencies = ["BRL", "GBP"]
      expect(
        (await server.call("PATCH", "/config", { supportedCurrencies: [...SUPPORTED, ...currencies] })).status
      ).toBe(200)
      const lists = await Promise.all(Array.from({ length: 10 }, () => platformInternal()))
      const ids = lists.map((list) => list.map((a) => a.id).sort())
      for (const list of ids) expect(list).toEqual(ids[0])
      const all = await platformInternal()
      for (const currency of currencies) expect(all.filter((a) => a.currency === currency)).toHaveLength(1)
      expect((await server.call("PATCH", "/config", { supportedCurrencies: SUPPORTED })).status).toBe(200)
    })

    it("AC-01: platform accounts are in neither GET /internal-account nor GET /customers/internal-accounts", async () => {
      const platformIds = new Set((await platformInternal()).map((a) => a.id))
      for (const path of ["/internal-account", "/customers/internal-accounts"]) {
        let cursor: string | undefined
        const seen: Array<Account> = []
        do {
          const page = await server.call("GET", `${path}?limit=100${cursor === undefined ? "" : `&cursor=${cursor}`}`)
          expect(page.status).toBe(200)
          seen.push(...page.json.data)
          cursor = page.json.nextCursor
        } while (cursor !== undefined)
        expect(seen.length).toBeGreaterThan(0)
        expect(seen.filter((a) => platformIds.has(a.id))).toEqual([])
        for (const a of seen) expect(a.customerId).toBeDefined()
        const usd = await server.call("GET", `${path}?currency=USD&limit=100`)
        expect(usd.json.data.filter((a: Account) => platformIds.has(a.id))).toEqual([])
      }
    })

    it("AC-01: the sandbox fund route funds a platform account, and a quote from it pays a customer; the ledger balances", async () => {
      const platformUsd = await platformAccountOf("USD")
      const before = platformUsd.balance.amount
      expect(await fundAccount(server, platformUsd.id, 50_000)).toBe(before + 50_000)

      const customerUsd = customer.accounts.USD!
      const customerBefore = (await server.call("GET", `/customers/internal-accounts?customerId=${customer.id}`)).json
        .data[0].balance.amount as number
      const quote = await server.call(
        "POST",
        "/quotes",
        quoteBody(platformUsd.id, customerUsd, 12_000, { immediatelyExecute: true })
      )
      expect(quote.status, JSON.stringify(quote.json)).toBe(201)
      expect(quote.json.customerId).toBeUndefined()
      await server.processDue()
      const tx = await server.call("GET", `/transactions/${quote.json.transactionId}`)
      expect(tx.json.status).toBe("COMPLETED")
      const sent = quote.json.totalSendingAmount as number
      const received = quote.json.totalReceivingAmount as number
      expect((await platformAccountOf("USD")).balance.amount).toBe(before + 50_000 - sent)
      const customerAfter = (await server.call("GET", `/customers/internal-accounts?customerId=${customer.id}`)).json
        .data[0].balance.amount as number
      expect(customerAfter).toBe(customerBefore + received)
      await ledgerIsBalanced(server)
    })
  })

  describe("platform external accounts", () => {
    it("create (201, no customerId), get, list (currency filter, paged), delete (204, then 404 and unlisted); 409 on a taken platformAccountId", async () => {
      const number = String(accountCounter++)
      const created = await createPlatformExternal({
        platformAccountId: "treasury-ops-1",
        accountInfo: usAccountInfo(number)
      })
      expect(created.customerId).toBeUndefined()
      expect(created).toMatchObject({
        status: "ACTIVE",
        currency: "USD",
        platformAccountId: "treasury-ops-1",
        ownershipType: "FIRST_PARTY",
        defaultUmaDepositAccount: false,
        paymentRails: ["ACH", "WIRE", "RTP", "FEDNOW"]
      })
      const got = await server.call("GET", `/platform/external-accounts/${created.id}`)
      expect(got.status).toBe(200)
      expect(got.json).toEqual(created)

      const taken = await server.call("POST", "/platform/external-accounts", {
        currency: "USD",
        platformAccountId: "treasury-ops-1",
        accountInfo: usAccountInfo(String(accountCounter++))
      })
      expectError(taken, 409, "CONFLICT")
      expect(taken.json.details).toMatchObject({ platformAccountId: "treasury-ops-1", existingAccountId: created.id })
      // The same account twice is the customers' 409 too.
      const twice = await server.call("POST", "/platform/external-accounts", {
        currency: "USD",
        accountInfo: usAccountInfo(number)
      })
      expectError(twice, 409, "CONFLICT")
      // customerId and defaultUmaDepositAccount are not in the platform's body.
      expectInvalid(
        await server.call("POST", "/platform/external-accounts", {
          customerId: customer.id,
          currency: "USD",
          accountInfo: usAccountInfo(String(accountCounter++))
        }),
        ["customerId"]
      )

      const eur = await createPlatformExternal({
        currency: "EUR",
        accountInfo: {
          accountType: "IBAN",
          iban: "DE89370400440532013000",
          beneficiary: { beneficiaryType: "BUSINESS", legalName: "Platform Treasury GmbH" }
        }
      })
      const more = [await createPlatformExternal(), await createPlatformExternal()]
      const listed: Array<{ id: string; customerId?: string }> = []
      let cursor: string | undefined
      do {
        const page = await server.call(
          "GET",
          `/platform/external-accounts?limit=2${cursor === undefined ? "" : `&cursor=${cursor}`}`
        )
        expect(page.status).toBe(200)
        expect(page.json.data.length).toBeLessThanOrEqual(2)
        listed.push(...page.json.data)
        cursor = page.json.nextCursor
      } while (cursor !== undefined)
      expect(listed.map((a) => a.id)).toEqual(expect.arrayContaining([created.id, eur.id, ...more.map((a) => a.id)]))
      for (const a of listed) expect(a.customerId).toBeUndefined()
      const eurOnly = await server.call("GET", "/platform/external-accounts?currency=EUR")
      expect(eurOnly.json.data.map((a: { id: string }) => a.id)).toEqual([eur.id])
      expectError(await server.call("GET", "/platform/external-accounts?cursor=nope"), 400, "INVALID_INPUT")

      expect((await server.call("DELETE", `/platform/external-accounts/${created.id}`)).status).toBe(204)
      expectError(await server.call("GET", `/platform/external-accounts/${created.id}`), 404, "REFERENCE_NOT_FOUND")
      expectError(await server.call("DELETE", `/platform/external-accounts/${created.id}`), 404, "REFERENCE_NOT_FOUND")
      const afterDelete = await server.call("GET", "/platform/external-accounts?limit=100")
      expect(afterDelete.json.data.map((a: { id: string }) => a.id)).not.toContain(created.id)
    })

    it("a customer route answers 404 for a platform account, and a platform route 404 for a customer's", async () => {
      const platform = await createPlatformExternal()
      const customers = await addUsPayee(server, customer.id, { accountNumber: String(accountCounter++) })

      for (const [path, id] of [
        ["/customers/external-accounts", platform.id],
        ["/platform/external-accounts", customers]
      ] as const) {
        expectError(await server.call("GET", `${path}/${id}`), 404, "REFERENCE_NOT_FOUND")
        expectError(
          await server.call("POST", `${path}/${id}/challenge`, { method: "WALLET_SIGNATURE" }),
          404,
          "REFERENCE_NOT_FOUND"
        )
        expectError(
          await server.call("POST", `${path}/${id}/verify`, { signature: "0x00" }),
          404,
          "REFERENCE_NOT_FOUND"
        )
        expectError(await server.call("DELETE", `${path}/${id}`), 404, "REFERENCE_NOT_FOUND")
      }
      expectError(
        await server.call("POST", `/customers/external-accounts/${platform.id}/trust`),
        404,
        "REFERENCE_NOT_FOUND"
      )
      // Neither refused delete deleted anything.
      expect((await server.call("GET", `/platform/external-accounts/${platform.id}`)).status).toBe(200)
      expect((await server.call("GET", `/customers/external-accounts/${customers}`)).status).toBe(200)

      const customerList = await server.call("GET", "/customers/external-accounts?limit=100")
      expect(customerList.json.data.map((a: { id: string }) => a.id)).not.toContain(platform.id)
      for (const a of customerList.json.data) expect(a.customerId).toBeDefined()
      const platformList = await server.call("GET", "/platform/external-accounts?limit=100")
      expect(platformList.json.data.map((a: { id: string }) => a.id)).not.toContain(customers)
    })

    it("AC-25, AC-26, AC-27, AC-29: the platform's FIRST_PARTY Solana wallet starts PENDING_OWNERSHIP_VERIFICATION; a signed challenge makes it ACTIVE; LIVENESS and bank accounts 409", async () => {
      const wallet = selfCustodyWallet("SOLANA_WALLET")
      const account = await createPlatformExternal({
        currency: "USDC",
        accountInfo: { accountType: "SOLANA_WALLET", address: wallet.address }
      })
      expect(account.status).toBe("PENDING_OWNERSHIP_VERIFICATION")
      const path = `/platform/external-accounts/${account.id}`

      const liveness = await server.call("POST", `${path}/challenge`, { method: "LIVENESS" })
      expectError(liveness, 409, "CONFLICT")
      expect(liveness.json.message).toContain("WALLET_SIGNATURE")
      expectError(await server.call("POST", `${path}/verify`, { signature: "x" }), 409, "CONFLICT")

      const challenge = await server.call("POST", `${path}/challenge`, { method: "WALLET_SIGNATURE" })
      expect(challenge.status).toBe(201)
      expect(challenge.json.method).toBe("WALLET_SIGNATURE")
      expect(challenge.json.messageToSign).toContain(`Account: ${account.id}`)
      expect(challenge.json.messageToSign).toContain(`Address: ${wallet.address}`)

      const verified = await server.call("POST", `${path}/verify`, {
        signature: wallet.signMessage(challenge.json.messageToSign)
      })
      expect(verified.status, JSON.stringify(verified.json)).toBe(200)
      expect(verified.json).toMatchObject({ id: account.id, status: "ACTIVE" })
      expect(verified.json.customerId).toBeUndefined()
      expect((await server.call("GET", path)).json.status).toBe("ACTIVE")
      // Verified: nothing more to verify.
      expectError(await server.call("POST", `${path}/challenge`, { method: "WALLET_SIGNATURE" }), 409, "CONFLICT")

      // A wrong signature leaves it UNVERIFIED (AC-30), as for a customer.
      const other = selfCustodyWallet("SOLANA_WALLET")
      const second = await createPlatformExternal({
        currency: "USDC",
        accountInfo: { accountType: "SOLANA_WALLET", address: other.address }
      })
      const c2 = await server.call("POST", `/platform/external-accounts/${second.id}/challenge`, {
        method: "WALLET_SIGNATURE"
      })
      const wrong = await server.call("POST", `/platform/external-accounts/${second.id}/verify`, {
        signature: wallet.signMessage(c2.json.messageToSign)
      })
      expectInvalid(wrong, ["signature"])
      expect((await server.call("GET", `/platform/external-accounts/${second.id}`)).json.status).toBe("UNVERIFIED")

      const bank = await createPlatformExternal()
      expectError(
        await server.call("POST", `/platform/external-accounts/${bank.id}/challenge`, { method: "WALLET_SIGNATURE" }),
        409,
        "CONFLICT"
      )
    })

    it("a quote pays a platform external account only from a platform account (400 from a customer's); the ledger balances", async () => {
      const payee = await createPlatformExternal()
      await fundAccount(server, customer.accounts.USD!, 5_000)
      const refused = await server.call("POST", "/quotes", quoteBody(customer.accounts.USD!, payee.id, 1_000))
      expectInvalid(refused, ["destination.accountId"])

      const platformUsd = await platformAccountOf("USD")
      await fundAccount(server, platformUsd.id, 5_000)
      const before = (await platformAccountOf("USD")).balance.amount
      const paid = await server.call(
        "POST",
        "/quotes",
        quoteBody(platformUsd.id, payee.id, 1_000, { immediatelyExecute: true })
      )
      expect(paid.status, JSON.stringify(paid.json)).toBe(201)
      await server.processDue()
      expect((await server.call("GET", `/transactions/${paid.json.transactionId}`)).json.status).toBe("COMPLETED")
      expect((await platformAccountOf("USD")).balance.amount).toBe(before - paid.json.totalSendingAmount)
      await ledgerIsBalanced(server)
    })
  })

  describe("wallet vaspName (AC-06, upstream-only list)", () => {
    const known = SANDBOX_VASPS[0]!.vaspName

    it("AC-06: vaspName must be one of GET /vasps: unknown 400 with the names as enum, known 201 and echoed (customer and platform routes)", async () => {
      const names = SANDBOX_VASPS.map((v) => v.vaspName)
      for (const [path, owner] of [
        ["/customers/external-accounts", { customerId: customer.id }],
        ["/platform/external-accounts", {}]
      ] as const) {
        const unknown = await server.call("POST", path, {
          ...owner,
          currency: "USDC",
          accountInfo: {
            accountType: "SOLANA_WALLET",
            address: selfCustodyWallet("SOLANA_WALLET").address,
            vaspName: "Nowhere Exchange"
          }
        })
        expectInvalid(unknown, ["accountInfo.vaspName"])
        expect(unknown.json.details.errors[0].constraint).toEqual({ enum: names })

        const created = await server.call("POST", path, {
          ...owner,
          currency: "USDC",
          ownershipType: "THIRD_PARTY",
          accountInfo: {
            accountType: "SOLANA_WALLET",
            address: selfCustodyWallet("SOLANA_WALLET").address,
            vaspName: known
          }
        })
        expect(created.status, JSON.stringify(created.json)).toBe(201)
        expect(created.json.accountInfo.vaspName).toBe(known)
        const got = await server.call("GET", `${path}/${created.json.id}`)
        expect(got.json.accountInfo.vaspName).toBe(known)
      }
    })

    it("AC-06: PLASMA_WALLET holds USDT (paid on PLASMA), not USDC", async () => {
      const address = selfCustodyWallet("ETHEREUM_WALLET").address
      const usdt = await server.call("POST", "/customers/external-accounts", {
        customerId: customer.id,
        currency: "USDT",
        ownershipType: "THIRD_PARTY",
        accountInfo: { accountType: "PLASMA_WALLET", address, vaspName: known }
      })
      expect(usdt.status, JSON.stringify(usdt.json)).toBe(201)
      expect(usdt.json.paymentRails).toEqual(["PLASMA"])
      const usdc = await server.call("POST", "/customers/external-accounts", {
        customerId: customer.id,
        currency: "USDC",
        accountInfo: { accountType: "PLASMA_WALLET", address }
      })
      expectInvalid(usdc, ["currency"])
      expect(usdc.json.details.errors[0].constraint).toEqual({ enum: ["USDT"] })
    })
  })
}

onEveryStore("platform-owned accounts and VASP names", "platform_accounts_http", suite)
