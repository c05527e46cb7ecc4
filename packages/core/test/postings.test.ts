/**
 * An internal account's ledger postings (issue 18, architecture.md): over a sequence of payments that settle, fail and
 * are refunded (their holds voided), are returned after settling, and one still held, every posting is there newest
 * first with its status, and the running balances add up: each is the older one plus what the posting moved, the
 * oldest starts from nothing, and the newest equals the account's posted balance.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Posting } from "../src/accounts/model.ts"
import { Accounts } from "../src/accounts/service.ts"
import { amountOf } from "../src/shared/money.ts"
import { Transactions } from "../src/transactions/service.ts"
import { advance, balance, executePayment, makeEnv, seedPayer } from "./fixtures.ts"

/** What a posting moved on the account's posted balance. */
const moved = (p: Posting): number =>
  p.status !== "POSTED" ? 0 : p.direction === "CREDIT" ? p.amount.amount : -p.amount.amount

/** Every page of an account's postings, `limit` at a time, following `nextCursor`. */
const allPostings = Effect.fnUntraced(function* (accountId: string, limit: number) {
  const accounts = yield* Accounts
  const out: Array<Posting> = []
  let cursor: string | undefined
  for (let i = 0; i < 100; i++) {
    const page = yield* accounts.listPostings("CUSTOMER", accountId, {
      limit,
      ...(cursor === undefined ? {} : { cursor })
    })
    out.push(...page.data)
    if (!page.hasMore) {
      assert.isUndefined(page.nextCursor)
      return { postings: out, balance: page.balance }
    }
    cursor = page.nextCursor
  }
  throw new Error("too many pages")
})

/** The engine of `makeEnv`, with the accounts service. */
const withAccounts = (env: ReturnType<typeof makeEnv>) => Accounts.layer.pipe(Layer.provideMerge(env.layer))

describe("account postings (issue 18)", () => {
  it.effect("payments, holds, voids, refunds and returns: running balances add up to the posted balance", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, eurPayee, usdPayee } = yield* seedPayer(100_000)
      const transactions = yield* Transactions
      yield* executePayment(env, account.id, usdPayee.id, 10_000, { _tag: "Settle" })
      yield* executePayment(env, account.id, eurPayee.id, 20_000, {
        _tag: "Fail",
        reason: "QUOTE_EXECUTION_FAILED",
        refundSucceeds: true
      })
      yield* executePayment(env, account.id, eurPayee.id, 5_000, { _tag: "Return", returnAfterSeconds: 120 })
      for (let i = 0; i < 5; i++) yield* advance(60)
      yield* transactions.fundSandbox(account.id, 2_500)
      // Still held: the rail settles it in an hour.
      yield* executePayment(env, account.id, usdPayee.id, 7_000, { _tag: "Settle", afterSeconds: 3_600 })

      const posted = yield* balance(account.id, "USD")
      for (const limit of [1, 3, 100]) {
        const { postings, balance: shown } = yield* allPostings(account.id, limit)
        assert.deepStrictEqual(shown, {
          posted: amountOf(posted.posted, "USD"),
          pending: amountOf(posted.pendingDebits, "USD"),
          available: amountOf(posted.available, "USD")
        })
        assert.strictEqual(postings[0]!.runningBalance.amount, posted.posted, `limit ${limit}`)
        for (let i = 0; i + 1 < postings.length; i++) {
          assert.strictEqual(
            postings[i]!.runningBalance.amount,
            postings[i + 1]!.runningBalance.amount + moved(postings[i]!),
            `limit ${limit}, posting ${i}`
          )
        }
        assert.strictEqual(postings.at(-1)!.runningBalance.amount, moved(postings.at(-1)!))
        const ats = postings.map((p) => p.at)
        assert.deepStrictEqual(ats, [...ats].sort().reverse())
        assert.includeMembers(
          postings.map((p) => p.status),
          ["PENDING", "POSTED", "VOIDED"]
        )
        assert.isTrue(postings.every((p) => p.amount.currency.code === "USD" && p.amount.amount > 0))
      }
      const { postings } = yield* allPostings(account.id, 100)
      assert.strictEqual(postings[0]!.status, "PENDING")
      assert.strictEqual(postings[0]!.direction, "DEBIT")
      assert.strictEqual(
        postings.at(-1)!.description,
        `Credit from deposits for ${postings.at(-1)!.journalEntryId.split("#")[0]}`
      )
    }).pipe(Effect.provide(withAccounts(env)))
  })

  it.effect("404 for an unknown account and for the other owner's; 400 for a cursor not issued here", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account } = yield* seedPayer(1_000)
      const accounts = yield* Accounts
      const unknown = yield* Effect.flip(
        accounts.listPostings("CUSTOMER", "InternalAccount:00000000-0000-7000-8000-000000000999", {})
      )
      assert.strictEqual(unknown._tag, "NotFound")
      const other = yield* Effect.flip(accounts.listPostings("PLATFORM", account.id, {}))
      assert.strictEqual(other._tag, "NotFound")
      for (const cursor of ["", "p1.", "p1.0", "p1.-1", "x", "p1.zzzzzzzzzzzz"]) {
        const bad = yield* Effect.flip(accounts.listPostings("CUSTOMER", account.id, { cursor }))
        assert.strictEqual(bad._tag, "InvalidInput", cursor)
      }
    }).pipe(Effect.provide(withAccounts(env)))
  })
})
