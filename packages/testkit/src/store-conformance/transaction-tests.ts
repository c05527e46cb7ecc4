import { assert } from "@effect/vitest"
import { type OutboxFilter, type OutboxRecord, Store, type TokenFilter, type TokenRecord } from "@paycore/core"
import { Effect, Exit, Option } from "effect"
import { expectList } from "./assertions.ts"
import { type It, type ListFn, makeScope, newId, unique } from "./ids.ts"
import {
  balance,
  bulkImportJobFull,
  businessCustomer,
  contactChallenge,
  deliveryAttempts,
  documentFull,
  externalFull,
  idempotencyRecord,
  individualFull,
  internalFull,
  ledgerAccount,
  newEvent,
  numbered,
  ownerFull,
  quoteFull,
  systemLedgerAccount,
  tokenFull,
  tokenMinimal,
  tokenName,
  transactionFull,
  transfer,
  verificationFull,
  withQuote
} from "./records.ts"

// ---------------------------------------------------------------------------------------------
// Transactions
// ---------------------------------------------------------------------------------------------

/**
 * Writes to every repository in a transaction that `end` makes fail (or die), then checks that none of it
 * is left: no row, no ledger movement, no outbox event or sequence number, no counter change, no
 * idempotency record, and the committed rows it updated are as they were.
 */
export const leavesNoTrace = (end: Effect.Effect<never, "abort">, check: (exit: Exit.Exit<unknown, unknown>) => void) =>
  Effect.gen(function* () {
    const store = yield* Store
    const s = makeScope()
    // Committed before: rows the failing transaction updates.
    const keptToken = tokenMinimal(s)
    const keptCustomer = individualFull(s)
    const keptQuote = quoteFull(s)
    const keptTransaction = transactionFull(s)
    const subject = newId("Transaction")
    const keptEvent = newEvent(subject, "OUTGOING_PAYMENT.PENDING")
    const alice = ledgerAccount()
    const deposits = systemLedgerAccount("deposits", "USD")
    const payouts = systemLedgerAccount("payouts", "USD")
    const holdRef = newId("Transaction")
    const hold = transfer(holdRef, 1, alice, payouts, 2_000, "PENDING")
    const counter = `volume:${s.customerId}:USD`
    yield* store.transaction(
      Effect.gen(function* () {
        yield* store.tokens.insert(keptToken)
        yield* store.customers.insert(keptCustomer)
        yield* store.quotes.insert(keptQuote)
        yield* store.transactions.insert(keptTransaction)
        yield* store.outbox.appendEvents([keptEvent])
        yield* store.ledger.record([transfer(newId("Transaction"), 1, deposits, alice, 10_000, "POSTED"), hold])
        yield* store.counters.add(counter, 5)
      })
    )
    const accounts = [alice, deposits, payouts].map((account) => ({ account, currency: "USD" }))
    const balancesBefore = yield* store.ledger.balances(accounts)

    // Written by the transaction that fails.
    const token = tokenFull(s)
    const customer = businessCustomer(s)
    const internal = internalFull(s)
    const external = externalFull(s)
    const quote = quoteFull(s)
    const txRow = transactionFull(s)
    const event = newEvent(subject, "OUTGOING_PAYMENT.COMPLETED")
    const otherEvent = newEvent(newId("Transaction"), "INCOMING_PAYMENT.PENDING")
    const movedRef = newId("Transaction")
    const idem = idempotencyRecord(`POST /quotes:${unique()}`)
    const newCounter = `volume:${s.customerId}:EUR`
    const owner = ownerFull(s)
    const verification = verificationFull(s)
    const challenge = contactChallenge(s)
    const document = documentFull(s)
    const job = bulkImportJobFull(s)

    const exit = yield* Effect.exit(
      store.transaction(
        Effect.gen(function* () {
          yield* store.tokens.insert(token)
          yield* store.tokens.update({ ...keptToken, name: "renamed", clientId: `client-${unique()}` })
          yield* store.customers.insert(customer)
          yield* store.customers.update({ ...keptCustomer, isDeleted: true })
          yield* store.internalAccounts.insert(internal)
          yield* store.externalAccounts.insert(external)
          yield* store.quotes.insert(quote)
          yield* store.quotes.update(withQuote(keptQuote, { status: "EXPIRED" }))
          yield* store.transactions.insert(txRow)
          yield* store.transactions.update({ ...keptTransaction, state: "FAILED" })
          yield* store.ledger.record([transfer(movedRef, 1, alice, payouts, 3_000, "POSTED")])
          yield* store.ledger.resolve([hold.id], "POSTED")
          yield* store.outbox.appendEvents([event, otherEvent])
          yield* store.outbox.save({ ...numbered(keptEvent, 1), status: "DELIVERED", attempts: deliveryAttempts })
          yield* store.counters.add(counter, 7)
          yield* store.counters.add(newCounter, 3)
          yield* store.idempotency.put(idem)
          yield* store.beneficialOwners.insert(owner)
          yield* store.verifications.insert(verification)
          yield* store.contactChallenges.put(challenge)
          yield* store.documents.insert(document)
          yield* store.bulkImportJobs.insert(job)
          // The transaction reads its own writes.
          assert.deepStrictEqual(yield* store.tokens.get(token.id), token)
          assert.deepStrictEqual(yield* store.outbox.get(event.id), numbered(event, 2))
          assert.strictEqual(yield* store.counters.get(counter), 12)
          assert.deepStrictEqual(yield* store.ledger.balances([{ account: payouts, currency: "USD" }]), [
            balance(payouts, "USD", 5_000)
          ])
          return yield* end
        })
      )
    )
    check(exit)

    for (const [what, row] of [
      ["token", yield* store.tokens.get(token.id)],
      ["customer", yield* store.customers.get(customer.id)],
      ["internal account", yield* store.internalAccounts.get(internal.id)],
      ["external account", yield* store.externalAccounts.get(external.id)],
      ["quote", yield* store.quotes.get(quote.id)],
      ["transaction", yield* store.transactions.get(txRow.id)],
      ["outbox event", yield* store.outbox.get(event.id)],
      ["outbox event of another subject", yield* store.outbox.get(otherEvent.id)],
      ["idempotency record", yield* store.idempotency.get(idem.key)],
      ["beneficial owner", yield* store.beneficialOwners.get(owner.id)],
      ["verification", yield* store.verifications.get(verification.id)],
      ["contact challenge", yield* store.contactChallenges.get(challenge.key)],
      ["document", yield* store.documents.get(document.id)],
      ["bulk import job", yield* store.bulkImportJobs.get(job.id)]
    ] as const) {
      assert.isUndefined(row, `no ${what} is left`)
    }
    assert.isUndefined(yield* store.tokens.findUnique("clientId", token.clientId))
    assert.isUndefined(yield* store.customers.findUnique("platformCustomerId", customer.platformCustomerId))
    assert.isUndefined(yield* store.customers.findUnique("umaAddress", customer.umaAddress))
    assert.isUndefined(yield* store.quotes.findUnique("transactionId", quote.quote.transactionId))
    assert.deepStrictEqual(yield* store.tokens.get(keptToken.id), keptToken)
    assert.deepStrictEqual(yield* store.tokens.findUnique("clientId", keptToken.clientId), keptToken)
    assert.deepStrictEqual(yield* store.customers.get(keptCustomer.id), keptCustomer)
    assert.deepStrictEqual(
      yield* store.customers.findUnique("platformCustomerId", keptCustomer.platformCustomerId),
      keptCustomer
    )
    assert.deepStrictEqual(yield* store.quotes.get(keptQuote.id), keptQuote)
    assert.deepStrictEqual(yield* store.transactions.get(keptTransaction.id), keptTransaction)
    assert.deepStrictEqual(yield* store.ledger.balances(accounts), balancesBefore, "no ledger movement")
    assert.deepStrictEqual(yield* store.ledger.transfers(movedRef), [])
    assert.deepStrictEqual(yield* store.ledger.transfers(holdRef), [hold], "the hold is still pending")
    assert.deepStrictEqual(yield* store.outbox.get(keptEvent.id), numbered(keptEvent, 1))
    const list: ListFn<OutboxRecord, OutboxFilter> = store.outbox.list
    yield* expectList(list, { subject }, [numbered(keptEvent, 1)])
    assert.strictEqual(yield* store.counters.get(counter), 5)
    assert.strictEqual(yield* store.counters.get(newCounter), 0)
    // The subject's numbering is as committed: the next event is number 2 again.
    const next = newEvent(subject, "OUTGOING_PAYMENT.FAILED")
    yield* store.transaction(store.outbox.appendEvents([next]))
    assert.deepStrictEqual(yield* store.outbox.get(next.id), numbered(next, 2))
  })

export const storeTransactionTests = (it: It) => {
  it.effect("a transaction that fails leaves no trace and passes its error on", () =>
    leavesNoTrace(Effect.fail("abort"), (exit) => {
      assert.isTrue(Exit.isFailure(exit) && Exit.hasFails(exit) && !Exit.hasDies(exit), "fails with the error")
      assert.strictEqual(Option.getOrUndefined(Exit.findErrorOption(exit)), "abort", "with its own error")
    })
  )

  it.effect("a transaction that dies leaves no trace", () =>
    leavesNoTrace(Effect.die(new Error("boom")), (exit) => {
      assert.isTrue(Exit.isFailure(exit) && Exit.hasDies(exit), "dies")
    })
  )

  it.effect("a committed transaction returns its value and its writes are visible afterwards", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const token = tokenFull(s)
      const subject = newId("Transaction")
      const event = newEvent(subject, "OUTGOING_PAYMENT.PENDING")
      const a = ledgerAccount()
      const b = ledgerAccount()
      const ref = newId("Transaction")
      const counter = `volume:${s.customerId}:USD`
      const idem = idempotencyRecord(`POST /quotes:${unique()}`)
      const value = yield* store.transaction(
        Effect.gen(function* () {
          yield* store.tokens.insert(token)
          yield* store.outbox.appendEvents([event])
          yield* store.ledger.record([transfer(ref, 1, a, b, 250, "POSTED")])
          yield* store.idempotency.put(idem)
          return yield* store.counters.add(counter, 9)
        })
      )
      assert.strictEqual(value, 9)
      assert.deepStrictEqual(yield* store.tokens.get(token.id), token)
      assert.deepStrictEqual(yield* store.outbox.get(event.id), numbered(event, 1))
      assert.deepStrictEqual(yield* store.ledger.balances([{ account: b, currency: "USD" }]), [balance(b, "USD", 250)])
      assert.deepStrictEqual(yield* store.idempotency.get(idem.key), idem)
      assert.strictEqual(yield* store.counters.get(counter), 9)
    })
  )

  it.effect("a nested transaction joins the outer one: it sees the outer writes and the outer failure undoes it", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const outer = tokenMinimal(s)
      const inner = tokenMinimal(s)
      const event = newEvent(newId("Transaction"), "OUTGOING_PAYMENT.PENDING")
      const counter = `volume:${s.customerId}:USD`
      const ref = newId("Transaction")
      const error = yield* store
        .transaction(
          Effect.gen(function* () {
            yield* store.tokens.insert(outer)
            yield* store.transaction(
              Effect.gen(function* () {
                assert.deepStrictEqual(yield* store.tokens.get(outer.id), outer, "the inner one sees the outer writes")
                yield* store.tokens.insert(inner)
                yield* store.outbox.appendEvents([event])
                yield* store.counters.add(counter, 1)
                yield* store.ledger.record([transfer(ref, 1, ledgerAccount(), ledgerAccount(), 1, "POSTED")])
              })
            )
            assert.deepStrictEqual(yield* store.tokens.get(inner.id), inner, "the outer one sees the inner writes")
            return yield* Effect.fail("outer" as const)
          })
        )
        .pipe(Effect.flip)
      assert.strictEqual(error, "outer")
      assert.isUndefined(yield* store.tokens.get(outer.id))
      assert.isUndefined(yield* store.tokens.get(inner.id), "the inner writes are undone with the outer ones")
      assert.isUndefined(yield* store.outbox.get(event.id))
      assert.strictEqual(yield* store.counters.get(counter), 0)
      assert.deepStrictEqual(yield* store.ledger.transfers(ref), [])

      const both = yield* store.transaction(
        Effect.gen(function* () {
          yield* store.transaction(store.tokens.insert(inner))
          yield* store.tokens.insert(outer)
          return "done" as const
        })
      )
      assert.strictEqual(both, "done")
      assert.deepStrictEqual(yield* store.tokens.get(inner.id), inner)
      assert.deepStrictEqual(yield* store.tokens.get(outer.id), outer)
    })
  )

  it.effect("concurrent transactions each commit or roll back on their own", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const counter = `volume:${s.customerId}:USD`
      const tokens = Array.from({ length: 10 }, () => tokenMinimal(s))
      const exits = yield* Effect.forEach(
        tokens,
        (token, i) =>
          Effect.exit(
            store.transaction(
              Effect.gen(function* () {
                yield* store.tokens.insert(token)
                yield* Effect.yieldNow
                yield* store.counters.add(counter, 1)
                yield* Effect.yieldNow
                if (i % 3 === 0) return yield* Effect.fail("abort" as const)
                return i
              })
            )
          ),
        { concurrency: "unbounded" }
      )
      const committed = tokens.filter((_, i) => i % 3 !== 0)
      assert.strictEqual(exits.filter(Exit.isSuccess).length, committed.length)
      assert.strictEqual(yield* store.counters.get(counter), committed.length)
      const list: ListFn<TokenRecord, TokenFilter> = store.tokens.list
      yield* expectList(list, { name: tokenName(s), includeDeleted: true }, committed)
    })
  )
}
