/** The REST surface: one `HttpApiGroup` per area in ./api/, composed here in the order of the OpenAPI document. */
import { HttpApi, OpenApi } from "effect/http-api"
import { AccountsGroup } from "./api/accounts.ts"
import { AgentMeGroup, AgentsGroup } from "./api/agents.ts"
import { CardsGroup } from "./api/cards.ts"
import { CustomersGroup } from "./api/customers.ts"
import { InvitationsGroup } from "./api/invitations.ts"
import { OnboardingGroup } from "./api/onboarding.ts"
import { PaymentsGroup } from "./api/payments.ts"
import { PlatformGroup } from "./api/platform.ts"
import { SandboxGroup } from "./api/sandbox.ts"
import { ScaGroup } from "./api/sca.ts"
import { StablecoinsGroup } from "./api/stablecoins.ts"
import { WalletAuthGroup } from "./api/wallet-auth.ts"
import { WebhooksGroup } from "./api/webhooks.ts"

export * from "./api/accounts.ts"
export * from "./api/agents.ts"
export * from "./api/cards.ts"
export * from "./api/customers.ts"
export * from "./api/invitations.ts"
export * from "./api/onboarding.ts"
export * from "./api/payments.ts"
export * from "./api/platform.ts"
export * from "./api/sandbox.ts"
export * from "./api/sca.ts"
export * from "./api/stablecoins.ts"
export * from "./api/wallet-auth.ts"
export * from "./api/webhooks.ts"

/** The interface version: the last segment of the base URL. */
export const API_VERSION = "2025-10-13"

export { SIGNED_IN_CREDENTIALS_KEY } from "./signed-in.ts"

/**
 * The whole REST surface; served under `/2025-10-13` (the listener's prefix). Typed by its groups, so the
 * declaration names them rather than spelling out every endpoint again.
 */
export const Api: HttpApi.HttpApi<
  "paycore",
  | typeof PlatformGroup
  | typeof CustomersGroup
  | typeof OnboardingGroup
  | typeof AccountsGroup
  | typeof WalletAuthGroup
  | typeof ScaGroup
  | typeof CardsGroup
  | typeof AgentsGroup
  | typeof AgentMeGroup
  | typeof PaymentsGroup
  | typeof InvitationsGroup
  | typeof StablecoinsGroup
  | typeof SandboxGroup
  | typeof WebhooksGroup
> = HttpApi.make("paycore")
  .add(PlatformGroup)
  .add(CustomersGroup)
  .add(OnboardingGroup)
  .add(AccountsGroup)
  .add(WalletAuthGroup)
  .add(ScaGroup)
  .add(CardsGroup)
  .add(AgentsGroup)
  .add(AgentMeGroup)
  .add(PaymentsGroup)
  .add(InvitationsGroup)
  .add(StablecoinsGroup)
  .add(SandboxGroup)
  .add(WebhooksGroup)
  .annotateMerge(
    OpenApi.annotations({ title: "paycore", version: API_VERSION, description: "The payments service API" })
  )
