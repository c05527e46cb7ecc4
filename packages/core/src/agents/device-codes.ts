import { Effect, Result } from "effect"
import { type CommandEnv, commandEnv } from "../shared/engine-config.ts"
import type { StoreError } from "../shared/errors.ts"
import { transition } from "../shared/machine.ts"
import { callerKey } from "../shared/miss-budget.ts"
import { isoAfter, isoOf } from "../shared/time.ts"
import type { Steps } from "../shared/tracing.ts"
import { dieOnUnique } from "../transactions/moves.ts"
import {
  ACCESS_TOKEN_RANDOM_BYTES,
  DEVICE_CODE_RANDOM_BYTES,
  deviceCodeDigest,
  newAccessToken,
  newDeviceCode,
  normalizeDeviceCode,
  redeemMinute,
  secondsToNextMinute
} from "./codes.ts"
import {
  agentAlreadyConnected,
  agentNotFound,
  deviceCodeExpired,
  deviceCodeNotFound,
  deviceCodeRedeemed,
  redeemRateLimited
} from "./errors.ts"
import { asDefects } from "./execution.ts"
import { liveAgent } from "./live-agent.ts"
import { type AgentDeviceCodeEvent, agentDeviceCodeMachine } from "./machine.ts"
import {
  type AgentDeviceCode,
  type AgentDeviceCodeRecord,
  type AgentDeviceCodeRedeemResponse,
  type AgentDeviceCodeStatusResponse,
  agentCounters
} from "./model.ts"
import type { AgentPorts, AgentsError } from "./ports.ts"
import { toAgentDeviceCode } from "./views.ts"

// Device codes (slice A, RFC 8628 in spirit; docs/design/agents.md section 3 steps 2-4). A code is stored only as the
// SHA-256 of its normalized form, and the Bearer token a redemption makes only as its selector and the SHA-256 of its
// verifier: neither the code (after its issue's answer) nor the token (after the redemption's) is kept anywhere.

/**
 * A new `ISSUED` code for `agentId` living `agentDeviceCodeSeconds`, stored in the caller's transaction; the code in
 * clear is in the answer only. Two codes with one digest are a 1 in 27^8 draw: a defect, not an answer.
 */
export function* issueDeviceCodeSteps(
  ports: AgentPorts,
  agentId: AgentDeviceCodeRecord["agentId"],
  env: CommandEnv
): Steps<AgentDeviceCode, StoreError> {
  const { code, codeSha256 } = newDeviceCode(yield* ports.ids.randomHex(DEVICE_CODE_RANDOM_BYTES))
  const now = isoOf(env.nowMs)
  const record: AgentDeviceCodeRecord = {
    id: yield* ports.ids.make("AgentDeviceCode"),
    agentId,
    codeSha256,
    state: "ISSUED",
    expiresAt: isoAfter(env.nowMs, env.settings.agentDeviceCodeSeconds),
    createdAt: now,
    updatedAt: now
  }
  yield* dieOnUnique(ports.store.agentDeviceCodes.insert(record))
  return toAgentDeviceCode(record, code)
}

/** A code's move (`REDEEM`, `INVALIDATE`) saved in the caller's transaction, the code locked. */
function* moveCodeSteps(
  ports: AgentPorts,
  code: AgentDeviceCodeRecord,
  event: AgentDeviceCodeEvent,
  now: string
): Steps<AgentDeviceCodeRecord, StoreError> {
  const move = transition(agentDeviceCodeMachine, code.state, event)
  if (Result.isFailure(move)) return yield* Effect.die(move.failure)
  const next: AgentDeviceCodeRecord = {
    ...code,
    state: move.success.to,
    ...(event === "REDEEM" ? { redeemedAt: now } : {}),
    updatedAt: now
  }
  yield* dieOnUnique(ports.store.agentDeviceCodes.update(next))
  return next
}

/** Every `ISSUED` code of the agent `INVALIDATE`d (a newer code, or the agent's delete), under the agent's lock. */
export function* invalidateIssuedSteps(ports: AgentPorts, agentId: string, now: string): Steps<void, StoreError> {
  // Each invalidated code leaves the filter: the first page until none is left (there is at most one, by this).
  for (;;) {
    const issued = yield* ports.store.agentDeviceCodes.list(
      { agentId, states: ["ISSUED"] },
      { limit: 100, sortOrder: "asc" }
    )
    if (issued.data.length === 0) return
    for (const row of issued.data) {
      const code = yield* ports.store.agentDeviceCodes.getForUpdate(row.id)
      if (code?.state === "ISSUED") yield* moveCodeSteps(ports, code, "INVALIDATE", now)
    }
  }
}

/**
 * `POST /agents/{agentId}/device-codes` (AG-13): under the agent's lock, 404 for an unknown or deleted agent, 409
 * `CONFLICT` while it is connected (design Q12: reinstalling is delete and create); every unredeemed code is
 * invalidated and a new one issued (answered in clear, once).
 */
export const createDeviceCode = (ports: AgentPorts, agentId: string): Effect.Effect<AgentDeviceCode, AgentsError> =>
  asDefects(
    Effect.gen(function* () {
      const { store } = ports
      const env = yield* commandEnv
      return yield* store.transaction(
        Effect.gen(function* () {
          const agent = yield* liveAgent(yield* store.agents.getForUpdate(agentId), agentId)
          if (agent.tokenSelector !== undefined) return yield* agentAlreadyConnected(agent.id)
          yield* invalidateIssuedSteps(ports, agent.id, isoOf(env.nowMs))
          return yield* issueDeviceCodeSteps(ports, agent.id, env)
        })
      )
    })
  )

/** The stored code a typed one stands for (case, spaces, dashes and the prefix do not matter); none: `undefined`. */
const findCode = (ports: AgentPorts, normalized: string) =>
  ports.store.agentDeviceCodes.findUnique("codeSha256", deviceCodeDigest(normalized))

/**
 * `GET /agents/device-codes/{code}/status` (AG-14): whether the code was redeemed (an invalidated or expired one reads
 * `false`); 404 for a code no agent was given.
 */
export const deviceCodeStatus = Effect.fnUntraced(function* (
  ports: AgentPorts,
  code: string
): Effect.fn.Return<AgentDeviceCodeStatusResponse, AgentsError> {
  const normalized = normalizeDeviceCode(code)
  const found = normalized === undefined ? undefined : yield* findCode(ports, normalized)
  if (normalized === undefined || found === undefined) return yield* deviceCodeNotFound()
  return { code: normalized, redeemed: found.state === "REDEEMED" }
})

/**
 * `POST /agents/device-codes/{code}/redeem` (AG-15, A-08; design section 3 step 4, Q13). The route is public, so
 * guessing is budgeted per caller (issue 31 item 7, shared/miss-budget.ts; over HTTP the peer's address unless the
 * request carries a credential): once `agentRedeemMissesPerMinute` unknown codes were tried by this caller this UTC
 * minute, its every redemption is 429 `RATE_LIMITED` until the next minute (`Retry-After`), before any lookup, while
 * other callers redeem; an unknown code counts one miss of its caller and is 404. A known code is redeemed in one transaction that locks the agent, then the code:
 * already redeemed → 400 `INVALID_INPUT`; invalidated or expired → 400 `EXPIRED`; agent deleted → 404; else the code
 * `REDEEM`s and the agent keeps the new token's selector and verifier digest. Two redemptions at once: the second
 * waits on the locks and finds the code redeemed. The token is in the answer only.
 */
export const redeemDeviceCode = (
  ports: AgentPorts,
  code: string,
  caller?: string
): Effect.Effect<AgentDeviceCodeRedeemResponse, AgentsError> =>
  asDefects(
    Effect.gen(function* () {
      const { store, ids } = ports
      const env = yield* commandEnv
      const now = isoOf(env.nowMs)
      const missKey = agentCounters.redeemMisses(callerKey(caller), redeemMinute(now))
      if ((yield* store.counters.get(missKey)) >= env.settings.agentRedeemMissesPerMinute) {
        return yield* redeemRateLimited(secondsToNextMinute(env.nowMs))
      }
      const normalized = normalizeDeviceCode(code)
      const found = normalized === undefined ? undefined : yield* findCode(ports, normalized)
      if (found === undefined) {
        yield* store.counters.add(missKey, 1)
        return yield* deviceCodeNotFound()
      }
      const token = newAccessToken(yield* ids.randomHex(ACCESS_TOKEN_RANDOM_BYTES))
      return yield* store.transaction(
        Effect.gen(function* () {
          const agent = yield* store.agents.getForUpdate(found.agentId)
          const current = yield* store.agentDeviceCodes.getForUpdate(found.id)
          if (current === undefined) return yield* deviceCodeNotFound()
          if (current.state === "REDEEMED") return yield* deviceCodeRedeemed()
          if (current.state === "INVALIDATED" || env.nowMs >= Date.parse(current.expiresAt)) {
            return yield* deviceCodeExpired()
          }
          if (agent === undefined || agent.deletedAt !== undefined) return yield* agentNotFound(found.agentId)
          yield* moveCodeSteps(ports, current, "REDEEM", now)
          yield* store.agents.update({
            ...agent,
            tokenSelector: token.selector,
            tokenVerifierSha256: token.verifierSha256,
            connectedAt: now,
            updatedAt: now
          })
          const redeemed: AgentDeviceCodeRedeemResponse = {
            agentId: agent.id,
            agentName: agent.name,
            accessToken: token.token,
            policy: agent.policy
          }
          return redeemed
        })
      )
    })
  )
