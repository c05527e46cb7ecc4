/**
 * Agents made through the platform's API (issue 16, slice A): `POST /agents`, its device code redeemed over the
 * public route, and a device code's stored row found by the code (the store keeps only its digest).
 */
import {
  type AgentDeviceCodeRecord,
  type AgentPolicy,
  deviceCodeDigest,
  normalizeDeviceCode,
  Store
} from "@paycore/core"
import { openAgentPolicy, snapshotStore } from "@paycore/testkit"
import { Effect } from "effect"
import { expect } from "vitest"
import type { CallResult, TestServer } from "./harness.ts"

/** `PAYCORE-AGENT-XXXX-XXXX` over the device-code alphabet (no vowels, no 0/O/1/I/L). */
export const DEVICE_CODE = /^PAYCORE-AGENT-[23456789BCDFGHJKMNPQRSTVWXZ]{4}-[23456789BCDFGHJKMNPQRSTVWXZ]{4}$/

export interface CreatedAgent {
  readonly agentId: string
  readonly code: string
  readonly created: CallResult
}

/** `POST /agents` → 201 (`openAgentPolicy()` unless `policy`): the agent's id and its first device code. */
export const createAgent = async (
  server: TestServer,
  customerId: string,
  options: { readonly policy?: AgentPolicy; readonly name?: string } = {}
): Promise<CreatedAgent> => {
  const created = await server.call("POST", "/agents", {
    name: options.name ?? "Bookkeeper",
    customerId,
    policy: options.policy ?? openAgentPolicy()
  })
  expect(created.status, JSON.stringify(created.json)).toBe(201)
  return { agentId: created.json.agent.id, code: created.json.deviceCode.code, created }
}

/** `POST /agents/device-codes/{code}/redeem`, public (no credentials). */
export const redeem = (server: TestServer, code: string): Promise<CallResult> =>
  server.call("POST", `/agents/device-codes/${encodeURIComponent(code)}/redeem`, undefined, { auth: null })

/** A redemption that must succeed: the Bearer token it answered. */
export const redeemToken = async (server: TestServer, code: string): Promise<string> => {
  const r = await redeem(server, code)
  expect(r.status, JSON.stringify(r.json)).toBe(200)
  return r.json.accessToken
}

/** An agent created and connected: its id and token. */
export const connectedAgent = async (
  server: TestServer,
  customerId: string,
  options: { readonly policy?: AgentPolicy } = {}
): Promise<{ readonly agentId: string; readonly accessToken: string }> => {
  const { agentId, code } = await createAgent(server, customerId, options)
  return { agentId, accessToken: await redeemToken(server, code) }
}

/** The stored row of a device code, by the digest of its normalized form. */
export const storedCode = (server: TestServer, code: string): Promise<AgentDeviceCodeRecord | undefined> =>
  Effect.runPromise(
    server.store.agentDeviceCodes.findUnique("codeSha256", deviceCodeDigest(normalizeDeviceCode(code) ?? code))
  )

/** The code's life ended: its row's `expiresAt` moved to a second ago (the HTTP server runs on the real clock). */
export const expireCode = async (server: TestServer, code: string): Promise<void> => {
  const row = await storedCode(server, code)
  if (row === undefined) throw new Error(`no device code ${code}`)
  await Effect.runPromise(
    server.store.agentDeviceCodes.update({ ...row, expiresAt: new Date(Date.now() - 1000).toISOString() })
  )
}

/** Every row of every collection, as JSON (`snapshotStore`), to search for a secret. */
export const storeJson = async (server: TestServer): Promise<string> =>
  JSON.stringify(await Effect.runPromise(snapshotStore().pipe(Effect.provideService(Store, server.store))))
