/** Every group's handlers (one module per group in ./handlers/, beside its definition in ./api/), composed. */
import { Effect } from "effect"
import { accountsHandlers } from "./handlers/accounts.ts"
import { agentMeHandlers, agentsHandlers } from "./handlers/agents.ts"
import { cardsHandlers } from "./handlers/cards.ts"
import { customersHandlers } from "./handlers/customers.ts"
import { invitationsHandlers } from "./handlers/invitations.ts"
import { onboardingHandlers } from "./handlers/onboarding.ts"
import { paymentsHandlers } from "./handlers/payments.ts"
import { platformHandlers } from "./handlers/platform.ts"
import { sandboxHandlers } from "./handlers/sandbox.ts"
import { scaHandlers } from "./handlers/sca.ts"
import type { ApiHandlers, HttpObservations } from "./handlers/shared.ts"
import { stablecoinsHandlers } from "./handlers/stablecoins.ts"
import { walletAuthHandlers } from "./handlers/wallet-auth.ts"
import { webhooksHandlers } from "./handlers/webhooks.ts"

export type { HttpObservations, MissBudgetKey, MissBudgetRequest } from "./handlers/shared.ts"
export { defaultMissBudgetKey } from "./handlers/shared.ts"

/**
 * Binds every endpoint of `Api` to the core. Services are resolved once here, so a request
 * pays only for its own work. Permissions are checked before a handler runs (auth.ts).
 */
export const makeHandlers = Effect.fnUntraced(function* (observations: HttpObservations) {
  const handlers: ApiHandlers = {
    platform: yield* platformHandlers(observations),
    customers: yield* customersHandlers(),
    onboarding: yield* onboardingHandlers(),
    accounts: yield* accountsHandlers(),
    walletAuth: yield* walletAuthHandlers(),
    sca: yield* scaHandlers(),
    cards: yield* cardsHandlers(),
    agents: yield* agentsHandlers(observations),
    invitations: yield* invitationsHandlers(observations),
    stablecoins: yield* stablecoinsHandlers(),
    agentMe: yield* agentMeHandlers(),
    payments: yield* paymentsHandlers(),
    sandbox: yield* sandboxHandlers(),
    webhooks: yield* webhooksHandlers(observations)
  }
  return handlers
})
