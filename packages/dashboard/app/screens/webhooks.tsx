/** Webhooks: every event of the outbox, each delivery attempt (status, latency, the receiver's answer), replay. */
import { useState } from "preact/hooks"
import { run } from "../client.ts"
import { Action, Badge, Choice, Field, Show, useLoad, useSession, when } from "../ui.tsx"

export const WebhooksScreen = () => {
  const { client } = useSession()
  const [filters, setFilters] = useState<Record<string, string>>({})
  const deliveries = useLoad(
    () => run(client.webhooks.listDeliveries({ query: { ...filters, limit: 50 } as any })),
    [filters]
  )
  const search = (event: SubmitEvent) => {
    event.preventDefault()
    const values: Record<string, string> = {}
    for (const [key, value] of new FormData(event.currentTarget as HTMLFormElement))
      if (String(value).trim() !== "") values[key] = String(value).trim()
    setFilters(values)
  }
  return (
    <>
      <h1>Webhooks</h1>
      <form class="filters" aria-label="Filter webhook events" onSubmit={search}>
        <Choice
          label="Delivery"
          name="status"
          options={[
            ["", "any"],
            ["PENDING", "pending"],
            ["DELIVERED", "delivered"],
            ["DEAD", "dead"]
          ]}
        />
        <Field label="Event type" name="type" />
        <Field label="About (resource id)" name="subject" />
        <button type="submit">Filter</button>
        <button type="button" onClick={deliveries.reload}>
          Refresh
        </button>
      </form>
      <Show loaded={deliveries}>
        {(page) => (
          <table class="deliveries">
            <caption>
              {page.totalCount} event{page.totalCount === 1 ? "" : "s"}
            </caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">About</th>
                <th scope="col">Created</th>
                <th scope="col">Delivery</th>
                <th scope="col">Attempts</th>
                <th scope="col">Replay</th>
              </tr>
            </thead>
            <tbody>
              {page.data.map((delivery) => (
                <tr key={delivery.id}>
                  <th scope="row">
                    {delivery.type}
                    <br />
                    <small>{delivery.id}</small>
                  </th>
                  <td>{delivery.subject}</td>
                  <td>{when(delivery.createdAt)}</td>
                  <td>
                    <Badge status={delivery.status} />
                  </td>
                  <td>
                    {delivery.attempts.length === 0 ? (
                      "none yet"
                    ) : (
                      <ol class="attempts" aria-label={`Attempts of ${delivery.id}`}>
                        {delivery.attempts.map((attempt) => (
                          <li key={attempt.at}>
                            <span>{when(attempt.at)}</span> <strong>{attempt.responseStatus ?? "no answer"}</strong> in{" "}
                            {attempt.durationMs} ms
                            {attempt.error === undefined ? null : <span class="error-text"> {attempt.error}</span>}
                            {attempt.responseBody === undefined ? null : (
                              <details>
                                <summary>Response body</summary>
                                <pre>{attempt.responseBody}</pre>
                              </details>
                            )}
                          </li>
                        ))}
                      </ol>
                    )}
                  </td>
                  <td>
                    {/* Only a DEAD delivery can be sent again (the server answers 409 for the others). */}
                    {delivery.status !== "DEAD" ? null : (
                      <Action
                        label="Replay"
                        action={() => run(client.webhooks.replayDelivery({ params: { webhookId: delivery.id } }))}
                        done={deliveries.reload}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Show>
    </>
  )
}
