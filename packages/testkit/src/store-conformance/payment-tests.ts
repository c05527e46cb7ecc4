import { assert } from "@effect/vitest"
import {
  type QuoteFilter,
  type QuoteRecord,
  type QuoteStatus,
  Store,
  type TransactionFilter,
  type TransactionRecord
} from "@paycore/core"
import { Effect } from "effect"
import { assertUniqueViolation, expectDue, expectFiltered, expectList } from "./assertions.ts"
import { DAY, type It, type ListFn, makeScope, newId, type Scope } from "./ids.ts"
import {
  individualFull,
  payment,
  quoteFull,
  quoteMinimal,
  transactionFull,
  transactionMinimal,
  withQuote
} from "./records.ts"

export const quoteTests = (it: It) => {
  it.effect("findUnique by transactionId; a taken transactionId is refused on insert and on update", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const a = quoteFull(s)
      const b = quoteMinimal(s)
      yield* store.quotes.insert(a)
      yield* store.quotes.insert(b)
      assert.deepStrictEqual(yield* store.quotes.findUnique("transactionId", a.quote.transactionId), a)
      assert.deepStrictEqual(yield* store.quotes.findUnique("transactionId", b.quote.transactionId), b)
      assert.isUndefined(yield* store.quotes.findUnique("transactionId", newId("Transaction")))

      const clash = quoteMinimal(s)
      const clashing = { ...clash, quote: { ...clash.quote, transactionId: a.quote.transactionId } }
      assertUniqueViolation(yield* store.quotes.insert(clashing).pipe(Effect.flip), "transactionId")
      assert.isUndefined(yield* store.quotes.get(clash.id), "a refused insert writes nothing")
      const moved = { ...b, quote: { ...b.quote, transactionId: a.quote.transactionId } }
      assertUniqueViolation(yield* store.quotes.update(moved).pipe(Effect.flip), "transactionId")
      assert.deepStrictEqual(yield* store.quotes.get(b.id), b, "a refused update changes nothing")

      const executed = withQuote(a, { status: "PROCESSING" })
      yield* store.quotes.update(executed)
      assert.deepStrictEqual(yield* store.quotes.findUnique("transactionId", a.quote.transactionId), executed)
    })
  )

  it.effect("getForUpdateWithTransaction: the quote with its transaction, in and outside a store transaction", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const record = transactionMinimal(s)
      const minimal = quoteMinimal(s)
      const quote: QuoteRecord = { ...minimal, quote: { ...minimal.quote, transactionId: record.transaction.id } }
      yield* store.quotes.insert(quote)
      assert.deepStrictEqual(yield* store.quotes.getForUpdateWithTransaction(quote.id), {
        quote,
        transaction: undefined
      })
      yield* store.transactions.insert(record)
      assert.deepStrictEqual(yield* store.quotes.getForUpdateWithTransaction(quote.id), { quote, transaction: record })
      assert.deepStrictEqual(yield* store.transaction(store.quotes.getForUpdateWithTransaction(quote.id)), {
        quote,
        transaction: record
      })
      assert.isUndefined(yield* store.quotes.getForUpdateWithTransaction(newId("Quote")))
    })
  )

  it.effect("getForUpdateWithTransaction(id, true): the quote's customer too; none for a quote without one", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const customer = individualFull(s, s.customerId)
      yield* store.customers.insert(customer)
      const record = transactionMinimal(s)
      const full = quoteFull(s)
      const quote: QuoteRecord = { ...full, quote: { ...full.quote, transactionId: record.transaction.id } }
      yield* store.quotes.insert(quote)
      yield* store.transactions.insert(record)
      assert.deepStrictEqual(yield* store.transaction(store.quotes.getForUpdateWithTransaction(quote.id, true)), {
        quote,
        transaction: record,
        customer
      })
      assert.deepStrictEqual(yield* store.quotes.getForUpdateWithTransaction(quote.id, false), {
        quote,
        transaction: record
      })
      const alone = quoteMinimal(s)
      yield* store.quotes.insert(alone)
      assert.deepStrictEqual(yield* store.quotes.getForUpdateWithTransaction(alone.id, true), {
        quote: alone,
        transaction: undefined,
        customer: undefined
      })
    })
  )

  it.effect("setStatus moves a quote's status, in and outside a store transaction; a missing quote stays missing", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const quote = quoteFull(s)
      yield* store.quotes.insert(quote)
      yield* store.quotes.setStatus(quote.id, "PROCESSING")
      assert.deepStrictEqual(yield* store.quotes.get(quote.id), withQuote(quote, { status: "PROCESSING" }))
      yield* store.transaction(store.quotes.setStatus(quote.id, "COMPLETED"))
      assert.deepStrictEqual(yield* store.quotes.get(quote.id), withQuote(quote, { status: "COMPLETED" }))
      const missing = newId("Quote")
      yield* store.quotes.setStatus(missing, "FAILED")
      assert.isUndefined(yield* store.quotes.get(missing))
    })
  )

  it.effect("list filters: status, expiresAtOrBefore (inclusive), and the expiry worker's status + expiry", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<QuoteRecord, QuoteFilter> = store.quotes.list
      // Expiry instants far in the past: only this test's quotes are that old.
      const s = makeScope(1000, 1900)
      const q = (status: QuoteStatus, expiresAt: string) => withQuote(quoteFull(s), { status, expiresAt })
      const q1 = q("PENDING", s.at(100))
      const q2 = q("PENDING", s.at(200))
      const q3 = q("PENDING", s.at(300))
      const q4 = q("PENDING_AUTHORIZATION", s.at(100))
      const q5 = q("COMPLETED", s.at(300))
      const q6 = q("EXPIRED", s.at(400))
      for (const r of [q1, q2, q3, q4, q5, q6]) yield* store.quotes.insert(r)

      const expiry = (status: string, bound: string) => (r: QuoteRecord) =>
        r.quote.status === status && r.quote.expiresAt <= bound
      yield* expectFiltered(list, { status: "PENDING", expiresAtOrBefore: s.at(200) }, expiry("PENDING", s.at(200)), {
        included: [q1, q2],
        excluded: [q3, q4, q5, q6]
      })
      yield* expectFiltered(
        list,
        { status: "PENDING_AUTHORIZATION", expiresAtOrBefore: s.at(200) },
        expiry("PENDING_AUTHORIZATION", s.at(200)),
        { included: [q4], excluded: [q1, q2, q3, q5, q6] }
      )
      yield* expectFiltered(list, { status: "PENDING", expiresAtOrBefore: s.at(99) }, expiry("PENDING", s.at(99)), {
        included: [],
        excluded: [q1, q2, q3, q4, q5, q6]
      })
      // The bound alone (pending quotes of this test only: what other statuses give is not specified).
      yield* expectFiltered(list, { expiresAtOrBefore: s.at(300) }, (r) => r.quote.expiresAt <= s.at(300), {
        included: [q1, q2, q3, q4],
        excluded: [q6]
      })
      yield* expectFiltered(list, { status: "COMPLETED" }, (r) => r.quote.status === "COMPLETED", {
        included: [q5],
        excluded: [q1, q2, q3, q4, q6]
      })
      yield* expectFiltered(list, { status: "EXPIRED" }, (r) => r.quote.status === "EXPIRED", {
        included: [q6],
        excluded: [q1, q2, q3, q4, q5]
      })

      // Updates move quotes in and out of the expiry list.
      const q1Done = withQuote(q1, { status: "COMPLETED" })
      const q3Sooner = withQuote(q3, { expiresAt: s.at(150) })
      yield* store.quotes.update(q1Done)
      yield* store.quotes.update(q3Sooner)
      yield* expectFiltered(list, { status: "PENDING", expiresAtOrBefore: s.at(200) }, expiry("PENDING", s.at(200)), {
        included: [q2, q3Sooner],
        excluded: [q1Done, q4, q5, q6]
      })
      yield* expectFiltered(list, { status: "COMPLETED" }, (r) => r.quote.status === "COMPLETED", {
        included: [q1Done, q5],
        excluded: [q2, q3, q4, q6]
      })

      // The expiry worker's walk (issue 34), earliest expiry first.
      yield* expectDue(
        store.quotes,
        { status: "PENDING", expiresAtOrBefore: s.at(200) },
        (r) => r.quote.expiresAt,
        [q3Sooner, q2],
        { among: true, limit: 50, excluded: [q1Done, q4, q5, q6] }
      )
    })
  )
}

export const transactionTests = (it: It) => {
  it.effect("updateIf writes only over the expected version; outside and inside a store transaction", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const record = transactionFull(s)
      yield* store.transactions.insert(record)
      const referenced: TransactionRecord = { ...record, railReference: "rail-1", attempts: 0 }
      assert.isTrue(yield* store.transactions.updateIf(referenced, record))
      assert.deepStrictEqual(yield* store.transactions.get(record.id), referenced)
      // `record` is no longer what is stored: each field of the version refuses on its own.
      const retried: TransactionRecord = { ...record, attempts: 3 }
      assert.isFalse(yield* store.transactions.updateIf(retried, record))
      for (const stale of [
        { ...referenced, state: "PENDING" },
        { ...referenced, transaction: { ...referenced.transaction, updatedAt: s.next() } },
        { ...referenced, railReference: "rail-0" },
        { ...referenced, dueAt: s.next() },
        { ...referenced, attempts: 1 },
        { ...referenced, stalledAt: s.next() }
      ]) {
        assert.isFalse(yield* store.transactions.updateIf(retried, stale))
      }
      assert.deepStrictEqual(yield* store.transactions.get(record.id), referenced)
      assert.isFalse(yield* store.transactions.updateIf(transactionMinimal(s), transactionMinimal(s)), "no such row")
      const settled: TransactionRecord = { ...referenced, state: "COMPLETED" }
      assert.isTrue(yield* store.transaction(store.transactions.updateIf(settled, referenced)))
      assert.deepStrictEqual(yield* store.transactions.get(record.id), settled)
    })
  )

  it.effect(
    "list filters: customer, platform customer, account (source or destination), status, type, reference, created range",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const list: ListFn<TransactionRecord, TransactionFilter> = store.transactions.list
        const s = makeScope()
        const other = makeScope()
        const ia1 = newId("InternalAccount")
        const ia2 = newId("InternalAccount")
        const ea1 = newId("ExternalAccount")
        const pc = `pc-${s.tag}`
        const ref = `RECON-${s.tag}`
        const x1 = payment(s, {
          customerId: s.customerId,
          status: "PENDING",
          type: "OUTGOING",
          state: "PENDING",
          source: ia1,
          destination: ea1,
          platformCustomerId: pc,
          reference: ref
        })
        const x2 = payment(s, {
          customerId: s.customerId,
          status: "COMPLETED",
          type: "INCOMING",
          state: "COMPLETED",
          destination: ia1
        })
        const x3 = payment(s, {
          customerId: s.customerId,
          status: "PROCESSING",
          type: "OUTGOING",
          state: "SUBMITTED",
          source: ia2,
          destination: ea1,
          reference: `${ref}-3`
        })
        const x4 = payment(s, {
          customerId: s.customerId,
          status: "FAILED",
          type: "OUTGOING",
          state: "REFUND_PENDING",
          source: ia1
        })
        const y1 = payment(other, {
          customerId: other.customerId,
          status: "PENDING",
          type: "OUTGOING",
          state: "PENDING",
          source: ia1
        })
        for (const x of [x1, x2, x3, x4, y1]) yield* store.transactions.insert(x)
        const mine = { customerId: s.customerId }

        yield* expectList(list, mine, [x1, x2, x3, x4])
        yield* expectList(list, { customerId: other.customerId }, [y1])
        yield* expectList(list, { ...mine, platformCustomerId: pc }, [x1])
        yield* expectList(list, { ...mine, accountIdentifier: ia1 }, [x1, x2, x4])
        yield* expectList(list, { ...mine, accountIdentifier: ea1 }, [x1, x3])
        yield* expectList(list, { ...mine, status: "COMPLETED" }, [x2])
        yield* expectList(list, { ...mine, type: "OUTGOING" }, [x1, x3, x4])
        yield* expectList(list, { ...mine, type: "INCOMING" }, [x2])
        yield* expectList(list, { ...mine, reference: ref }, [x1])
        yield* expectList(list, { ...mine, createdAfter: x1.transaction.createdAt }, [x2, x3, x4])
        yield* expectList(list, { ...mine, createdBefore: x3.transaction.createdAt }, [x1, x2])
        yield* expectList(list, { ...mine, type: "OUTGOING", accountIdentifier: ia1, status: "FAILED" }, [x4])

        // Each filter alone, among the rows of other tests.
        yield* expectList(list, { accountIdentifier: ia1 }, [x1, x2, x4, y1])
        yield* expectList(list, { platformCustomerId: pc }, [x1])
        yield* expectList(list, { reference: ref }, [x1])
        yield* expectFiltered(list, { status: "FAILED" }, (r) => r.transaction.status === "FAILED", {
          included: [x4],
          excluded: [x1, x2, x3, y1]
        })
        yield* expectFiltered(list, { type: "INCOMING" }, (r) => r.transaction.type === "INCOMING", {
          included: [x2],
          excluded: [x1, x3, x4, y1]
        })
        const { createdAt } = x2.transaction
        yield* expectFiltered(
          list,
          { createdAfter: createdAt, createdBefore: s.at(DAY) },
          (r) => r.transaction.createdAt > createdAt && r.transaction.createdAt < s.at(DAY),
          { included: [x3, x4], excluded: [x1, x2] }
        )
        yield* expectFiltered(list, { createdBefore: createdAt }, (r) => r.transaction.createdAt < createdAt, {
          included: [x1],
          excluded: [x2, x3, x4]
        })
      })
  )

  it.effect(
    "list filters: states and dueBy (inclusive; rows without dueAt are never due), as the settlement worker uses them",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const list: ListFn<TransactionRecord, TransactionFilter> = store.transactions.list
        // Due instants far in the past: only this test's transactions are due that early.
        const s = makeScope(1000, 1900)
        const other = makeScope(1000, 1900)
        const pay = (owner: Scope, state: string, dueAt?: string) =>
          payment(owner, {
            customerId: owner.customerId,
            status: "PENDING",
            type: "OUTGOING",
            state,
            ...(dueAt === undefined ? {} : { dueAt })
          })
        const x1 = pay(s, "PENDING", s.at(100))
        const x2 = pay(s, "COMPLETED")
        const x3 = pay(s, "PROCESSING", s.at(200))
        const x4 = pay(s, "REFUND_PENDING", s.at(50))
        const x5 = pay(s, "FAILED", s.at(10))
        const y1 = pay(other, "PENDING", other.at(10))
        for (const x of [x1, x2, x3, x4, x5, y1]) yield* store.transactions.insert(x)
        const mine = { customerId: s.customerId }
        const worker = ["PENDING", "PROCESSING", "COMPLETED", "REFUND_PENDING"]

        yield* expectList(list, { ...mine, states: ["PENDING", "REFUND_PENDING"] }, [x1, x4])
        yield* expectList(list, { ...mine, states: ["COMPLETED"] }, [x2])
        yield* expectList(list, { ...mine, states: [] }, [])
        yield* expectList(list, { ...mine, dueBy: s.at(100) }, [x1, x4, x5])
        yield* expectList(list, { ...mine, dueBy: s.at(99) }, [x4, x5])
        yield* expectList(list, { ...mine, states: worker, dueBy: s.at(150) }, [x1, x4])
        yield* expectList(list, { ...mine, states: ["PROCESSING", "PENDING"], dueBy: s.at(150) }, [x1])

        // Alone, among the rows of other tests (the worker's query).
        const bound = s.at(100)
        yield* expectFiltered(
          list,
          { states: worker, dueBy: bound },
          (r) => worker.includes(r.state) && r.dueAt !== undefined && r.dueAt <= bound,
          { included: [x1, x4].concat(y1.dueAt! <= bound ? [y1] : []), excluded: [x2, x3, x5] }
        )
        yield* expectFiltered(list, { dueBy: bound }, (r) => r.dueAt !== undefined && r.dueAt <= bound, {
          included: [x1, x4, x5],
          excluded: [x2, x3]
        })
        yield* expectFiltered(list, { states: ["REFUND_PENDING"] }, (r) => r.state === "REFUND_PENDING", {
          included: [x4],
          excluded: [x1, x2, x3, x5, y1]
        })

        // Updates move transactions in and out of the due list.
        const { dueAt: _dueAt, ...x1Settled } = { ...x1, state: "COMPLETED" }
        const x3Sooner = { ...x3, dueAt: s.at(20) }
        const x2Due = { ...x2, dueAt: s.at(30) }
        for (const x of [x1Settled, x3Sooner, x2Due]) yield* store.transactions.update(x)
        yield* expectList(list, { ...mine, states: worker, dueBy: s.at(150) }, [x2Due, x3Sooner, x4])
        yield* expectList(list, { ...mine, dueBy: s.at(100) }, [x2Due, x3Sooner, x4, x5])
      })
  )

  it.effect(
    "due (issue 34): the settlement worker's walk, earliest due first then by id, from a cursor; a row due again later within the bound comes again",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        // Due instants far in the past: only this test's transactions are due that early.
        const s = makeScope(1000, 1900)
        const pay = (state: string, dueAt?: string) =>
          payment(s, {
            customerId: s.customerId,
            status: "PENDING",
            type: "OUTGOING",
            state,
            ...(dueAt === undefined ? {} : { dueAt })
          })
        const x1 = pay("PENDING", s.at(100))
        const x2 = pay("COMPLETED")
        const x3 = pay("PROCESSING", s.at(200))
        const x4 = pay("REFUND_PENDING", s.at(50))
        const x5 = pay("FAILED", s.at(10))
        // Due at the same instant as x1, with a later id.
        const x6 = pay("PENDING", s.at(100))
        for (const x of [x6, x5, x4, x3, x2, x1]) yield* store.transactions.insert(x)
        const mine = { customerId: s.customerId }
        const worker = ["PENDING", "PROCESSING", "COMPLETED", "REFUND_PENDING"]
        const dueAt = (r: TransactionRecord) => r.dueAt

        for (const limit of [1, 2, 3, 100]) {
          yield* expectDue(store.transactions, { ...mine, states: worker, dueBy: s.at(150) }, dueAt, [x4, x1, x6], {
            limit
          })
        }
        yield* expectDue(store.transactions, { ...mine, states: worker, dueBy: s.at(200) }, dueAt, [x4, x1, x6, x3])
        yield* expectDue(store.transactions, { ...mine, dueBy: s.at(100) }, dueAt, [x5, x4, x1, x6])
        yield* expectDue(store.transactions, { ...mine, states: ["COMPLETED"], dueBy: s.at(200) }, dueAt, [])
        // The worker's own filter, among other tests' rows.
        yield* expectDue(store.transactions, { states: worker, dueBy: s.at(150) }, dueAt, [x4, x1, x6], {
          among: true,
          excluded: [x2, x3, x5],
          limit: 100
        })

        // A cursor resumes after its row: the tie is broken by id.
        const resumed = yield* store.transactions.due({ ...mine, states: worker, dueBy: s.at(150) }, 10, {
          dueAt: x1.dueAt!,
          id: x1.id
        })
        assert.deepStrictEqual(resumed, { data: [x6], next: undefined })

        // A step moves its row later, still within the bound: the walk meets it again after the others.
        const filter = { ...mine, states: worker, dueBy: s.at(150) }
        const first = yield* store.transactions.due(filter, 1)
        assert.deepStrictEqual(first, { data: [x4], next: { dueAt: x4.dueAt!, id: x4.id } })
        const x4Again = { ...x4, dueAt: s.at(120) }
        yield* store.transactions.update(x4Again)
        const rest = yield* store.transactions.due(filter, 10, first.next)
        assert.deepStrictEqual(rest.data, [x1, x6, x4Again])
      })
  )
}
