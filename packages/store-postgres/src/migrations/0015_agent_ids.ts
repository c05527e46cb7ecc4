import type { Migration } from "kysely/migration"
import { statements } from "./ddl.ts"

/**
 * Issue 16, agents (docs/design/agents.md, section 2): the agent that created a quote (`QuoteRecord.agentId`) and the
 * one that initiated a transaction (`transaction.agentId`, AG-38). Nullable: the platform's own have none.
 */
export const agentIds: Migration = {
  up: statements(`ALTER TABLE quotes ADD COLUMN agent_id text`, `ALTER TABLE transactions ADD COLUMN agent_id text`)
}
