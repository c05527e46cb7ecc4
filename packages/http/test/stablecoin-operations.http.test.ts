/**
 * Stablecoin mints and burns over HTTP (issue 17 slice B; docs/design/invitations-stablecoins.md section 1 rows 11-14,
 * section 3 "Mint / burn", "Worker" and the ledger table; docs/stablecoins.md), on every store: every funding source
 * and destination kind with the exact balances after the worker pass, holds on internal accounts, the sandbox's
 * outcome suffixes, outages storing nothing, and the reads. The sandbox provider runs at the harness's speed, so one
 * worker pass takes an operation as far as its outcome goes.
 */
import { reserveAccount, supplyAccount } from "@paycore/core"
import { Effect } from "effect"
import { beforeAll, expect, it } from "vitest"
import { expectError, fundAccount, type TestServer, useTestServer } from "./harness.ts"
import {
  balanceOf,
  burn,
  expectCreated,
  expectLedgerBalanced,
  type Holder,
  holder,
  link,
  mint,
  register,
  remember,
  scriptedProvider,
  systemPosted,
  usdbHoldingAccount
} from "./stablecoins-kit.ts"
import { onEveryStore } from "./stores.ts"

/** 10 USDB (6 decimals) = 1000 US cents. */
const A = 10_000_000
const F = 1_000

const getOp = async (server: TestServer, id: string) => (await server.call("GET", `/stablecoin-operations/${id}`)).json

onEveryStore("stablecoin mints and burns", "stablecoin_ops_http", (stores) => {
  const provider = scriptedProvider()
  let usdb: string
  let acme: string
  let h: Holder
  const server = useTestServer(
    async (s) => {
      await s.call("PATCH", "/config", { supportedCurrencies: ["USD", "USDB"] })
      const linked = expectCreated(await link(s, { providerAccountId: "acct-ops" }))
      usdb = expectCreated(await register(s, { stablecoinProviderAccountId: linked.id })).id
      acme = expectCreated(
        await register(s, { providerTokenIdentifier: "acme-usd", stablecoinProviderAccountId: linked.id })
      ).id
    },
    { ...stores(), extraLayer: provider.layer }
  )
  beforeAll(async () => {
    h = await holder(server)
    remember(h.usd, "USD")
    remember(h.usdbWallet, "USDB")
    await fundAccount(server, h.usd, 100_000)
  })

  const supply = () => systemPosted(server, supplyAccount("USDB"), "USDB")
  const reserve = () => systemPosted(server, reserveAccount("USD"), "USD")

  it("P-13, L-20, ledger table: a mint funded by an internal account holds f at once, then posts f to the reserve and a to the destination", async () => {
    const [usdBefore, walletBefore, supplyBefore, reserveBefore] = [
      await balanceOf(server, h.usd),
      await balanceOf(server, h.usdbWallet),
      await supply(),
      await reserve()
    ]
    const op = expectCreated(
      await mint(server, usdb, {
        amount: String(A),
        fundingSource: { type: "SERVICE_INTERNAL_ACCOUNT", accountId: h.usd },
        destination: { accountId: h.usdbWallet },
        description: "treasury top-up"
      })
    )
    expect(op).toMatchObject({
      stablecoinId: usdb,
      operationType: "MINT",
      status: "CREATED",
      amount: String(A),
      provider: "BRALE",
      providerEnvironment: "SANDBOX",
      source: { type: "SERVICE_INTERNAL_ACCOUNT", accountId: h.usd },
      destination: { accountId: h.usdbWallet },
      description: "treasury top-up"
    })
    // Held, not yet moved.
    expect(await balanceOf(server, h.usd)).toEqual({ available: usdBefore.available - F, posted: usdBefore.posted })
    await server.processDue()
    expect((await getOp(server, op.id)).status).toBe("COMPLETED")
    expect(await balanceOf(server, h.usd)).toEqual({
      available: usdBefore.available - F,
      posted: usdBefore.posted - F
    })
    expect((await balanceOf(server, h.usdbWallet)).posted).toBe(walletBefore.posted + A)
    expect(await supply()).toBe(supplyBefore - A)
    expect(await reserve()).toBe(reserveBefore + F)
    await expectLedgerBalanced(server)
  })

  it("P-13: a wire-funded mint answers PENDING_FUNDING with its fundingInstructions, then completes once the funds arrive (deposits → reserve)", async () => {
    const walletBefore = await balanceOf(server, h.usdbWallet)
    const reserveBefore = await reserve()
    const op = expectCreated(
      await mint(server, usdb, {
        amount: String(A),
        fundingSource: { type: "WIRE" },
        destination: { accountId: h.usdbWallet }
      })
    )
    expect(op.status).toBe("PENDING_FUNDING")
    expect(op.fundingInstructions).toMatchObject({ rail: "WIRE", accountNumber: expect.any(String) })
    expect(op.expiresAt).toEqual(expect.any(String))
    await server.processDue()
    expect(await getOp(server, op.id)).toMatchObject({ status: "COMPLETED", providerStatus: "COMPLETED" })
    expect((await balanceOf(server, h.usdbWallet)).posted).toBe(walletBefore.posted + A)
    expect(await reserve()).toBe(reserveBefore + F)
    await expectLedgerBalanced(server)
  })

  it("P-13: ACH and same-day ACH debits of a bank account, and the provider's balance to a Spark wallet", async () => {
    const supplyBefore = await supply()
    const reserveBefore = await reserve()
    const ops = [
      expectCreated(
        await mint(server, usdb, {
          amount: String(A),
          fundingSource: { type: "ACH_DEBIT", externalAccountId: h.bank },
          destination: { accountId: h.spark }
        })
      ),
      expectCreated(
        await mint(server, usdb, {
          amount: String(A),
          fundingSource: { type: "SAME_DAY_ACH_DEBIT", externalAccountId: h.bank },
          destination: { accountId: h.usdbWallet }
        })
      ),
      expectCreated(
        await mint(server, usdb, {
          amount: String(A),
          fundingSource: { type: "PROVIDER_INTERNAL_BALANCE", sourceTokenIdentifier: "usdc", cryptoNetwork: "SPARK" },
          destination: { accountId: h.spark }
        })
      )
    ]
    expect(ops.map((o) => o.status)).toEqual(["PENDING_FUNDING", "PENDING_FUNDING", "CREATED"])
    await server.processDue()
    for (const op of ops) expect((await getOp(server, op.id)).status).toBe("COMPLETED")
    expect(await supply()).toBe(supplyBefore - 3 * A)
    // The provider's own balance paid the third: only the two debits reached the reserve.
    expect(await reserve()).toBe(reserveBefore + 2 * F)
    await expectLedgerBalanced(server)
  })

  it("P-14, ledger table: burns from an internal account (held, then posted), from a wallet (funding instructions) and from the provider's balance pay the bank", async () => {
    const holding = await usdbHoldingAccount(server)
    remember(holding, "USDB")
    expectCreated(
      await mint(server, usdb, {
        amount: String(3 * A),
        fundingSource: { type: "WIRE" },
        destination: { accountId: holding }
      })
    )
    await server.processDue()
    expect((await balanceOf(server, holding)).posted).toBe(3 * A)
    const supplyBefore = await supply()
    const reserveBefore = await reserve()
    const destination = { type: "EXTERNAL_ACCOUNT", externalAccountId: h.bank, rail: "ACH_CREDIT" }
    const fromAccount = expectCreated(
      await burn(server, usdb, {
        amount: String(A),
        source: { type: "SERVICE_INTERNAL_ACCOUNT", accountId: holding },
        destination
      })
    )
    expect(fromAccount).toMatchObject({
      operationType: "BURN",
      status: "CREATED",
      destination: { accountId: h.bank, rail: "ACH_CREDIT" },
      estimatedDelivery: { rail: "ACH_CREDIT", amount: String(F), currency: "USD", timing: "1-3 business days" }
    })
    expect(await balanceOf(server, holding)).toEqual({ available: 2 * A, posted: 3 * A })
    const fromWallet = expectCreated(
      await burn(server, usdb, { amount: String(A), source: { type: "EXTERNAL_ACCOUNT" }, destination })
    )
    expect(fromWallet.status).toBe("PENDING_FUNDING")
    expect(fromWallet.fundingInstructions).toMatchObject({ rail: "SPARK", network: "SPARK", valueType: "usdb" })
    const fromProvider = expectCreated(
      await burn(server, usdb, {
        amount: String(A),
        source: { type: "PROVIDER_INTERNAL_BALANCE" },
        destination: { ...destination, rail: "WIRE" }
      })
    )
    await server.processDue()
    for (const op of [fromAccount, fromWallet, fromProvider])
      expect((await getOp(server, op.id)).status).toBe("COMPLETED")
    expect(await balanceOf(server, holding)).toEqual({ available: 2 * A, posted: 2 * A })
    expect(await supply()).toBe(supplyBefore + 3 * A)
    expect(await reserve()).toBe(reserveBefore - 3 * F)
    await expectLedgerBalanced(server)
  })

  it("P-17, sandbox outcomes: …002 fails (the hold voided, nothing moved); …003 is never funded and EXPIREs", async () => {
    const usdBefore = await balanceOf(server, h.usd)
    const supplyBefore = await supply()
    // 10.02 USD: the base amount ends 002.
    const failing = expectCreated(
      await mint(server, usdb, {
        amount: "10020000",
        fundingSource: { type: "SERVICE_INTERNAL_ACCOUNT", accountId: h.usd },
        destination: { accountId: h.usdbWallet }
      })
    )
    expect((await balanceOf(server, h.usd)).available).toBe(usdBefore.available - 1002)
    const unfunded = expectCreated(
      await mint(server, usdb, {
        amount: "10030000",
        fundingSource: { type: "WIRE" },
        destination: { accountId: h.usdbWallet }
      })
    )
    await server.processDue()
    expect(await getOp(server, failing.id)).toMatchObject({ status: "FAILED", failureReason: "PROVIDER_FAILED" })
    expect(await getOp(server, unfunded.id)).toMatchObject({ status: "EXPIRED", failureReason: "FUNDS_NOT_RECEIVED" })
    expect(await balanceOf(server, h.usd)).toEqual(usdBefore)
    expect(await supply()).toBe(supplyBefore)
    const transfers = await Effect.runPromise(server.store.ledger.transfers(failing.id))
    expect(transfers.map((t) => t.state)).toEqual(["VOIDED"])
    await expectLedgerBalanced(server)
  })

  it("P-15, C-09: an outage → 503 and no operation; the same key then creates it; a repeat replays it", async () => {
    const key = crypto.randomUUID()
    const body = { amount: String(A), fundingSource: { type: "WIRE" }, destination: { accountId: h.usdbWallet } }
    const before = (await server.call("GET", `/stablecoins/${usdb}/operations?limit=100`)).json.totalCount
    provider.outage(true)
    try {
      expectError(await mint(server, usdb, body, key), 503, "SERVICE_UNAVAILABLE")
    } finally {
      provider.outage(false)
    }
    expect((await server.call("GET", `/stablecoins/${usdb}/operations?limit=100`)).json.totalCount).toBe(before)
    const created = expectCreated(await mint(server, usdb, body, key))
    const replay = await mint(server, usdb, body, key)
    expect(replay.status).toBe(201)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.json).toEqual(created)
    expectError(await mint(server, usdb, { ...body, amount: String(2 * A) }, key), 409, "IDEMPOTENCY_KEY_REUSED")
    expect((await server.call("GET", `/stablecoins/${usdb}/operations?limit=100`)).json.totalCount).toBe(before + 1)
  })

  it("P-13, C-05, L-20, Q2: refusals in order: unknown coin 404, amount 0 / too large / not whole cents 400, unknown account 404, NOT_ENABLED coin to an internal account 400, embedded-wallet source 400, INSUFFICIENT_FUNDS 400 storing nothing", async () => {
    const wire = { type: "WIRE" }
    const to = { accountId: h.usdbWallet }
    expectError(
      await mint(server, "Stablecoin:00000000-0000-7000-8000-000000000000", {
        amount: String(A),
        fundingSource: wire,
        destination: to
      }),
      404,
      "REFERENCE_NOT_FOUND"
    )
    for (const amount of ["0", "9000000000000001", "10000001"]) {
      const r = await mint(server, usdb, { amount, fundingSource: wire, destination: to })
      expectError(r, 400, "INVALID_INPUT")
      expect(r.json.details.errors[0].field).toBe("amount")
    }
    expectError(
      await mint(server, usdb, { amount: "12.5", fundingSource: wire, destination: to }),
      400,
      "INVALID_INPUT"
    )
    expectError(
      await mint(server, usdb, {
        amount: String(A),
        fundingSource: wire,
        destination: { accountId: "InternalAccount:00000000-0000-7000-8000-000000000000" }
      }),
      404,
      "REFERENCE_NOT_FOUND"
    )
    const notEnabled = await mint(server, acme, { amount: String(A), fundingSource: wire, destination: to })
    expectError(notEnabled, 400, "INVALID_INPUT")
    expect(notEnabled.json.details.errors[0].field).toBe("destination.accountId")
    expectCreated(
      await mint(server, acme, { amount: String(A), fundingSource: wire, destination: { accountId: h.spark } })
    )
    const embedded = await burn(server, usdb, {
      amount: String(A),
      source: { type: "SERVICE_INTERNAL_ACCOUNT", accountId: h.usdbWallet },
      destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: h.bank, rail: "WIRE" }
    })
    expectError(embedded, 400, "INVALID_INPUT")
    expect(embedded.json.details.errors[0].field).toBe("source.accountId")
    const before = (await server.call("GET", `/stablecoins/${usdb}/operations?limit=100`)).json.totalCount
    const poor = await mint(server, usdb, {
      amount: String(10_000 * A),
      fundingSource: { type: "SERVICE_INTERNAL_ACCOUNT", accountId: h.usd },
      destination: to
    })
    expectError(poor, 400, "INSUFFICIENT_FUNDS")
    expect((await server.call("GET", `/stablecoins/${usdb}/operations?limit=100`)).json.totalCount).toBe(before)
    // The orphaned provider operation was cancelled (best effort).
    expect(provider.calls.at(-1)?.method).toBe("cancel")
  })

  it("P-16, P-18: operations newest first, filtered by operationType, paged; an unknown operation or coin 404", async () => {
    const all = await server.call("GET", `/stablecoins/${usdb}/operations?limit=100`)
    expect(all.status).toBe(200)
    const created = all.json.data.map((o: { createdAt: string }) => o.createdAt)
    expect(created).toEqual([...created].sort().reverse())
    const burns = await server.call("GET", `/stablecoins/${usdb}/operations?operationType=BURN`)
    expect(burns.json.data.length).toBeGreaterThan(0)
    expect(burns.json.data.every((o: { operationType: string }) => o.operationType === "BURN")).toBe(true)
    const page = await server.call("GET", `/stablecoins/${usdb}/operations?limit=2`)
    expect(page.json).toMatchObject({ hasMore: true, nextCursor: expect.any(String) })
    const next = await server.call("GET", `/stablecoins/${usdb}/operations?limit=2&cursor=${page.json.nextCursor}`)
    expect(next.json.data[0].id).toBe(all.json.data[2].id)
    expectError(
      await server.call("GET", "/stablecoin-operations/StablecoinOperation:00000000-0000-7000-8000-000000000000"),
      404,
      "REFERENCE_NOT_FOUND"
    )
    expectError(
      await server.call("GET", "/stablecoins/Stablecoin:00000000-0000-7000-8000-000000000000/operations"),
      404,
      "REFERENCE_NOT_FOUND"
    )
  })
})
