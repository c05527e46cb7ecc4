/** Payments and card transactions: the list with its filters, and a transaction's page (timeline, quote, refund). */
import { useState } from "preact/hooks"
import { run } from "../client.ts"
import { Badge, Choice, Field, Link, type Money, money, RawJson, Show, useLoad, useSession, when } from "../ui.tsx"

const statuses = [
  "",
  "CREATED",
  "PENDING",
  "PROCESSING",
  "COMPLETED",
  "FAILED",
  "AUTHORIZED",
  "PARTIALLY_SETTLED",
  "SETTLED",
  "DECLINED"
] as const

/** What a listed transaction moved: a payment's sent amount, a card transaction's authorized amount. */
const amountOf = (transaction: any): Money | undefined =>
  transaction.type === "CARD" ? transaction.authorizedAmount : transaction.sentAmount

export const PaymentsScreen = () => {
  const { client } = useSession()
  const [filters, setFilters] = useState<Record<string, string>>({})
  const transactions = useLoad(
    () => run(client.payments.listTransactions({ query: { ...filters, limit: 50 } as any })),
    [filters]
  )
  const search = (event: SubmitEvent) => {
    event.preventDefault()
    const values: Record<string, string> = {}
    for (const [key, value] of new FormData(event.currentTarget as HTMLFormElement)) {
      const text = String(value).trim()
      if (text === "") continue
      values[key] = key.endsWith("Date") ? new Date(text).toISOString() : text
    }
    setFilters(values)
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
        <Field label="From" name="startDate" type="date" />
        <Field label="To" name="endDate" type="date" />
        <button type="submit">Filter</button>
      </form>
      <Show loaded={transactions}>
        {(page) => (
          <table>
            <caption>
              {page.totalCount} transaction{page.totalCount === 1 ? "" : "s"}, newest first
            </caption>
            <thead>
              <tr>
                <th scope="col">Transaction</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Amount</th>
                <th scope="col">Customer</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {page.data.map((transaction) => (
                <tr key={transaction.id}>
                  <th scope="row">
                    <Link to={`payments/${transaction.id}`}>{transaction.id}</Link>
                  </th>
                  <td>{transaction.type}</td>
                  <td>
                    <Badge status={transaction.status} />
                  </td>
                  <td>{money(amountOf(transaction))}</td>
                  <td>{transaction.customerId ?? "—"}</td>
                  <td>{when(transaction.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Show>
    </>
  )
}

const Timeline = ({ transaction }: { readonly transaction: any }) => {
  const { client } = useSession()
  const timeline = useLoad(
    () => run(client.payments.getTransactionTimeline({ params: { transactionId: transaction.id } })),
    // Every move updates the transaction (a refund settling keeps its status FAILED): reload with it.
    [transaction.id, transaction.updatedAt]
  )
  return (
    <section aria-labelledby="timeline">
      <h2 id="timeline">Timeline</h2>
      <Show loaded={timeline}>
        {({ data }) => (
          <ol class="timeline">
            {data.map((entry) => (
              <li key={`${entry.at}-${entry.state}`}>
                <time dateTime={entry.at}>{when(entry.at)}</time> {entry.from === undefined ? "" : `${entry.from} → `}
                <Badge status={entry.state} />
                {entry.event === undefined ? null : <span class="event"> webhook {entry.event}</span>}
              </li>
            ))}
          </ol>
        )}
      </Show>
    </section>
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
              <dd>{money({ amount: q.totalSendingAmount, currency: q.sendingCurrency })}</dd>
              <dt>Receiving</dt>
              <dd>{money({ amount: q.totalReceivingAmount, currency: q.receivingCurrency })}</dd>
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

export const PaymentScreen = ({ id }: { readonly id: string }) => {
  const { client } = useSession()
  const transaction = useLoad(() => run(client.payments.getTransaction({ params: { transactionId: id } })), [id])
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
          <button type="button" onClick={transaction.reload}>
            Refresh
          </button>
          <dl class="facts">
            <dt>Amount</dt>
            <dd>{money(amountOf(t))}</dd>
            {t.type === "CARD" ? (
              <>
                <dt>Merchant</dt>
                <dd>{t.merchant?.descriptor}</dd>
                <dt>Card</dt>
                <dd>
                  <Link to={`cards/${t.cardId}`}>{t.cardId}</Link>
                </dd>
                <dt>Settled</dt>
                <dd>{money(t.settledAmount)}</dd>
                <dt>Decline reason</dt>
                <dd>{t.declineReason ?? "—"}</dd>
              </>
            ) : (
              <>
                <dt>Received</dt>
                <dd>{money(t.receivedAmount)}</dd>
                <dt>Failure reason</dt>
                <dd>{t.failureReason ?? "—"}</dd>
                <dt>Rail</dt>
                <dd>{t.paymentRail ?? "—"}</dd>
              </>
            )}
            <dt>Customer</dt>
            <dd>{t.customerId === undefined ? "—" : <Link to={`customers/${t.customerId}`}>{t.customerId}</Link>}</dd>
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
                <dd>{when(t.refund.initiatedAt)}</dd>
                <dt>Settled</dt>
                <dd>{when(t.refund.settledAt)}</dd>
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
