/**
 * The platform's agents over HTTP (issue 16, slice A; docs/design/agents.md sections 1 and 3 "Create, device codes,
 * redeem"): create with a device code (AG-01 … AG-05), the policy's rules, list, get, PATCH (name, pause), the policy
 * PATCH (AG-12, Q8), delete (AG-11, Q11) and the agent's own profile (AG-24).
 */
import { isoOf, usageKeys } from "@paycore/core"
import { openAgentPolicy } from "@paycore/testkit"
import { Effect } from "effect"
import { expect, it } from "vitest"
import { actionsOf, agentPolicy, agentQuote, execute, payer, payment, seedAgentOf } from "./agent-actions-kit.ts"
import { connectedAgent, createAgent, DEVICE_CODE, redeem, redeemToken, storedCode } from "./agent-credentials-kit.ts"
import { asAgent, insertAction } from "./agent-kit.ts"
import {
  expectError,
  expectInvalid,
  ids,
  type Onboarded,
  onboardCustomer,
  quoteBody,
  UNKNOWN_CUSTOMER,
  UUID,
  useTestServer
} from "./harness.ts"
import { onEveryStore } from "./stores.ts"

const DAY_MS = 86_400_000

onEveryStore("agents (the platform's lifecycle)", "agents_http", (stores) => {
  let ada: Onboarded
  let bob: Onboarded
  const server = useTestServer(async (s) => {
    ada = await onboardCustomer(s, { currencies: ["USD", "EUR"] })
    bob = await onboardCustomer(s, { currencies: ["USD"] })
  }, stores())

  const bearer = (accessToken: string) => asAgent(server, { accessToken })

  // ---- create ----

  it("AG-01, AG-02, AG-04, AG-05: create answers the agent, not connected, and a device code PAYCORE-AGENT-XXXX-XXXX", async () => {
    const before = Date.now()
    const policy = { ...openAgentPolicy(), permissions: ["VIEW_TRANSACTIONS", "CREATE_QUOTES", "VIEW_TRANSACTIONS"] }
    const { created } = await createAgent(server, ada.id, { name: "Bookkeeper", policy: policy as never })
    const { agent, deviceCode } = created.json
    expect(agent).toEqual({
      id: expect.stringMatching(new RegExp(`^Agent:${UUID}$`)),
      name: "Bookkeeper",
      customerId: ada.id,
      isPaused: false,
      isConnected: false,
      policy: { ...openAgentPolicy(), permissions: ["VIEW_TRANSACTIONS", "CREATE_QUOTES"] },
      usage: {
        dailyTransactionCount: 0,
        dailySpend: 0,
        dailyResetDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        monthlySpend: 0,
        monthlyResetMonth: expect.stringMatching(/^\d{4}-\d{2}$/)
      },
      createdAt: expect.any(String),
      updatedAt: expect.any(String)
    })
    expect(deviceCode).toEqual({
      code: expect.stringMatching(DEVICE_CODE),
      agentId: agent.id,
      expiresAt: expect.any(String),
      redeemed: false
    })
    // agentDeviceCodeSeconds: 24 hours.
    const life = Date.parse(deviceCode.expiresAt) - before
    expect(life).toBeGreaterThanOrEqual(DAY_MS - 1000)
    expect(life).toBeLessThanOrEqual(DAY_MS + 60_000)
    const read = await server.call("GET", `/agents/${agent.id}`)
    expect(read.status).toBe(200)
    expect(read.json).toEqual(agent)
  })

  it("AG-01: create for an unknown customer is 404 USER_NOT_FOUND, for a deleted one 410 CUSTOMER_DELETED", async () => {
    const body = (customerId: string) => ({ name: "x", customerId, policy: openAgentPolicy() })
    expectError(await server.call("POST", "/agents", body(UNKNOWN_CUSTOMER)), 404, "USER_NOT_FOUND")
    const gone = await onboardCustomer(server)
    expect((await server.call("DELETE", `/customers/${gone.id}`)).status).toBe(200)
    expectError(await server.call("POST", "/agents", body(gone.id)), 410, "CUSTOMER_DELETED")
    const listed = await server.call("GET", `/agents?customerId=${gone.id}`)
    expect(listed.json.data).toEqual([])
  })

  it("AG-03: each broken policy rule is 400 INVALID_INPUT naming its field, all at once, and nothing is stored", async () => {
    const customer = await onboardCustomer(server, { currencies: ["USD", "EUR"] })
    const post = (policy: unknown, name: unknown = "x") =>
      server.call("POST", "/agents", { name, customerId: customer.id, policy })
    const open = openAgentPolicy()
    // The service's rules: the threshold's currency, accounts of this customer, one rule per account.
    expectInvalid(
      await post({
        ...open,
        approvalThresholds: { amount: 100 },
        accountRestrictions: {
          allowedAccountIds: [customer.accounts.USD, bob.accounts.USD, "InternalAccount:nope"],
          accountRules: [
            { accountId: customer.accounts.EUR, executionMode: "APPROVAL_REQUIRED" },
            { accountId: customer.accounts.EUR, perTransactionLimit: 5 },
            { accountId: ada.accounts.EUR }
          ]
        }
      }),
      [
        "policy.approvalThresholds.currency",
        "policy.accountRestrictions.allowedAccountIds.1",
        "policy.accountRestrictions.allowedAccountIds.2",
        "policy.accountRestrictions.accountRules.1.accountId",
        "policy.accountRestrictions.accountRules.2.accountId"
      ]
    )
    // The schema's: an unknown currency, a negative or fractional limit, an unknown permission or mode, a missing
    // field, a name out of 1..255.
    const schemaCases: ReadonlyArray<[unknown, unknown?]> = [
      [{ ...open, spendingLimits: { ...open.spendingLimits, currency: "XXX" } }],
      [{ ...open, spendingLimits: { ...open.spendingLimits, perTransactionLimit: -1 } }],
      [{ ...open, spendingLimits: { ...open.spendingLimits, dailyLimit: 1.5 } }],
      [{ ...open, spendingLimits: { ...open.spendingLimits, dailyTransactionLimit: -2 } }],
      [{ ...open, permissions: ["MOVE_EVERYTHING"] }],
      [{ ...open, defaultExecutionMode: "SOMETIMES" }],
      [{ permissions: open.permissions, defaultExecutionMode: "AUTO" }],
      [{ ...open, approvalThresholds: { currency: "USD", amount: -5 } }],
      [open, ""],
      [open, "n".repeat(256)]
    ]
    for (const [policy, name] of schemaCases) expectError(await post(policy, name ?? "x"), 400, "INVALID_INPUT")
    const listed = await server.call("GET", `/agents?customerId=${customer.id}`)
    expect(listed.json.data).toEqual([])
    // A threshold with its currency and accounts of this customer are fine.
    const fine = await post({
      ...open,
      approvalThresholds: { currency: "EUR", amount: 100 },
      accountRestrictions: {
        allowedAccountIds: [customer.accounts.USD],
        accountRules: [{ accountId: customer.accounts.EUR, perTransactionLimit: null }]
      }
    })
    expect(fine.status, JSON.stringify(fine.json)).toBe(201)
  })

  // ---- list and get ----

  it("AG-07: the list filters by customer, pause and connection, and pages with a cursor", async () => {
    const carol = await onboardCustomer(server)
    const first = await createAgent(server, carol.id, { name: "first" })
    const second = await createAgent(server, carol.id, { name: "second" })
    const third = await createAgent(server, carol.id, { name: "third" })
    await redeemToken(server, second.code)
    expect((await server.call("PATCH", `/agents/${third.agentId}`, { isPaused: true })).status).toBe(200)
    const list = (query: string) => server.call("GET", `/agents?customerId=${carol.id}${query}`)

    const all = await list("&sortOrder=asc")
    expect(ids(all)).toEqual([first.agentId, second.agentId, third.agentId])
    expect(ids(await list("&isConnected=true"))).toEqual([second.agentId])
    expect(ids(await list("&isConnected=false&sortOrder=asc"))).toEqual([first.agentId, third.agentId])
    expect(ids(await list("&isPaused=true"))).toEqual([third.agentId])
    expect(ids(await list("&isPaused=false&isConnected=false"))).toEqual([first.agentId])
    const connected = (await list("&isConnected=true")).json.data[0]
    expect(connected).toMatchObject({ isConnected: true, name: "second" })
    expect(ids(await list(`&createdAfter=${encodeURIComponent(all.json.data[0].createdAt)}&sortOrder=asc`))).toEqual(
      all.json.data
        .slice(1)
        .filter((a: { createdAt: string }) => a.createdAt > all.json.data[0].createdAt)
        .map((a: { id: string }) => a.id)
    )
    expect(ids(await server.call("GET", `/agents?customerId=${bob.id}`))).not.toContain(first.agentId)

    const seen: Array<string> = []
    let cursor = ""
    for (let page = 0; page < 5; page++) {
      const r = await list(`&limit=1&sortOrder=asc${cursor}`)
      expect(r.status).toBe(200)
      expect(r.json.data).toHaveLength(1)
      seen.push(...ids(r))
      if (!r.json.hasMore) break
      cursor = `&cursor=${encodeURIComponent(r.json.nextCursor)}`
    }
    expect(seen).toEqual([first.agentId, second.agentId, third.agentId])
    expectError(await list("&cursor=not-a-cursor"), 400, "INVALID_INPUT")
    expectError(await list("&isPaused=maybe"), 400, "INVALID_INPUT")
  })

  it("AG-08: an unknown agent is 404 REFERENCE_NOT_FOUND on every platform route", async () => {
    const unknown = "Agent:01234567-89ab-7def-8123-456789abcdef"
    expectError(await server.call("GET", `/agents/${unknown}`), 404, "REFERENCE_NOT_FOUND")
    expectError(await server.call("PATCH", `/agents/${unknown}`, { name: "x" }), 404, "REFERENCE_NOT_FOUND")
    expectError(
      await server.call("PATCH", `/agents/${unknown}/policy`, { defaultExecutionMode: "AUTO" }),
      404,
      "REFERENCE_NOT_FOUND"
    )
    expectError(await server.call("POST", `/agents/${unknown}/device-codes`), 404, "REFERENCE_NOT_FOUND")
    expectError(await server.call("DELETE", `/agents/${unknown}`), 404, "REFERENCE_NOT_FOUND")
  })

  // ---- PATCH ----

  it("AG-09, AG-10: PATCH renames and pauses; an empty body is 400; a paused agent's writes are 403, reads 200", async () => {
    const { agentId, accessToken } = await connectedAgent(server, ada.id)
    const renamed = await server.call("PATCH", `/agents/${agentId}`, { name: "Treasurer" })
    expect(renamed.status).toBe(200)
    expect(renamed.json).toMatchObject({ id: agentId, name: "Treasurer", isPaused: false, isConnected: true })
    expect(renamed.json.updatedAt >= renamed.json.createdAt).toBe(true)
    expectError(await server.call("PATCH", `/agents/${agentId}`, {}), 400, "INVALID_INPUT")
    expectError(await server.call("PATCH", `/agents/${agentId}`, { name: "" }), 400, "INVALID_INPUT")

    const paused = await server.call("PATCH", `/agents/${agentId}`, { isPaused: true })
    expect(paused.json).toMatchObject({ name: "Treasurer", isPaused: true })
    const call = bearer(accessToken)
    expect((await call("GET", "/agents/me")).json.isPaused).toBe(true)
    const write = await call("POST", "/agents/me/quotes", quoteBody(ada.accounts.USD!, ada.accounts.EUR!, 100))
    expectError(write, 403, "FORBIDDEN")
    expect(write.json.details.reason).toBe("AGENT_PAUSED")
    const resumed = await server.call("PATCH", `/agents/${agentId}`, { isPaused: false })
    expect(resumed.json.isPaused).toBe(false)
    expect((await call("GET", "/agents/me")).json.isPaused).toBe(false)
  })

  it("AG-12: a policy PATCH changes only what it names; null clears a limit; the result's rules are checked", async () => {
    const { agentId } = await createAgent(server, ada.id, {
      policy: {
        ...openAgentPolicy(),
        defaultExecutionMode: "APPROVAL_REQUIRED",
        spendingLimits: { currency: "USD", perTransactionLimit: 10_000, dailyLimit: 50_000, monthlyLimit: 200_000 },
        approvalThresholds: { currency: "USD", amount: 5_000 }
      }
    })
    const patch = (body: unknown) => server.call("PATCH", `/agents/${agentId}/policy`, body)
    const changed = await patch({ spendingLimits: { dailyLimit: null, perTransactionLimit: 20_000 } })
    expect(changed.status, JSON.stringify(changed.json)).toBe(200)
    expect(changed.json.policy).toEqual({
      ...openAgentPolicy(),
      defaultExecutionMode: "APPROVAL_REQUIRED",
      spendingLimits: { currency: "USD", perTransactionLimit: 20_000, dailyLimit: null, monthlyLimit: 200_000 },
      approvalThresholds: { currency: "USD", amount: 5_000 }
    })
    const modes = await patch({ defaultExecutionMode: "AUTO", permissions: ["VIEW_TRANSACTIONS"] })
    expect(modes.json.policy).toMatchObject({
      permissions: ["VIEW_TRANSACTIONS"],
      defaultExecutionMode: "AUTO",
      spendingLimits: { currency: "USD", perTransactionLimit: 20_000, monthlyLimit: 200_000 },
      approvalThresholds: { currency: "USD", amount: 5_000 }
    })
    // The merged policy obeys the rules: another customer's account, a threshold without its currency.
    expectInvalid(await patch({ accountRestrictions: { allowedAccountIds: [bob.accounts.USD] } }), [
      "accountRestrictions.allowedAccountIds.0"
    ])
    expectInvalid(await patch({ approvalThresholds: { amount: 10 } }), ["approvalThresholds.currency"])
    expectError(await patch({}), 400, "INVALID_INPUT")
    expect((await server.call("GET", `/agents/${agentId}`)).json.policy).toEqual(modes.json.policy)
  })

  it("AG-12 (Q8): a currency change recasts the limits not given (rounded down) and the day's usage (rounded up)", async () => {
    const { agentId } = await createAgent(server, ada.id, {
      policy: {
        ...openAgentPolicy(),
        spendingLimits: { currency: "USD", perTransactionLimit: 10_001, dailyLimit: 50_000, monthlyLimit: 200_000 }
      }
    })
    // 1 001 USD cents spent today (the counters an execution adds to).
    const now = isoOf(Date.now())
    const keys = usageKeys(agentId, "USD", now)
    const { counters } = server.store
    await Effect.runPromise(
      Effect.all([
        counters.add(keys.daySpend, 1_001),
        counters.add(keys.monthSpend, 1_001),
        counters.add(keys.dayCount, 1)
      ])
    )
    const r = await server.call("PATCH", `/agents/${agentId}/policy`, {
      spendingLimits: { currency: "EUR", monthlyLimit: 100_000 }
    })
    expect(r.status, JSON.stringify(r.json)).toBe(200)
    // USD → EUR at the sandbox's 0.92: 10 001 → 9 200.92 → 9 200 (down), 50 000 → 46 000; 1 001 → 920.92 → 921 (up).
    expect(r.json.policy.spendingLimits).toEqual({
      currency: "EUR",
      perTransactionLimit: 9_200,
      dailyLimit: 46_000,
      monthlyLimit: 100_000
    })
    expect(r.json.usage).toMatchObject({ dailySpend: 921, monthlySpend: 921, dailyTransactionCount: 1 })
    expect((await server.call("GET", `/agents/${agentId}`)).json.usage).toEqual(r.json.usage)
  })

  // ---- the agent's profile ----

  it("AG-24: GET /agents/me answers the redeemed agent as the platform sees it", async () => {
    const { agentId, accessToken } = await connectedAgent(server, ada.id)
    const me = await bearer(accessToken)("GET", "/agents/me")
    expect(me.status).toBe(200)
    expect(me.json).toEqual((await server.call("GET", `/agents/${agentId}`)).json)
    expect(me.json).toMatchObject({ id: agentId, customerId: ada.id, isConnected: true })
  })

  // ---- delete ----

  it("AG-11: DELETE is 204; the very next Bearer call is 401; GET, PATCH, codes and a second DELETE are 404", async () => {
    const { agentId, accessToken } = await connectedAgent(server, ada.id)
    const call = bearer(accessToken)
    expect((await call("GET", "/agents/me")).status).toBe(200)
    const deleted = await server.call("DELETE", `/agents/${agentId}`)
    expect(deleted.status).toBe(204)
    const after = await call("GET", "/agents/me")
    expectError(after, 401, "UNAUTHORIZED")
    expect(after.headers.get("www-authenticate")).toBe('Bearer realm="paycore"')
    expectError(await server.call("GET", `/agents/${agentId}`), 404, "REFERENCE_NOT_FOUND")
    expectError(await server.call("PATCH", `/agents/${agentId}`, { name: "x" }), 404, "REFERENCE_NOT_FOUND")
    expectError(await server.call("POST", `/agents/${agentId}/device-codes`), 404, "REFERENCE_NOT_FOUND")
    expectError(await server.call("DELETE", `/agents/${agentId}`), 404, "REFERENCE_NOT_FOUND")
    expect(ids(await server.call("GET", `/agents?customerId=${ada.id}&limit=100`))).not.toContain(agentId)
  })

  it("AG-11 (Q11): delete invalidates the unredeemed code and fails the held actions, their quotes expired", async () => {
    const customer = await payer(server)
    const unconnected = await createAgent(server, customer.id)
    expect((await server.call("DELETE", `/agents/${unconnected.agentId}`)).status).toBe(204)
    expect((await storedCode(server, unconnected.code))?.state).toBe("INVALIDATED")
    expectError(await redeem(server, unconnected.code), 400, "EXPIRED")

    const held = await seedAgentOf(server, customer.id, agentPolicy({ defaultExecutionMode: "APPROVAL_REQUIRED" }))
    const quote = await agentQuote(server, held, payment(customer.accounts.USD!, customer.usdPayee, 1_000))
    const pending = await execute(server, held, quote.id)
    expect(pending.json.status, JSON.stringify(pending.json)).toBe("PENDING_APPROVAL")
    const rejected = await insertAction(server, held.record, { status: "REJECTED" })

    expect((await server.call("DELETE", `/agents/${held.agentId}`)).status).toBe(204)
    const actions = new Map((await actionsOf(server, held.agentId)).map((a) => [a.id, a]))
    expect(actions.get(pending.json.id)).toMatchObject({ status: "FAILED", failureReason: "AGENT_DELETED" })
    expect(actions.get(pending.json.id)?.openSlot).toBeUndefined()
    expect(actions.get(rejected.id)?.status).toBe("REJECTED")
    expect((await server.call("GET", `/quotes/${quote.id}`)).json.status).toBe("EXPIRED")
    // The platform can no longer decide it: the agent is gone.
    expectError(
      await server.call("POST", `/agents/${held.agentId}/actions/${pending.json.id}/approve`),
      404,
      "REFERENCE_NOT_FOUND"
    )
  })
})
