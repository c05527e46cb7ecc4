import { assert, describe, layer } from "@effect/vitest"
import { type LedgerTransfer, Store, type TransactionRecord, type UniqueViolation } from "@paycore/core"
import { Cause, Effect, Exit, Fiber } from "effect"
import { it as vit } from "vitest"
import { migrate } from "../src/index.ts"
import { idOf, testDatabase, unique, wallClockPause } from "./helpers.ts"
import {
  bareIndividual,
  business,
  externalAccount,
  individual,
  internalAccount,
  outboxRecord,
  platformConfig,
  quote,
  token,
  transaction
} from "./records.ts"

const db = testDatabase("store")

describe("migrations", () => {
  vit("apply once, then find nothing to do (and say so again when run concurrently)", async () => {
    const k = db.open()
    try {
      assert.deepStrictEqual(await migrate(k), [
        "0001_initial",
        "0002_onboarding",
        "0003_system_balance_shards",
        "0004_documents_and_bulk_imports",
        "0005_webhook_secrets",
        "0006_wallet_auth",
        "0007_delegated_keys",
        "0008_ownership_verification",
        "0009_sca",
        "0010_sca_factors",
        "0011_sca_factor_resets",
        "0012_trusted_beneficiaries",
        "0013_sca_quotes",
        "0014_cards",
        "0015_agent_ids",
        "0016_agents",
        "0017_invitations",
        "0018_stablecoins",
        "0019_transaction_actions",
        "0020_platform_accounts",
        "0021_on_chain",
        "0022_transaction_transitions",
        "0023_ledger_account_transfers",
        "0024_receiver_lookups",
        "0025_currency_configs",
        "0026_webhook_retry_rounds",
        "0027_transfer_direction",
        "0028_beneficiary_verification",
        "0029_shared_instances",
        "0030_due_queues",
        "0031_transaction_lookups"
      ])
      assert.deepStrictEqual(await migrate(k), [])
      assert.deepStrictEqual(await Promise.all([migrate(k), migrate(k)]), [[], []])
    } finally {
      await k.destroy()
    }
  })
})

const transfer = (
  reference: string,
  n: number,
  debit: string,
  credit: string,
  amount: number,
  state: LedgerTransfer["state"]
): LedgerTransfer => ({
  id: `${reference}#${n}`,
  debit,
  credit,
  amount,
  currency: "USD",
  state,
  reference,
  createdAt: "2026-11-21T13:36:44.123Z"
})

layer(db.layer())("postgres store", (it) => {
  it.effect("round-trips a record of every collection exactly (optional fields absent stay absent)", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const rows = {
        tokens: [token(1), token(2, { deletedAt: "2026-11-22T00:00:00.5+01:00" })],
        customers: [individual(1), bareIndividual(2), business(3)],
        internalAccounts: [internalAccount(1), internalAccount(2, { customerId: undefined as never })],
        externalAccounts: [externalAccount(1)],
        quotes: [quote(1)],
        transactions: [transaction(1)]
      }
      // `internalAccount(2)` without a customer: drop the key rather than keep it undefined.
      const { customerId: _, ...platformAccount } = rows.internalAccounts[1]!
      rows.internalAccounts[1] = platformAccount
      const bareTransaction: TransactionRecord = {
        id: idOf("Transaction", 2),
        state: "PENDING",
        transaction: {
          id: idOf("Transaction", 2),
          status: "PENDING",
          type: "INCOMING",
          direction: "CREDIT",
          source: {},
          destination: { umaAddress: "$x@uma.example.com" },
          sentAmount: { amount: 0, currency: transaction(1).transaction.sentAmount.currency },
          receivedAmount: { amount: 1, currency: transaction(1).transaction.receivedAmount.currency },
          createdAt: "2026-11-21T13:36:44Z",
          updatedAt: "2026-11-21T13:36:44Z"
        }
      }
      rows.transactions.push(bareTransaction)

      for (const t of rows.tokens) yield* store.tokens.insert(t)
      for (const c of rows.customers) yield* store.customers.insert(c)
      for (const a of rows.internalAccounts) yield* store.internalAccounts.insert(a)
      for (const a of rows.externalAccounts) yield* store.externalAccounts.insert(a)
      for (const q of rows.quotes) yield* store.quotes.insert(q)
      for (const t of rows.transactions) yield* store.transactions.insert(t)

      for (const t of rows.tokens) assert.deepStrictEqual(yield* store.tokens.get(t.id), t)
      for (const c of rows.customers) assert.deepStrictEqual(yield* store.customers.get(c.id), c)
      for (const a of rows.internalAccounts) assert.deepStrictEqual(yield* store.internalAccounts.get(a.id), a)
      for (const a of rows.externalAccounts) assert.deepStrictEqual(yield* store.externalAccounts.get(a.id), a)
      for (const q of rows.quotes) assert.deepStrictEqual(yield* store.quotes.get(q.id), q)
      for (const t of rows.transactions) assert.deepStrictEqual(yield* store.transactions.get(t.id), t)

      // Through every read path.
      assert.deepStrictEqual(yield* store.tokens.findUnique("clientId", "client-1"), rows.tokens[0])
      assert.deepStrictEqual(yield* store.customers.findUnique("umaAddress", business(3).umaAddress), business(3))
      assert.deepStrictEqual(yield* store.customers.findUnique("platformCustomerId", "platform-1"), individual(1))
      assert.deepStrictEqual(yield* store.quotes.findUnique("transactionId", idOf("Transaction", 1)), quote(1))
      assert.deepStrictEqual(
        yield* store.transaction(store.transactions.getForUpdate(idOf("Transaction", 1))),
        transaction(1)
      )
      const listed = yield* store.customers.list({ includeDeleted: false }, { limit: 10, sortOrder: "asc" })
      assert.deepStrictEqual(listed.data, rows.customers)

      // An update that drops optional fields: they come back absent.
      const { dueAt: _d, attempts: _a, railReference: _r, ...settled } = transaction(1)
      const done: TransactionRecord = { ...settled, state: "COMPLETED" }
      yield* store.transactions.update(done)
      assert.deepStrictEqual(yield* store.transactions.get(done.id), done)
      assert.isUndefined(yield* store.tokens.get(idOf("Token", 999)))

      // The small parts.
      yield* store.config.put(platformConfig)
      assert.deepStrictEqual(yield* store.config.get(), platformConfig)
      const { cardConfigs: _c, cardTokenization2faConfig: _t, webhookEndpoint: _w, ...plain } = platformConfig
      yield* store.config.put(plain)
      assert.deepStrictEqual(yield* store.config.get(), plain)
      const record = { key: "scope:key-1", fingerprint: "f", status: 201, body: '{"ok":true}', createdAt: "x" }
      yield* store.idempotency.put(record)
      assert.deepStrictEqual(yield* store.idempotency.get(record.key), record)
      assert.isUndefined(yield* store.idempotency.get("scope:nope"))
      const o = outboxRecord(1)
      const { leaseUntil: _l, ...unleased } = outboxRecord(2)
      yield* store.outbox.append([o, unleased])
      assert.deepStrictEqual(yield* store.outbox.get(o.id), o)
      assert.deepStrictEqual(yield* store.outbox.get(unleased.id), unleased)
    })
  )

  it.effect("rolls back every write of a failed, dying or interrupted transaction", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const reference = unique("rollback")
      const subject = unique("subject")
      const account = unique("acct")
      const writeEverything = Effect.gen(function* () {
        yield* store.tokens.insert(token(100))
        yield* store.customers.insert(individual(100))
        yield* store.ledger.balances([{ account, currency: "USD" }])
        yield* store.ledger.record([transfer(reference, 1, "system:deposits:USD", account, 500, "POSTED")])
        yield* store.outbox.appendEvents([{ ...outboxRecord(100), subject }])
        yield* store.counters.add(reference, 7)
        yield* store.idempotency.put({ key: reference, fingerprint: "f", status: 200, body: "", createdAt: "t" })
      })
      const nothingLeft = Effect.gen(function* () {
        assert.isUndefined(yield* store.tokens.get(idOf("Token", 100)))
        assert.isUndefined(yield* store.customers.findUnique("platformCustomerId", "platform-100"))
        assert.deepStrictEqual(yield* store.ledger.transfers(reference), [])
        assert.isFalse((yield* store.ledger.allBalances()).some((b) => b.account === account))
        assert.strictEqual((yield* store.outbox.list({ subject }, { limit: 10, sortOrder: "asc" })).totalCount, 0)
        assert.strictEqual(yield* store.counters.get(reference), 0)
        assert.isUndefined(yield* store.idempotency.get(reference))
      })

      const failed = yield* store
        .transaction(Effect.andThen(writeEverything, Effect.fail("boom" as const)))
        .pipe(Effect.flip)
      assert.strictEqual(failed, "boom")
      yield* nothingLeft

      const died = yield* Effect.exit(store.transaction(Effect.andThen(writeEverything, Effect.die("bug"))))
      assert.isTrue(Exit.isFailure(died) && Cause.hasDies(died.cause))
      yield* nothingLeft

      const fiber = yield* Effect.forkChild(store.transaction(Effect.andThen(writeEverything, Effect.never)))
      // Let it write, then interrupt it while it holds the transaction.
      yield* wallClockPause(300)
      yield* Fiber.interrupt(fiber)
      yield* nothingLeft

      // The subject's numbering was rolled back too: the next event is number 1.
      assert.strictEqual(yield* store.outbox.nextSequence(subject), 1)
    })
  )

  it.effect("nested transactions join the outer one; a failed statement poisons the transaction", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const key = unique("nested")
      const inner = store.transaction(store.counters.add(key, 1))
      const result = yield* store.transaction(Effect.andThen(inner, Effect.fail("later" as const))).pipe(Effect.flip)
      assert.strictEqual(result, "later")
      assert.strictEqual(yield* store.counters.get(key), 0)

      // The effect swallows a failed statement: PostgreSQL aborted the transaction, so commit is refused.
      const swallowed = yield* store
        .transaction(
          Effect.gen(function* () {
            yield* store.counters.add(key, 1)
            // Not an integer: PostgreSQL refuses the statement.
            yield* store.counters.add(key, 1.5).pipe(Effect.ignore)
            return "done"
          })
        )
        .pipe(Effect.flip)
      assert.strictEqual(swallowed._tag, "StoreError")
      assert.strictEqual(yield* store.counters.get(key), 0)

      // A write nobody waits for (on a server it goes out with the next statement or the COMMIT) that fails
      // fails its transaction all the same, with its own error, at COMMIT or at the next statement.
      const bad = transfer(
        unique("Transaction:bad"),
        1,
        "system:deposits:USD",
        unique("InternalAccount:x"),
        1.5,
        "POSTED"
      )
      const atCommit = yield* store
        .transaction(
          Effect.gen(function* () {
            yield* store.counters.add(key, 1)
            yield* store.ledger.record([bad])
            return "done"
          })
        )
        .pipe(Effect.flip)
      assert.strictEqual(atCommit._tag, "StoreError")
      assert.include(atCommit.message, "bigint")
      const atNext = yield* store
        .transaction(
          Effect.gen(function* () {
            yield* store.ledger.record([bad])
            return yield* store.counters.add(key, 1)
          })
        )
        .pipe(Effect.flip)
      assert.include(atNext.message, "bigint")
      assert.strictEqual(yield* store.counters.get(key), 0)
      assert.deepStrictEqual(yield* store.ledger.transfers(bad.reference), [])
    })
  )

  it.effect("refuses a second row with a unique key, naming it as the memory store does", () =>
    Effect.gen(function* () {
      const store = yield* Store
      yield* store.tokens.insert(token(200))
      const violation = (index: string): UniqueViolation => ({ _tag: "UniqueViolation", index })
      assert.deepStrictEqual(yield* store.tokens.insert(token(200)).pipe(Effect.flip), violation("id"))
      assert.deepStrictEqual(
        yield* store.tokens.insert({ ...token(201), clientId: "client-200" }).pipe(Effect.flip),
        violation("clientId")
      )
      yield* store.tokens.insert(token(201))
      assert.deepStrictEqual(
        yield* store.tokens.update({ ...token(201), clientId: "client-200" }).pipe(Effect.flip),
        violation("clientId")
      )
      assert.strictEqual((yield* store.tokens.get(idOf("Token", 201)))?.clientId, "client-201")

      yield* store.customers.insert(individual(200))
      assert.deepStrictEqual(
        yield* store.customers.insert({ ...individual(201), platformCustomerId: "platform-200" }).pipe(Effect.flip),
        violation("platformCustomerId")
      )
      assert.deepStrictEqual(
        yield* store.customers.insert({ ...individual(201), umaAddress: individual(200).umaAddress }).pipe(Effect.flip),
        violation("umaAddress")
      )
      // A deleted customer frees its keys.
      yield* store.customers.update({ ...individual(200), isDeleted: true })
      yield* store.customers.insert({ ...individual(201), platformCustomerId: "platform-200" })
      assert.strictEqual(
        (yield* store.customers.findUnique("platformCustomerId", "platform-200"))?.id,
        idOf("Customer", 201)
      )
      // ... and cannot take them back while another holds them.
      assert.deepStrictEqual(
        yield* store.customers.update({ ...individual(200), isDeleted: false }).pipe(Effect.flip),
        violation("platformCustomerId")
      )

      yield* store.quotes.insert(quote(200))
      const { quote: q } = quote(201)
      assert.deepStrictEqual(
        yield* store.quotes
          .insert({ ...quote(201), quote: { ...q, transactionId: idOf("Transaction", 200) } })
          .pipe(Effect.flip),
        violation("transactionId")
      )

      const record = { key: unique("idem"), fingerprint: "f", status: 200, body: "", createdAt: "t" }
      yield* store.idempotency.put(record)
      assert.deepStrictEqual(yield* store.idempotency.put(record).pipe(Effect.flip), violation("idempotencyKey"))

      // Inside a transaction a refused insert writes nothing and the transaction goes on (as in memory).
      yield* store.transaction(
        Effect.gen(function* () {
          const err = yield* store.tokens.insert({ ...token(202), clientId: "client-200" }).pipe(Effect.flip)
          assert.deepStrictEqual(err, violation("clientId"))
          yield* store.tokens.insert(token(202))
        })
      )
      assert.strictEqual((yield* store.tokens.get(idOf("Token", 202)))?.clientId, "client-202")
    })
  )

  it.effect("pages by id, ascending and descending, after a cursor, with the filter's total", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const customerId = idOf<"Customer:x">("Customer", 300)
      for (let n = 301; n <= 305; n++) {
        yield* store.internalAccounts.insert(internalAccount(n, { customerId: customerId as never }))
      }
      const ids = (p: { data: ReadonlyArray<{ id: string }> }) => p.data.map((a) => a.id)
      const asc1 = yield* store.internalAccounts.list({ customerId }, { limit: 2, sortOrder: "asc" })
      assert.deepStrictEqual(ids(asc1), [idOf("InternalAccount", 301), idOf("InternalAccount", 302)])
      assert.isTrue(asc1.hasMore)
      assert.strictEqual(asc1.totalCount, 5)
      assert.isString(asc1.nextCursor)
      const asc2 = yield* store.internalAccounts.list(
        { customerId },
        { limit: 2, sortOrder: "asc", after: idOf("InternalAccount", 302) }
      )
      assert.deepStrictEqual(ids(asc2), [idOf("InternalAccount", 303), idOf("InternalAccount", 304)])
      const asc3 = yield* store.internalAccounts.list(
        { customerId },
        { limit: 2, sortOrder: "asc", after: idOf("InternalAccount", 304) }
      )
      assert.deepStrictEqual(asc3, {
        data: [internalAccount(305, { customerId: customerId as never })],
        hasMore: false,
        totalCount: 5
      })

      const desc1 = yield* store.internalAccounts.list({ customerId }, { limit: 3, sortOrder: "desc" })
      assert.deepStrictEqual(
        ids(desc1),
        [305, 304, 303].map((n) => idOf("InternalAccount", n))
      )
      const desc2 = yield* store.internalAccounts.list(
        { customerId },
        { limit: 3, sortOrder: "desc", after: idOf("InternalAccount", 303) }
      )
      assert.deepStrictEqual(
        ids(desc2),
        [302, 301].map((n) => idOf("InternalAccount", n))
      )
      assert.deepStrictEqual(
        yield* store.internalAccounts.list({ customerId: "Customer:none" }, { limit: 3, sortOrder: "desc" }),
        { data: [], hasMore: false, totalCount: 0 }
      )
    })
  )

  it.effect("list filters match the memory store's: deleted tokens, transactions by account, due, outbox", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const page = { limit: 50, sortOrder: "asc" } as const
      for (let n = 401; n <= 403; n++) {
        yield* store.tokens.insert(token(n, { name: "filter-me", createdAt: `2026-12-0${n - 400}T00:00:00.000Z` }))
      }
      yield* store.tokens.update(
        token(402, { name: "filter-me", createdAt: "2026-12-02T00:00:00.000Z", deletedAt: "x" })
      )
      const live = yield* store.tokens.list({ name: "filter-me", includeDeleted: false }, page)
      assert.deepStrictEqual(
        live.data.map((t) => t.id),
        [idOf("Token", 401), idOf("Token", 403)]
      )
      const all = yield* store.tokens.list(
        { name: "filter-me", includeDeleted: true, createdAfter: "2026-12-01T00:00:00.000Z" },
        page
      )
      assert.deepStrictEqual(
        all.data.map((t) => t.id),
        [idOf("Token", 402), idOf("Token", 403)]
      )

      const account = idOf<never>("InternalAccount", 410)
      const out = transaction(411)
      const incoming = transaction(412)
      yield* store.transactions.insert({
        ...out,
        dueAt: "2026-11-21T10:00:00.000Z",
        state: "SUBMITTED",
        transaction: { ...out.transaction, source: { sourceType: "ACCOUNT", accountId: account } }
      })
      yield* store.transactions.insert({
        ...incoming,
        dueAt: "2026-11-21T12:00:00.000Z",
        state: "PENDING",
        transaction: { ...incoming.transaction, destination: { destinationType: "ACCOUNT", accountId: account } }
      })
      const byAccount = yield* store.transactions.list({ accountIdentifier: account }, page)
      assert.deepStrictEqual(
        byAccount.data.map((t) => t.id),
        [idOf("Transaction", 411), idOf("Transaction", 412)]
      )
      const due = yield* store.transactions.list(
        { accountIdentifier: account, states: ["SUBMITTED", "PENDING"], dueBy: "2026-11-21T11:00:00.000Z" },
        page
      )
      assert.deepStrictEqual(
        due.data.map((t) => t.id),
        [idOf("Transaction", 411)]
      )
      const none = yield* store.transactions.list({ accountIdentifier: account, states: [] }, page)
      assert.strictEqual(none.totalCount, 0)
      const byReference = yield* store.transactions.list({ reference: "recon-412" }, page)
      assert.deepStrictEqual(
        byReference.data.map((t) => t.id),
        [idOf("Transaction", 412)]
      )

      const customerCurrency = yield* store.customers.list(
        { currency: "MXN", includeDeleted: true, region: "MX" },
        page
      )
      assert.isTrue(customerCurrency.data.every((c) => c.currencies.includes("MXN")))

      yield* store.quotes.insert(quote(420, { status: "PENDING", expiresAt: "2026-11-21T09:00:00.000Z" }))
      yield* store.quotes.insert(quote(421, { status: "COMPLETED", expiresAt: "2026-11-21T09:00:00.000Z" }))
      const expired = yield* store.quotes.list(
        { status: "PENDING", expiresAtOrBefore: "2026-11-21T09:00:00.000Z" },
        page
      )
      assert.deepStrictEqual(
        expired.data.map((q) => q.id),
        [idOf("Quote", 420)]
      )

      yield* store.externalAccounts.insert(externalAccount(430, { customerId: idOf("Customer", 430) }))
      yield* store.externalAccounts.insert(
        externalAccount(431, { customerId: idOf("Customer", 430), status: "INACTIVE" })
      )
      const externals = yield* store.externalAccounts.list({ customerId: idOf("Customer", 430) }, page)
      assert.deepStrictEqual(
        externals.data.map((a) => a.id),
        [idOf("ExternalAccount", 430)]
      )
    })
  )

  it.effect("ledger: pending transfers hold money until posted or voided; resolving is idempotent", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const a = unique("InternalAccount:a")
      const b = unique("InternalAccount:b")
      const fund = unique("Transaction:fund")
      const pay = unique("Transaction:pay")
      const refund = unique("Transaction:refund")
      const balance = (account: string) =>
        Effect.map(store.ledger.balances([{ account, currency: "USD" }]), (bs) => bs[0]!)

      assert.deepStrictEqual(yield* balance(a), {
        account: a,
        currency: "USD",
        posted: 0,
        pendingDebits: 0,
        pendingCredits: 0
      })
      yield* store.ledger.record([transfer(fund, 1, "system:deposits:USD", a, 1_000, "POSTED")])
      yield* store.ledger.record([
        transfer(pay, 1, a, b, 300, "PENDING"),
        transfer(pay, 2, a, "system:fees:USD", 20, "PENDING")
      ])
      assert.deepStrictEqual(yield* balance(a), {
        account: a,
        currency: "USD",
        posted: 1_000,
        pendingDebits: 320,
        pendingCredits: 0
      })
      assert.deepStrictEqual(yield* balance(b), {
        account: b,
        currency: "USD",
        posted: 0,
        pendingDebits: 0,
        pendingCredits: 300
      })

      yield* store.ledger.resolve([`${pay}#1`, `${pay}#2`], "POSTED")
      yield* store.ledger.resolve([`${pay}#1`, `${pay}#2`], "POSTED")
      yield* store.ledger.resolve([`${pay}#1`], "VOIDED")
      assert.deepStrictEqual(yield* balance(a), {
        account: a,
        currency: "USD",
        posted: 680,
        pendingDebits: 0,
        pendingCredits: 0
      })
      assert.deepStrictEqual(yield* balance(b), {
        account: b,
        currency: "USD",
        posted: 300,
        pendingDebits: 0,
        pendingCredits: 0
      })
      assert.deepStrictEqual(
        (yield* store.ledger.transfers(pay)).map((t) => [t.id, t.state]),
        [
          [`${pay}#1`, "POSTED"],
          [`${pay}#2`, "POSTED"]
        ]
      )

      yield* store.ledger.record([transfer(refund, 1, a, b, 100, "PENDING")])
      yield* store.ledger.resolve([`${refund}#1`, "unknown#9"], "VOIDED")
      assert.deepStrictEqual(yield* balance(a), {
        account: a,
        currency: "USD",
        posted: 680,
        pendingDebits: 0,
        pendingCredits: 0
      })
      assert.deepStrictEqual(yield* balance(b), {
        account: b,
        currency: "USD",
        posted: 300,
        pendingDebits: 0,
        pendingCredits: 0
      })
      assert.deepStrictEqual(yield* store.ledger.transfers(refund), [{ ...transfer(refund, 1, a, b, 100, "VOIDED") }])

      // Balances come back in the order asked, zeros for accounts that never moved.
      const [x, y, z] = yield* store.ledger.balances([
        { account: b, currency: "USD" },
        { account: "never-moved", currency: "EUR" },
        { account: a, currency: "USD" }
      ])
      assert.deepStrictEqual(
        [x?.account, y, z?.account],
        [b, { account: "never-moved", currency: "EUR", posted: 0, pendingDebits: 0, pendingCredits: 0 }, a]
      )

      // Per currency, posted sums to zero.
      const all = yield* store.ledger.allBalances()
      assert.strictEqual(
        all.filter((bal) => bal.currency === "USD").reduce((sum, bal) => sum + bal.posted, 0),
        0
      )
    })
  )

  it.effect("ledger: a system account's balance is the sum of its shard rows, written concurrently", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const currency = unique("SYS").replace(/[^A-Za-z0-9]/g, "")
      const system = `system:payouts:${currency}`
      const payers = Array.from({ length: 8 }, (_, i) => unique(`InternalAccount:payer${i}`))
      const fund = (payer: string) => ({
        ...transfer(unique("Transaction:fund"), 1, system, payer, 100, "POSTED"),
        currency
      })
      yield* store.ledger.record(payers.map(fund).map((t, i) => ({ ...t, id: `${t.reference}#${i + 1}` })))
      // Each payment holds 10 in its own transaction, all at once (on a server: several sessions, several shards).
      yield* Effect.forEach(
        payers,
        (payer) =>
          store.transaction(
            Effect.gen(function* () {
              const [b] = yield* store.ledger.balances([{ account: payer, currency }])
              assert.strictEqual(b!.posted - b!.pendingDebits, 100)
              const pay = unique("Transaction:pay")
              yield* store.ledger.record([{ ...transfer(pay, 1, payer, system, 10, "PENDING"), currency }])
              return pay
            })
          ),
        { concurrency: "unbounded" }
      ).pipe(
        Effect.flatMap((pays) =>
          Effect.forEach(pays.slice(0, 3), (pay) => store.ledger.resolve([`${pay}#1`], "POSTED"))
        )
      )

      assert.deepStrictEqual(yield* store.ledger.balances([{ account: system, currency }]), [
        { account: system, currency, posted: -800 + 30, pendingDebits: 0, pendingCredits: 50 }
      ])
      const mine = (yield* store.ledger.allBalances()).filter((b) => b.currency === currency)
      assert.strictEqual(mine.length, 9)
      assert.deepStrictEqual(
        mine.find((b) => b.account === system),
        { account: system, currency, posted: -770, pendingDebits: 0, pendingCredits: 50 }
      )
      assert.strictEqual(
        mine.reduce((sum, b) => sum + b.posted, 0),
        0
      )
      assert.strictEqual(
        mine.reduce((sum, b) => sum + b.pendingDebits - b.pendingCredits, 0),
        0
      )
    })
  )

  it.effect("counters, outbox numbering per subject, and claimDue's lease", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const key = unique("counter")
      assert.strictEqual(yield* store.counters.get(key), 0)
      assert.strictEqual(yield* store.counters.add(key, 5), 5)
      assert.strictEqual(yield* store.counters.add(key, 8_000_000_000_000), 8_000_000_000_005)
      assert.strictEqual(yield* store.counters.get(key), 8_000_000_000_005)

      const s1 = unique("Transaction:s1")
      const s2 = unique("Transaction:s2")
      const event = (n: number, subject: string) => {
        const { sequence: _, leaseUntil: _l, ...e } = outboxRecord(n, { subject })
        return e
      }
      yield* store.transaction(store.outbox.appendEvents([event(501, s1), event(502, s2), event(503, s1)]))
      assert.strictEqual(yield* store.outbox.nextSequence(s1), 3)
      yield* store.outbox.appendEvents([event(504, s1)])
      const seq = (subject: string) =>
        Effect.map(store.outbox.list({ subject }, { limit: 10, sortOrder: "asc" }), (p) =>
          p.data.map((r) => [r.id, r.sequence])
        )
      assert.deepStrictEqual(yield* seq(s1), [
        [idOf("Webhook", 501), 1],
        [idOf("Webhook", 503), 2],
        [idOf("Webhook", 504), 4]
      ])
      assert.deepStrictEqual(yield* seq(s2), [[idOf("Webhook", 502), 1]])
      const below = yield* store.outbox.list({ subject: s1, sequenceBelow: 2 }, { limit: 10, sortOrder: "asc" })
      assert.deepStrictEqual(
        below.data.map((r) => r.id),
        [idOf("Webhook", 501)]
      )

      // claimDue: PENDING, due by now, not leased (or lease over); oldest first; leased until `leaseUntil`.
      const now = "2027-01-01T00:00:00.000Z"
      yield* store.outbox.append([
        outboxRecord(510, { nextAttemptAt: "2026-12-31T00:00:00.000Z", leaseUntil: "2026-12-31T23:00:00.000Z" }),
        outboxRecord(511, { nextAttemptAt: "2026-12-31T00:00:00.000Z", leaseUntil: "2027-01-01T00:00:01.000Z" }),
        outboxRecord(512, { nextAttemptAt: "2027-01-01T00:00:01.000Z", leaseUntil: undefined as never }),
        outboxRecord(513, { nextAttemptAt: "2026-12-31T00:00:00.000Z", status: "DELIVERED" }),
        outboxRecord(514, { nextAttemptAt: "2027-01-01T00:00:00.000Z" })
      ])
      // Other rows of this file are due long before: claim them out of the way first.
      yield* store.outbox.claimDue("2026-11-30T00:00:00.000Z", 1000, "2099-01-01T00:00:00.000Z")
      const claimed = yield* store.outbox.claimDue(now, 10, "2027-01-01T00:01:00.000Z")
      assert.deepStrictEqual(
        claimed.map((r) => [r.id, r.leaseUntil]),
        [
          [idOf("Webhook", 510), "2027-01-01T00:01:00.000Z"],
          [idOf("Webhook", 514), "2027-01-01T00:01:00.000Z"]
        ]
      )
      assert.deepStrictEqual(yield* store.outbox.get(idOf("Webhook", 510)), claimed[0])
      assert.deepStrictEqual(yield* store.outbox.claimDue(now, 10, "2027-01-01T00:01:00.000Z"), [])
      assert.deepStrictEqual(
        (yield* store.outbox.claimDue("2027-01-01T00:01:00.000Z", 1, "2027-01-01T00:02:00.000Z")).map((r) => r.id),
        [idOf("Webhook", 510)]
      )
      yield* store.outbox.save({ ...outboxRecord(514), status: "DELIVERED" })
      assert.strictEqual((yield* store.outbox.get(idOf("Webhook", 514)))?.status, "DELIVERED")
    })
  )
})
