import type { Repositories } from "@paycore/core"
import { observeTransactions, Store } from "@paycore/core"
import { Effect, Layer } from "effect"
import { accountRepositories } from "./accounts.ts"
import { agentRepositories } from "./agents.ts"
import { cardRepositories } from "./cards.ts"
import { collectionsOf } from "./collection.ts"
import { customerRepositories } from "./customers.ts"
import { idempotencyRepositories, makeCounters } from "./idempotency.ts"
import { invitationRepositories } from "./invitations.ts"
import { ledgerRepositories } from "./ledger.ts"
import { onboardingRepositories } from "./onboarding.ts"
import { platformRepositories } from "./platform.ts"
import { quoteRepositories } from "./quotes.ts"
import { scaRepositories } from "./sca.ts"
import { stablecoinRepositories } from "./stablecoins.ts"
import { timelineRepositories } from "./timelines.ts"
import { makeTransaction, UndoJournal } from "./transaction.ts"
import { transactionRepositories } from "./transactions.ts"
import { walletAuthRepositories } from "./wallet-auth.ts"
import { webhookRepositories } from "./webhooks.ts"

export { documentStoreLayer, makeMemoryDocumentStore } from "./document-store.ts"

/**
 * An in-memory Store for tests and embedding. Transactions are serialized by one lock and
 * rolled back from an undo log, so a failed command leaves no partial write and no outbox event.
 * Each context's repositories are in their own module; they share the undo journal.
 */
export const makeMemoryStore = Effect.sync(() => {
  const journal = new UndoJournal()
  const counters = makeCounters(journal)
  const collection = collectionsOf(journal)
  const { transactionRows, transactions } = transactionRepositories(collection)
  const { customers } = customerRepositories(collection)
  const repositories: Repositories = {
    ...platformRepositories(collection, journal),
    customers,
    ...accountRepositories(collection, customers),
    ...quoteRepositories(collection, transactionRows, customers),
    transactions,
    ...onboardingRepositories(collection, journal),
    ...walletAuthRepositories(collection),
    ...scaRepositories(collection),
    ...cardRepositories(collection),
    ...agentRepositories(collection),
    ...invitationRepositories(collection),
    ...stablecoinRepositories(collection),
    ...timelineRepositories(collection),
    ...ledgerRepositories(journal, counters),
    ...webhookRepositories(collection, journal),
    ...idempotencyRepositories(journal, counters)
  }
  return Store.of({
    ...repositories,
    transaction: observeTransactions(makeTransaction(journal), { store: "memory", reruns: false }),
    pipelines: false
  })
})

export const layer: Layer.Layer<Store> = Layer.effect(Store, makeMemoryStore)
