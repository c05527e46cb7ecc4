/**
 * An internal account's ledger postings (issue 18, docs/design/dashboard-cli.md section 2; architecture.md): the
 * ledger's transfers on the account's side, newest first, each with the account's running posted balance, and the
 * account's balances. Read from the transfers the ledger keeps (`LedgerStore.accountTransfers`); nothing is stored.
 */
import { Effect } from "effect"
import type { AccountTransfer, LedgerBalance, LedgerTransfer } from "../ledger/model.ts"
import { isSystemAccount } from "../ledger/transfers.ts"
import { invalidCursor } from "../platform/errors.ts"
import type { Store } from "../ports/store.ts"
import { amountOf } from "../shared/money.ts"
import { DEFAULT_PAGE_SIZE } from "../shared/paging.ts"
import { internalAccountNotFound } from "./errors.ts"
import {
  type AccountOwner,
  heldBy,
  type ListPostingsQuery,
  type Posting,
  type PostingBalance,
  type PostingsPage
} from "./model.ts"

const CURSOR_PREFIX = "p1."

/** The cursor of the page after the posting at `position` (the store's order of the account's transfers). */
export const encodePostingsCursor = (position: number): string => `${CURSOR_PREFIX}${position.toString(36)}`

/** The position a cursor of `encodePostingsCursor` names, or `undefined` for any other text. */
export const decodePostingsCursor = (cursor: string): number | undefined => {
  if (!cursor.startsWith(CURSOR_PREFIX)) return undefined
  const digits = cursor.slice(CURSOR_PREFIX.length)
  if (!/^[0-9a-z]{1,11}$/.test(digits)) return undefined
  const position = Number.parseInt(digits, 36)
  return Number.isSafeInteger(position) && position > 0 ? position : undefined
}

/** How a transfer moved the account's posted balance: its amount in or out once POSTED, nothing otherwise. */
export const postedEffect = (transfer: LedgerTransfer, account: string): number =>
  transfer.state !== "POSTED" ? 0 : transfer.credit === account ? transfer.amount : -transfer.amount

/** What a reader calls the other side of a transfer. */
const counterpartyName = (account: string): string => {
  if (!isSystemAccount(account)) return account
  const role = account.split(":")[1] ?? account
  return ROLE_NAMES[role] ?? role
}

const ROLE_NAMES: Readonly<Record<string, string>> = {
  fx: "currency exchange",
  "platform-fees": "platform fees",
  suspense: "suspense (a refund that failed)",
  "card-network": "the card network",
  "stablecoin-supply": "stablecoin supply",
  "stablecoin-reserve": "stablecoin reserve"
}

/** `Credit from deposits for Transaction:…`, `Debit to payouts for Transaction:…:refund` (pure). */
export const postingDescription = (transfer: LedgerTransfer, account: string): string => {
  const credit = transfer.credit === account
  const other = counterpartyName(credit ? transfer.debit : transfer.credit)
  return `${credit ? "Credit from" : "Debit to"} ${other} for ${transfer.reference}`
}

/**
 * A page of postings, newest first (pure): the first one's running balance is `postedThrough`, each older one's
 * the newer one's less what the newer one posted.
 */
export const toPostings = (
  account: string,
  currency: string,
  transfers: ReadonlyArray<AccountTransfer>,
  postedThrough: number
): ReadonlyArray<Posting> => {
  let running = postedThrough
  return transfers.map(({ transfer }) => {
    const posting: Posting = {
      journalEntryId: transfer.id,
      at: transfer.createdAt,
      amount: amountOf(transfer.amount, transfer.currency),
      direction: transfer.credit === account ? "CREDIT" : "DEBIT",
      status: transfer.state,
      runningBalance: amountOf(running, currency),
      description: postingDescription(transfer, account)
    }
    running -= postedEffect(transfer, account)
    return posting
  })
}

/** The account's balances as postings show them (zeros for an account that never moved). */
const balanceOf = (balance: LedgerBalance | undefined, currency: string): PostingBalance => {
  const posted = balance?.posted ?? 0
  const pending = balance?.pendingDebits ?? 0
  return {
    posted: amountOf(posted, currency),
    pending: amountOf(pending, currency),
    available: amountOf(posted - pending, currency)
  }
}

/**
 * `GET /customers/internal-accounts/{accountId}/postings` and `GET /platform/internal-accounts/{accountId}/postings`:
 * 404 `NOT_FOUND` for an account `owner` does not hold (as the other account routes), 400 for a cursor not issued here.
 */
export const listPostings = Effect.fnUntraced(function* (
  store: Store["Service"],
  owner: AccountOwner,
  accountId: string,
  query: ListPostingsQuery
) {
  const before = query.cursor === undefined ? undefined : decodePostingsCursor(query.cursor)
  if (query.cursor !== undefined && before === undefined) return yield* invalidCursor()
  const account = yield* store.internalAccounts.get(accountId)
  if (account === undefined || !heldBy(account, owner)) return yield* internalAccountNotFound(accountId)
  const limit = query.limit ?? DEFAULT_PAGE_SIZE
  const page = yield* store.ledger.accountTransfers(account.id, limit, before)
  const [balance] = yield* store.ledger.balances([{ account: account.id, currency: account.currency }])
  const last = page.transfers.at(-1)
  return {
    data: toPostings(account.id, account.currency, page.transfers, page.postedThrough),
    balance: balanceOf(balance, account.currency),
    hasMore: page.hasMore,
    ...(page.hasMore && last !== undefined ? { nextCursor: encodePostingsCursor(last.position) } : {})
  } satisfies PostingsPage
})
