/** Reading transactions: one by id, and the filtered, paged list of payments and card transactions together. */
import { Effect } from "effect"
import { cardTransactionNotFound } from "../cards/errors.ts"
import { type CardTransactionStatus as CardStatus, CardTransactionStatus } from "../cards/model.ts"
import { cardTransactionStatesOf, toCardTransaction } from "../cards/views.ts"
import { scanAll } from "../platform/paging.ts"
import { together } from "../ports/store.ts"
import { type Page, type PageRequest, pageRequest } from "../shared/paging.ts"
import type { Timeline } from "../timelines/model.ts"
import { toTimelineEntry } from "../timelines/transitions.ts"
import { invalidCursor, transactionNotFound } from "./errors.ts"
import { type ListTransactionsQuery, type TransactionOneOf, TransactionStatus } from "./model.ts"
import type { PaymentPorts } from "./ports.ts"

/** A payment by id (404 `TRANSACTION_NOT_FOUND`). */
export const getPayment = Effect.fnUntraced(function* ({ store }: PaymentPorts, id: string) {
  const record = yield* store.transactions.get(id)
  if (record === undefined) return yield* Effect.fail(transactionNotFound(id))
  return record.transaction
})

/** `GET /transactions/{transactionId}`: a payment, or a card transaction by its `CardTransaction:` id. */
export const getTransaction = Effect.fnUntraced(function* (ports: PaymentPorts, id: string) {
  if (!id.startsWith("CardTransaction:")) return (yield* getPayment(ports, id)) as TransactionOneOf
  const record = yield* ports.store.cardTransactions.get(id)
  if (record === undefined) return yield* Effect.fail(cardTransactionNotFound(id))
  return toCardTransaction(record) as TransactionOneOf
})

/**
 * `GET /transactions/{transactionId}/timeline` (issue 18): every move of the payment's or card transaction's machine,
 * oldest first, the first one its creation; 404 exactly as `getTransaction`.
 */
export const getTimeline = Effect.fnUntraced(function* (ports: PaymentPorts, id: string) {
  yield* getTransaction(ports, id)
  const moves = yield* scanAll((page) => ports.store.transitions.list({ transactionId: id }, page))
  return { data: moves.map(toTimelineEntry) } satisfies Timeline
})

// ---- the listing's cursor: where each side stopped ----

/**
 * Where a page of the merged listing ended (design section 3, "Listing"): the last payment id and the last card
 * transaction id it showed (absent: that side has shown nothing yet). Each side resumes after its own id, so no row
 * is repeated or skipped however the two interleave.
 */
export interface ListingCursor {
  readonly t?: string | undefined
  readonly c?: string | undefined
}

const CURSOR_VERSION = "m1."
const PAYMENT_ID = /^Transaction:[0-9a-f-]{36}$/
const CARD_TRANSACTION_ID = /^CardTransaction:[0-9a-f-]{36}$/

const base64url = (text: string) => btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")

export const encodeListingCursor = (cursor: ListingCursor): string =>
  CURSOR_VERSION +
  base64url(
    JSON.stringify({
      ...(cursor.t === undefined ? {} : { t: cursor.t }),
      ...(cursor.c === undefined ? {} : { c: cursor.c })
    })
  )

/** `undefined` when the cursor is not one this listing issued. */
export const decodeListingCursor = (cursor: string): ListingCursor | undefined => {
  if (!cursor.startsWith(CURSOR_VERSION)) return undefined
  const body = cursor.slice(CURSOR_VERSION.length)
  if (!/^[A-Za-z0-9_-]+$/.test(body)) return undefined
  try {
    const parsed: unknown = JSON.parse(atob(body.replace(/-/g, "+").replace(/_/g, "/")))
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return undefined
    const { t, c, ...rest } = parsed as Record<string, unknown>
    if (Object.keys(rest).length > 0 || (t === undefined && c === undefined)) return undefined
    if (t !== undefined && !(typeof t === "string" && PAYMENT_ID.test(t))) return undefined
    if (c !== undefined && !(typeof c === "string" && CARD_TRANSACTION_ID.test(c))) return undefined
    return { t: t as string | undefined, c: c as string | undefined }
  } catch {
    return undefined // not base64, or not JSON
  }
}

// ---- the merge ----

/** One listed row and the id its side pages by. */
interface Listed {
  readonly id: string
  readonly side: "t" | "c"
  readonly item: TransactionOneOf
}

/** The time-ordered part of an id (`<Type>:<uuid v7>`): payments and card transactions compare by it. */
const timeKey = (id: string) => id.slice(id.indexOf(":") + 1)

/**
 * The first `limit` rows of two sides, each already in `sortOrder` and each at least `limit` long when it has more
 * (pure): merged by the UUID v7 part of their ids (time order; ties by the whole id), the next cursor the last id
 * shown of each side (or the one it came with), `hasMore` when either side has rows left.
 */
export const mergePages = (
  payments: Page<Listed>,
  cards: Page<Listed>,
  page: PageRequest,
  from: ListingCursor
): Page<TransactionOneOf> => {
  const sign = page.sortOrder === "asc" ? 1 : -1
  const merged = [...payments.data, ...cards.data].sort((a, b) => {
    const ka = timeKey(a.id)
    const kb = timeKey(b.id)
    return sign * (ka < kb ? -1 : ka > kb ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  })
  const shown = merged.slice(0, page.limit)
  const lastOf = (side: "t" | "c") => shown.findLast((row) => row.side === side)?.id
  const shownOf = (side: "t" | "c") => shown.filter((row) => row.side === side).length
  const hasMore =
    payments.hasMore || cards.hasMore || shownOf("t") < payments.data.length || shownOf("c") < cards.data.length
  const totalCount = payments.totalCount + cards.totalCount
  const data = shown.map((row) => row.item)
  if (!hasMore) return { data, hasMore, totalCount }
  const nextCursor = encodeListingCursor({ t: lastOf("t") ?? from.t, c: lastOf("c") ?? from.c })
  return { data, hasMore, totalCount, nextCursor }
}

const nothing: Page<Listed> = { data: [], hasMore: false, totalCount: 0 }

const paymentStatuses: ReadonlySet<string> = new Set(TransactionStatus.literals)
const cardStatuses: ReadonlySet<string> = new Set(CardTransactionStatus.literals)

/**
 * `GET /transactions` (Q-43, Q-34, CD-41): payments and card transactions in one time order on one cursor, newest
 * first by default. `type` `CARD` or a card status lists card transactions only, `INCOMING`/`OUTGOING` or a payment
 * status payments only; a type and a status of the other kind match nothing. A cursor not issued here is 400.
 */
export const listTransactions = Effect.fnUntraced(function* ({ store }: PaymentPorts, query: ListTransactionsQuery) {
  const page = pageRequest({ limit: query.limit, sortOrder: query.sortOrder })!
  const from = query.cursor === undefined ? {} : decodeListingCursor(query.cursor)
  if (from === undefined) return yield* Effect.fail(invalidCursor())
  const status = query.status
  const wantsPayments = query.type !== "CARD" && (status === undefined || paymentStatuses.has(status))
  const wantsCards =
    (query.type === undefined || query.type === "CARD") && (status === undefined || cardStatuses.has(status))
  const [payments, cards] = yield* together(
    store,
    () =>
      wantsPayments
        ? Effect.map(
            store.transactions.list(
              {
                customerId: query.customerId,
                platformCustomerId: query.platformCustomerId,
                accountIdentifier: query.accountIdentifier,
                status,
                type: query.type,
                reference: query.reference,
                createdAfter: query.startDate,
                createdBefore: query.endDate
              },
              { ...page, after: from.t }
            ),
            (result): Page<Listed> => ({
              ...result,
              data: result.data.map((r) => ({ id: r.id, side: "t", item: r.transaction }))
            })
          )
        : Effect.succeed(nothing),
    () =>
      wantsCards
        ? Effect.map(
            store.cardTransactions.list(
              {
                customerId: query.customerId,
                platformCustomerId: query.platformCustomerId,
                accountIdentifier: query.accountIdentifier,
                states: status === undefined ? undefined : cardTransactionStatesOf(status as CardStatus),
                reference: query.reference,
                createdAfter: query.startDate,
                createdBefore: query.endDate
              },
              { ...page, after: from.c }
            ),
            (result): Page<Listed> => ({
              ...result,
              data: result.data.map((r) => ({ id: r.id, side: "c", item: toCardTransaction(r) }))
            })
          )
        : Effect.succeed(nothing)
  )
  return mergePages(payments, cards, page, from)
})
