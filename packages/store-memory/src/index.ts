import type {
  Collection,
  IdempotencyRecord,
  LedgerBalance,
  LedgerTransfer,
  OutboxFilter,
  OutboxRecord,
  Page,
  PageRequest,
  PlatformConfig,
  Repositories,
  StoreError,
  UniqueViolation
} from "@paycore/core"
import { Store, toPage } from "@paycore/core"
import { Context, Effect, Layer, Semaphore } from "effect"

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

interface DueEntry {
  readonly key: string
  readonly id: string
}

/**
 * A binary min-heap of (due instant, row id), earliest first. Entries are not removed when a row
 * changes: an entry whose key is no longer its row's key is stale and is dropped when it comes up.
 */
const makeDueHeap = () => {
  const heap: Array<DueEntry> = []
  const push = (entry: DueEntry) => {
    let i = heap.push(entry) - 1
    while (i > 0) {
      const parent = (i - 1) >>> 1
      if (heap[parent]!.key <= entry.key) break
      heap[i] = heap[parent]!
      i = parent
    }
    heap[i] = entry
  }
  /** Takes out every entry at or before `bound`. */
  const popUntil = (bound: string): Array<DueEntry> => {
    const out: Array<DueEntry> = []
    while (heap.length > 0 && heap[0]!.key <= bound) {
      out.push(heap[0]!)
      const last = heap.pop()!
      if (heap.length === 0) break
      let i = 0
      for (;;) {
        const left = 2 * i + 1
        if (left >= heap.length) break
        const right = left + 1
        const child = right < heap.length && heap[right]!.key < heap[left]!.key ? right : left
        if (heap[child]!.key >= last.key) break
        heap[i] = heap[child]!
        i = child
      }
      heap[i] = last
    }
    return out
  }
  return { push, popUntil }
}

const uniqueViolation = (index: string): UniqueViolation => ({ _tag: "UniqueViolation", index })

/**
 * An in-memory Store for tests and embedding. Transactions are serialized by one lock and
 * rolled back from an undo log, so a failed command leaves no partial write and no outbox event.
 */
export const makeMemoryStore = Effect.gen(function* () {
  const lock = yield* Semaphore.make(1)
  let undo: UndoLog | undefined

  const remember = (action: () => void) => {
    if (undo !== undefined) undo.push(action)
  }

  const collection = <T extends { readonly id: string }, F, U extends string = never>(
    spec: CollectionSpec<T, F>
  ): Collection<T, F, U> & { readonly rows: () => ReadonlyArray<T> } => {
    // Rows sorted by id; ids are time-ordered so inserts almost always append.
    const ids: Array<string> = []
    const byId = new Map<string, T>()
    const indexes = new Map<string, Map<string, string>>()
    for (const name of Object.keys(spec.unique ?? {})) indexes.set(name, new Map())

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

    const checkUnique = (row: T): UniqueViolation | undefined => {
      for (const [name, key] of Object.entries(spec.unique ?? {})) {
        const value = key(row)
        if (value === undefined) continue
        const owner = indexes.get(name)!.get(value)
        if (owner !== undefined && owner !== row.id) return uniqueViolation(name)
      }
      return undefined
    }

    const reindex = (before: T | undefined, after: T | undefined) => {
      for (const [name, key] of Object.entries(spec.unique ?? {})) {
        const index = indexes.get(name)!
        const old = before === undefined ? undefined : key(before)
        const next = after === undefined ? undefined : key(after)
        if (old !== undefined && old !== next) index.delete(old)
        if (next !== undefined && after !== undefined) index.set(next, after.id)
      }
    }

    // Invariant: every row with a due key has at least one heap entry with that key.
    const dueHeap = spec.due === undefined ? undefined : makeDueHeap()
    const indexDue = (row: T, before: T | undefined) => {
      if (dueHeap === undefined) return
      const key = spec.due!.key(row)
      if (key !== undefined && (before === undefined || spec.due!.key(before) !== key))
        dueHeap.push({ key, id: row.id })
    }

    /**
     * Rows whose due key is at or before `bound`, by id; `undefined` when that is a large part of all
     * rows (a plain scan in id order is then cheaper than sorting them). Each stale entry is dropped
     * once, for good; the current ones go back, still due until their row changes.
     */
    const dueRows = (bound: string): Array<T> | undefined => {
      const rows: Array<T> = []
      const current: Array<DueEntry> = []
      const seen = new Set<string>()
      for (const entry of dueHeap!.popUntil(bound)) {
        const row = byId.get(entry.id)
        if (row === undefined || seen.has(entry.id) || spec.due!.key(row) !== entry.key) continue
        seen.add(entry.id)
        current.push(entry)
        rows.push(row)
      }
      for (const entry of current) dueHeap!.push(entry)
      if (rows.length > ids.length / 4) return undefined
      return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    }

    const write = (row: T): Effect.Effect<void, UniqueViolation> => {
      const violation = checkUnique(row)
      if (violation !== undefined) return Effect.fail(violation)
      const before = byId.get(row.id)
      if (before === undefined) {
        // Ids are time-ordered: a new row almost always sorts last (no binary search, no splice).
        const last = ids[ids.length - 1]
        if (last === undefined || last < row.id) ids.push(row.id)
        else ids.splice(position(row.id), 0, row.id)
        remember(() => {
          if (ids[ids.length - 1] === row.id) ids.pop()
          else ids.splice(position(row.id), 1)
          byId.delete(row.id)
          reindex(row, undefined)
        })
      } else {
        remember(() => {
          byId.set(row.id, before)
          reindex(row, before)
          // Its entry may have been dropped as stale meanwhile.
          indexDue(before, undefined)
        })
      }
      byId.set(row.id, row)
      reindex(before, row)
      indexDue(row, before)
      return Effect.void
    }

    const get = (id: string) => Effect.sync(() => byId.get(id))
    return {
      rows: () => ids.map((id) => byId.get(id)!),
      get,
      getForUpdate: get,
      findUnique: (index, value) =>
        Effect.sync(() => {
          const id = indexes.get(index)?.get(value)
          return id === undefined ? undefined : byId.get(id)
        }),
      insert: (row) => (byId.has(row.id) ? Effect.fail(uniqueViolation("id")) : write(row)),
      update: (row) => write(row),
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
      (f.name === undefined || t.name === f.name) && inRange(t.createdAt, f.createdAfter, f.createdBefore),
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

  const quotes: Repositories["quotes"] = collection({
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

  const transactions: Repositories["transactions"] = collection({
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

  // ---- ledger ----
  const balances = new Map<string, LedgerBalance>()
  const transfersById = new Map<string, LedgerTransfer>()
  const transfersByReference = new Map<string, Array<string>>()

  const balanceOf = (account: string, currency: string): LedgerBalance =>
    balances.get(account) ?? { account, currency, posted: 0, pendingDebits: 0, pendingCredits: 0 }

  const adjust = (account: string, currency: string, delta: Partial<Omit<LedgerBalance, "account" | "currency">>) => {
    const before = balances.get(account)
    const b = before ?? balanceOf(account, currency)
    balances.set(account, {
      account,
      currency,
      posted: b.posted + (delta.posted ?? 0),
      pendingDebits: b.pendingDebits + (delta.pendingDebits ?? 0),
      pendingCredits: b.pendingCredits + (delta.pendingCredits ?? 0)
    })
    remember(() => (before === undefined ? balances.delete(account) : balances.set(account, before)))
  }

  const putTransfer = (t: LedgerTransfer) => {
    const before = transfersById.get(t.id)
    transfersById.set(t.id, t)
    if (before === undefined) {
      const refs = transfersByReference.get(t.reference) ?? []
      refs.push(t.id)
      transfersByReference.set(t.reference, refs)
      remember(() => {
        transfersById.delete(t.id)
        transfersByReference.get(t.reference)?.pop()
      })
    } else {
      remember(() => transfersById.set(t.id, before))
    }
  }

  const ledger: Repositories["ledger"] = {
    balances: (accounts) => Effect.sync(() => accounts.map((a) => balanceOf(a.account, a.currency))),
    record: (transfers) =>
      Effect.sync(() => {
        for (const t of transfers) {
          putTransfer(t)
          if (t.state === "POSTED") {
            adjust(t.debit, t.currency, { posted: -t.amount })
            adjust(t.credit, t.currency, { posted: t.amount })
          } else if (t.state === "PENDING") {
            adjust(t.debit, t.currency, { pendingDebits: t.amount })
            adjust(t.credit, t.currency, { pendingCredits: t.amount })
          }
        }
      }),
    resolve: (ids, outcome) =>
      Effect.sync(() => {
        for (const id of ids) {
          const t = transfersById.get(id)
          if (t === undefined || t.state !== "PENDING") continue
          adjust(t.debit, t.currency, { pendingDebits: -t.amount, posted: outcome === "POSTED" ? -t.amount : 0 })
          adjust(t.credit, t.currency, { pendingCredits: -t.amount, posted: outcome === "POSTED" ? t.amount : 0 })
          putTransfer({ ...t, state: outcome })
        }
      }),
    transfers: (reference) =>
      Effect.sync(() => (transfersByReference.get(reference) ?? []).map((id) => transfersById.get(id)!)),
    allBalances: () => Effect.sync(() => [...balances.values()])
  }

  // ---- outbox ----
  const outboxRows = collection<OutboxRecord, OutboxFilter>({
    matches: (r, f) =>
      (f.status === undefined || r.status === f.status) &&
      (f.subject === undefined || r.subject === f.subject) &&
      (f.type === undefined || r.type === f.type) &&
      (f.sequenceBelow === undefined || r.sequence < f.sequenceBelow)
  })
  const sequences = new Map<string, number>()
  const outbox: Repositories["outbox"] = {
    append: (records) => Effect.forEach(records, (r) => Effect.orDie(outboxRows.insert(r)), { discard: true }),
    claimDue: (now, limit, leaseUntil) =>
      Effect.gen(function* () {
        const due: Array<OutboxRecord> = []
        for (const r of outboxRows.rows()) {
          if (due.length >= limit) break
          if (r.status !== "PENDING" || r.nextAttemptAt > now) continue
          if (r.leaseUntil !== undefined && r.leaseUntil > now) continue
          const leased = { ...r, leaseUntil }
          yield* Effect.orDie(outboxRows.update(leased))
          due.push(leased)
        }
        return due
      }),
    save: (record) => Effect.orDie(outboxRows.update(record)),
    get: outboxRows.get,
    list: outboxRows.list,
    nextSequence: (subject) =>
      Effect.sync(() => {
        const before = sequences.get(subject)
        const next = (before ?? 0) + 1
        sequences.set(subject, next)
        remember(() => (before === undefined ? sequences.delete(subject) : sequences.set(subject, before)))
        return next
      })
  }

  // ---- small key-value parts ----
  const idempotencyRows = new Map<string, IdempotencyRecord>()
  const counterValues = new Map<string, number>()
  let config: PlatformConfig | undefined

  const repositories: Repositories = {
    tokens,
    customers,
    internalAccounts,
    externalAccounts,
    quotes,
    transactions,
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
    }
  }

  const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError, R> =>
    Effect.flatMap(Effect.service(InTransaction), (inside) =>
      inside
        ? effect
        : lock.withPermits(1)(
            Effect.suspend(() => {
              const log: UndoLog = []
              undo = log
              return effect.pipe(
                Effect.provideService(InTransaction, true),
                Effect.onExit((exit) =>
                  Effect.sync(() => {
                    undo = undefined
                    if (exit._tag === "Failure") for (let i = log.length - 1; i >= 0; i--) log[i]!()
                  })
                )
              )
            })
          )
    )

  return Store.of({ ...repositories, transaction })
})

export const layer: Layer.Layer<Store> = Layer.effect(Store, makeMemoryStore)
