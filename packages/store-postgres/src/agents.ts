import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { makeCollection } from "./collection.ts"
import type { Executor } from "./statements.ts"

/** Agents, their device codes and their actions. */
export const agentRepositories = (x: Executor): Pick<Repositories, "agents" | "agentDeviceCodes" | "agentActions"> => ({
  agents: makeCollection(x, tables.agents),
  agentDeviceCodes: makeCollection(x, tables.agentDeviceCodes),
  agentActions: makeCollection(x, tables.agentActions)
})
