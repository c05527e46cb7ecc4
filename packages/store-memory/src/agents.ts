import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import type { Collections } from "./collection.ts"

/** Agents, their device codes and their actions. */
export const agentRepositories = (
  collection: Collections
): Pick<Repositories, "agents" | "agentDeviceCodes" | "agentActions"> => ({
  agents: collection({ table: tables.agents }),
  agentDeviceCodes: collection({ table: tables.agentDeviceCodes }),
  agentActions: collection({ table: tables.agentActions })
})
