/**
 * An internal account's ledger: its balance over time as a chart, its postings (journal entry, running balance) and
 * what is held vs available; it follows the account's balance events.
 */
import { BalanceChart } from "../charts.tsx"
import { type Client, run } from "../client.ts"
import {
  Amount,
  Badge,
  mentions,
  Pager,
  Show,
  scanPages,
  useFollow,
  useLoad,
  usePaged,
  useSession,
  When
} from "../ui.tsx"

const postingsPage = (client: Client, accountId: string, cursor: string | undefined, limit: number) =>
  run(
    client.accounts.listCustomerInternalPostings({
      params: { accountId: accountId as any },
      query: { limit, ...(cursor === undefined ? {} : { cursor }) }
    })
  )

/** The running balance after every posting (all pages), drawn over time. */
const BalanceOverTime = ({ accountId, version }: { readonly accountId: string; readonly version: unknown }) => {
  const { client } = useSession()
  const all = useLoad(() => scanPages((cursor) => postingsPage(client, accountId, cursor, 100)), [accountId, version])
  return (
    <Show loaded={all}>
      {({ rows }) => {
        const first = rows[0]
        if (first === undefined) return <p>No posting yet.</p>
        const scale = 10 ** first.runningBalance.currency.decimals
        return (
          <section aria-labelledby="balance-chart" class="chart-box">
            <h2 id="balance-chart">Balance over time ({first.runningBalance.currency.code})</h2>
            <BalanceChart
              points={rows.map((p) => ({ at: p.at, balance: p.runningBalance.amount / scale }))}
              currency={first.runningBalance.currency.code}
            />
          </section>
        )
      }}
    </Show>
  )
}

export const LedgerScreen = ({ accountId }: { readonly accountId: string }) => {
  const { client } = useSession()
  const postings = usePaged((cursor) => postingsPage(client, accountId, cursor, 50), [accountId])
  useFollow(postings.reload, mentions(accountId), (postings.data?.balance.pending.amount ?? 0) !== 0)
  return (
    <>
      <h1>Ledger of {accountId}</h1>
      <BalanceOverTime accountId={accountId} version={postings.data} />
      <Show loaded={postings}>
        {(page) => (
          <>
            <dl class="facts">
              <dt>Posted</dt>
              <dd>
                <Amount value={page.balance.posted} />
              </dd>
              <dt>Held (pending)</dt>
              <dd>
                <Amount value={page.balance.pending} />
              </dd>
              <dt>Available</dt>
              <dd>
                <Amount value={page.balance.available} />
              </dd>
            </dl>
            <div class="table-scroll">
              <table>
                <caption>Postings, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Journal entry</th>
                    <th scope="col">Description</th>
                    <th scope="col">Direction</th>
                    <th scope="col" class="num">
                      Amount
                    </th>
                    <th scope="col">Status</th>
                    <th scope="col" class="num">
                      Running balance
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((posting) => (
                    <tr key={`${posting.journalEntryId}-${posting.direction}`}>
                      <th scope="row">
                        <When at={posting.at} />
                      </th>
                      <td>{posting.journalEntryId}</td>
                      <td>{posting.description}</td>
                      <td>{posting.direction}</td>
                      <td class="num">
                        <Amount value={posting.amount} />
                      </td>
                      <td>
                        <Badge status={posting.status} />
                      </td>
                      <td class="num">
                        <Amount value={posting.runningBalance} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager paged={postings} label="postings" />
          </>
        )}
      </Show>
    </>
  )
}
