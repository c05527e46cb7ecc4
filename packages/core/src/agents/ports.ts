import { Effect } from "effect"
import { Accounts } from "../accounts/service.ts"
import { Ids } from "../ports/ids.ts"
import { Store } from "../ports/store.ts"
import { Quotes } from "../quotes/service.ts"
import type {
  Conflict,
  Forbidden,
  InvalidInput,
  LimitExceeded,
  NotFound,
  Refused,
  StoreError
} from "../shared/errors.ts"
import { type ScaPaymentPorts, scaPaymentPorts } from "../transactions/ports.ts"
import { Transactions } from "../transactions/service.ts"

/**
 * What the agents' use cases run on, resolved once when a service's layer is built (as `CardPorts`). The services
 * of lower contexts are used for what they already do for the platform (quote pricing, account reads, transaction
 * reads); the engine's settings are the fiber's (`commandEnv`), read per command; money moves through the
 * `transactions` seams inside the agent's own store transaction (execution.ts), over `payments`.
 */
export interface AgentPorts {
  readonly store: Store["Service"]
  readonly ids: Ids["Service"]
  readonly quotes: Quotes["Service"]
  readonly accounts: Accounts["Service"]
  readonly transactions: Transactions["Service"]
  /** The payment ports (store, ids, rail, SCA challenges) the execute and transfer-in steps run on. */
  readonly payments: ScaPaymentPorts
}

/** Every refusal an agents operation can answer (their HTTP statuses are in packages/http/src/errors.ts). */
export type AgentsError = InvalidInput | NotFound | Refused | Forbidden | Conflict | LimitExceeded | StoreError

/** The ports of every agents service, read once when its layer is built. */
export const agentPorts = Effect.gen(function* () {
  const ports: AgentPorts = {
    store: yield* Store,
    ids: yield* Ids,
    quotes: yield* Quotes,
    accounts: yield* Accounts,
    transactions: yield* Transactions,
    payments: yield* scaPaymentPorts
  }
  return ports
})
