/**
 * The agent's own surface, `/agents/me/*` (issue 16, slice C; docs/design/agents.md sections 1 and 3 "Scoped
 * reads"): every read and external-account write bound to the agent's customer, the permission each route needs
 * (AG-30), a paused agent reading but not writing (AG-10, Q6), the rules of an agent's quote (AG-31, Q1, Q9), and the
 * customer's payments and card transactions (AG-34, AG-35). Actions are written to the store here (slice B's execute
 * makes them); their reads are tested as the agent polls them (AG-36, AG-37).
 */
import {
  type AgentPermission,
  type InternalAccountId,
  type QuoteRecord,
  Store,
  type TrustedBeneficiaryRecord
} from "@paycore/core"
import { openAgentPolicy, seedCard, seedCardTransaction } from "@paycore/testkit"
import { Effect } from "effect"
import { expect, it } from "vitest"
import {
  type AgentCall,
  agentOf,
  asAgent,
  everyItem,
  expectUnchangedBy,
  insertAction,
  policyWith,
  runOn,
  usPayeeBody
} from "./agent-kit.ts"
import {
  addUsPayee,
  type CallResult,
  expectError,
  expectInvalid,
  fundAccount,
  ids,
  type Onboarded,
  onboardCustomer,
  quoteBody,
  type TestServer,
  useTestServer
} from "./harness.ts"
import { onEveryStore } from "./stores.ts"

const EVERY_PERMISSION: ReadonlyArray<AgentPermission> = openAgentPolicy().permissions

/** A 403 FORBIDDEN of the agent's policy, with its `details.reason`. */
const expectRefused = (r: CallResult, reason: string) => {
  expectError(r, 403, "FORBIDDEN")
  expect(r.json.details.reason, JSON.stringify(r.json)).toBe(reason)
}

/** Whatever `act` does, the store reads the same after it. */
const expectNothingChanges = (server: TestServer, act: () => Promise<void>) => expectUnchangedBy(server, act)

onEveryStore("the agent's own surface (/agents/me)", "agent_me_http", (stores) => {
  let ada: Onboarded
  let bob: Onboarded
  let adaPayee: string
  let bobPayee: string
  const server = useTestServer(async (s) => {
    ada = await onboardCustomer(s, { currencies: ["USD", "EUR"] })
    bob = await onboardCustomer(s, { currencies: ["USD"] })
    await fundAccount(s, ada.accounts.USD!, 1_000_000)
    await fundAccount(s, bob.accounts.USD!, 1_000_000)
    adaPayee = await addUsPayee(s, ada.id)
    bobPayee = await addUsPayee(s, bob.id)
  }, stores())

  /** A new agent of ada's (every permission unless `policy` says otherwise) and its Bearer calls. */
  const adaAgent = async (options: Parameters<typeof agentOf>[2] = {}) => {
    const agent = await agentOf(server, ada.id, options)
    return { ...agent, call: asAgent(server, agent) }
  }

  const created = (r: CallResult, status = 201) => {
    expect(r.status, JSON.stringify(r.json)).toBe(status)
    return r.json
  }

  // ---- internal accounts ----

  it("AG-25, Q7: the customer's internal accounts, all of them (not narrowed by allowedAccountIds), filtered", async () => {
    const { call } = await adaAgent({
      policy: { ...openAgentPolicy(), accountRestrictions: { allowedAccountIds: [ada.accounts.USD!] } }
    })
    const all = await call("GET", "/agents/me/internal-accounts")
    expect(all.status).toBe(200)
    expect(ids(all).sort()).toEqual([ada.accounts.USD, ada.accounts.EUR].sort())
    expect(all.json.data[0].balance).toBeDefined()
    const eur = await call("GET", "/agents/me/internal-accounts?currency=EUR")
    expect(ids(eur)).toEqual([ada.accounts.EUR])
    const fiat = await call("GET", "/agents/me/internal-accounts?type=INTERNAL_FIAT&limit=1")
    expect(fiat.json.data).toHaveLength(1)
    expect(fiat.json.hasMore).toBe(true)
    const next = await call(
      "GET",
      `/agents/me/internal-accounts?type=INTERNAL_FIAT&limit=1&cursor=${fiat.json.nextCursor}`
    )
    expect([...ids(fiat), ...ids(next)].sort()).toEqual([ada.accounts.USD, ada.accounts.EUR].sort())
    expectInvalid(await call("GET", "/agents/me/internal-accounts?cursor=not-a-cursor!"), ["cursor"])
  })

  // ---- external accounts ----

  it("AG-26: an external account is created for the agent's customer; customerId is optional, another is 404", async () => {
    const { call } = await adaAgent()
    const inferred = created(await call("POST", "/agents/me/external-accounts", usPayeeBody("700000001")))
    expect(inferred.customerId).toBe(ada.id)
    expect(inferred.status).toBe("ACTIVE")
    const named = created(
      await call("POST", "/agents/me/external-accounts", usPayeeBody("700000002", { customerId: ada.id }))
    )
    expect(named.customerId).toBe(ada.id)
    // The platform sees them as the customer's own.
    const platform = await server.call("GET", `/customers/external-accounts/${inferred.id}`)
    expect(platform.json.customerId).toBe(ada.id)

    await expectNothingChanges(server, async () => {
      // C-48: another customer is as unknown as a customer that does not exist.
      expectError(
        await call("POST", "/agents/me/external-accounts", usPayeeBody("700000003", { customerId: bob.id })),
        404,
        "USER_NOT_FOUND"
      )
      // The platform's rules apply: the same account twice is 409, a wrong currency 400.
      expectError(await call("POST", "/agents/me/external-accounts", usPayeeBody("700000001")), 409, "CONFLICT")
      expectInvalid(
        await call("POST", "/agents/me/external-accounts", { ...usPayeeBody("700000004"), currency: "EUR" }),
        ["currency"]
      )
    })
  })

  it("AG-27, AG-28: the customer's external accounts are listed and read; another customer's is 404", async () => {
    const { call } = await adaAgent()
    const mine = created(await call("POST", "/agents/me/external-accounts", usPayeeBody("710000001")))
    const listed = await call("GET", "/agents/me/external-accounts?limit=100")
    expect(listed.status).toBe(200)
    expect(ids(listed)).toContain(mine.id)
    expect(ids(listed)).toContain(adaPayee)
    expect(ids(listed)).not.toContain(bobPayee)
    expect(listed.json.data.every((a: { customerId: string }) => a.customerId === ada.id)).toBe(true)
    expect(ids(await call("GET", "/agents/me/external-accounts?currency=EUR"))).toEqual([])

    const read = await call("GET", `/agents/me/external-accounts/${adaPayee}`)
    expect(read.status).toBe(200)
    expect(read.json).toEqual((await server.call("GET", `/customers/external-accounts/${adaPayee}`)).json)
    expectError(await call("GET", `/agents/me/external-accounts/${bobPayee}`), 404, "REFERENCE_NOT_FOUND")
  })

  it("AG-29: the agent deletes the customer's external account (204); a trusted beneficiary is 409 as for the platform", async () => {
    const { call } = await adaAgent()
    const doomed = created(await call("POST", "/agents/me/external-accounts", usPayeeBody("720000001")))
    expect((await call("DELETE", `/agents/me/external-accounts/${doomed.id}`)).status).toBe(204)
    expectError(await call("GET", `/agents/me/external-accounts/${doomed.id}`), 404, "REFERENCE_NOT_FOUND")
    expect(ids(await call("GET", "/agents/me/external-accounts?limit=100"))).not.toContain(doomed.id)
    expectError(await call("DELETE", `/agents/me/external-accounts/${doomed.id}`), 404, "REFERENCE_NOT_FOUND")

    const trusted = created(await call("POST", "/agents/me/external-accounts", usPayeeBody("720000002")))
    const now = new Date().toISOString()
    const trust: TrustedBeneficiaryRecord = {
      id: trusted.id,
      customerId: ada.id,
      status: "TRUSTED",
      challengeId: "ScaChallenge:trusted-by-the-customer",
      createdAt: now,
      updatedAt: now
    }
    await Effect.runPromise(Effect.orDie(server.store.trustedBeneficiaries.insert(trust)))
    await expectNothingChanges(server, async () => {
      expectError(await call("DELETE", `/agents/me/external-accounts/${trusted.id}`), 409, "BENEFICIARY_TRUSTED")
      expectError(await call("DELETE", `/agents/me/external-accounts/${bobPayee}`), 404, "REFERENCE_NOT_FOUND")
    })
  })

  // ---- permissions and pause ----

  /** Every `/agents/me` route that needs a permission, with a request an agent holding it would have answered. */
  const permissionRoutes = (quoteId: string): ReadonlyArray<readonly [AgentPermission, string, string, unknown?]> => [
    ["VIEW_TRANSACTIONS", "GET", "/agents/me/internal-accounts"],
    ["VIEW_TRANSACTIONS", "GET", "/agents/me/transactions"],
    ["VIEW_TRANSACTIONS", "GET", `/agents/me/transactions/Transaction:0190a000-0000-7000-8000-000000000001`],
    ["MANAGE_EXTERNAL_ACCOUNTS", "GET", "/agents/me/external-accounts"],
    ["MANAGE_EXTERNAL_ACCOUNTS", "GET", `/agents/me/external-accounts/${adaPayee}`],
    ["MANAGE_EXTERNAL_ACCOUNTS", "POST", "/agents/me/external-accounts", usPayeeBody("730000001")],
    ["MANAGE_EXTERNAL_ACCOUNTS", "DELETE", `/agents/me/external-accounts/${adaPayee}`],
    ["CREATE_QUOTES", "POST", "/agents/me/quotes", quoteBody(ada.accounts.USD!, adaPayee, 1000)],
    ["EXECUTE_QUOTES", "POST", `/agents/me/quotes/${quoteId}/execute`],
    [
      "CREATE_TRANSFERS",
      "POST",
      "/agents/me/transfer-out",
      { source: { accountId: ada.accounts.USD }, destination: { accountId: adaPayee }, amount: 100 }
    ],
    [
      "CREATE_TRANSFERS",
      "POST",
      "/agents/me/transfer-in",
      { source: { accountId: adaPayee }, destination: { accountId: ada.accounts.USD }, amount: 100 }
    ]
  ]

  it("AG-30: each route refuses an agent whose policy lacks its permission (403 PERMISSION_MISSING), changing nothing", async () => {
    const quote = (await server.call("POST", "/quotes", quoteBody(ada.accounts.USD!, adaPayee, 1000))).json
    for (const [permission, method, path, body] of permissionRoutes(quote.id)) {
      const { call } = await adaAgent({ policy: policyWith(EVERY_PERMISSION.filter((p) => p !== permission)) })
      await expectNothingChanges(server, async () => {
        const r = await call(method, path, body)
        expectRefused(r, "PERMISSION_MISSING")
        expect(r.json.message).toContain(permission)
      })
    }
  })

  it("AG-30, Q7: the agent's own quotes and actions need no permission", async () => {
    const holder = await adaAgent()
    const quote = created(await holder.call("POST", "/agents/me/quotes", quoteBody(ada.accounts.USD!, adaPayee, 1000)))
    await runOn(
      server,
      Effect.gen(function* () {
        const store = yield* Store
        const agent = (yield* store.agents.get(holder.agentId))!
        yield* Effect.orDie(store.agents.update({ ...agent, policy: policyWith([]) }))
      })
    )
    expect((await holder.call("GET", `/agents/me/quotes/${quote.id}`)).status).toBe(200)
    expect((await holder.call("GET", "/agents/me/actions")).status).toBe(200)
  })

  it("AG-10, Q6: a paused agent still reads (200) but every write is 403 AGENT_PAUSED and changes nothing", async () => {
    const active = await adaAgent()
    const quote = created(await active.call("POST", "/agents/me/quotes", quoteBody(ada.accounts.USD!, adaPayee, 1000)))
    const action = await insertAction(server, active.record, { status: "PENDING_APPROVAL", quoteId: quote.id })
    await runOn(
      server,
      Effect.gen(function* () {
        const store = yield* Store
        yield* Effect.orDie(store.agents.update({ ...active.record, isPaused: true }))
      })
    )
    for (const path of [
      "/agents/me/internal-accounts",
      "/agents/me/external-accounts",
      `/agents/me/external-accounts/${adaPayee}`,
      "/agents/me/transactions",
      `/agents/me/quotes/${quote.id}`,
      "/agents/me/actions",
      `/agents/me/actions/${action.id}`
    ]) {
      const r = await active.call("GET", path)
      expect(r.status, `${path}: ${JSON.stringify(r.json)}`).toBe(200)
    }
    await expectNothingChanges(server, async () => {
      for (const [, method, path, body] of permissionRoutes(quote.id).filter(([, method]) => method !== "GET")) {
        expectRefused(await active.call(method, path, body), "AGENT_PAUSED")
      }
    })
  })

  // ---- quotes ----

  it("AG-31, AG-32, AG-38: an agent's quote is the platform's quote, created for the agent and read back by it", async () => {
    const { call, agentId } = await adaAgent()
    const quote = created(await call("POST", "/agents/me/quotes", quoteBody(ada.accounts.USD!, adaPayee, 2500)))
    expect(quote).toMatchObject({
      status: "PENDING",
      customerId: ada.id,
      totalSendingAmount: 2500,
      source: { sourceType: "ACCOUNT", accountId: ada.accounts.USD }
    })
    expect(quote).not.toHaveProperty("agentId")
    const read = await call("GET", `/agents/me/quotes/${quote.id}`)
    expect(read.status).toBe(200)
    expect(read.json).toEqual((await server.call("GET", `/quotes/${quote.id}`)).json)
    const stored: QuoteRecord | undefined = await Effect.runPromise(server.store.quotes.get(quote.id))
    expect(stored?.agentId).toBe(agentId)
    // AG-38: its payment records the agent.
    expect((await server.call("GET", `/transactions/${quote.transactionId}`)).json.agentId).toBe(agentId)
    // A cross-currency quote to an internal account of the customer.
    const fx = created(await call("POST", "/agents/me/quotes", quoteBody(ada.accounts.USD!, ada.accounts.EUR!, 5000)))
    expect(fx.receivingCurrency.code).toBe("EUR")
  })

  it("AG-31, Q9: a quote not paid from an account, or executed at once, is 400 (both named), nothing stored", async () => {
    const { call } = await adaAgent()
    await expectNothingChanges(server, async () => {
      const funded = {
        source: { sourceType: "REALTIME_FUNDING", currency: "USD", customerId: ada.id },
        destination: { destinationType: "ACCOUNT", accountId: adaPayee },
        lockedCurrencySide: "SENDING",
        lockedCurrencyAmount: 1000
      }
      expectInvalid(await call("POST", "/agents/me/quotes", funded), ["source.sourceType"])
      expectInvalid(
        await call(
          "POST",
          "/agents/me/quotes",
          quoteBody(ada.accounts.USD!, adaPayee, 1000, { immediatelyExecute: true })
        ),
        ["immediatelyExecute"]
      )
      expectInvalid(await call("POST", "/agents/me/quotes", { ...funded, immediatelyExecute: true }), [
        "source.sourceType",
        "immediatelyExecute"
      ])
      // Explicitly not executing is the default.
    })
    const explicit = await call(
      "POST",
      "/agents/me/quotes",
      quoteBody(ada.accounts.USD!, adaPayee, 1000, { immediatelyExecute: false })
    )
    expect(explicit.json.status).toBe("PENDING")
  })

  it("AG-31, C-48, Q1: another customer's account or customerId in the body is 404, as an unknown one", async () => {
    const { call } = await adaAgent()
    await expectNothingChanges(server, async () => {
      expectError(
        await call("POST", "/agents/me/quotes", quoteBody(bob.accounts.USD!, adaPayee, 1000)),
        404,
        "REFERENCE_NOT_FOUND"
      )
      expectError(
        await call("POST", "/agents/me/quotes", quoteBody(ada.accounts.USD!, bobPayee, 1000)),
        404,
        "REFERENCE_NOT_FOUND"
      )
      expectError(
        await call("POST", "/agents/me/quotes", quoteBody(ada.accounts.USD!, bob.accounts.USD!, 1000)),
        404,
        "REFERENCE_NOT_FOUND"
      )
      const named = quoteBody(ada.accounts.USD!, adaPayee, 1000)
      expectError(
        await call("POST", "/agents/me/quotes", { ...named, source: { ...named.source, customerId: bob.id } }),
        404,
        "USER_NOT_FOUND"
      )
    })
    // The customer's own id is accepted.
    const own = quoteBody(ada.accounts.USD!, adaPayee, 1000)
    expect(
      (await call("POST", "/agents/me/quotes", { ...own, source: { ...own.source, customerId: ada.id } })).status
    ).toBe(201)
  })

  it("AG-31, AG-06: an account outside allowedAccountIds, or an amount over the per-transaction limit, is 403", async () => {
    const { call } = await adaAgent({
      policy: {
        ...openAgentPolicy(),
        spendingLimits: { currency: "USD", perTransactionLimit: 5000 },
        accountRestrictions: {
          allowedAccountIds: [ada.accounts.USD!],
          accountRules: [{ accountId: ada.accounts.USD!, perTransactionLimit: 4000 }]
        }
      }
    })
    await expectNothingChanges(server, async () => {
      const other = await call("POST", "/agents/me/quotes", quoteBody(ada.accounts.EUR!, adaPayee, 1000))
      expectRefused(other, "ACCOUNT_NOT_ALLOWED")
      expect(other.json.details.accountId).toBe(ada.accounts.EUR)
      // An internal transfer touches the destination account too.
      expectRefused(
        await call("POST", "/agents/me/quotes", quoteBody(ada.accounts.USD!, ada.accounts.EUR!, 1000)),
        "ACCOUNT_NOT_ALLOWED"
      )
      // The account rule's limit (4 000) replaces the policy's (5 000) on its account (Q14).
      const over = await call("POST", "/agents/me/quotes", quoteBody(ada.accounts.USD!, adaPayee, 4001))
      expectRefused(over, "PER_TRANSACTION_LIMIT_EXCEEDED")
      expect(over.json.details).toMatchObject({ limit: 4000, amount: 4001, currency: "USD" })
    })
    // Locked on the receiving side, the sending total (fees included) is what counts: priced, then rolled back.
    await expectNothingChanges(server, async () => {
      const received = await call("POST", "/agents/me/quotes", {
        ...quoteBody(ada.accounts.USD!, adaPayee, 4001),
        lockedCurrencySide: "RECEIVING"
      })
      expectRefused(received, "PER_TRANSACTION_LIMIT_EXCEEDED")
      expect(received.json.details.amount).toBeGreaterThanOrEqual(4001)
    })
    // Equal to the limit is allowed.
    expect((await call("POST", "/agents/me/quotes", quoteBody(ada.accounts.USD!, adaPayee, 4000))).status).toBe(201)
  })

  it("AG-32, C-48: a quote of the platform or of another agent of the customer is 404 QUOTE_NOT_FOUND", async () => {
    const first = await adaAgent()
    const second = await adaAgent()
    const own = created(await first.call("POST", "/agents/me/quotes", quoteBody(ada.accounts.USD!, adaPayee, 1000)))
    const platforms = (await server.call("POST", "/quotes", quoteBody(ada.accounts.USD!, adaPayee, 1000))).json
    expect((await first.call("GET", `/agents/me/quotes/${own.id}`)).status).toBe(200)
    expectError(await second.call("GET", `/agents/me/quotes/${own.id}`), 404, "QUOTE_NOT_FOUND")
    expectError(await first.call("GET", `/agents/me/quotes/${platforms.id}`), 404, "QUOTE_NOT_FOUND")
    expectError(
      await first.call("GET", "/agents/me/quotes/Quote:0190a000-0000-7000-8000-000000000001"),
      404,
      "QUOTE_NOT_FOUND"
    )
  })

  // ---- transactions ----

  it("AG-34, AG-35: the customer's payments and card transactions, and nothing of another customer's", async () => {
    const { call } = await adaAgent()
    const card = await runOn(server, seedCard(ada.id, [ada.accounts.USD as InternalAccountId]))
    const cardTx = await runOn(server, seedCardTransaction(card, { authorizedAmount: 1250 }))
    const bobCard = await runOn(server, seedCard(bob.id, [bob.accounts.USD as InternalAccountId]))
    const bobCardTx = await runOn(server, seedCardTransaction(bobCard, { authorizedAmount: 990 }))
    const paid = (
      await server.call("POST", "/quotes", quoteBody(ada.accounts.USD!, adaPayee, 700, { immediatelyExecute: true }))
    ).json
    const bobPaid = (
      await server.call("POST", "/quotes", quoteBody(bob.accounts.USD!, bobPayee, 700, { immediatelyExecute: true }))
    ).json

    const everything = (query: string) =>
      everyItem<{ id: string; customerId: string; type: string }>(call, "/agents/me/transactions", query)
    const listed = await everything("")
    expect(listed.map((t) => t.id)).toEqual(expect.arrayContaining([cardTx.id, paid.transactionId]))
    expect(listed.every((t) => t.customerId === ada.id)).toBe(true)
    expect(listed.map((t) => t.id)).not.toContain(bobCardTx.id)
    expect(listed.map((t) => t.id)).not.toContain(bobPaid.transactionId)
    // Its filters are the platform's; a customerId is no filter of the agent's (upstream has none; it is ignored).
    expect((await everything("&type=CARD")).map((t) => t.id)).toEqual([cardTx.id])
    expect((await everything(`&customerId=${bob.id}`)).map((t) => t.id)).toEqual(listed.map((t) => t.id))

    const payment = await call("GET", `/agents/me/transactions/${paid.transactionId}`)
    expect(payment.status).toBe(200)
    expect(payment.json.id).toBe(paid.transactionId)
    const cardRead = await call("GET", `/agents/me/transactions/${cardTx.id}`)
    expect(cardRead.status).toBe(200)
    expect(cardRead.json.type).toBe("CARD")
    expectError(await call("GET", `/agents/me/transactions/${bobPaid.transactionId}`), 404, "TRANSACTION_NOT_FOUND")
    expectError(await call("GET", `/agents/me/transactions/${bobCardTx.id}`), 404, "TRANSACTION_NOT_FOUND")
  })

  // ---- actions ----

  it("AG-36, AG-37: the agent polls its own actions (status filter, paging); another agent's action is 404", async () => {
    const agent = await adaAgent()
    const sibling = await adaAgent()
    const quote = (call: AgentCall) => call("POST", "/agents/me/quotes", quoteBody(ada.accounts.USD!, adaPayee, 1000))
    const held = created(await quote(agent.call))
    const approvedQuote = created(await quote(agent.call))
    const failedQuote = created(await quote(agent.call))
    const pending = await insertAction(server, agent.record, { status: "PENDING_APPROVAL", quoteId: held.id })
    const approved = await insertAction(server, agent.record, {
      status: "APPROVED",
      quoteId: approvedQuote.id,
      transactionId: approvedQuote.transactionId
    })
    const failed = await insertAction(server, agent.record, {
      status: "FAILED",
      quoteId: failedQuote.id,
      failureReason: "QUOTE_EXPIRED"
    })
    const theirs = await insertAction(server, sibling.record, {
      status: "PENDING_APPROVAL",
      quoteId: created(await quote(sibling.call)).id
    })

    const all = await agent.call("GET", "/agents/me/actions")
    expect(all.status).toBe(200)
    // Newest first (by id: the three were made within one millisecond, so their order is the ids').
    const mine = [failed.id, approved.id, pending.id].sort().reverse()
    expect(ids(all)).toEqual(mine)
    expect(all.json.totalCount).toBe(3)
    expect(ids(await agent.call("GET", "/agents/me/actions?status=PENDING_APPROVAL"))).toEqual([pending.id])
    expect(ids(await agent.call("GET", "/agents/me/actions?status=REJECTED"))).toEqual([])
    const first = await agent.call("GET", "/agents/me/actions?limit=2")
    expect(first.json.hasMore).toBe(true)
    const rest = await agent.call("GET", `/agents/me/actions?limit=2&cursor=${first.json.nextCursor}`)
    expect([...ids(first), ...ids(rest)]).toEqual(mine)
    expectInvalid(await agent.call("GET", "/agents/me/actions?cursor=%%%"), ["cursor"])
    expect(ids(await sibling.call("GET", "/agents/me/actions"))).toEqual([theirs.id])

    // A held action shows its quote and no transaction; an approved one its transaction; a failed one why (Q10).
    const heldRead = await agent.call("GET", `/agents/me/actions/${pending.id}`)
    expect(heldRead.status).toBe(200)
    expect(heldRead.json).toMatchObject({
      id: pending.id,
      agentId: agent.agentId,
      customerId: ada.id,
      status: "PENDING_APPROVAL",
      type: "EXECUTE_QUOTE",
      quote: { id: held.id, status: "PENDING" }
    })
    expect(heldRead.json).not.toHaveProperty("transaction")
    const approvedRead = (await agent.call("GET", `/agents/me/actions/${approved.id}`)).json
    expect(approvedRead.transaction.id).toBe(approvedQuote.transactionId)
    expect((await agent.call("GET", `/agents/me/actions/${failed.id}`)).json.failureReason).toBe("QUOTE_EXPIRED")

    expectError(await agent.call("GET", `/agents/me/actions/${theirs.id}`), 404, "REFERENCE_NOT_FOUND")
    expectError(await sibling.call("GET", `/agents/me/actions/${pending.id}`), 404, "REFERENCE_NOT_FOUND")
  })

  // ---- the profile (slice A's GET /agents/me) ----

  it("AG-24: GET /agents/me answers the agent's profile, policy and usage, paused or not", async () => {
    const agent = await adaAgent({ isPaused: true })
    const me = await agent.call("GET", "/agents/me")
    expect(me.status).toBe(200)
    expect(me.json).toMatchObject({
      id: agent.agentId,
      customerId: ada.id,
      isPaused: true,
      isConnected: true,
      policy: openAgentPolicy(),
      usage: { dailySpend: 0, dailyTransactionCount: 0, monthlySpend: 0 }
    })
  })
})
