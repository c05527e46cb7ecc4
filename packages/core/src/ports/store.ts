import { Context, Effect } from "effect"
import type {
  ExternalAccount,
  InternalAccountRecord,
  OwnershipChallengeFilter,
  OwnershipChallengeRecord,
  TrustedBeneficiaryFilter,
  TrustedBeneficiaryRecord
} from "../accounts/model.ts"
import type {
  AgentActionFilter,
  AgentActionRecord,
  AgentDeviceCodeFilter,
  AgentDeviceCodeRecord,
  AgentFilter,
  AgentRecord
} from "../agents/model.ts"
import type {
  CardFilter,
  CardNetworkEventFilter,
  CardNetworkEventRecord,
  CardRecord,
  CardRevealFilter,
  CardRevealRecord,
  CardTransactionFilter,
  CardTransactionRecord
} from "../cards/model.ts"
import type { BeneficialOwner, Customer } from "../customers/model.ts"
import type { InvitationFilter, InvitationRecord } from "../invitations/model.ts"
import type { AccountTransfers, CappedCount, Debit, LedgerBalance, LedgerTransfer } from "../ledger/model.ts"
import type { BulkImportJobRecord, ContactChallenge, DocumentRecord, Verification } from "../onboarding/model.ts"
import type { PlatformConfig, TokenRecord } from "../platform/model.ts"
import type { LookupFilter, LookupRecord, QuoteRecord, QuoteStatus } from "../quotes/model.ts"
import type {
  ScaChallengeFilter,
  ScaChallengeRecord,
  ScaFactorFilter,
  ScaFactorRecord,
  ScaFactorResetFilter,
  ScaFactorResetRecord,
  ScaSecurityFilter,
  ScaSecurityRecord,
  ScaSessionFilter,
  ScaSessionRecord
} from "../sca/model.ts"
import type { StoreError } from "../shared/errors.ts"
import type { DueCursor, DuePage, Page, PageRequest } from "../shared/paging.ts"
import type {
  ProviderAccountFilter,
  ProviderAccountRecord,
  StablecoinFilter,
  StablecoinOperationFilter,
  StablecoinOperationRecord,
  StablecoinRecord
} from "../stablecoins/model.ts"
import type { TransitionFilter, TransitionRecord } from "../timelines/model.ts"
import type { TransactionRecord } from "../transactions/model.ts"
import type {
  DelegatedKeyFilter,
  DelegatedKeyRecord,
  OtpChallengeFilter,
  OtpChallengeRecord,
  SignedRequestFilter,
  SignedRequestRecord,
  WalletCredentialFilter,
  WalletCredentialRecord,
  WalletSessionFilter,
  WalletSessionRecord
} from "../wallet-auth/model.ts"
import type { DeliveryAttempt, OutboxRecord, WebhookSecretRecord } from "../webhooks/model.ts"

/** A second row with the same value of a unique key (`index` names the key). */
export interface UniqueViolation {
  readonly _tag: "UniqueViolation"
  readonly index: string
}

/**
 * Rows of one resource, ordered by id (time-ordered UUID v7), so paging by "after this id"
 * never skips or repeats a row while rows are added. `F` is the equality filter of its list.
 */
export interface Collection<T extends { readonly id: string }, F, U extends string = never> {
  readonly get: (id: string) => Effect.Effect<T | undefined, StoreError>
  /** Like `get`, and on PostgreSQL locks the row until the transaction ends. */
  readonly getForUpdate: (id: string) => Effect.Effect<T | undefined, StoreError>
  /**
   * Like `get`, and on PostgreSQL locks the row against changes until the transaction ends, for a caller that only
   * reads it: callers that do the same share the lock (members of one commit group too), a caller changing the row
   * waits for them all (a card's authorizations against its freeze).
   */
  readonly getForShare: (id: string) => Effect.Effect<T | undefined, StoreError>
  readonly findUnique: (index: U, value: string) => Effect.Effect<T | undefined, StoreError>
  readonly insert: (row: T) => Effect.Effect<void, StoreError | UniqueViolation>
  /**
   * Inserts `rows` together (a few statements on PostgreSQL, not one per row): all of them, or none when a
   * unique key is taken (by a stored row or by another of `rows`), with the violation of one of them. It does not
   * say which row: insert them one by one for that.
   */
  readonly insertMany: (rows: ReadonlyArray<T>) => Effect.Effect<void, StoreError | UniqueViolation>
  readonly update: (row: T) => Effect.Effect<void, StoreError | UniqueViolation>
  readonly list: (filter: F, page: PageRequest) => Effect.Effect<Page<T>, StoreError>
}

/**
 * The rows a background worker acts on, as a queue ordered by their due instant (then id). A list pages by id and
 * counts every row of its filter, so a worker's pass over a backlog of due rows by lists costs in proportion to
 * the backlog's square; a page of `due` costs the rows it returns (PostgreSQL: an index walk of `(due instant, id)`,
 * whatever the planner's statistics), so the pass costs in proportion to the backlog. (The memory store, for tests
 * and small stores, sorts the rows due at each page, as its lists do.)
 */
export interface DueQueue<T, F> {
  /**
   * Up to `limit` rows matching `filter` (which holds the due bound: `dueBy`, `expiresAtOrBefore`), earliest due
   * first, after `after` in that order.
   */
  readonly due: (filter: F, limit: number, after?: DueCursor) => Effect.Effect<DuePage<T>, StoreError>
}

export interface TokenFilter {
  readonly name?: string | undefined
  readonly createdAfter?: string | undefined
  readonly createdBefore?: string | undefined
  /** Deleted tokens (with `deletedAt`) stay in the store; lists leave them out unless this is true. */
  readonly includeDeleted: boolean
}

export interface CustomerFilter {
  readonly platformCustomerId?: string | undefined
  readonly customerType?: string | undefined
  readonly region?: string | undefined
  /** Customers holding this currency. */
  readonly currency?: string | undefined
  readonly umaAddress?: string | undefined
  readonly createdAfter?: string | undefined
  readonly createdBefore?: string | undefined
  readonly updatedAfter?: string | undefined
  readonly updatedBefore?: string | undefined
  readonly includeDeleted: boolean
}

export interface InternalAccountFilter {
  readonly customerId?: string | undefined
  /** true: customers' accounts only; false: the platform's own (no customer). */
  readonly ownedByCustomer?: boolean | undefined
  readonly currency?: string | undefined
  readonly type?: string | undefined
}

export interface ExternalAccountFilter {
  readonly customerId?: string | undefined
  /** As for internal accounts. */
  readonly ownedByCustomer?: boolean | undefined
  readonly currency?: string | undefined
}

export interface QuoteFilter {
  readonly status?: string | undefined
  /** Pending quotes whose `expiresAt` is at or before this instant (the expiry worker). */
  readonly expiresAtOrBefore?: string | undefined
}

export interface TransactionFilter {
  readonly customerId?: string | undefined
  readonly platformCustomerId?: string | undefined
  /** Matches the source or destination account id. */
  readonly accountIdentifier?: string | undefined
  readonly status?: string | undefined
  readonly type?: string | undefined
  /** The reconciliation reference. */
  readonly reference?: string | undefined
  readonly createdAfter?: string | undefined
  readonly createdBefore?: string | undefined
  /** Machine states the settlement worker looks for, due at or before `dueBy`. */
  readonly states?: ReadonlyArray<string> | undefined
  readonly dueBy?: string | undefined
}

export interface OutboxFilter {
  readonly status?: string | undefined
  readonly subject?: string | undefined
  readonly type?: string | undefined
  /** Rows whose `sequence` is below this (the dispatcher's per-subject ordering check). */
  readonly sequenceBelow?: number | undefined
}

export interface BeneficialOwnerFilter {
  readonly customerId?: string | undefined
  /** The owners of any of these customers (a page of customers answered with their owners, CU-06). */
  readonly customerIds?: ReadonlyArray<string> | undefined
}

export interface VerificationFilter {
  readonly customerId?: string | undefined
  readonly verificationStatus?: string | undefined
}

export interface DocumentFilter {
  /** A customer's or beneficial owner's documents. */
  readonly documentHolder?: string | undefined
  /** Deleted documents (with `deletedAt`) stay in the store; lists leave them out unless this is true. */
  readonly includeDeleted: boolean
}

export interface BulkImportJobFilter {
  /** Jobs in one of these statuses (the sweep of abandoned jobs looks for running ones). */
  readonly statuses?: ReadonlyArray<string> | undefined
}

/** Open contact-verification codes, one per customer and channel (`ContactChallenge.key`). */
export interface ContactChallengeStore {
  readonly get: (key: string) => Effect.Effect<ContactChallenge | undefined, StoreError>
  /** Writes the challenge, replacing the one under its key. */
  readonly put: (challenge: ContactChallenge) => Effect.Effect<void, StoreError>
  /** Removes the challenge under `key` (used or void); none there is not an error. */
  readonly delete: (key: string) => Effect.Effect<void, StoreError>
}

export interface IdempotencyRecord {
  /** Scoped key: `<scope>:<Idempotency-Key>`. */
  readonly key: string
  /** Hash of method, path and body: the same key with another request is refused. */
  readonly fingerprint: string
  readonly status: number
  readonly body: string
  readonly createdAt: string
}

/** What `ledger.recordIfAvailable` did. */
export interface RecordedIfAvailable {
  /** Every debit was available and the transfers are written; `false`: nothing was written. */
  readonly recorded: boolean
  /** The debited accounts' balances before the call, in the order of its debits. */
  readonly balances: ReadonlyArray<LedgerBalance>
  /** The counts' totals before the call (0 for a key never added to), in the order of its counts. */
  readonly totals: ReadonlyArray<number>
}

export interface LedgerStore {
  /** Balances of these accounts (zeros for unknown ones), locked in a fixed order on PostgreSQL. */
  readonly balances: (
    accounts: ReadonlyArray<{ readonly account: string; readonly currency: string }>
  ) => Effect.Effect<ReadonlyArray<LedgerBalance>, StoreError>
  /** Records new transfers (POSTED or PENDING) and moves the balances. */
  readonly record: (transfers: ReadonlyArray<LedgerTransfer>) => Effect.Effect<void, StoreError>
  /**
   * Records new transfers only if each of `debits` is available (posted minus pending debits at least its amount),
   * checked and moved in one step under the balances' locks (one statement on PostgreSQL), so two such calls on one
   * account in one database transaction (two members of a commit group) each see what the other moved, with no
   * lock of its own. Answers the debited accounts' balances as they were just before, in the order of `debits`
   * (zeros for unknown accounts), and whether the transfers were recorded: nothing is written when one falls short.
   * `counts`: running totals (`counters`, distinct keys) checked and added to in the same step, locked before the
   * balances; the transfers are recorded and the counts added only if every debit is available and every count stays
   * within its cap, so two such calls of one card in one database transaction each see the other's count, and no
   * count is ever given back. Without debits and counts, `record`.
   */
  readonly recordIfAvailable: (
    transfers: ReadonlyArray<LedgerTransfer>,
    debits: ReadonlyArray<Debit>,
    counts?: ReadonlyArray<CappedCount>
  ) => Effect.Effect<RecordedIfAvailable, StoreError>
  /**
   * Resolves pending transfers: POSTED moves the money, VOIDED releases the hold. A transfer that is
   * not PENDING (already resolved) is left as it is: resolving is idempotent per transfer.
   */
  readonly resolve: (ids: ReadonlyArray<string>, outcome: "POSTED" | "VOIDED") => Effect.Effect<void, StoreError>
  readonly transfers: (reference: string) => Effect.Effect<ReadonlyArray<LedgerTransfer>, StoreError>
  /**
   * The transfers debiting or crediting `account`, newest first: at most `limit`, only those before `before` (the
   * `position` of a transfer an earlier page answered) when given. Indexed by account on PostgreSQL.
   */
  readonly accountTransfers: (
    account: string,
    limit: number,
    before?: number | undefined
  ) => Effect.Effect<AccountTransfers, StoreError>
  /** Every balance, for invariant checks and reconciliation. */
  readonly allBalances: () => Effect.Effect<ReadonlyArray<LedgerBalance>, StoreError>
}

/** A new outbox event before the store numbers it within its subject. */
export type NewOutboxRecord = Omit<OutboxRecord, "sequence">

export interface OutboxStore {
  readonly append: (records: ReadonlyArray<OutboxRecord>) => Effect.Effect<void, StoreError>
  /**
   * Appends new events in the caller's transaction, each numbered after the last `sequence` of its
   * subject, in order: `nextSequence` and `append` in one call (one round trip on PostgreSQL).
   */
  readonly appendEvents: (events: ReadonlyArray<NewOutboxRecord>) => Effect.Effect<void, StoreError>
  /**
   * Pending rows due by `now` and not leased (or whose lease ended), oldest first; leases them to `owner` until
   * `leaseUntil` (SKIP LOCKED on PostgreSQL). Without `owner` the rows are leased to no one in particular.
   */
  readonly claimDue: (
    now: string,
    limit: number,
    leaseUntil: string,
    owner?: string | undefined
  ) => Effect.Effect<ReadonlyArray<OutboxRecord>, StoreError>
  /**
   * The heartbeat: moves the lease of those of `ids` still PENDING and leased to `owner` to `leaseUntil`, and returns
   * their ids (a row another dispatcher claimed after the lease ended, or that was resolved, is not renewed).
   */
  readonly renewLeases: (
    owner: string,
    ids: ReadonlyArray<string>,
    leaseUntil: string
  ) => Effect.Effect<ReadonlyArray<string>, StoreError>
  /**
   * Lists an attempt about to be made on the row (appends it to `attempts`) if the row is still PENDING and leased to
   * `owner`, and says whether it was.
   */
  readonly beginAttempt: (owner: string, id: string, attempt: DeliveryAttempt) => Effect.Effect<boolean, StoreError>
  /** Gives back those of `ids` still PENDING and leased to `owner`, without an attempt: due again at `dueAt`. */
  readonly releaseLeases: (owner: string, ids: ReadonlyArray<string>, dueAt: string) => Effect.Effect<void, StoreError>
  readonly save: (record: OutboxRecord) => Effect.Effect<void, StoreError>
  readonly get: (id: string) => Effect.Effect<OutboxRecord | undefined, StoreError>
  /** Like `get`, and on PostgreSQL locks the row until the transaction ends (recording an attempt). */
  readonly getForUpdate: (id: string) => Effect.Effect<OutboxRecord | undefined, StoreError>
  readonly list: (filter: OutboxFilter, page: PageRequest) => Effect.Effect<Page<OutboxRecord>, StoreError>
  /** The next sequence number of events about `subject`. */
  readonly nextSequence: (subject: string) => Effect.Effect<number, StoreError>
}

/** What `getWithCustomer` reads: an internal account and the customer it belongs to. */
export interface InternalAccountWithCustomer {
  readonly account: InternalAccountRecord
  /** The account's customer (`customerId`); `undefined` for a platform account or a customer not found. */
  readonly customer: Customer | undefined
}

/** Internal accounts, and the read a quote from one begins with. */
export interface InternalAccountCollection
  extends Collection<InternalAccountRecord, InternalAccountFilter, "platformCurrency"> {
  /**
   * An account with its customer, in one round trip on PostgreSQL (the customer found by the account's id, not
   * after it); `undefined` when there is no such account. Read, not locked.
   */
  readonly getWithCustomer: (id: string) => Effect.Effect<InternalAccountWithCustomer | undefined, StoreError>
}

/** What `getForUpdateWithTransaction` reads: `customer` only when asked for. */
export interface LockedQuoteRows {
  readonly quote: QuoteRecord
  readonly transaction: TransactionRecord | undefined
  readonly customer?: Customer | undefined
}

/** Quotes, and the lock a command that moves a quote with its transaction takes. */
export interface QuoteCollection
  extends Collection<QuoteRecord, QuoteFilter, "transactionId">,
    DueQueue<QuoteRecord, QuoteFilter> {
  /**
   * A quote and its transaction (by the quote's `transactionId`), locked on PostgreSQL in that order until the
   * store transaction ends, in one round trip; `undefined` when there is no such quote. `withCustomer`: the quote's
   * customer too (read, not locked; `undefined` for a quote without one), in the same round trip.
   */
  readonly getForUpdateWithTransaction: (
    id: string,
    withCustomer?: boolean
  ) => Effect.Effect<LockedQuoteRows | undefined, StoreError>
  /**
   * Moves a quote to `status` (the one field of a quote that changes after it is created): it cannot take a
   * unique key, so a server store need not wait for its answer. A missing quote is left missing.
   */
  readonly setStatus: (id: string, status: QuoteStatus) => Effect.Effect<void, StoreError>
}

/** Transactions, and the compare-and-set a command writes one with when it needs no store transaction. */
export interface TransactionCollection
  extends Collection<TransactionRecord, TransactionFilter>,
    DueQueue<TransactionRecord, TransactionFilter> {
  /**
   * Writes `row` only if the stored row still has `expected`'s `state`, `transaction.updatedAt`,
   * `railReference`, `dueAt`, `attempts` and `stalledAt` (every write of a transaction changes one of them);
   * true when it did. One statement on PostgreSQL: no store transaction is needed around it.
   *
   * Outside a store transaction its write may be acknowledged before it is durable (PostgreSQL: committed
   * without waiting for the WAL flush): every reader sees it at once, but a crash of the database server in
   * the next moments can lose it whole. The core writes with it only what a retry redoes: the rail's reference
   * of a payout just submitted (lost, the payout is due for submission again, and the rail takes the
   * transaction id as its idempotency key: see `Rail.submit`).
   */
  readonly updateIf: (row: TransactionRecord, expected: TransactionRecord) => Effect.Effect<boolean, StoreError>
}

/** Timelines, and the write every move of a payment or card transaction makes. */
export interface TransitionCollection extends Collection<TransitionRecord, TransitionFilter> {
  /**
   * Records a move under a fresh id. Nothing can refuse it (no unique key), so a server store need not wait for its
   * answer: a move costs its command no round trip more.
   */
  readonly append: (row: TransitionRecord) => Effect.Effect<void, StoreError>
}

export interface Repositories {
  readonly tokens: Collection<TokenRecord, TokenFilter, "clientId">
  readonly customers: Collection<Customer, CustomerFilter, "platformCustomerId" | "umaAddress">
  /** `platformCurrency` is unique: one platform-owned account per currency. */
  readonly internalAccounts: InternalAccountCollection
  readonly externalAccounts: Collection<ExternalAccount, ExternalAccountFilter>
  /** One ownership challenge per external account (its id): the open one, or the last one used (AC-26). */
  readonly ownershipChallenges: Collection<OwnershipChallengeRecord, OwnershipChallengeFilter>
  readonly quotes: QuoteCollection
  /** Receiver lookups (`GET /receiver/...`), read back by the quotes that name them (`lookupId`) until they expire. */
  readonly lookups: Collection<LookupRecord, LookupFilter>
  readonly transactions: TransactionCollection
  /** The moves of payments' and card transactions' machines (timelines), listed per transaction in id order. */
  readonly transitions: TransitionCollection
  readonly beneficialOwners: Collection<BeneficialOwner, BeneficialOwnerFilter>
  readonly verifications: Collection<Verification, VerificationFilter>
  readonly contactChallenges: ContactChallengeStore
  readonly documents: Collection<DocumentRecord, DocumentFilter>
  readonly bulkImportJobs: Collection<BulkImportJobRecord, BulkImportJobFilter>
  readonly walletCredentials: Collection<WalletCredentialRecord, WalletCredentialFilter, "slot">
  readonly walletSessions: Collection<WalletSessionRecord, WalletSessionFilter, "liveKey">
  readonly signedRequests: Collection<SignedRequestRecord, SignedRequestFilter>
  readonly otpChallenges: Collection<OtpChallengeRecord, OtpChallengeFilter>
  /** `activeSlot` (the funding source of an `ACTIVE` key) is unique: one `ACTIVE` key per funding source (L-11). */
  readonly delegatedKeys: Collection<DelegatedKeyRecord, DelegatedKeyFilter, "activeSlot">
  /** `openSlot` is held while a challenge is `OPEN`: one open challenge per login, quote step or trust operation. */
  readonly scaChallenges: Collection<ScaChallengeRecord, ScaChallengeFilter, "openSlot">
  readonly scaSessions: Collection<ScaSessionRecord, ScaSessionFilter>
  /** One row per customer that failed an SCA proof (its id is the customer's). */
  readonly scaSecurity: Collection<ScaSecurityRecord, ScaSecurityFilter>
  /** `slot` is held while a factor is `ACTIVE`, `pendingSlot` while `PENDING`: one of each per customer and factor. */
  readonly scaFactors: Collection<ScaFactorRecord, ScaFactorFilter, "slot" | "pendingSlot">
  /** One row per external account a customer trusted once (its id is the account's); `status` says whether it still does. */
  readonly trustedBeneficiaries: Collection<TrustedBeneficiaryRecord, TrustedBeneficiaryFilter>
  /** Factor resets; the start limit counts a customer's rows of the last 24 h (`createdAfter`). */
  readonly scaFactorResets: Collection<ScaFactorResetRecord, ScaFactorResetFilter>
  /** `platformCardId` is unique (design Q21). */
  readonly cards: Collection<CardRecord, CardFilter, "platformCardId"> & DueQueue<CardRecord, CardFilter>
  /** `issuerTransactionToken` is unique: a network retry of one authorization finds the first decision. */
  readonly cardTransactions: Collection<CardTransactionRecord, CardTransactionFilter, "issuerTransactionToken">
  /** The inbox of network events: `issuerEventId` is unique, so an at-least-once delivery applies once. */
  readonly cardNetworkEvents: Collection<CardNetworkEventRecord, CardNetworkEventFilter, "issuerEventId"> &
    DueQueue<CardNetworkEventRecord, CardNetworkEventFilter>
  /** The audit log of reveals (CD-33): who asked; never the URL. */
  readonly cardReveals: Collection<CardRevealRecord, CardRevealFilter>
  /** `tokenSelector` is unique: a Bearer token is found by it; a deleted agent clears it (AG-11). */
  readonly agents: Collection<AgentRecord, AgentFilter, "tokenSelector">
  /** `codeSha256` (of the normalized code) is unique: a status or redeem finds its code by it. */
  readonly agentDeviceCodes: Collection<AgentDeviceCodeRecord, AgentDeviceCodeFilter, "codeSha256">
  /** `openSlot` is held while an action is `PENDING_APPROVAL`: one pending action per quote. */
  readonly agentActions: Collection<AgentActionRecord, AgentActionFilter, "openSlot">
  /** `code` is unique: a read, claim or cancel finds its invitation by it (IN-03). */
  readonly invitations: Collection<InvitationRecord, InvitationFilter, "code"> &
    DueQueue<InvitationRecord, InvitationFilter>
  /** `liveSlot` is held while a link is `ACTIVE`: one active link per provider account and environment (P-08). */
  readonly stablecoinProviderAccounts: Collection<ProviderAccountRecord, ProviderAccountFilter, "liveSlot">
  /** `registration` is unique: a token is registered once per provider, network and environment (P-10). */
  readonly stablecoins: Collection<StablecoinRecord, StablecoinFilter, "registration">
  /** `clientReference` (the provider's idempotency key) is unique: one operation per request key (P-13, C-09). */
  readonly stablecoinOperations: Collection<StablecoinOperationRecord, StablecoinOperationFilter, "clientReference"> &
    DueQueue<StablecoinOperationRecord, StablecoinOperationFilter>
  readonly ledger: LedgerStore
  readonly outbox: OutboxStore
  readonly idempotency: {
    readonly get: (key: string) => Effect.Effect<IdempotencyRecord | undefined, StoreError>
    readonly put: (record: IdempotencyRecord) => Effect.Effect<void, StoreError | UniqueViolation>
  }
  /** Running totals, e.g. a customer's daily volume per currency: `add` returns the new total. */
  readonly counters: {
    readonly get: (key: string) => Effect.Effect<number, StoreError>
    readonly add: (key: string, amount: number) => Effect.Effect<number, StoreError>
  }
  readonly config: {
    readonly get: () => Effect.Effect<PlatformConfig | undefined, StoreError>
    readonly put: (config: PlatformConfig) => Effect.Effect<void, StoreError>
  }
  /** The webhook endpoint's signing secrets (a handful: the current one and those a rotation is retiring). */
  readonly webhookSecrets: {
    /** Every stored secret, expired ones included, oldest first. */
    readonly list: () => Effect.Effect<ReadonlyArray<WebhookSecretRecord>, StoreError>
    /** Inserts or replaces the secret with this id. */
    readonly put: (record: WebhookSecretRecord) => Effect.Effect<void, StoreError>
    readonly remove: (id: string) => Effect.Effect<void, StoreError>
  }
}

/**
 * The storage port. Every write of one command, its ledger transfers and its outbox events
 * go through `transaction`: they commit together or not at all. Nested calls join the outer one.
 */
export class Store extends Context.Service<
  Store,
  Repositories & {
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreError, R>
    /**
     * Whether independent calls issued at once take fewer round trips than one after the other (a PostgreSQL
     * connection that pipelines). The core then asks for them together (`together`); else it makes them one
     * after the other, which forks no fiber.
     */
    readonly pipelines: boolean
  }
>()("paycore/ports/Store") {}

/** One step of a command: an Effect, or a plain generator of Effects (`yield*` runs either). */
export type Step<A, E> = Effect.Effect<A, E> | Generator<Effect.Effect<unknown, E>, A, any>

/**
 * Two independent parts of a command, `first` then `second`: together where the store pipelines (see
 * `pipelines`: one round trip for both), else one after the other. A plain generator: `yield*` it.
 */
export function* together<A, B, E1, E2>(
  store: Pick<Store["Service"], "pipelines">,
  first: () => Step<A, E1>,
  second: () => Step<B, E2>
): Generator<Effect.Effect<unknown, E1 | E2>, readonly [A, B], any> {
  if (store.pipelines) {
    const run = <X, E>(step: () => Step<X, E>) =>
      Effect.gen(function* () {
        return yield* step()
      })
    return yield* Effect.all([run(first), run(second)], { concurrency: 2 })
  }
  const a = yield* first()
  const b = yield* second()
  return [a, b] as const
}
