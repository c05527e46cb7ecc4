import type {
  Collection,
  ContactChallenge,
  IdempotencyRecord,
  LedgerBalance,
  LedgerTransfer,
  NewOutboxRecord,
  OutboxFilter,
  OutboxRecord,
  Page,
  PageRequest,
  PlatformConfig,
  QuoteFilter,
  QuoteRecord,
  Repositories,
  StoreError,
  TransactionFilter,
  TransactionRecord,
  UniqueViolation,
  WebhookSecretRecord
} from "@paycore/core"
import { Store, toPage } from "@paycore/core"
import { Context, Effect, Layer } from "effect"

/** Undo actions of the running transaction, replayed backwards on failure. */
type UndoLog = Array<() => void>

/** Set while a fiber runs inside `transaction`; nested calls join it. */
const InTransaction = Context.Reference<boolean>("paycore/store-memory/InTransaction", {
  defaultValue: () => false
})

interface CollectionSpec<T, F> {
  readonly matches: (row: T, filter: F) => boolean
  readonly unique?: Readonly<Record<string, (row: T) => string | undefined>>
  /**
   * The memory twin of a database index on a due date, for the worker's "due by" lists: without it every
   * `processDue` pass scanned every row ever written (O(all rows) per pass, quadratic over a run).
   * `key` is a row's due instant (undefined: never due); `bound` is a filter's "due at or before" instant
   * (undefined: the filter cannot use the index). Every row matching a filter with a bound must have a
   * key at or before it; `matches` still decides, so results are exactly those of a full scan.
   */
  readonly due?: {
    readonly key: (row: T) => string | undefined
    readonly bound: (filter: F) => string | undefined
  }
}

/** A binary min-heap of strings (due instants), earliest first. */
const makeKeyHeap = () => {
  const heap: Array<string> = []
  const push = (key: string) => {
    let i = heap.push(key) - 1
    while (i > 0) {
      const parent = (i - 1) >>> 1
      if (heap[parent]! <= key) break
      heap[i] = heap[parent]!
      i = parent
    }
    heap[i] = key
  }
  /** Takes out every key at or before `bound`. */
  const popUntil = (bound: string): Array<string> => {
    const out: Array<string> = []
    while (heap.length > 0 && heap[0]! <= bound) {
      out.push(heap[0]!)
      const last = heap.pop()!
      if (heap.length === 0) break
      let i = 0
      for (;;) {
        const left = 2 * i + 1
        if (left >= heap.length) break
        const right = left + 1
        const child = right < heap.length && heap[right]! < heap[left]! ? right : left
        if (heap[child]! >= last) break
        heap[i] = heap[child]!
        i = child
      }
      heap[i] = last
    }
    return out
  }
  return { push, popUntil }
}

/** Entries per chunk of a `ChunkedMap` (the chunk being written stays small enough to be cache-friendly). */
const CHUNK_SIZE = 1024

/**
 * A string-keyed map for keys that mostly arrive in increasing order (time-ordered ids, and keys derived
 * from them), split into chunks of consecutive key ranges. One large `Map` costs several hundred ns per
 * insert once it holds a few hundred thousand entries (every insert misses the cache in a large table that
 * keeps being rehashed and lives in the old generation); here inserts go to the small newest chunk. A key
 * belongs to the last chunk whose first key is at or before it (the first chunk for smaller keys), so a
 * lookup is a binary search over the chunks' first keys and one small `Map` lookup. Any key order is
 * correct; a new chunk is started only by a key above every key so far, so chunk ranges never overlap.
 */
export class ChunkedMap<V> {
  private readonly chunkSize: number
  private readonly chunks: Array<Map<string, V>> = [new Map()]
  /** The first key of each chunk (the first chunk's is unused: smaller keys go there too). */
  private readonly firsts: Array<string> = [""]
  /** The largest key ever set (new chunks start above it). */
  private max: string | undefined = undefined

  constructor(chunkSize: number = CHUNK_SIZE) {
    this.chunkSize = chunkSize
  }

  private chunkOf(key: string): Map<string, V> {
    const firsts = this.firsts
    const n = firsts.length
    // Usually the newest chunk.
    if (n === 1 || firsts[n - 1]! <= key) return this.chunks[n - 1]!
    let lo = 1
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (firsts[mid]! <= key) lo = mid + 1
      else hi = mid
    }
    // lo: the first chunk whose first key is above `key`.
    return this.chunks[lo - 1]!
  }

  get(key: string): V | undefined {
    return this.chunkOf(key).get(key)
  }

  has(key: string): boolean {
    return this.chunkOf(key).has(key)
  }

  set(key: string, value: V): void {
    if (this.max === undefined || key > this.max) {
      const last = this.chunks[this.chunks.length - 1]!
      if (last.size >= this.chunkSize) {
        const chunk = new Map<string, V>([[key, value]])
        this.chunks.push(chunk)
        this.firsts.push(key)
        this.max = key
        return
      }
      this.max = key
    }
    this.chunkOf(key).set(key, value)
  }

  delete(key: string): boolean {
    return this.chunkOf(key).delete(key)
  }
}

/**
 * A numbered new event as the memory store keeps it: its body is the event's own, serialized when first read
 * (see `newEvent` in the core). Reads hand out plain records (`plainEvent`), which callers may spread.
 */
class StoredEvent implements OutboxRecord {
  readonly id: OutboxRecord["id"]
  readonly type: string
  readonly subject: string
  readonly sequence: number
  readonly createdAt: string
  readonly status: OutboxRecord["status"]
  readonly attempts: OutboxRecord["attempts"]
  readonly nextAttemptAt: string
  readonly leaseUntil: string | undefined
  readonly #event: NewOutboxRecord

  constructor(event: NewOutboxRecord, sequence: number) {
    this.id = event.id
    this.type = event.type
    this.subject = event.subject
    this.sequence = sequence
    this.createdAt = event.createdAt
    this.status = event.status
    this.attempts = event.attempts
    this.nextAttemptAt = event.nextAttemptAt
    this.leaseUntil = event.leaseUntil
    this.#event = event
  }

  get body(): string {
    return this.#event.body
  }
}

/** A stored outbox row as a plain record (a `StoredEvent`'s body read now). */
const plainEvent = (row: OutboxRecord): OutboxRecord => {
  if (!(row instanceof StoredEvent)) return row
  const { leaseUntil, ...rest } = { ...row, body: row.body }
  return leaseUntil === undefined ? rest : { ...rest, leaseUntil }
}

const uniqueViolation = (index: string): UniqueViolation => ({ _tag: "UniqueViolation", index })

/**
 * An in-memory Store for tests and embedding. Transactions are serialized by one lock and
 * rolled back from an undo log, so a failed command leaves no partial write and no outbox event.
 */
export const makeMemoryStore = Effect.sync(() => {
  let undo: UndoLog | undefined

  const remember = (action: () => void) => {
    if (undo !== undefined) undo.push(action)
  }

  const collection = <T extends { readonly id: string }, F, U extends string = never>(
    spec: CollectionSpec<T, F>
  ): Collection<T, F, U> & {
    readonly rows: () => ReadonlyArray<T>
    /** Rows whose due key is at or before `bound`, by id (collections with a `due` index only). */
    readonly dueBy: (bound: string) => ReadonlyArray<T>
    /** `insert`, `get` and `update`, run now (for store methods that read and write several rows in one step). */
    readonly insertNow: (row: T) => UniqueViolation | undefined
    readonly getNow: (id: string) => T | undefined
    readonly updateNow: (row: T) => UniqueViolation | undefined
  } => {
    // Rows sorted by id; ids are time-ordered so inserts almost always append.
    const ids: Array<string> = []
    // Each row lives in a slot: an update replaces the slot's row without touching the (large) map, and
    // the slot last looked up is remembered, so a read-then-update (getForUpdate, then update) finds it
    // without a second map lookup.
    const slots = new ChunkedMap<{ row: T }>()
    // (Two variables rather than an `{ id, slot }` pair: no allocation per lookup.)
    let recentId: string | undefined
    let recentSlot: { row: T } | undefined
    const slotOf = (id: string): { row: T } | undefined => {
      if (recentId === id) return recentSlot
      const slot = slots.get(id)
      if (slot !== undefined) {
        recentId = id
        recentSlot = slot
      }
      return slot
    }
    const byId = { get: (id: string): T | undefined => slotOf(id)?.row }
    const indexes = new Map<string, ChunkedMap<string>>()
    // Each unique key once: its name, how a row gives its value, and the value → id map.
    const uniques = Object.entries(spec.unique ?? {}).map(([name, key]) => {
      const index = new ChunkedMap<string>()
      indexes.set(name, index)
      return { name, key, index }
    })

    const position = (id: string): number => {
      let lo = 0
      let hi = ids.length
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (ids[mid]! < id) lo = mid + 1
        else hi = mid
      }
      return lo
    }

    /** A unique key `row` would take from another row (a key it already holds is not looked up again). */
    const checkUnique = (row: T, before: T | undefined): UniqueViolation | undefined => {
      for (const { name, key, index } of uniques) {
        const value = key(row)
        if (value === undefined || (before !== undefined && key(before) === value)) continue
        const owner = index.get(value)
        if (owner !== undefined && owner !== row.id) return uniqueViolation(name)
      }
      return undefined
    }

    const reindex = (before: T | undefined, after: T | undefined) => {
      for (const { key, index } of uniques) {
        const old = before === undefined ? undefined : key(before)
        const next = after === undefined ? undefined : key(after)
        if (old !== undefined && old !== next) index.delete(old)
        if (next !== undefined && after !== undefined && old !== next) index.set(next, after.id)
      }
    }

    // The due index: the ids of the rows due at each instant (exact: a row leaves its bucket when its key
    // changes), and a heap of the instants. Invariant: the key of every non-empty bucket is in the heap
    // (a key whose bucket emptied stays there until it comes up, then is dropped). Rows written in one
    // command share instants, so the heap holds far fewer keys than there are due rows.
    const dueBuckets = spec.due === undefined ? undefined : new Map<string, Set<string>>()
    const dueKeys = makeKeyHeap()
    const indexDue = (row: T | undefined, before: T | undefined) => {
      if (dueBuckets === undefined) return
      const key = row === undefined ? undefined : spec.due!.key(row)
      const old = before === undefined ? undefined : spec.due!.key(before)
      if (key === old) return
      const id = (row ?? before)!.id
      if (old !== undefined) {
        const bucket = dueBuckets.get(old)
        if (bucket !== undefined) {
          bucket.delete(id)
          if (bucket.size === 0) dueBuckets.delete(old)
        }
      }
      if (key !== undefined) {
        const bucket = dueBuckets.get(key)
        if (bucket !== undefined) bucket.add(id)
        else {
          dueBuckets.set(key, new Set([id]))
          dueKeys.push(key)
        }
      }
    }

    /**
     * Rows whose due key is at or before `bound`, by id; `undefined` when that is a large part of all
     * rows (a plain scan in id order is then cheaper than sorting them). The instants with rows go back
     * into the heap: their rows stay due until they change.
     */
    const dueRows = (bound: string): Array<T> | undefined => {
      const rows: Array<T> = []
      const kept = new Set<string>()
      for (const key of dueKeys.popUntil(bound)) {
        const bucket = dueBuckets!.get(key)
        if (bucket === undefined || kept.has(key)) continue
        kept.add(key)
        for (const id of bucket) rows.push(byId.get(id)!)
      }
      for (const key of kept) dueKeys.push(key)
      if (rows.length > ids.length / 4) return undefined
      return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    }

    /** Writes a row now (inside the running transaction's undo log); the violation, if any, writes nothing. */
    const writeNow = (row: T, existing: { row: T } | undefined): UniqueViolation | undefined => {
      const before = existing?.row
      const violation = checkUnique(row, before)
      if (violation !== undefined) return violation
      if (existing === undefined) {
        // Ids are time-ordered: a new row almost always sorts last (no binary search, no splice).
        const last = ids[ids.length - 1]
        if (last === undefined || last < row.id) ids.push(row.id)
        else ids.splice(position(row.id), 0, row.id)
        const slot = { row }
        slots.set(row.id, slot)
        recentId = row.id
        recentSlot = slot
        remember(() => {
          if (ids[ids.length - 1] === row.id) ids.pop()
          else ids.splice(position(row.id), 1)
          slots.delete(row.id)
          if (recentSlot === slot) {
            recentId = undefined
            recentSlot = undefined
          }
          reindex(row, undefined)
          indexDue(undefined, row)
        })
      } else {
        const previous = before!
        existing.row = row
        remember(() => {
          existing.row = previous
          reindex(row, previous)
          indexDue(previous, row)
        })
      }
      reindex(before, row)
      indexDue(row, before)
      return undefined
    }
    const insertNow = (row: T): UniqueViolation | undefined => {
      // Ids are time-ordered: one after the last id cannot be taken (no lookup in a large map).
      const last = ids[ids.length - 1]
      if (last !== undefined && !(last < row.id) && slots.has(row.id)) return uniqueViolation("id")
      return writeNow(row, undefined)
    }
    /** Every row of `rows`, or none: a violation undoes the rows written before it (in or outside a transaction). */
    const insertAllNow = (rows: ReadonlyArray<T>): UniqueViolation | undefined => {
      const outer = undo
      const log: UndoLog = []
      undo = log
      try {
        for (const row of rows) {
          const violation = insertNow(row)
          if (violation !== undefined) {
            for (let i = log.length - 1; i >= 0; i--) log[i]!()
            return violation
          }
        }
      } finally {
        undo = outer
      }
      if (outer !== undefined) for (const action of log) outer.push(action)
      return undefined
    }
    const written = (violation: UniqueViolation | undefined): Effect.Effect<void, UniqueViolation> =>
      violation === undefined ? Effect.void : Effect.fail(violation)

    const get = (id: string) => Effect.sync(() => byId.get(id))
    return {
      rows: () => ids.map((id) => byId.get(id)!),
      dueBy: (bound: string): ReadonlyArray<T> => {
        if (dueBuckets === undefined) throw new Error("memory store: this collection has no due index")
        const key = spec.due!.key
        return (
          dueRows(bound) ??
          ids.flatMap((id) => {
            const row = byId.get(id)!
            const k = key(row)
            return k !== undefined && k <= bound ? [row] : []
          })
        )
      },
      get,
      getForUpdate: get,
      findUnique: (index, value) =>
        Effect.sync(() => {
          const id = indexes.get(index)?.get(value)
          return id === undefined ? undefined : byId.get(id)
        }),
      insertNow,
      getNow: byId.get,
      updateNow: (row) => writeNow(row, slotOf(row.id)),
      insert: (row) => Effect.suspend(() => written(insertNow(row))),
      insertMany: (rows) => Effect.suspend(() => written(insertAllNow(rows))),
      // Without unique keys an update cannot be refused: one plain step.
      update:
        uniques.length === 0
          ? (row) =>
              Effect.sync(() => {
                writeNow(row, slotOf(row.id))
              })
          : (row) => Effect.suspend(() => written(writeNow(row, slotOf(row.id)))),
      list: (filter: F, page: PageRequest) =>
        Effect.sync((): Page<T> => {
          const out: Array<T> = []
          let total = 0
          const asc = page.sortOrder === "asc"
          const bound = spec.due?.bound(filter)
          // A due-by filter walks the due index instead of every row (same rows, same order).
          const candidates = bound === undefined ? undefined : dueRows(bound)
          const count = candidates === undefined ? ids.length : candidates.length
          for (let i = 0; i < count; i++) {
            const at = asc ? i : count - 1 - i
            const row = candidates === undefined ? byId.get(ids[at]!)! : candidates[at]!
            const id = row.id
            if (!spec.matches(row, filter)) continue
            total++
            const afterCursor = page.after === undefined || (asc ? id > page.after : id < page.after)
            if (afterCursor && out.length <= page.limit) out.push(row)
          }
          return toPage(out, page.limit, total)
        })
    }
  }

  const inRange = (value: string, after: string | undefined, before: string | undefined) =>
    (after === undefined || value > after) && (before === undefined || value < before)

  const tokens: Repositories["tokens"] = collection({
    matches: (t, f) =>
      (f.includeDeleted || t.deletedAt === undefined) &&
      (f.name === undefined || t.name === f.name) &&
      inRange(t.createdAt, f.createdAfter, f.createdBefore),
    unique: { clientId: (t) => t.clientId }
  })

  const customers: Repositories["customers"] = collection({
    matches: (c, f) =>
      (f.includeDeleted || !c.isDeleted) &&
      (f.platformCustomerId === undefined || c.platformCustomerId === f.platformCustomerId) &&
      (f.customerType === undefined || c.customerType === f.customerType) &&
      (f.region === undefined || c.region === f.region) &&
      (f.currency === undefined || c.currencies.includes(f.currency)) &&
      (f.umaAddress === undefined || c.umaAddress === f.umaAddress) &&
      inRange(c.createdAt, f.createdAfter, f.createdBefore) &&
      inRange(c.updatedAt, f.updatedAfter, f.updatedBefore),
    // A deleted customer frees its platform id and UMA address.
    unique: {
      platformCustomerId: (c) => (c.isDeleted ? undefined : c.platformCustomerId),
      umaAddress: (c) => (c.isDeleted ? undefined : c.umaAddress)
    }
  })

  const internalAccounts: Repositories["internalAccounts"] = collection({
    matches: (a, f) =>
      (f.customerId === undefined || a.customerId === f.customerId) &&
      (f.currency === undefined || a.currency === f.currency) &&
      (f.type === undefined || a.type === f.type)
  })

  const externalAccounts: Repositories["externalAccounts"] = collection({
    matches: (a, f) =>
      a.status !== "INACTIVE" &&
      (f.customerId === undefined || a.customerId === f.customerId) &&
      (f.currency === undefined || a.currency === f.currency)
  })

  const quoteRows = collection<QuoteRecord, QuoteFilter, "transactionId">({
    matches: (q, f) =>
      (f.status === undefined || q.quote.status === f.status) &&
      (f.expiresAtOrBefore === undefined || q.quote.expiresAt <= f.expiresAtOrBefore),
    unique: { transactionId: (q) => q.quote.transactionId },
    // The expiry worker lists waiting quotes past `expiresAt`; only waiting quotes are in the index.
    due: {
      key: (q) =>
        q.quote.status === "PENDING" || q.quote.status === "PENDING_AUTHORIZATION" ? q.quote.expiresAt : undefined,
      bound: (f) =>
        f.expiresAtOrBefore !== undefined && (f.status === "PENDING" || f.status === "PENDING_AUTHORIZATION")
          ? f.expiresAtOrBefore
          : undefined
    }
  })

  const quotes: Repositories["quotes"] = {
    ...quoteRows,
    // Each in one step (no chain of store calls): the payment's hot path uses them.
    getForUpdateWithTransaction: (id) =>
      Effect.sync(() => {
        const quote = quoteRows.getNow(id)
        return quote === undefined
          ? undefined
          : { quote, transaction: transactionRows.getNow(quote.quote.transactionId) }
      }),
    setStatus: (id, status) =>
      Effect.sync(() => {
        const quote = quoteRows.getNow(id)
        // Only the status changes, so no unique key can be taken.
        if (quote !== undefined) quoteRows.updateNow({ ...quote, quote: { ...quote.quote, status } })
      })
  }

  const transactionRows = collection<TransactionRecord, TransactionFilter>({
    matches: (r, f) => {
      const t = r.transaction
      return (
        (f.customerId === undefined || t.customerId === f.customerId) &&
        (f.platformCustomerId === undefined || t.platformCustomerId === f.platformCustomerId) &&
        (f.accountIdentifier === undefined ||
          t.source.accountId === f.accountIdentifier ||
          t.destination.accountId === f.accountIdentifier) &&
        (f.status === undefined || t.status === f.status) &&
        (f.type === undefined || t.type === f.type) &&
        (f.reference === undefined || t.reconciliationInstructions?.reference === f.reference) &&
        inRange(t.createdAt, f.createdAfter, f.createdBefore) &&
        (f.states === undefined || f.states.includes(r.state)) &&
        (f.dueBy === undefined || (r.dueAt !== undefined && r.dueAt <= f.dueBy))
      )
    },
    // The settlement worker lists transactions due by now.
    due: { key: (r) => r.dueAt, bound: (f) => f.dueBy }
  })

  /** What `updateIf` compares: the fields every write of a transaction changes one of. */
  const sameVersion = (a: TransactionRecord, b: TransactionRecord): boolean =>
    a.state === b.state &&
    a.transaction.updatedAt === b.transaction.updatedAt &&
    a.railReference === b.railReference &&
    a.dueAt === b.dueAt &&
    a.attempts === b.attempts &&
    a.stalledAt === b.stalledAt

  const transactions: Repositories["transactions"] = {
    ...transactionRows,
    updateIf: (row, expected) =>
      Effect.sync(() => {
        const current = transactionRows.getNow(row.id)
        if (current === undefined || !sameVersion(current, expected)) return false
        transactionRows.updateNow(row)
        return true
      })
  }

  // ---- onboarding ----
  const beneficialOwners: Repositories["beneficialOwners"] = collection({
    matches: (o, f) => f.customerId === undefined || o.customerId === f.customerId
  })

  const verifications: Repositories["verifications"] = collection({
    matches: (v, f) =>
      (f.customerId === undefined || v.customerId === f.customerId) &&
      (f.verificationStatus === undefined || v.verificationStatus === f.verificationStatus)
  })

  const documents: Repositories["documents"] = collection({
    matches: (d, f) =>
      (f.includeDeleted || d.deletedAt === undefined) &&
      (f.documentHolder === undefined || d.document.documentHolder === f.documentHolder)
  })

  const bulkImportJobs: Repositories["bulkImportJobs"] = collection({
    matches: (j, f) => f.statuses === undefined || f.statuses.includes(j.job.status)
  })

  const challenges = new Map<string, ContactChallenge>()
  /** Sets or removes a challenge, undoable. */
  const setChallenge = (key: string, next: ContactChallenge | undefined) => {
    const before = challenges.get(key)
    if (next === undefined) challenges.delete(key)
    else challenges.set(key, next)
    remember(() => (before === undefined ? challenges.delete(key) : challenges.set(key, before)))
  }
  const contactChallenges: Repositories["contactChallenges"] = {
    get: (key) => Effect.sync(() => challenges.get(key)),
    put: (challenge) => Effect.sync(() => setChallenge(challenge.key, challenge)),
    delete: (key) => Effect.sync(() => setChallenge(key, undefined))
  }

  // ---- ledger ----
  const balances = new Map<string, LedgerBalance>()
  // Transfers per reference, in recording order. A transfer id is `<reference>#<n>` by the ledger's
  // convention, so resolving one by id finds it through its reference (no map of every transfer);
  // an id of another form is mapped to its reference in `otherIds`.
  const transfersByReference = new ChunkedMap<Array<LedgerTransfer>>()
  const otherIds = new Map<string, string>()

  const isConventional = (t: LedgerTransfer): boolean =>
    t.id.length > t.reference.length + 1 && t.id.charCodeAt(t.reference.length) === 35 && t.id.startsWith(t.reference)

  const referenceOf = (id: string): string | undefined => {
    const other = otherIds.get(id)
    if (other !== undefined) return other
    const hash = id.lastIndexOf("#")
    return hash < 0 ? undefined : id.slice(0, hash)
  }

  const balanceOf = (account: string, currency: string): LedgerBalance =>
    balances.get(account) ?? { account, currency, posted: 0, pendingDebits: 0, pendingCredits: 0 }

  const adjust = (account: string, currency: string, posted: number, pendingDebits: number, pendingCredits: number) => {
    const before = balances.get(account)
    balances.set(
      account,
      before === undefined
        ? { account, currency, posted, pendingDebits, pendingCredits }
        : {
            account,
            currency,
            posted: before.posted + posted,
            pendingDebits: before.pendingDebits + pendingDebits,
            pendingCredits: before.pendingCredits + pendingCredits
          }
    )
    remember(() => (before === undefined ? balances.delete(account) : balances.set(account, before)))
  }

  /** Adds a new transfer (a second one with the same id would move the money twice: a defect). */
  const addTransfer = (t: LedgerTransfer) => {
    const conventional = isConventional(t)
    if (!conventional && otherIds.has(t.id)) throw new Error(`memory store: ledger transfer ${t.id} exists`)
    let list = transfersByReference.get(t.reference)
    if (list === undefined) {
      list = []
      transfersByReference.set(t.reference, list)
    } else if (conventional && list.some((x) => x.id === t.id)) {
      throw new Error(`memory store: ledger transfer ${t.id} exists`)
    }
    list.push(t)
    if (!conventional) otherIds.set(t.id, t.reference)
    const added = list
    remember(() => {
      added.pop()
      if (added.length === 0) transfersByReference.delete(t.reference)
      if (!conventional) otherIds.delete(t.id)
    })
  }

  const ledger: Repositories["ledger"] = {
    balances: (accounts) => Effect.sync(() => accounts.map((a) => balanceOf(a.account, a.currency))),
    record: (transfers) =>
      Effect.sync(() => {
        for (const t of transfers) {
          addTransfer(t)
          if (t.state === "POSTED") {
            adjust(t.debit, t.currency, -t.amount, 0, 0)
            adjust(t.credit, t.currency, t.amount, 0, 0)
          } else if (t.state === "PENDING") {
            adjust(t.debit, t.currency, 0, t.amount, 0)
            adjust(t.credit, t.currency, 0, 0, t.amount)
          }
        }
      }),
    resolve: (ids, outcome) =>
      Effect.sync(() => {
        // The ids of one call usually share a reference (a payment's legs): its list is looked up once.
        let reference: string | undefined
        let list: Array<LedgerTransfer> | undefined
        for (const id of ids) {
          if (
            reference === undefined ||
            !(id.length > reference.length && id.charCodeAt(reference.length) === 35 && id.startsWith(reference))
          ) {
            reference = referenceOf(id)
            list = reference === undefined ? undefined : transfersByReference.get(reference)
          }
          if (list === undefined) continue
          let at = 0
          while (at < list.length && list[at]!.id !== id) at++
          const t = list[at]
          // Idempotent per transfer: one already POSTED or VOIDED is not moved again.
          if (t === undefined || t.state !== "PENDING") continue
          const moved = outcome === "POSTED" ? t.amount : 0
          adjust(t.debit, t.currency, -moved, -t.amount, 0)
          adjust(t.credit, t.currency, moved, 0, -t.amount)
          const resolved = list
          resolved[at] = { ...t, state: outcome }
          remember(() => {
            resolved[at] = t
          })
        }
      }),
    transfers: (reference) => Effect.sync(() => transfersByReference.get(reference)?.slice() ?? []),
    allBalances: () => Effect.sync(() => [...balances.values()])
  }

  // ---- outbox ----
  const outboxRows = collection<OutboxRecord, OutboxFilter>({
    matches: (r, f) =>
      (f.status === undefined || r.status === f.status) &&
      (f.subject === undefined || r.subject === f.subject) &&
      (f.type === undefined || r.type === f.type) &&
      (f.sequenceBelow === undefined || r.sequence < f.sequenceBelow),
    // The dispatcher claims PENDING rows due by now and not leased: a row is claimable from the later of
    // `nextAttemptAt` and `leaseUntil`. Delivered and dead rows are not in the index. Lists do not use it.
    due: {
      key: (r) =>
        r.status !== "PENDING"
          ? undefined
          : r.leaseUntil !== undefined && r.leaseUntil > r.nextAttemptAt
            ? r.leaseUntil
            : r.nextAttemptAt,
      bound: () => undefined
    }
  })
  const sequences = new ChunkedMap<number>()
  const nextSequence = (subject: string): number => {
    const before = sequences.get(subject)
    const next = (before ?? 0) + 1
    sequences.set(subject, next)
    remember(() => (before === undefined ? sequences.delete(subject) : sequences.set(subject, before)))
    return next
  }
  const outbox: Repositories["outbox"] = {
    append: (records) => Effect.forEach(records, (r) => Effect.orDie(outboxRows.insert(r)), { discard: true }),
    appendEvents: (events) =>
      Effect.sync(() => {
        for (const event of events) {
          const row = new StoredEvent(event, nextSequence(event.subject))
          if (outboxRows.insertNow(row) !== undefined) throw new Error(`memory store: outbox row ${row.id} exists`)
        }
      }),
    claimDue: (now, limit, leaseUntil) =>
      Effect.gen(function* () {
        const due: Array<OutboxRecord> = []
        // The due index instead of every row ever written: only PENDING rows whose time has come, oldest first.
        for (const r of outboxRows.dueBy(now)) {
          if (due.length >= limit) break
          if (r.status !== "PENDING" || r.nextAttemptAt > now) continue
          if (r.leaseUntil !== undefined && r.leaseUntil > now) continue
          const leased = { ...plainEvent(r), leaseUntil }
          yield* Effect.orDie(outboxRows.update(leased))
          due.push(leased)
        }
        return due
      }),
    save: (record) => Effect.orDie(outboxRows.update(record)),
    get: (id) => Effect.map(outboxRows.get(id), (row) => (row === undefined ? undefined : plainEvent(row))),
    list: (filter, page) => Effect.map(outboxRows.list(filter, page), (p) => ({ ...p, data: p.data.map(plainEvent) })),
    nextSequence: (subject) => Effect.sync(() => nextSequence(subject))
  }

  // ---- small key-value parts ----
  /** Runs `change` on `map` at `key`, remembering how to put the key's old value back. */
  const restoreLater = <V>(map: Map<string, V>, key: string, change: () => void) => {
    const had = map.has(key)
    const before = map.get(key)
    change()
    remember(() => (had ? map.set(key, before as V) : map.delete(key)))
  }
  const idempotencyRows = new Map<string, IdempotencyRecord>()
  const counterValues = new Map<string, number>()
  let config: PlatformConfig | undefined
  const webhookSecrets = new Map<string, WebhookSecretRecord>()

  const repositories: Repositories = {
    tokens,
    customers,
    internalAccounts,
    externalAccounts,
    quotes,
    transactions,
    beneficialOwners,
    verifications,
    contactChallenges,
    documents,
    bulkImportJobs,
    ledger,
    outbox,
    idempotency: {
      get: (key) => Effect.sync(() => idempotencyRows.get(key)),
      put: (record) =>
        idempotencyRows.has(record.key)
          ? Effect.fail(uniqueViolation("idempotencyKey"))
          : Effect.sync(() => {
              idempotencyRows.set(record.key, record)
              remember(() => idempotencyRows.delete(record.key))
            })
    },
    counters: {
      get: (key) => Effect.sync(() => counterValues.get(key) ?? 0),
      add: (key, amount) =>
        Effect.sync(() => {
          const before = counterValues.get(key)
          const next = (before ?? 0) + amount
          counterValues.set(key, next)
          remember(() => (before === undefined ? counterValues.delete(key) : counterValues.set(key, before)))
          return next
        })
    },
    config: {
      get: () => Effect.sync(() => config),
      put: (next) =>
        Effect.sync(() => {
          const before = config
          config = next
          remember(() => {
            config = before
          })
        })
    },
    webhookSecrets: {
      list: () =>
        Effect.sync(() =>
          [...webhookSecrets.values()].sort((a, b) =>
            a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1
          )
        ),
      put: (record) =>
        Effect.sync(() => restoreLater(webhookSecrets, record.id, () => webhookSecrets.set(record.id, record))),
      remove: (id) => Effect.sync(() => restoreLater(webhookSecrets, id, () => webhookSecrets.delete(id)))
    }
  }

  // ---- transactions ----
  // One transaction at a time. JavaScript runs one fiber at a time, so the lock is a flag: taking it is a
  // plain check-and-set when it is free (the usual case: a command's body rarely suspends), and a fiber that
  // finds it taken waits for its release. Each transaction keeps an undo log that a failure (or an
  // interruption) replays backwards, so a failed command leaves no partial write and no outbox event.
  let held = false
  const waiters = new Set<() => void>()

  /** Wakes every waiting fiber; each tries again (the first to run takes the lock, the others wait again). */
  const wakeAll = () => {
    if (waiters.size === 0) return
    const woken = [...waiters]
    waiters.clear()
    for (const wake of woken) wake()
  }

  /** Waits until the lock is free (an interrupted waiter leaves the queue). */
  const lockReleased: Effect.Effect<void> = Effect.callback<void>((resume) => {
    const wake = () => resume(Effect.void)
    waiters.add(wake)
    return Effect.sync(() => {
      waiters.delete(wake)
    })
  })

  // The context marked as inside, for the last context seen outside: a fiber runs its commands with one
  // context, so consecutive transactions reuse the marked one (contexts are immutable) instead of adding anew.
  let lastOutside: Context.Context<never> | undefined
  let lastInside: Context.Context<never> | undefined
  const insideOf = (outside: Context.Context<never>): Context.Context<never> => {
    if (outside !== lastOutside) {
      lastOutside = outside
      lastInside = Context.add(outside, InTransaction, true)
    }
    return lastInside!
  }

  const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError, R> =>
    Effect.withFiber((fiber) => {
      // Nested (in this fiber or one it forked inside the transaction): join the outer transaction.
      if (fiber.getRef(InTransaction)) return effect
      let log: UndoLog | undefined
      let outside: Context.Context<never> | undefined
      const begin: Effect.Effect<A, E, R> = Effect.suspend(() => {
        if (held) return Effect.flatMap(lockReleased, () => begin)
        held = true
        log = []
        undo = log
        // Mark the fiber (and the fibers it forks) as inside, as `provideService` would, without its extra steps.
        outside = fiber.context
        fiber.setContext(insideOf(outside))
        return effect
      })
      // The finalizer is registered before the lock is taken, so an interruption at any point releases it.
      return Effect.onExitPrimitive(begin, (exit) => {
        const taken = log
        if (taken === undefined) return undefined
        log = undefined
        undo = undefined
        fiber.setContext(outside!)
        if (exit._tag === "Failure") for (let i = taken.length - 1; i >= 0; i--) taken[i]!()
        held = false
        wakeAll()
        return undefined
      })
    })

  return Store.of({ ...repositories, transaction, pipelines: false })
})

export const layer: Layer.Layer<Store> = Layer.effect(Store, makeMemoryStore)
export { documentStoreLayer, makeMemoryDocumentStore } from "./document-store.ts"
