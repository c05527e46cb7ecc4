import { type PageRequest, Store, type StoreError } from "@paycore/core"
import { Effect } from "effect"

/**
 * Everything a Store holds that can be read through the port, as plain data: every row of every collection
 * (deleted ones included), the ledger's balances, the outbox, the configuration, the webhook signing secrets, and the keyed records whose
 * keys the caller names (idempotency keys it sent, counters, contact challenges). Two snapshots of one store are
 * deep-equal exactly when nothing readable changed in between, whatever the adapter.
 */
export interface StoreSnapshot {
  readonly collections: Readonly<Record<string, ReadonlyArray<unknown>>>
  readonly balances: ReadonlyArray<unknown>
  readonly outbox: ReadonlyArray<unknown>
  readonly config: unknown
  readonly webhookSecrets: ReadonlyArray<unknown>
  readonly keyed: Readonly<Record<string, unknown>>
}

/** Keys of records the port cannot list: they are read one by one. */
export interface SnapshotKeys {
  /** Scoped idempotency keys (`platform:<key>`). */
  readonly idempotency?: Iterable<string> | undefined
  readonly counters?: Iterable<string> | undefined
  readonly contactChallenges?: Iterable<string> | undefined
}

const PAGE = 500

/** Every row of a paged list, oldest first. */
const everyRow = <T extends { readonly id: string }>(
  list: (page: PageRequest) => Effect.Effect<{ readonly data: ReadonlyArray<T>; readonly hasMore: boolean }, StoreError>
): Effect.Effect<ReadonlyArray<T>, StoreError> =>
  Effect.gen(function* () {
    const rows: Array<T> = []
    let after: string | undefined
    while (true) {
      const page = yield* list({ limit: PAGE, sortOrder: "asc", ...(after === undefined ? {} : { after }) })
      rows.push(...page.data)
      if (!page.hasMore || page.data.length === 0) return rows
      after = page.data[page.data.length - 1]!.id
    }
  })

/** Reads a snapshot of the store (see `StoreSnapshot`). Outbox `body` is read as the string it is. */
export const snapshotStore = (keys: SnapshotKeys = {}): Effect.Effect<StoreSnapshot, StoreError, Store> =>
  Effect.gen(function* () {
    const store = yield* Store
    const collections = {
      tokens: yield* everyRow((p) => store.tokens.list({ includeDeleted: true }, p)),
      customers: yield* everyRow((p) => store.customers.list({ includeDeleted: true }, p)),
      internalAccounts: yield* everyRow((p) => store.internalAccounts.list({}, p)),
      externalAccounts: yield* everyRow((p) => store.externalAccounts.list({}, p)),
      ownershipChallenges: yield* everyRow((p) => store.ownershipChallenges.list({}, p)),
      quotes: yield* everyRow((p) => store.quotes.list({}, p)),
      lookups: yield* everyRow((p) => store.lookups.list({}, p)),
      transactions: yield* everyRow((p) => store.transactions.list({}, p)),
      transitions: yield* everyRow((p) => store.transitions.list({}, p)),
      beneficialOwners: yield* everyRow((p) => store.beneficialOwners.list({}, p)),
      verifications: yield* everyRow((p) => store.verifications.list({}, p)),
      documents: yield* everyRow((p) => store.documents.list({ includeDeleted: true }, p)),
      bulkImportJobs: yield* everyRow((p) => store.bulkImportJobs.list({}, p)),
      walletCredentials: yield* everyRow((p) => store.walletCredentials.list({ includeRevoked: true }, p)),
      walletSessions: yield* everyRow((p) => store.walletSessions.list({}, p)),
      signedRequests: yield* everyRow((p) => store.signedRequests.list({}, p)),
      otpChallenges: yield* everyRow((p) => store.otpChallenges.list({}, p)),
      delegatedKeys: yield* everyRow((p) => store.delegatedKeys.list({}, p)),
      scaChallenges: yield* everyRow((p) => store.scaChallenges.list({}, p)),
      scaSessions: yield* everyRow((p) => store.scaSessions.list({ includeRevoked: true }, p)),
      scaSecurity: yield* everyRow((p) => store.scaSecurity.list({}, p)),
      scaFactors: yield* everyRow((p) => store.scaFactors.list({}, p)),
      trustedBeneficiaries: yield* everyRow((p) => store.trustedBeneficiaries.list({}, p)),
      scaFactorResets: yield* everyRow((p) => store.scaFactorResets.list({}, p)),
      cards: yield* everyRow((p) => store.cards.list({}, p)),
      cardTransactions: yield* everyRow((p) => store.cardTransactions.list({}, p)),
      cardNetworkEvents: yield* everyRow((p) => store.cardNetworkEvents.list({ includeApplied: true }, p)),
      cardReveals: yield* everyRow((p) => store.cardReveals.list({}, p)),
      agents: yield* everyRow((p) => store.agents.list({ includeDeleted: true }, p)),
      agentDeviceCodes: yield* everyRow((p) => store.agentDeviceCodes.list({}, p)),
      agentActions: yield* everyRow((p) => store.agentActions.list({}, p)),
      invitations: yield* everyRow((p) => store.invitations.list({}, p)),
      stablecoinProviderAccounts: yield* everyRow((p) => store.stablecoinProviderAccounts.list({}, p)),
      stablecoins: yield* everyRow((p) => store.stablecoins.list({}, p)),
      stablecoinOperations: yield* everyRow((p) => store.stablecoinOperations.list({}, p))
    }
    const outbox = (yield* everyRow((p) => store.outbox.list({}, p))).map((row) => ({ ...row, body: row.body }))
    const keyed: Record<string, unknown> = {}
    for (const key of keys.idempotency ?? []) keyed[`idempotency/${key}`] = yield* store.idempotency.get(key)
    for (const key of keys.counters ?? []) keyed[`counter/${key}`] = yield* store.counters.get(key)
    for (const key of keys.contactChallenges ?? []) keyed[`contact/${key}`] = yield* store.contactChallenges.get(key)
    return {
      collections,
      // The port promises no order for balances, and an all-zero balance reads as no balance (a store may create
      // the row on a read, to have a row to lock).
      balances: (yield* store.ledger.allBalances())
        .filter((b) => b.posted !== 0 || b.pendingDebits !== 0 || b.pendingCredits !== 0)
        .sort((a, b) =>
          a.account === b.account ? a.currency.localeCompare(b.currency) : a.account.localeCompare(b.account)
        ),
      outbox,
      config: yield* store.config.get(),
      webhookSecrets: yield* store.webhookSecrets.list(),
      keyed
    }
  })
