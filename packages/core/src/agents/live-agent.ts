import { Effect } from "effect"
import { agentNotFound } from "./errors.ts"
import type { AgentRecord } from "./model.ts"
import type { AgentsError } from "./ports.ts"

/** An agent that exists and is not deleted (AG-08: a deleted agent is as unknown as one that never was). */
export const liveAgent = (record: AgentRecord | undefined, id: string): Effect.Effect<AgentRecord, AgentsError> =>
  record === undefined || record.deletedAt !== undefined ? Effect.fail(agentNotFound(id)) : Effect.succeed(record)
