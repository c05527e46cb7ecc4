/**
 * An internal account's ledger postings over HTTP (issue 18, docs/design/dashboard-cli.md section 2; architecture.md),
 * on every store: `GET /customers/internal-accounts/{accountId}/postings` and
 * `GET /platform/internal-accounts/{accountId}/postings`: newest first, paged by `limit` and `cursor`, the running
 * balance ending at the account's posted balance, each route 404 on the other owner's accounts, 400 for a bad cursor
 * or limit, any token may read.
 */
import { randomUUID } from "node:crypto"
import { expect, it } from "vitest"
import {
  addUsPayee,
  type CallResult,
  expectError,
  expectInvalid,
  fundAccount,
  type Onboarded,
  onboardCustomer,
  quoteBody,
  useTestServer
} from "./harness.ts"
import { onEveryStore } from "./stores.ts"

interface Posting {
  readonly journalEntryId: string
  readonly at: string
  readonly amount: { readonly amount: number }
  readonly direction: "CREDIT" | "DEBIT"
  readonly status: "PENDING" | "POSTED" | "VOIDED"
  readonly runningBalance: { readonly amount: number }
  readonly description: string
}

const moved = (p: Posting) =>
  p.status !== "POSTED" ? 0 : p.direction === "CREDIT" ? p.amount.amount : -p.amount.amount

onEveryStore("account postings", "postings_http", (stores) => {
  let payer: Onboarded
  let account: string
  const server = useTestServer(async (s) => {
    payer = await onboardCustomer(s)
    account = payer.accounts.USD!
    const payee = await addUsPayee(s, payer.id)
    for (const amount of [50_000, 1_000, 2_000]) await fundAccount(s, account, amount)
    for (const amount of [3_000, 4_000]) {
      const quote = await s.call("POST", "/quotes", quoteBody(account, payee, amount, { immediatelyExecute: true }))
      expect(quote.status, JSON.stringify(quote.json)).toBe(201)
    }
    await s.processDue()
  }, stores())
  const postings = (path: string) => server.call("GET", path)
  const page = (r: CallResult) => {
    expect(r.status, JSON.stringify(r.json)).toBe(200)
    return r.json as {
      data: ReadonlyArray<Posting>
      balance: { posted: { amount: number }; pending: { amount: number }; available: { amount: number } }
      hasMore: boolean
      nextCursor?: string
    }
  }

  it("newest first; paging by limit and cursor shows each posting once; running balances add up to posted", async () => {
    const whole = page(await postings(`/customers/internal-accounts/${account}/postings?limit=100`))
    expect(whole.hasMore).toBe(false)
    expect(whole.nextCursor).toBeUndefined()
    const listed = await server.call("GET", `/customers/internal-accounts?customerId=${payer.id}&currency=USD`)
    const shown = listed.json.data[0]
    expect(whole.balance.available.amount).toBe(shown.balance.amount)
    expect(whole.balance.posted.amount).toBe(shown.totalBalance.amount)
    expect(whole.balance.posted.amount - whole.balance.pending.amount).toBe(whole.balance.available.amount)
    expect(whole.data[0]!.runningBalance.amount).toBe(whole.balance.posted.amount)
    for (let i = 0; i + 1 < whole.data.length; i++) {
      expect(whole.data[i]!.runningBalance.amount).toBe(
        whole.data[i + 1]!.runningBalance.amount + moved(whole.data[i]!)
      )
    }
    expect(whole.data.at(-1)!.runningBalance.amount).toBe(moved(whole.data.at(-1)!))
    expect(whole.data.filter((p) => p.direction === "CREDIT").map((p) => p.amount.amount)).toEqual([
      2_000, 1_000, 50_000
    ])
    expect(Object.keys(whole.data[0]!).sort()).toEqual(
      ["amount", "at", "description", "direction", "journalEntryId", "runningBalance", "status"].sort()
    )

    const seen: Array<Posting> = []
    let cursor: string | undefined
    for (let i = 0; i < 50; i++) {
      const query = `limit=2${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
      const p = page(await postings(`/customers/internal-accounts/${account}/postings?${query}`))
      expect(p.data.length).toBeLessThanOrEqual(2)
      expect(p.balance).toEqual(whole.balance)
      seen.push(...p.data)
      if (!p.hasMore) break
      cursor = p.nextCursor
    }
    expect(seen).toEqual(whole.data)
  })

  it("404 for an unknown account and across owners; 400 for a bad cursor or limit; any token reads, none 401", async () => {
    const platform = await server.call("GET", "/platform/internal-accounts?currency=USD")
    const platformAccount = platform.json.data[0].id as string
    const own = page(await postings(`/platform/internal-accounts/${platformAccount}/postings`))
    expect(own.data).toEqual([])
    expect(own.balance.posted.amount).toBe(0)
    expectError(await postings(`/platform/internal-accounts/${account}/postings`), 404, "REFERENCE_NOT_FOUND")
    expectError(await postings(`/customers/internal-accounts/${platformAccount}/postings`), 404, "REFERENCE_NOT_FOUND")
    expectError(
      await postings(`/customers/internal-accounts/InternalAccount:${randomUUID()}/postings`),
      404,
      "REFERENCE_NOT_FOUND"
    )
    expectInvalid(await postings(`/customers/internal-accounts/Customer:${randomUUID()}/postings`), ["path.accountId"])
    expectInvalid(await postings(`/customers/internal-accounts/${account}/postings?cursor=nope`), ["cursor"])
    expectInvalid(await postings(`/customers/internal-accounts/${account}/postings?limit=0`), ["query.limit"])
    expectInvalid(await postings(`/customers/internal-accounts/${account}/postings?limit=101`), ["query.limit"])
    const path = `/customers/internal-accounts/${account}/postings`
    expectError(await server.call("GET", path, undefined, { auth: null }), 401, "UNAUTHORIZED")
    const viewer = await server.token(["VIEW"])
    expect((await server.call("GET", path, undefined, { auth: viewer })).status).toBe(200)
  })
})
