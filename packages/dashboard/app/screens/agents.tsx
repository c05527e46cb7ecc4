/** Agents' pending approvals: what each agent asked to do, approved or rejected here. */
import type { AgentAction } from "@paycore/core"
import { run } from "../client.ts"
import { Action, Badge, Link, money, ofTypes, Show, useFollow, useLoad, useSession, When } from "../ui.tsx"

/** What the action would pay: its quote's sending total, or the transfer's amount (minor units of its currency). */
const amountOf = (action: AgentAction): string =>
  action.quote !== undefined
    ? money({ amount: action.quote.totalSendingAmount, currency: action.quote.sendingCurrency })
    : action.transferDetails !== undefined
      ? `${action.transferDetails.amount} ${action.transferDetails.currency} (minor units)`
      : "—"

export const AgentsScreen = () => {
  const { client } = useSession()
  const approvals = useLoad(() => run(client.agents.listApprovals({ query: { limit: 100 } as any })), [])
  // A new action held for approval is an event; one decided elsewhere moves its payment.
  useFollow(approvals.reload, ofTypes("AGENT_ACTION.", "OUTGOING_PAYMENT."), (approvals.data?.data.length ?? 0) > 0)
  return (
    <>
      <h1>Agent approvals</h1>
      <button type="button" class="secondary" onClick={approvals.reload}>
        Refresh
      </button>
      <Show loaded={approvals}>
        {(page) =>
          page.data.length === 0 ? (
            <p>No action waits for an approval.</p>
          ) : (
            <div class="table-scroll">
              <table>
                <caption>Actions pending approval</caption>
                <thead>
                  <tr>
                    <th scope="col">Action</th>
                    <th scope="col">Agent</th>
                    <th scope="col">Customer</th>
                    <th scope="col">Amount</th>
                    <th scope="col">Status</th>
                    <th scope="col">Asked</th>
                    <th scope="col">Decision</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((action) => (
                    <tr key={action.id}>
                      <th scope="row">
                        {action.type}
                        <br />
                        <small>{action.id}</small>
                      </th>
                      <td>{action.agentId}</td>
                      <td>
                        <Link to={`customers/${action.customerId}`}>{action.customerId}</Link>
                      </td>
                      <td>{amountOf(action)}</td>
                      <td>
                        <Badge status={action.status} />
                      </td>
                      <td>
                        <When at={action.createdAt} />
                      </td>
                      <td>
                        <Action
                          label="Approve"
                          confirm={{ question: "Approve and pay now? This cannot be undone.", yes: "Approve and pay" }}
                          action={() =>
                            run(
                              client.agents.approveAction({ params: { agentId: action.agentId, actionId: action.id } })
                            )
                          }
                          done={approvals.reload}
                        />{" "}
                        <Action
                          label="Reject"
                          confirm={{
                            question: "Reject this action? The agent cannot ask again for it.",
                            yes: "Reject it"
                          }}
                          action={() =>
                            run(
                              client.agents.rejectAction({
                                params: { agentId: action.agentId, actionId: action.id },
                                payload: null
                              })
                            )
                          }
                          done={approvals.reload}
                        />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
    </>
  )
}
