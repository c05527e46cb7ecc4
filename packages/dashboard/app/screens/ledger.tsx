/** An internal account's ledger: its postings (journal entry, running balance) and what is held vs available. */
import { useState } from "preact/hooks"
import { run } from "../client.ts"
import { Badge, money, Show, useLoad, useSession, when } from "../ui.tsx"

export const LedgerScreen = ({ accountId }: { readonly accountId: string }) => {
  const { client } = useSession()
  const [cursor, setCursor] = useState<string | undefined>()
  const postings = useLoad(
    () =>
      run(
        client.accounts.listCustomerInternalPostings({
          params: { accountId: accountId as any },
          query: { limit: 50, ...(cursor === undefined ? {} : { cursor }) }
        })
      ),
    [accountId, cursor]
  )
  return (
    <>
      <h1>Ledger of {accountId}</h1>
      <Show loaded={postings}>
        {(page) => (
          <>
            <dl class="facts">
              <dt>Posted</dt>
              <dd>{money(page.balance.posted)}</dd>
              <dt>Held (pending)</dt>
              <dd>{money(page.balance.pending)}</dd>
              <dt>Available</dt>
              <dd>{money(page.balance.available)}</dd>
            </dl>
            <table>
              <caption>Postings, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Journal entry</th>
                  <th scope="col">Description</th>
                  <th scope="col">Direction</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Status</th>
                  <th scope="col">Running balance</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((posting) => (
                  <tr key={`${posting.journalEntryId}-${posting.direction}`}>
                    <th scope="row">{when(posting.at)}</th>
                    <td>{posting.journalEntryId}</td>
                    <td>{posting.description}</td>
                    <td>{posting.direction}</td>
                    <td>{money(posting.amount)}</td>
                    <td>
                      <Badge status={posting.status} />
                    </td>
                    <td>{money(posting.runningBalance)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {page.hasMore && page.nextCursor !== undefined ? (
              <button type="button" onClick={() => setCursor(page.nextCursor)}>
                Older postings
              </button>
            ) : null}
          </>
        )}
      </Show>
    </>
  )
}
