/**
 * Payments and card transactions: the list (paged, filtered, drawn by status and day), and a transaction's page
 * (its outcome in words, its path through its state machine, the refund, the quote). Both follow the event stream.
 */
import { cardTransactionStatus, incomingStatus, outgoingStatus } from "@paycore/core"
import { useRef, useState } from "preact/hooks"
import { type DayCount, StatusByDayChart } from "../charts.tsx"
import { type Client, run } from "../client.ts"
import { MachinePath, machineOf } from "../machine-path.tsx"
import { pageOf, payeeName, payeeNames } from "../names.ts"
import {
  Amount,
  Badge,
  Choice,
  Field,
  Link,
  type Money,
  mentions,
  money,
  ofTypes,
  Pager,
  RawJson,
  Show,
  scanPages,
  useFollow,
  useLoad,
  usePaged,
  useSession,
  When
} from "../ui.tsx"

const statuses = [
  "",
  "PENDING",
  "PROCESSING",
  "COMPLETED",
  "FAILED",
  "EXPIRED",
  "AUTHORIZED",
  "PARTIALLY_SETTLED",
  "SETTLED",
  "DECLINED"
] as const

const PAGE = 50

/** Statuses a transaction leaves by itself: a screen showing one keeps following it. */
const moving = new Set(["PENDING", "PENDING_AUTHORIZATION", "PROCESSING", "AUTHORIZED", "PARTIALLY_SETTLED"])
const inFlight = (t: any): boolean => moving.has(t.status) || t.refund?.status === "PENDING"

/** The events that change what the list shows. */
const transactionEvents = ofTypes("OUTGOING_PAYMENT.", "INCOMING_PAYMENT.", "CARD_TRANSACTION.")

/** What a listed transaction moved: a payment's sent amount, a card transaction's authorized amount. */
const amountOf = (transaction: any): Money | undefined =>
  transaction.type === "CARD" ? transaction.authorizedAmount : transaction.sentAmount

/** The API's filters (status, type, customer, dates) from the form; the payee is matched here. */
const readFilters = (form: HTMLFormElement): Record<string, string> => {
  const values: Record<string, string> = {}
  for (const [key, value] of new FormData(form)) {
    const text = String(value).trim()
    if (text === "") continue
    // A day chosen as "To" includes that day.
    values[key] = key === "startDate" ? `${text}T00:00:00.000Z` : key === "endDate" ? `${text}T23:59:59.999Z` : text
  }
  return values
}

const listPage = (client: Client, query: Record<string, string>, cursor: string | undefined, limit: number) =>
  run(
    client.payments.listTransactions({
      query: { ...query, limit, ...(cursor === undefined ? {} : { cursor }) } as any
    })
  )

/** Whom a transaction paid: the payee's id and, for an external account, its name. */
const Payee = ({ transaction, names }: { readonly transaction: any; readonly names: ReadonlyMap<string, string> }) => {
  if (transaction.type === "CARD") return <>{transaction.merchant?.descriptor ?? "—"}</>
  const id: string | undefined = transaction.destination?.accountId
  const name = id === undefined ? transaction.destination?.umaAddress : names.get(id)
  return (
    <>
      {name ?? "—"}
      {id === undefined ? null : (
        <>
          <br />
          <small>{id}</small>
        </>
      )}
    </>
  )
}

/** Transactions per day and status over every page the filters select (up to `SCAN_PAGES` pages). */
const ByDay = ({ query, version }: { readonly query: Record<string, string>; readonly version: unknown }) => {
  const { client } = useSession()
  const counted = useLoad(async () => {
    const { rows, complete } = await scanPages((cursor) => listPage(client, query, cursor, 100))
    const days = new Map<string, Record<string, number>>()
    for (const t of rows) {
      const day = t.createdAt.slice(0, 10)
      const counts = days.get(day) ?? {}
      counts[t.status] = (counts[t.status] ?? 0) + 1
      days.set(day, counts)
    }
    const list: Array<DayCount> = [...days]
      .map(([day, counts]) => ({ day, counts }))
      .sort((a, b) => a.day.localeCompare(b.day))
    return { days: list, statuses: statuses.filter((s) => s !== "" && rows.some((t) => t.status === s)), complete }
  }, [JSON.stringify(query), version])
  return (
    <Show loaded={counted}>
      {({ days, statuses: shown, complete }) =>
        days.length === 0 ? null : (
          <section aria-labelledby="by-day" class="chart-box">
            <h2 id="by-day">By status and day</h2>
            <StatusByDayChart days={days} statuses={shown} />
            <details>
              <summary>The numbers{complete ? "" : " (the first 10 000 transactions)"}</summary>
              <div class="table-scroll">
                <table class="by-day">
                  <thead>
                    <tr>
                      <th scope="col">Day</th>
                      {shown.map((s) => (
                        <th key={s} scope="col" class="num">
                          {s}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {days.map((d) => (
                      <tr key={d.day}>
                        <th scope="row">{d.day}</th>
                        {shown.map((s) => (
                          <td key={s} class="num">
                            {d.counts[s] ?? 0}
                          </td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </details>
          </section>
        )
      }
    </Show>
  )
}

export const PaymentsScreen = () => {
  const { client } = useSession()
  const [filters, setFilters] = useState<{ query: Record<string, string>; payee: string }>({ query: {}, payee: "" })
  // The API has no payee filter: with one, every page the other filters select is read once and matched here.
  const scanned = useRef<{ key: string; rows: Promise<ReadonlyArray<any>> } | undefined>(undefined)
  const payeeRows = (key: string) => {
    if (scanned.current?.key !== key) {
      const wanted = filters.payee.toLowerCase()
      const rows = scanPages((cursor) => listPage(client, filters.query, cursor, 100)).then(async ({ rows }) => {
        const names = await payeeNames(
          client,
          rows.map((t: any) => t.destination?.accountId)
        )
        return rows.filter((t: any) => {
          const id: string = t.destination?.accountId ?? ""
          const text = `${id} ${names.get(id) ?? ""} ${t.destination?.umaAddress ?? ""} ${t.merchant?.descriptor ?? ""}`
          return text.toLowerCase().includes(wanted)
        })
      })
      scanned.current = { key, rows }
    }
    return scanned.current.rows
  }
  const transactions = usePaged(
    async (cursor) => {
      const page =
        filters.payee === ""
          ? await listPage(client, filters.query, cursor, PAGE)
          : pageOf(await payeeRows(JSON.stringify(filters)), cursor, PAGE)
      return {
        ...page,
        names: await payeeNames(
          client,
          page.data.map((t: any) => t.destination?.accountId)
        )
      }
    },
    [filters]
  )
  useFollow(
    () => {
      // The payee search reads everything again, from the page shown.
      scanned.current = undefined
      transactions.reload()
    },
    transactionEvents,
    transactions.data?.data.some(inFlight) ?? false
  )
  const search = (event: SubmitEvent) => {
    event.preventDefault()
    const { payee = "", ...query } = readFilters(event.currentTarget as HTMLFormElement)
    setFilters({ query, payee })
  }
  return (
    <>
      <h1>Payments and card transactions</h1>
      <form class="filters" aria-label="Filter transactions" onSubmit={search}>
        <Choice label="Status" name="status" options={statuses.map((s) => [s, s === "" ? "any" : s] as const)} />
        <Choice
          label="Type"
          name="type"
          options={[
            ["", "any"],
            ["OUTGOING", "outgoing payment"],
            ["INCOMING", "incoming payment"],
            ["CARD", "card transaction"]
          ]}
        />
        <Field label="Customer id" name="customerId" />
        <Field label="Payee (name or account id)" name="payee" />
        <Field label="From" name="startDate" type="date" />
        <Field label="To" name="endDate" type="date" />
        <button type="submit">Filter</button>
      </form>
      {filters.payee === "" ? null : (
        <p class="hint">
          The API has no payee filter: every transaction the other filters select is read, page by page, and matched
          here on the payee's name and account id.
        </p>
      )}
      <ByDay query={filters.query} version={transactions.data} />
      <Show loaded={transactions}>
        {(page) => (
          <>
            <div class="table-scroll">
              <table>
                <caption>
                  {page.totalCount} transaction{page.totalCount === 1 ? "" : "s"}, newest first
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Transaction</th>
                    <th scope="col">Type</th>
                    <th scope="col">Status</th>
                    <th scope="col" class="num">
                      Amount
                    </th>
                    <th scope="col">Payee</th>
                    <th scope="col">Customer</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((transaction: any) => (
                    <tr key={transaction.id}>
                      <th scope="row">
                        <Link to={`payments/${transaction.id}`}>{transaction.id}</Link>
                      </th>
                      <td>{transaction.type}</td>
                      <td>
                        <Badge status={transaction.status} />
                        {transaction.refund === undefined ? null : (
                          <small> refund {transaction.refund.status.toLowerCase()}</small>
                        )}
                      </td>
                      <td class="num">
                        <Amount value={amountOf(transaction)} />
                      </td>
                      <td>
                        <Payee transaction={transaction} names={page.names} />
                      </td>
                      <td>{transaction.customerId ?? "—"}</td>
                      <td>
                        <When at={transaction.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager paged={transactions} label="transactions" />
          </>
        )}
      </Show>
    </>
  )
}

/** A state's public status, as its machine's table says (`REFUND_PENDING` reads `FAILED`). */
const statusOf =
  (type: string) =>
  (state: string): string | undefined =>
    (
      (type === "CARD" ? cardTransactionStatus : type === "INCOMING" ? incomingStatus : outgoingStatus) as Record<
        string,
        string
      >
    )[state]

const Timeline = ({ transaction }: { readonly transaction: any }) => {
  const { client } = useSession()
  const timeline = useLoad(
    () => run(client.payments.getTransactionTimeline({ params: { transactionId: transaction.id } })),
    // Every move updates the transaction (a refund settling keeps its status FAILED): reload with it.
    [transaction.id, transaction.updatedAt]
  )
  const publicStatus = statusOf(transaction.type)
  return (
    <section aria-labelledby="timeline">
      <h2 id="timeline">Timeline</h2>
      <Show loaded={timeline}>
        {({ data }) => (
          <>
            <MachinePath machine={machineOf(transaction.type)} entries={data} statusOf={publicStatus} />
            <div class="table-scroll">
              <table class="timeline">
                <caption>Each move, with the webhook it sent</caption>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Status</th>
                    <th scope="col">State (machine)</th>
                    <th scope="col">Webhook</th>
                  </tr>
                </thead>
                <tbody>
                  {data.map((entry) => (
                    <tr key={`${entry.at}-${entry.state}`}>
                      <th scope="row">
                        <When at={entry.at} />
                      </th>
                      <td>
                        <Badge status={publicStatus(entry.state) ?? entry.state} />
                      </td>
                      <td>
                        {entry.from === undefined ? "" : `${entry.from} → `}
                        {entry.state}
                      </td>
                      <td class="event">{entry.event ?? "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </Show>
    </section>
  )
}

/** What happened to the money, in words: a failed payment does not read as received. */
const Outcome = ({ t }: { readonly t: any }) => {
  const sent = money(amountOf(t))
  if (t.type === "CARD") {
    return (
      <p class="outcome">
        {t.status === "DECLINED"
          ? `Declined${t.declineReason === undefined ? "" : ` (${t.declineReason})`}: nothing was charged.`
          : `${t.status === "AUTHORIZED" ? "Authorized" : "Settled"} ${money(t.settledAmount ?? t.authorizedAmount)} at ${t.merchant?.descriptor ?? "the merchant"}.`}
      </p>
    )
  }
  if (t.status === "FAILED") {
    const refund = t.refund?.status
    return (
      <p class="outcome bad">
        Failed{t.failureReason === undefined ? "" : ` (${t.failureReason})`}: nothing was received.{" "}
        {refund === "COMPLETED"
          ? `Refunded: ${sent} went back to the sender.`
          : refund === "PENDING"
            ? `The refund of ${sent} is under way.`
            : refund === "FAILED"
              ? `The refund of ${sent} failed: the money is in suspense.`
              : ""}
      </p>
    )
  }
  if (t.status === "COMPLETED") {
    return (
      <p class="outcome good">
        {t.type === "INCOMING" ? "Received" : "Delivered"} {money(t.receivedAmount)}
        {t.refund === undefined ? "" : `; refund ${t.refund.status.toLowerCase()}`}.
      </p>
    )
  }
  if (t.status === "EXPIRED") return <p class="outcome">Expired before it was executed: nothing moved.</p>
  return (
    <p class="outcome">
      In flight: {sent} {t.status === "PROCESSING" ? "is on its way" : "waits"}
      {t.expectedSettlementAt === undefined ? (
        "."
      ) : (
        <>
          , expected to settle <When at={t.expectedSettlementAt} />.
        </>
      )}{" "}
      This page follows it.
    </p>
  )
}

/** The payment's quote, read again whenever its transaction moved (the quote follows it to COMPLETED or FAILED). */
const Quote = ({ quoteId, moved }: { readonly quoteId: string; readonly moved: string }) => {
  const { client } = useSession()
  const quote = useLoad(() => run(client.payments.getQuote({ params: { quoteId: quoteId as any } })), [quoteId, moved])
  return (
    <section aria-labelledby="quote">
      <h2 id="quote">Quote</h2>
      <Show loaded={quote}>
        {(q: any) => (
          <>
            <dl class="facts">
              <dt>Quote</dt>
              <dd>{q.id}</dd>
              <dt>Status</dt>
              <dd>
                <Badge status={q.status} />
              </dd>
              <dt>Sending</dt>
              <dd>
                <Amount value={{ amount: q.totalSendingAmount, currency: q.sendingCurrency }} />
              </dd>
              <dt>Receiving</dt>
              <dd>
                <Amount value={{ amount: q.totalReceivingAmount, currency: q.receivingCurrency }} />
              </dd>
              <dt>Rate</dt>
              <dd>{q.exchangeRate ?? "—"}</dd>
            </dl>
            <RawJson value={q} label="The quote's JSON" />
          </>
        )}
      </Show>
    </section>
  )
}

/** The payee of a payment: its name beside its account id. */
const PayeeFact = ({ accountId }: { readonly accountId: string | undefined }) => {
  const { client } = useSession()
  const name = useLoad(() => payeeName(client, accountId), [accountId])
  if (accountId === undefined) return <>—</>
  return (
    <>
      {name.data === undefined ? "" : `${name.data} · `}
      <small>{accountId}</small>
    </>
  )
}

export const PaymentScreen = ({ id }: { readonly id: string }) => {
  const { client } = useSession()
  const transaction = useLoad(() => run(client.payments.getTransaction({ params: { transactionId: id } })), [id])
  useFollow(transaction.reload, mentions(id), transaction.data === undefined || inFlight(transaction.data))
  return (
    <Show loaded={transaction}>
      {(t: any) => (
        <>
          <p>
            <Link to="payments">Payments</Link> / {t.id}
          </p>
          <h1>
            {t.type === "CARD" ? "Card transaction" : `${t.type === "INCOMING" ? "Incoming" : "Outgoing"} payment`}{" "}
            <Badge status={t.status} />
          </h1>
          <Outcome t={t} />
          <button type="button" class="secondary" onClick={transaction.reload}>
            Refresh
          </button>
          <dl class="facts">
            <dt>Amount</dt>
            <dd>
              <Amount value={amountOf(t)} />
            </dd>
            {t.type === "CARD" ? (
              <>
                <dt>Merchant</dt>
                <dd>{t.merchant?.descriptor}</dd>
                <dt>Card</dt>
                <dd>
                  <Link to={`cards/${t.cardId}`}>{t.cardId}</Link>
                </dd>
                <dt>Settled</dt>
                <dd>
                  <Amount value={t.settledAmount} />
                </dd>
                <dt>Decline reason</dt>
                <dd>{t.declineReason ?? "—"}</dd>
              </>
            ) : (
              <>
                <dt>{t.status === "FAILED" ? "Would have received" : "Received"}</dt>
                <dd>
                  {t.status === "COMPLETED" ? (
                    <Amount value={t.receivedAmount} />
                  ) : (
                    <>
                      <Amount value={t.receivedAmount} /> <small>(not received)</small>
                    </>
                  )}
                </dd>
                <dt>Payee</dt>
                <dd>
                  <PayeeFact accountId={t.destination?.accountId} />
                </dd>
                <dt>Failure reason</dt>
                <dd>{t.failureReason ?? "—"}</dd>
                <dt>Rail</dt>
                <dd>{t.paymentRail ?? "—"}</dd>
                {t.settledAt !== undefined ? (
                  <>
                    <dt>Settled</dt>
                    <dd>
                      <When at={t.settledAt} />
                    </dd>
                  </>
                ) : inFlight(t) && t.expectedSettlementAt !== undefined ? (
                  <>
                    <dt>Expected settlement</dt>
                    <dd>
                      <When at={t.expectedSettlementAt} />
                    </dd>
                  </>
                ) : null}
              </>
            )}
            <dt>Customer</dt>
            <dd>{t.customerId === undefined ? "—" : <Link to={`customers/${t.customerId}`}>{t.customerId}</Link>}</dd>
            <dt>Created</dt>
            <dd>
              <When at={t.createdAt} />
            </dd>
          </dl>
          <Timeline transaction={t} />
          {t.refund === undefined ? null : (
            <section aria-labelledby="refund">
              <h2 id="refund">Refund</h2>
              <dl class="facts">
                <dt>Status</dt>
                <dd>
                  <Badge status={t.refund.status} />
                </dd>
                <dt>Reason</dt>
                <dd>{t.refund.reason ?? "—"}</dd>
                <dt>Initiated</dt>
                <dd>
                  <When at={t.refund.initiatedAt} />
                </dd>
                <dt>Settled</dt>
                <dd>
                  <When at={t.refund.settledAt} />
                </dd>
                <dt>Reference</dt>
                <dd>{t.refund.reference}</dd>
              </dl>
            </section>
          )}
          {t.quoteId === undefined ? null : <Quote quoteId={t.quoteId} moved={t.updatedAt} />}
          <RawJson value={t} />
        </>
      )}
    </Show>
  )
}
