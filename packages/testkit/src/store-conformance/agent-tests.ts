import { assert } from "@effect/vitest"
import {
  type AgentActionFilter,
  type AgentActionRecord,
  type AgentDeviceCodeFilter,
  type AgentDeviceCodeRecord,
  type AgentFilter,
  type AgentId,
  type AgentRecord,
  type QuoteId,
  Store
} from "@paycore/core"
import { Effect, Exit } from "effect"
import { assertUniqueViolation, expectList, ids } from "./assertions.ts"
import type { CollectionCase } from "./collections.ts"
import { type It, makeScope, newId, plusSeconds, type Scope, scopedId, unique } from "./ids.ts"

// ---- records: the agent of one scope ----

/** The agent a scope's device codes and actions belong to. */
export const agentOf = scopedId("Agent")

/** A 64-hex-digit SHA-256 stand-in, fresh each call. */
const sha256Hex = (): string => unique().repeat(4)

/** An agent just created: not connected, not paused, not deleted; the smallest policy. */
export const agentMinimal = (s: Scope, id: string = newId("Agent")): AgentRecord => {
  const createdAt = s.next()
  return {
    id: id as AgentId,
    name: `agent-${s.tag}`,
    customerId: s.customerId,
    platformCustomerId: `p-${s.tag}`,
    policy: {
      permissions: [],
      defaultExecutionMode: "AUTO",
      spendingLimits: { currency: "USD", perTransactionLimit: 10_000 }
    },
    isPaused: false,
    createdAt,
    updatedAt: createdAt
  }
}

/** A connected, paused, deleted agent with every policy field (cleared limits as `null`) and its own selector. */
export const agentFull = (s: Scope, id?: string): AgentRecord => {
  const minimal = agentMinimal(s, id)
  const account = newId("InternalAccount")
  return {
    ...minimal,
    name: "Trésorier ✓ bot",
    policy: {
      permissions: ["VIEW_TRANSACTIONS", "CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES"],
      defaultExecutionMode: "APPROVAL_REQUIRED",
      spendingLimits: {
        currency: "EUR",
        perTransactionLimit: 9_000_000_000_000_000,
        dailyLimit: null,
        dailyTransactionLimit: 12,
        monthlyLimit: 1_000_000
      },
      accountRestrictions: {
        allowedAccountIds: [account, newId("InternalAccount")],
        accountRules: [
          { accountId: account, executionMode: "AUTO", perTransactionLimit: null },
          { accountId: newId("InternalAccount") }
        ]
      },
      approvalThresholds: { currency: "USD", amount: 5_000 }
    },
    isPaused: true,
    tokenSelector: unique(),
    tokenVerifierSha256: sha256Hex(),
    connectedAt: plusSeconds(minimal.createdAt, 10),
    deletedAt: plusSeconds(minimal.createdAt, 20),
    updatedAt: plusSeconds(minimal.createdAt, 20)
  }
}

/** A code just issued, valid for a day. */
export const agentDeviceCodeMinimal = (s: Scope, id: string = newId("AgentDeviceCode")): AgentDeviceCodeRecord => {
  const createdAt = s.next()
  return {
    id: id as AgentDeviceCodeRecord["id"],
    agentId: agentOf(s),
    codeSha256: sha256Hex(),
    state: "ISSUED",
    expiresAt: plusSeconds(createdAt, 86_400),
    createdAt,
    updatedAt: createdAt
  }
}

/** A redeemed code (every optional field). */
export const agentDeviceCodeFull = (s: Scope, id?: string): AgentDeviceCodeRecord => {
  const minimal = agentDeviceCodeMinimal(s, id)
  return {
    ...minimal,
    state: "REDEEMED",
    redeemedAt: plusSeconds(minimal.createdAt, 30),
    updatedAt: plusSeconds(minimal.createdAt, 30)
  }
}

/** A rejected transfer-out: no quote, transaction, details or reasons. */
export const agentActionMinimal = (s: Scope, id: string = newId("AgentAction")): AgentActionRecord => {
  const createdAt = s.next()
  return {
    id: id as AgentActionRecord["id"],
    agentId: agentOf(s),
    customerId: s.customerId,
    platformCustomerId: `p-${s.tag}`,
    type: "TRANSFER_OUT",
    status: "REJECTED",
    amount: 1_000,
    currency: "USD",
    createdAt,
    updatedAt: createdAt
  }
}

/** A pending execute holding its quote's slot, with every optional field. */
export const agentActionFull = (s: Scope, id?: string): AgentActionRecord => {
  const minimal = agentActionMinimal(s, id)
  const quoteId = newId("Quote")
  return {
    ...minimal,
    type: "EXECUTE_QUOTE",
    status: "PENDING_APPROVAL",
    quoteId,
    transactionId: newId("Transaction"),
    transferDetails: {
      amount: 9_000_000_000_000_000,
      currency: "EUR",
      sourceAccountId: newId("InternalAccount"),
      destinationAccountId: newId("ExternalAccount")
    },
    amount: 9_000_000_000_000_000,
    currency: "EUR",
    approvalReason: "THRESHOLD",
    walletSignature: "30".repeat(36),
    rejectionReason: "Not this week ✋",
    failureReason: "QUOTE_EXPIRED",
    openSlot: quoteId,
    decidedAt: plusSeconds(minimal.createdAt, 60),
    updatedAt: plusSeconds(minimal.createdAt, 60)
  }
}

// ---- the collection cases ----

export const agentsCase: CollectionCase<AgentRecord, AgentFilter> = {
  name: "agents",
  of: (store) => store.agents,
  newId: () => newId("Agent"),
  full: agentFull,
  minimal: agentMinimal,
  filter: (s) => ({ customerId: s.customerId, includeDeleted: true }),
  exact: true
}

export const agentDeviceCodesCase: CollectionCase<AgentDeviceCodeRecord, AgentDeviceCodeFilter> = {
  name: "agentDeviceCodes",
  of: (store) => store.agentDeviceCodes,
  newId: () => newId("AgentDeviceCode"),
  full: agentDeviceCodeFull,
  minimal: agentDeviceCodeMinimal,
  filter: (s) => ({ agentId: agentOf(s) }),
  exact: true
}

export const agentActionsCase: CollectionCase<AgentActionRecord, AgentActionFilter> = {
  name: "agentActions",
  of: (store) => store.agentActions,
  newId: () => newId("AgentAction"),
  full: agentActionFull,
  minimal: agentActionMinimal,
  filter: (s) => ({ customerId: s.customerId }),
  exact: true
}

// ---- what agents rely on beyond a collection ----

/** The agent without its token: disconnected (or deleted, with `deletedAt`). */
const withoutToken = (agent: AgentRecord): AgentRecord => {
  const { tokenSelector: _s, tokenVerifierSha256: _v, connectedAt: _c, ...rest } = agent
  return rest
}

export const agentTests = (it: It) => {
  it.effect("AG-11, A-06: tokenSelector is unique; a deleted agent clears it, and another agent can then take it", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const selector = unique()
      const connected: AgentRecord = { ...agentMinimal(s), tokenSelector: selector, tokenVerifierSha256: sha256Hex() }
      yield* store.agents.insert(connected)
      // Agents without a token hold no selector: any number of them.
      const waiting = [agentMinimal(s), agentMinimal(s)]
      for (const row of waiting) yield* store.agents.insert(row)
      assertUniqueViolation(
        yield* Effect.flip(store.agents.insert({ ...agentMinimal(s), tokenSelector: selector })),
        "tokenSelector"
      )
      assertUniqueViolation(
        yield* Effect.flip(store.agents.update({ ...waiting[0]!, tokenSelector: selector })),
        "tokenSelector"
      )
      assert.deepStrictEqual(yield* store.agents.get(waiting[0]!.id), waiting[0], "a refused update changes nothing")
      assert.deepStrictEqual(yield* store.agents.findUnique("tokenSelector", selector), connected)

      const deleted: AgentRecord = { ...withoutToken(connected), deletedAt: s.next(), updatedAt: s.next() }
      yield* store.agents.update(deleted)
      assert.isUndefined(yield* store.agents.findUnique("tokenSelector", selector), "the token dies with the delete")
      const reconnected: AgentRecord = { ...waiting[0]!, tokenSelector: selector, connectedAt: s.next() }
      yield* store.agents.update(reconnected)
      assert.deepStrictEqual(yield* store.agents.findUnique("tokenSelector", selector), reconnected)
      assert.isUndefined(yield* store.agents.findUnique("tokenSelector", unique()))
    })
  )

  it.effect(
    "AG-07: the list filters by customer, paused, connected, created and updated; deleted ones only if asked",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const s = makeScope()
        const connected: AgentRecord = {
          ...agentMinimal(s),
          tokenSelector: unique(),
          tokenVerifierSha256: sha256Hex(),
          connectedAt: s.at(500)
        }
        const paused: AgentRecord = { ...agentMinimal(s), isPaused: true, updatedAt: s.at(600) }
        const deleted: AgentRecord = { ...agentMinimal(s), deletedAt: s.at(700), updatedAt: s.at(700) }
        const plain = agentMinimal(s)
        const elsewhere = agentMinimal(makeScope())
        for (const row of [connected, paused, deleted, plain, elsewhere]) yield* store.agents.insert(row)
        const list = store.agents.list
        const mine = { customerId: s.customerId }
        yield* expectList(list, mine, [connected, paused, plain])
        yield* expectList(list, { ...mine, includeDeleted: false }, [connected, paused, plain])
        yield* expectList(list, { ...mine, includeDeleted: true }, [connected, paused, deleted, plain])
        yield* expectList(list, { ...mine, isPaused: true }, [paused])
        yield* expectList(list, { ...mine, isPaused: false }, [connected, plain])
        yield* expectList(list, { ...mine, isConnected: true }, [connected])
        yield* expectList(list, { ...mine, isConnected: false }, [paused, plain])
        yield* expectList(list, { ...mine, isConnected: false, includeDeleted: true }, [paused, deleted, plain])
        // Created at seconds 1…4 of the scope; `paused` and `deleted` updated later.
        yield* expectList(list, { ...mine, createdAfter: connected.createdAt, createdBefore: plain.createdAt }, [
          paused
        ])
        yield* expectList(list, { ...mine, updatedAfter: s.at(100), includeDeleted: true }, [paused, deleted])
        yield* expectList(list, { ...mine, updatedBefore: s.at(100) }, [connected, plain])
        yield* expectList(list, { customerId: elsewhere.customerId }, [elsewhere])
      })
  )

  it.effect("getForUpdate holds an agent's row: concurrent read-modify-write transactions lose no write", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const agent = agentMinimal(s)
      yield* store.agents.insert(agent)
      // Each transaction appends its mark to the name it read under the lock.
      const marks = Array.from({ length: 8 }, (_, i) => String.fromCharCode(97 + i))
      yield* Effect.forEach(
        marks,
        (mark) =>
          store.transaction(
            Effect.gen(function* () {
              const locked = yield* store.agents.getForUpdate(agent.id)
              yield* Effect.yieldNow
              yield* store.agents.update({ ...locked!, name: `${locked!.name}${mark}` })
            })
          ),
        { concurrency: "unbounded" }
      )
      const name = (yield* store.agents.get(agent.id))!.name
      assert.deepStrictEqual([...name.slice(agent.name.length)].sort(), marks)
    })
  )

  it.effect("a rolled-back transaction leaves no agent, device code or action, and undoes an agent's update", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const kept = agentMinimal(s)
      yield* store.agents.insert(kept)
      const agent = agentFull(s)
      const code = agentDeviceCodeFull(s)
      const action = agentActionFull(s)
      const exit = yield* Effect.exit(
        store.transaction(
          Effect.gen(function* () {
            yield* store.agents.insert(agent)
            yield* store.agentDeviceCodes.insert(code)
            yield* store.agentActions.insert(action)
            const locked = yield* store.agents.getForUpdate(kept.id)
            yield* store.agents.update({ ...locked!, isPaused: true, tokenSelector: unique() })
            return yield* Effect.fail("abort" as const)
          })
        )
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.isUndefined(yield* store.agents.get(agent.id))
      assert.isUndefined(yield* store.agents.findUnique("tokenSelector", agent.tokenSelector!))
      assert.isUndefined(yield* store.agentDeviceCodes.get(code.id))
      assert.isUndefined(yield* store.agentDeviceCodes.findUnique("codeSha256", code.codeSha256))
      assert.isUndefined(yield* store.agentActions.get(action.id))
      assert.isUndefined(yield* store.agentActions.findUnique("openSlot", action.openSlot!))
      assert.deepStrictEqual(yield* store.agents.get(kept.id), kept)
      // The keys the rolled-back rows held are free.
      yield* store.agentActions.insert({ ...agentActionMinimal(s), openSlot: action.openSlot! })
    })
  )
}

export const agentDeviceCodeTests = (it: It) => {
  it.effect(
    "AG-13, AG-14: codeSha256 is unique; the list filters by agent and states (the ISSUED ones to invalidate)",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const s = makeScope()
        const issued = agentDeviceCodeMinimal(s)
        const redeemed = agentDeviceCodeFull(s)
        const invalidated: AgentDeviceCodeRecord = { ...agentDeviceCodeMinimal(s), state: "INVALIDATED" }
        const newer = agentDeviceCodeMinimal(s)
        const otherAgent = agentDeviceCodeMinimal(makeScope())
        for (const row of [issued, redeemed, invalidated, newer, otherAgent]) yield* store.agentDeviceCodes.insert(row)
        assertUniqueViolation(
          yield* Effect.flip(
            store.agentDeviceCodes.insert({ ...agentDeviceCodeMinimal(s), codeSha256: issued.codeSha256 })
          ),
          "codeSha256"
        )
        assert.deepStrictEqual(yield* store.agentDeviceCodes.findUnique("codeSha256", redeemed.codeSha256), redeemed)
        assert.isUndefined(yield* store.agentDeviceCodes.findUnique("codeSha256", sha256Hex()))
        const list = store.agentDeviceCodes.list
        const agentId = agentOf(s)
        yield* expectList(list, { agentId }, [issued, redeemed, invalidated, newer])
        yield* expectList(list, { agentId, states: ["ISSUED"] }, [issued, newer])
        yield* expectList(list, { agentId, states: ["REDEEMED", "INVALIDATED"] }, [redeemed, invalidated])
        yield* expectList(list, { agentId, states: [] }, [])
        yield* expectList(list, { agentId: otherAgent.agentId, states: ["ISSUED"] }, [otherAgent])
      })
  )
}

export const agentActionTests = (it: It) => {
  it.effect("AG-33: one PENDING_APPROVAL action per quote (openSlot is unique); decided ones free it", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const quoteId = newId("Quote") as QuoteId
      const pending: AgentActionRecord = {
        ...agentActionMinimal(s),
        type: "EXECUTE_QUOTE",
        status: "PENDING_APPROVAL",
        quoteId,
        openSlot: quoteId
      }
      yield* store.agentActions.insert(pending)
      assertUniqueViolation(
        yield* Effect.flip(store.agentActions.insert({ ...pending, id: newId("AgentAction") })),
        "openSlot"
      )
      assert.deepStrictEqual(yield* store.agentActions.findUnique("openSlot", quoteId), pending)
      // Actions without a slot: any number of them, on the same quote too.
      const decided = [agentActionMinimal(s), { ...agentActionMinimal(s), quoteId }]
      for (const row of decided) yield* store.agentActions.insert(row)
      const { openSlot: _slot, ...rest } = pending
      const rejected: AgentActionRecord = { ...rest, status: "REJECTED", decidedAt: s.next() }
      yield* store.agentActions.update(rejected)
      assert.isUndefined(yield* store.agentActions.findUnique("openSlot", quoteId))
      const next: AgentActionRecord = { ...pending, id: newId("AgentAction") }
      yield* store.agentActions.insert(next)
      assert.strictEqual((yield* store.agentActions.findUnique("openSlot", quoteId))?.id, next.id)
      yield* expectList(store.agentActions.list, { customerId: s.customerId }, [rejected, ...decided, next])
    })
  )

  it.effect(
    "AG-16, AG-36: the list filters by agent, customer, status and creation (endDate inclusive), either order",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const s = makeScope()
        const pendingOf = (base: AgentActionRecord): AgentActionRecord => {
          const quoteId = newId("Quote")
          return { ...base, type: "EXECUTE_QUOTE", status: "PENDING_APPROVAL", quoteId, openSlot: quoteId }
        }
        const first = pendingOf(agentActionMinimal(s))
        const approved: AgentActionRecord = { ...agentActionMinimal(s), status: "APPROVED" }
        const second = pendingOf(agentActionMinimal(s))
        const otherAgent: AgentActionRecord = pendingOf({ ...agentActionMinimal(s), agentId: newId("Agent") })
        const otherCustomer = pendingOf(agentActionMinimal(makeScope()))
        for (const row of [first, approved, second, otherAgent, otherCustomer]) yield* store.agentActions.insert(row)
        const list = store.agentActions.list
        const agentId = agentOf(s)
        const customerId = s.customerId
        yield* expectList(list, { agentId }, [first, approved, second])
        yield* expectList(list, { customerId }, [first, approved, second, otherAgent])
        yield* expectList(list, { agentId, status: "PENDING_APPROVAL" }, [first, second])
        yield* expectList(list, { customerId, status: "PENDING_APPROVAL" }, [first, second, otherAgent])
        yield* expectList(list, { agentId, status: "FAILED" }, [])
        // Created at seconds 1…4: after is strict, at-or-before inclusive.
        yield* expectList(list, { customerId, createdAfter: first.createdAt }, [approved, second, otherAgent])
        yield* expectList(list, { customerId, createdAtOrBefore: second.createdAt }, [first, approved, second])
        yield* expectList(
          list,
          {
            customerId,
            status: "PENDING_APPROVAL",
            createdAfter: first.createdAt,
            createdAtOrBefore: second.createdAt
          },
          [second]
        )
        yield* expectList(list, { agentId: otherCustomer.agentId }, [otherCustomer])
        // Newest first, paged.
        const filter = { customerId, status: "PENDING_APPROVAL" } as const
        const page = yield* list(filter, { limit: 2, sortOrder: "desc" })
        assert.deepStrictEqual(ids(page.data), ids([otherAgent, second]))
        assert.isTrue(page.hasMore)
        assert.strictEqual(page.totalCount, 3)
        const rest = yield* list(filter, { limit: 2, sortOrder: "desc", after: second.id })
        assert.deepStrictEqual(ids(rest.data), ids([first]))
        assert.isFalse(rest.hasMore)
      })
  )
}
