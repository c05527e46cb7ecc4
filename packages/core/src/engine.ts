import { Layer } from "effect"
import { Accounts, OwnershipVerification } from "./accounts/service.ts"
import { AgentActions, AgentScope, Agents } from "./agents/service.ts"
import { cardFundingSourcesLayer } from "./cards/funding-sources.ts"
import { CardNetwork, CardSimulations, Cards, CardsWorker } from "./cards/service.ts"
import { Customers } from "./customers/service.ts"
import { Invitations } from "./invitations/service.ts"
import { BulkImports, Documents, Onboarding } from "./onboarding/service.ts"
import { Discoveries, PlatformConfigService, Tokens } from "./platform/service.ts"
import { Quotes } from "./quotes/service.ts"
import { Sca } from "./sca/service.ts"
import { Stablecoins, StablecoinsWorker } from "./stablecoins/service.ts"
import { approvalRepliesLayer } from "./transactions/approvals.ts"
import { quotePaymentsLayer } from "./transactions/execute.ts"
import { Transactions } from "./transactions/service.ts"
import { WalletAuth } from "./wallet-auth/service.ts"
import { WebhookDispatcher, WebhookSecrets } from "./webhooks/service.ts"

/**
 * `Quotes` and `Transactions` wired together: quotes execute through `QuotePayments`, which the transactions
 * context implements (transactions depend on quotes, never the other way).
 */
export const PaymentsLayer = Transactions.layer.pipe(
  Layer.provideMerge(Quotes.layer),
  Layer.provide(quotePaymentsLayer)
)

/** The cards context's services (issue 15): simulations deliver to the card network. */
export const CardsLayer = Layer.mergeAll(Cards.layer, CardSimulations.layer, CardsWorker.layer).pipe(
  Layer.provideMerge(CardNetwork.layer)
)

/** The agents context's services (issue 16): agents act through quotes and transactions, above them. */
export const AgentsLayer = Layer.mergeAll(Agents.layer, AgentActions.layer, AgentScope.layer)

/**
 * Every service of the engine over its ports. Provide a Store, the ports (Rail, FxRates, Directory, Notifier,
 * KycProvider, DocumentStore, WebhookTransport, WebhookSigner) and Ids to get a running engine.
 */
export const EngineLayer = Layer.mergeAll(
  Tokens.layer,
  Discoveries.layer,
  Onboarding.layer,
  Documents.layer,
  BulkImports.layer,
  AgentsLayer.pipe(Layer.provideMerge(PaymentsLayer)),
  // The platform's replies to INCOMING_PAYMENT.PENDING decide incoming approvals (WH-21): transactions hands the
  // dispatcher its handler (webhooks, the bottom layer, imports nothing above it).
  WebhookDispatcher.layer.pipe(Layer.provideMerge(approvalRepliesLayer)),
  WebhookSecrets.layer,
  // Delegated keys name the funding sources of real cards (W-42 … W-47).
  WalletAuth.layer.pipe(Layer.provide(cardFundingSourcesLayer)),
  OwnershipVerification.layer,
  Sca.layer,
  CardsLayer,
  Invitations.layer,
  Stablecoins.layer,
  StablecoinsWorker.layer
).pipe(
  Layer.provideMerge(Customers.layer),
  // Below WalletAuth: a wallet's privacy update answers the account as Accounts shows it.
  Layer.provideMerge(Accounts.layer),
  Layer.provideMerge(PlatformConfigService.layer)
)

export type Engine = Layer.Success<typeof EngineLayer>
