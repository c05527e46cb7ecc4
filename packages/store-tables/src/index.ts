/**
 * The Store's records as tables, one description per stored resource (see describe.ts), grouped by the context that
 * owns them. Adding a resource: its description here, its migration in store-postgres's src/migrations/.
 */
import { externalAccounts, internalAccounts, ownershipChallenges } from "./accounts.ts"
import { agentActions, agentDeviceCodes, agents } from "./agents.ts"
import { cardNetworkEvents, cardReveals, cards, cardTransactions } from "./cards.ts"
import { customers } from "./customers.ts"
import type { Table } from "./describe.ts"
import { counters, idempotency } from "./idempotency.ts"
import { invitations } from "./invitations.ts"
import { ledgerBalances, ledgerTransfers } from "./ledger.ts"
import { beneficialOwners, bulkImportJobs, contactChallenges, documents, verifications } from "./onboarding.ts"
import { instanceKeys, platformConfig, tokens } from "./platform.ts"
import { lookups, quotes } from "./quotes.ts"
import { scaChallenges, scaFactorResets, scaFactors, scaSecurity, scaSessions, trustedBeneficiaries } from "./sca.ts"
import { stablecoinOperations, stablecoinProviderAccounts, stablecoins } from "./stablecoins.ts"
import { transitions } from "./timelines.ts"
import { transactionLookups, transactions } from "./transactions.ts"
import { delegatedKeys, otpChallenges, signedRequests, walletCredentials, walletSessions } from "./wallet-auth.ts"
import { outbox, outboxSubjects, webhookSecrets } from "./webhooks.ts"

export * from "./describe.ts"
export type { Counter } from "./idempotency.ts"
export { type BalanceMove, movesOfTransfer } from "./ledger.ts"
export type { InstanceKey } from "./platform.ts"
export type { TransactionLookup } from "./transactions.ts"
export type { OutboxSubject } from "./webhooks.ts"
export {
  agentActions,
  agentDeviceCodes,
  agents,
  beneficialOwners,
  bulkImportJobs,
  cardNetworkEvents,
  cardReveals,
  cards,
  cardTransactions,
  contactChallenges,
  counters,
  customers,
  delegatedKeys,
  documents,
  externalAccounts,
  idempotency,
  instanceKeys,
  internalAccounts,
  invitations,
  ledgerBalances,
  ledgerTransfers,
  lookups,
  otpChallenges,
  outbox,
  outboxSubjects,
  ownershipChallenges,
  platformConfig,
  quotes,
  scaChallenges,
  scaFactorResets,
  scaFactors,
  scaSecurity,
  scaSessions,
  signedRequests,
  stablecoinOperations,
  stablecoinProviderAccounts,
  stablecoins,
  tokens,
  transactionLookups,
  transactions,
  transitions,
  trustedBeneficiaries,
  verifications,
  walletCredentials,
  walletSessions,
  webhookSecrets
}

/** Every table of the Store. */
export const tables: ReadonlyArray<Table<any, any, any>> = [
  tokens,
  platformConfig,
  customers,
  internalAccounts,
  invitations,
  externalAccounts,
  ownershipChallenges,
  quotes,
  lookups,
  transactions,
  transactionLookups,
  transitions,
  beneficialOwners,
  verifications,
  contactChallenges,
  documents,
  bulkImportJobs,
  ledgerTransfers,
  ledgerBalances,
  outbox,
  outboxSubjects,
  webhookSecrets,
  walletCredentials,
  walletSessions,
  signedRequests,
  otpChallenges,
  delegatedKeys,
  scaChallenges,
  scaSessions,
  scaSecurity,
  scaFactors,
  trustedBeneficiaries,
  scaFactorResets,
  cards,
  cardTransactions,
  cardNetworkEvents,
  cardReveals,
  agents,
  agentDeviceCodes,
  agentActions,
  invitations,
  stablecoinProviderAccounts,
  stablecoins,
  stablecoinOperations,
  idempotency,
  counters,
  instanceKeys
]
