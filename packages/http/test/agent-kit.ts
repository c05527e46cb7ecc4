/**
 * Agents over HTTP (issue 16): agents seeded straight into the server's store with a known Bearer token (testkit
 * `seedAgent`), calls made with that token, and actions written to the store (the `/agents/me` reads of slice C need
 * actions before slice B's execute makes them).
 */
import { randomUUID } from "node:crypto"
import {
  type AgentActionRecord,
  type AgentActionStatus,
  type AgentPolicy,
  type AgentRecord,
  Ids,
  isoOf,
  Store,
  usageKeys
} from "@paycore/core"
import { openAgentPolicy, type SeededAgent, seedAgent, snapshotStore } from "@paycore/testkit"
import { Effect, Layer } from "effect"
import { expect } from "vitest"
import type { CallResult, TestServer } from "./harness.ts"

/** Runs an effect over the server's store, with fresh ids. */
export const runOn = <A, E>(server: TestServer, effect: Effect.Effect<A, E, Store | Ids>): Promise<A> =>
  Effect.runPromise(effect.pipe(Effect.provide(Layer.mergeAll(Layer.succeed(Store, server.store), Ids.layer))))

/** A connected agent of `customerId` (every permission, AUTO, generous limits unless `policy` says otherwise). */
export const agentOf = (
  server: TestServer,
  customerId: string,
  options: { readonly policy?: AgentPolicy; readonly isPaused?: boolean; readonly name?: string } = {}
): Promise<SeededAgent> => runOn(server, seedAgent({ customerId, ...options }))

/** `openAgentPolicy()` with only `permissions` (or changed by `extra`). */
export const policyWith = (permissions: AgentPolicy["permissions"], extra: Partial<AgentPolicy> = {}): AgentPolicy => ({
  ...openAgentPolicy(),
  permissions,
  ...extra
})

export type AgentCall = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>
) => Promise<CallResult>

/** Calls the API with the agent's Bearer token (and no Basic credentials). */
export const asAgent =
  (server: TestServer, agent: { readonly accessToken: string }): AgentCall =>
  (method, path, body, headers = {}) =>
    server.call(method, path, body, {
      auth: null,
      headers: { authorization: `Bearer ${agent.accessToken}`, ...headers }
    })

/** An action of `agent` written to the store (what slice B's execute would have made), its quote's if given. */
export const insertAction = (
  server: TestServer,
  agent: AgentRecord,
  options: {
    readonly status: AgentActionStatus
    readonly quoteId?: string
    readonly transactionId?: string
    readonly amount?: number
    readonly failureReason?: string
  }
): Promise<AgentActionRecord> =>
  runOn(
    server,
    Effect.gen(function* () {
      const store = yield* Store
      const now = isoOf(Date.now())
      const record: AgentActionRecord = {
        id: yield* (yield* Ids).make("AgentAction"),
        agentId: agent.id,
        customerId: agent.customerId,
        platformCustomerId: agent.platformCustomerId,
        type: "EXECUTE_QUOTE",
        status: options.status,
        amount: options.amount ?? 1000,
        currency: "USD",
        ...(options.quoteId === undefined ? {} : { quoteId: options.quoteId as AgentActionRecord["quoteId"] }),
        ...(options.transactionId === undefined
          ? {}
          : { transactionId: options.transactionId as AgentActionRecord["transactionId"] }),
        ...(options.status === "PENDING_APPROVAL"
          ? { approvalReason: "MODE" as const, openSlot: options.quoteId }
          : { decidedAt: now }),
        ...(options.failureReason === undefined ? {} : { failureReason: options.failureReason }),
        createdAt: now,
        updatedAt: now
      }
      yield* Effect.orDie(store.agentActions.insert(record))
      return record
    })
  )

/** A US payee body for `/agents/me/external-accounts` (`extra` adds `customerId` and the like). */
export const usPayeeBody = (accountNumber: string, extra: Record<string, unknown> = {}) => ({
  currency: "USD",
  accountInfo: {
    accountType: "US_ACCOUNT",
    accountNumber,
    routingNumber: "021000021",
    beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Grace Hopper" }
  },
  ...extra
})

/** Every item of an `/agents/me` list (`query` starts with `&`), following `nextCursor` page by page. */
export const everyItem = async <T = { readonly id: string }>(
  call: AgentCall,
  path: string,
  query = ""
): Promise<Array<T>> => {
  const seen: Array<T> = []
  let cursor = ""
  for (let page = 0; page < 50; page++) {
    const r = await call("GET", `${path}?limit=100${query}${cursor}`)
    expect(r.status, `${path}: ${JSON.stringify(r.json)}`).toBe(200)
    seen.push(...r.json.data)
    if (!r.json.hasMore) return seen
    cursor = `&cursor=${encodeURIComponent(r.json.nextCursor)}`
  }
  throw new Error(`${path} never ended`)
}

/**
 * Runs `act` and checks the store reads the same after it (every collection, balances, outbox, config), the day's
 * usage counters of `agentIds` included. `act` gets `key()`: an `Idempotency-Key` header of `agentId`'s scope,
 * fresh each time, under which no answer may be stored.
 */
export const expectUnchangedBy = async (
  server: TestServer,
  act: (key: () => Record<string, string>) => Promise<void>,
  options: { readonly agentId?: string; readonly agentIds?: ReadonlyArray<string> } = {}
) => {
  const keys: Array<string> = []
  const key = () => {
    const value = randomUUID()
    keys.push(`agent:${options.agentId}:${value}`)
    return { "idempotency-key": value }
  }
  const now = isoOf(Date.now())
  const counters = (options.agentIds ?? []).flatMap((id) => Object.values(usageKeys(id, "USD", now)))
  const snapshot = () =>
    Effect.runPromise(snapshotStore({ idempotency: keys, counters }).pipe(Effect.provideService(Store, server.store)))
  const before = await snapshot()
  await act(key)
  const after = await snapshot()
  for (const k of keys) expect(after.keyed[`idempotency/${k}`], k).toBeUndefined()
  expect(after).toEqual(before)
}
