import type { LedgerBalance, LedgerTransfer, Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { type BalanceMove, movesOfTransfer } from "@paycore/store-tables"
import { Effect } from "effect"
import { rowCodecOf } from "./codec.ts"
import type { Row } from "./sql.ts"
import { arrayRows, type Executor } from "./statements.ts"

const transferCodec = rowCodecOf(tables.ledgerTransfers)
const balanceCodec = rowCodecOf(tables.ledgerBalances)

/** Rows a system account's balance spreads over (see `shardOf`): above the sessions that write at once, so none waits. */
const SYSTEM_BALANCE_SHARDS = 64
/** The advisory lock class of system balance shards (`pg_try_advisory_xact_lock(class, shard)`): "pcSh". */
const SHARD_LOCK_CLASS = 0x70635368

/**
 * The balance row a write moves: shard 0 of a customer account; for a system account (the core's `system:` prefix,
 * see `isSystemAccount`) a shard no other open transaction writes. Every payment in a currency moves the same system
 * account, so one row would queue all of them on its lock until they commit. A transaction claims its shard with a
 * transaction-scoped advisory lock taken without waiting (`pg_try_advisory_xact_lock`): first the one of its session's
 * backend pid modulo SYSTEM_BALANCE_SHARDS (a pool's sessions have distinct, mostly consecutive pids), else the first
 * free one. Two transactions never write one shard at once (sessions of several processes included, whose pids may
 * share a remainder), so no transaction ever waits for a system balance row, and none is part of a deadlock. All
 * taken (more writers at once than shards): the pid's, waited for. System accounts have no balance check: reads sum
 * their shards.
 */
const ownShard = `(pg_backend_pid() % ${SYSTEM_BALANCE_SHARDS})`
const freeShard =
  `(SELECT s FROM generate_series(0, ${SYSTEM_BALANCE_SHARDS - 1}) AS s ` +
  `WHERE pg_try_advisory_xact_lock(${SHARD_LOCK_CLASS}, s) LIMIT 1)`
const systemShard =
  `CASE WHEN pg_try_advisory_xact_lock(${SHARD_LOCK_CLASS}, ${ownShard}) THEN ${ownShard} ` +
  `ELSE coalesce(${freeShard}, ${ownShard}) END`
const shardOf = (account: string) => `CASE WHEN starts_with(${account}, 'system:') THEN ${systemShard} ELSE 0 END`
const lockBalancesSql = `SELECT * FROM ledger_balances WHERE account = ANY($1::text[]) ORDER BY account, shard FOR UPDATE`
// One account (a payment from one source): PostgreSQL re-plans the array form on every execution (its generic
// plan looks dearer than a plan for one value), but keeps one plan for this form.
const lockBalanceSql = `SELECT * FROM ledger_balances WHERE account = $1 ORDER BY shard FOR UPDATE`
const createBalancesSql =
  `INSERT INTO ledger_balances (account, shard, currency, posted, pending_debits, pending_credits) ` +
  `SELECT a, 0, c, 0, 0, 0 FROM ${arrayRows(
    [
      ["a", "text"],
      ["c", "text"]
    ],
    1
  )} AS u ON CONFLICT (account, shard) DO NOTHING`
/** Adds the deltas, in the order given: sorted by account, so concurrent writers lock balance rows in one order. */
const moves = arrayRows(
  [
    ["account", "text"],
    ["currency", "text"],
    ["posted", "bigint"],
    ["pending_debits", "bigint"],
    ["pending_credits", "bigint"]
  ],
  9
)
const moveBalances = (where = "") =>
  `INSERT INTO ledger_balances AS b (account, shard, currency, posted, pending_debits, pending_credits) ` +
  `SELECT account, ${shardOf("account")}, currency, posted, pending_debits, pending_credits FROM ${moves} AS d ` +
  `${where}ON CONFLICT (account, shard) DO UPDATE SET currency = EXCLUDED.currency, ` +
  `posted = b.posted + EXCLUDED.posted, pending_debits = b.pending_debits + EXCLUDED.pending_debits, ` +
  `pending_credits = b.pending_credits + EXCLUDED.pending_credits`
// The transfers (numbered by `seq` in the order given) and the balance moves in one statement (one round trip).
const transferColumns = [
  ["id", "text"],
  ["debit", "text"],
  ["credit", "text"],
  ["amount", "bigint"],
  ["currency", "text"],
  ["state", "text"],
  ["reference", "text"],
  ["created_at", "text"]
] as const
const recordSql =
  `WITH recorded AS (INSERT INTO ledger_transfers (id, debit, credit, amount, currency, state, reference, created_at) ` +
  `SELECT * FROM ${arrayRows(transferColumns, 1)} AS t) ${moveBalances()}`
// `recordSql` only if every debit (parameters 14 and 15: account, amount) is available and every count (16 to 18:
// key, amount, cap or null) stays within its cap, in one statement: the counters locked (in key order), then the
// debited balances (in account order; the lock order card → counters → balances), the balances summed, the checks,
// then the writes only if both passed. The modifying parts run after the selects have read the rows as they were,
// and the answer is those balances and totals. A count's row must exist to be locked (see `ensureCountersSql`).
const debitRows = arrayRows(
  [
    ["account", "text"],
    ["amount", "bigint"]
  ],
  14
)
const countRows = arrayRows(
  [
    ["key", "text"],
    ["amount", "bigint"],
    ["cap", "bigint"]
  ],
  16
)
const recordIfAvailableSql =
  `WITH counted AS MATERIALIZED (SELECT key, value FROM counters WHERE key = ANY($16::text[]) ORDER BY key FOR UPDATE), ` +
  `locked AS MATERIALIZED (SELECT * FROM ledger_balances WHERE account = ANY($14::text[]) ` +
  `AND (SELECT count(*) FROM counted) = cardinality($16::text[]) ORDER BY account, shard FOR UPDATE), ` +
  `before AS (SELECT account, min(currency) AS currency, sum(posted)::bigint AS posted, ` +
  `sum(pending_debits)::bigint AS pending_debits, sum(pending_credits)::bigint AS pending_credits ` +
  `FROM locked GROUP BY account), ` +
  `covered AS (SELECT coalesce(bool_and(coalesce(b.posted - b.pending_debits, 0) >= w.amount), true) AS ok ` +
  `FROM ${debitRows} AS w LEFT JOIN before b USING (account)), ` +
  `within AS (SELECT count(c.key) = count(*) AND coalesce(bool_and(l.cap IS NULL OR c.value + l.amount <= l.cap), true) ` +
  `AS ok FROM ${countRows} AS l LEFT JOIN counted c USING (key)), ` +
  `go AS (SELECT (SELECT ok FROM covered) AND (SELECT ok FROM within) AS ok), ` +
  `recorded AS (INSERT INTO ledger_transfers (id, debit, credit, amount, currency, state, reference, created_at) ` +
  `SELECT * FROM ${arrayRows(transferColumns, 1)} AS t WHERE (SELECT ok FROM go)), ` +
  `moved AS (${moveBalances("WHERE (SELECT ok FROM go) ")}), ` +
  `added AS (UPDATE counters AS c SET value = c.value + l.amount FROM ${countRows} AS l ` +
  `WHERE c.key = l.key AND (SELECT ok FROM go)) ` +
  `SELECT b.*, g.ok AS recorded, (SELECT array_agg(key ORDER BY key) FROM counted) AS counted_keys, ` +
  `(SELECT array_agg(value ORDER BY key) FROM counted) AS counted_values FROM go g LEFT JOIN before b ON true`
// The counters a record counts into, created at 0 when missing: a row not there cannot be locked, and two
// transactions each finding none would both count from 0. Run (and the record again) only when one was missing;
// the statement that found one missing locked no balance (the condition on `locked`), so a transaction waiting here
// for another's new counter holds nothing that one wants next. Keys in lock order.
const ensureCountersSql = `INSERT INTO counters (key, value) SELECT k, 0 FROM unnest($1::text[]) AS k ORDER BY k ON CONFLICT (key) DO NOTHING`
// Resolves the still-PENDING transfers and moves their balances in one statement; a transfer resolved
// already (or concurrently: READ COMMITTED re-checks `state` after the row lock) is left alone. `ids`: where the
// transfers' ids are, after the outcome ($1) and its sign ($2).
const resolveSqlOf = (ids: string) =>
  `WITH resolved AS (UPDATE ledger_transfers SET state = $1 WHERE id ${ids} AND state = 'PENDING' ` +
  `RETURNING debit, credit, amount, currency), ` +
  `moves AS (SELECT debit AS account, currency, -amount * $2::bigint AS posted, -amount AS pending_debits, ` +
  `0::bigint AS pending_credits FROM resolved UNION ALL ` +
  `SELECT credit, currency, amount * $2::bigint, 0::bigint, -amount FROM resolved) ` +
  `INSERT INTO ledger_balances AS b (account, shard, currency, posted, pending_debits, pending_credits) ` +
  `SELECT account, ${shardOf("account")}, min(currency), sum(posted), sum(pending_debits), sum(pending_credits) ` +
  `FROM moves GROUP BY account ORDER BY account ON CONFLICT (account, shard) DO UPDATE SET posted = b.posted + EXCLUDED.posted, ` +
  `pending_debits = b.pending_debits + EXCLUDED.pending_debits, ` +
  `pending_credits = b.pending_credits + EXCLUDED.pending_credits`
/**
 * A payment's few transfers each by a parameter of their own: PostgreSQL plans the array form again on every
 * execution (its generic plan looks dearer than a plan for the values at hand: 144 µs of a settlement's server CPU
 * each time), and keeps one plan for each of these.
 */
const RESOLVE_LISTED = 4
/** The statement for `n` transfers is `resolveListedSql[n - 1]`. */
const resolveListedSql = Array.from({ length: RESOLVE_LISTED }, (_, i) =>
  resolveSqlOf(`IN (${Array.from({ length: i + 1 }, (_, j) => `$${j + 3}`).join(", ")})`)
)
const resolveSql = resolveSqlOf("= ANY($3::text[])")
// An account's transfers newest first, before a position (`seq`): the newest of each side by its index, merged; and
// the account's posted balance through the newest of them (its POSTED transfers up to it, credits minus debits).
const accountTransfersSql =
  `WITH page AS ((SELECT * FROM ledger_transfers WHERE debit = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3) ` +
  `UNION ALL (SELECT * FROM ledger_transfers WHERE credit = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3) ` +
  `ORDER BY seq DESC LIMIT $3) ` +
  `SELECT page.*, (SELECT coalesce(sum(CASE WHEN t.credit = $1 THEN t.amount ELSE -t.amount END), 0)::bigint ` +
  `FROM ledger_transfers t WHERE (t.debit = $1 OR t.credit = $1) AND t.state = 'POSTED' ` +
  `AND t.seq <= (SELECT max(seq) FROM page)) AS posted_through FROM page ORDER BY seq DESC`
/** Beyond every `seq` (a bigint identity): the `before` of a first page. */
const AFTER_EVERY_SEQ = Number.MAX_SAFE_INTEGER

const allBalancesSql =
  `SELECT account, min(currency) AS currency, sum(posted)::bigint AS posted, sum(pending_debits)::bigint AS ` +
  `pending_debits, sum(pending_credits)::bigint AS pending_credits FROM ledger_balances GROUP BY account ORDER BY account`

/** The balance of an account with no row yet. */
const emptyBalance = (a: { readonly account: string; readonly currency: string }): LedgerBalance => ({
  account: a.account,
  currency: a.currency,
  posted: 0,
  pendingDebits: 0,
  pendingCredits: 0
})

const byAccount = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The parameters of `recordSql`: the transfers, then the balance moves they make (sorted by account). */
const recordParams = (transfers: ReadonlyArray<LedgerTransfer>): Array<unknown> => {
  const n = transfers.length
  const ids = new Array<string>(n)
  const debits = new Array<string>(n)
  const credits = new Array<string>(n)
  const amounts = new Array<number>(n)
  const currencies = new Array<string>(n)
  const states = new Array<string>(n)
  const references = new Array<string>(n)
  const createdAts = new Array<string>(n)
  const moves = new Map<string, { currency: string; posted: number; pendingDebits: number; pendingCredits: number }>()
  const move: BalanceMove = (account, currency, posted, pendingDebits, pendingCredits) => {
    const m = moves.get(account)
    if (m === undefined) moves.set(account, { currency, posted, pendingDebits, pendingCredits })
    else {
      m.currency = currency
      m.posted += posted
      m.pendingDebits += pendingDebits
      m.pendingCredits += pendingCredits
    }
  }
  for (let i = 0; i < n; i++) {
    const t = transfers[i]!
    ids[i] = t.id
    debits[i] = t.debit
    credits[i] = t.credit
    amounts[i] = t.amount
    currencies[i] = t.currency
    states[i] = t.state
    references[i] = t.reference
    createdAts[i] = t.createdAt
    movesOfTransfer(t, move)
  }
  const accounts = [...moves.keys()].sort(byAccount)
  const m = accounts.map((a) => moves.get(a)!)
  return [
    ids,
    debits,
    credits,
    amounts,
    currencies,
    states,
    references,
    createdAts,
    accounts,
    m.map((x) => x.currency),
    m.map((x) => x.posted),
    m.map((x) => x.pendingDebits),
    m.map((x) => x.pendingCredits)
  ]
}

export const ledgerRepositories = (x: Executor): Pick<Repositories, "ledger"> => {
  const ledger: Repositories["ledger"] = {
    // Locks the balance rows in account order (creating the missing ones first), so two payments touching
    // the same accounts queue instead of deadlocking. Usually every row exists: one round trip.
    balances: (accounts) => {
      if (accounts.length === 0) return Effect.succeed([])
      const currencyOf = new Map<string, string>()
      for (const a of accounts) if (!currencyOf.has(a.account)) currencyOf.set(a.account, a.currency)
      const names = [...currencyOf.keys()].sort(byAccount)
      const answer = (rows: Array<Row>): ReadonlyArray<LedgerBalance> => {
        const found = new Map<string, LedgerBalance>()
        for (const row of rows) {
          const b = balanceCodec.decode(row)
          const sum = found.get(b.account)
          found.set(
            b.account,
            sum === undefined
              ? b
              : {
                  ...sum,
                  posted: sum.posted + b.posted,
                  pendingDebits: sum.pendingDebits + b.pendingDebits,
                  pendingCredits: sum.pendingCredits + b.pendingCredits
                }
          )
        }
        return accounts.map((a) => found.get(a.account) ?? emptyBalance(a))
      }
      return x.locking(
        names.map((name) => `balance:${name}`),
        Effect.flatMap(
          names.length === 1 ? x.query(lockBalanceSql, names) : x.query(lockBalancesSql, [names]),
          (rows) => {
            const have = new Set<string>(rows.map((r) => r.account))
            if (have.size === names.length) return Effect.succeed(answer(rows))
            const missing = names.filter((n) => !have.has(n))
            return Effect.flatMap(
              Effect.andThen(
                x.run(createBalancesSql, [missing, missing.map((n) => currencyOf.get(n)!)]),
                x.query(lockBalancesSql, [missing])
              ),
              (created) => Effect.succeed(answer([...rows, ...created]))
            )
          }
        )
      )
    },
    record: (transfers) =>
      transfers.length === 0 ? Effect.void : x.locking([], x.run(recordSql, recordParams(transfers)), true),
    // The counts and the debited balances are locked in its statement, checked and moved there: another member of a
    // group doing the same on one account or card is ordered by the connection and sees this one's moves (a shared
    // lock, see `locking`; counters are never noted, see `counters.add`).
    recordIfAvailable: (transfers, debits, counts = []) => {
      if (debits.length === 0 && counts.length === 0)
        return Effect.as(ledger.record(transfers), { recorded: true, balances: [], totals: [] })
      const params = [
        ...recordParams(transfers),
        debits.map((d) => d.account),
        debits.map((d) => d.amount),
        counts.map((c) => c.key),
        counts.map((c) => c.amount),
        counts.map((c) => c.cap ?? null)
      ]
      const attempt = Effect.map(x.query(recordIfAvailableSql, params), (rows) => {
        const first = rows[0]!
        const keys: ReadonlyArray<string> = first.counted_keys ?? []
        const values: ReadonlyArray<string | number> = first.counted_values ?? []
        const totals = new Map(keys.map((key, i) => [key, Number(values[i])]))
        if (counts.some((c) => !totals.has(c.key))) return undefined
        const before = new Map<string, LedgerBalance>()
        for (const row of rows) if (row.account !== null) before.set(row.account, balanceCodec.decode(row))
        return {
          recorded: first.recorded === true,
          balances: debits.map((d) => before.get(d.account) ?? emptyBalance(d)),
          totals: counts.map((c) => totals.get(c.key)!)
        }
      })
      return x.locking(
        debits.map((d) => `balance:${d.account}`),
        Effect.flatMap(attempt, (done) =>
          done !== undefined
            ? Effect.succeed(done)
            : Effect.andThen(
                x.run(ensureCountersSql, [counts.map((c) => c.key)]),
                Effect.flatMap(attempt, (again) =>
                  again !== undefined ? Effect.succeed(again) : Effect.die(new Error("ledger: a counter vanished"))
                )
              )
        ),
        true,
        true
      )
    },
    resolve: (ids, outcome) => {
      if (ids.length === 0) return Effect.void
      const listed = ids.length <= RESOLVE_LISTED
      const params = [outcome, outcome === "POSTED" ? 1 : 0, ...(listed ? ids : [ids])]
      return x.locking([], x.run(listed ? resolveListedSql[ids.length - 1]! : resolveSql, params), true)
    },
    transfers: (reference) =>
      Effect.map(x.query(`SELECT * FROM ledger_transfers WHERE reference = $1 ORDER BY seq`, [reference]), (rows) =>
        rows.map(transferCodec.decode)
      ),
    accountTransfers: (account, limit, before) =>
      Effect.map(x.query(accountTransfersSql, [account, before ?? AFTER_EVERY_SEQ, limit + 1]), (rows) => ({
        transfers: rows
          .slice(0, limit)
          .map((row) => ({ position: Number(row.seq), transfer: transferCodec.decode(row) })),
        hasMore: rows.length > limit,
        postedThrough: rows.length === 0 ? 0 : Number(rows[0]!.posted_through)
      })),
    allBalances: () => Effect.map(x.query(allBalancesSql, []), (rows) => rows.map(balanceCodec.decode))
  }
  return { ledger }
}
