/**
 * Webhooks: every event of the outbox, page by page, with its payload and each delivery attempt (the request sent,
 * the receiver's answer), replay; followed over the event stream. Without a webhook endpoint, says how to get one.
 */
import { useState } from "preact/hooks"
import { run } from "../client.ts"
import { Action, Badge, Choice, Field, Pager, Show, useFollow, useLoad, usePaged, useSession, When } from "../ui.tsx"

/** No endpoint set: events stay in the outbox until one is (or `paycore listen` follows them). */
const NoEndpointHint = () => {
  const { client } = useSession()
  const config = useLoad(() => run(client.platform.getConfig()), [])
  if (config.data === undefined || config.data.webhookEndpoint !== undefined) return null
  return (
    <aside class="hint-box" aria-label="No webhook endpoint">
      <p>
        <strong>No webhook endpoint is set</strong>, so events wait here undelivered. Set one with{" "}
        <code>PATCH /config</code> <code>{`{"webhookEndpoint": "https://…"}`}</code>, or follow them in a terminal with{" "}
        <code>npx paycore listen</code> (it prints each event as it happens;{" "}
        <code>--forward-to http://127.0.0.1:3000/hooks</code> posts it to your receiver).
      </p>
    </aside>
  )
}

/** One attempt: the request as it was sent (the signatures are made at sending and not kept) and the answer. */
const Attempt = ({
  attempt,
  id,
  payload
}: {
  readonly attempt: any
  readonly id: string
  readonly payload: string
}) => (
  <li>
    <When at={attempt.at} /> <strong>{attempt.responseStatus ?? "no answer"}</strong> in {attempt.durationMs} ms
    {attempt.error === undefined ? null : <span class="error-text"> {attempt.error}</span>}
    <details>
      <summary>Request</summary>
      <pre>
        {`POST ${attempt.url}\ncontent-type: application/json\nwebhook-id: ${id}\n` +
          "webhook-timestamp, X-Service-Signature, webhook-signature: made at sending, not kept\n\n" +
          payload}
      </pre>
    </details>
    <details>
      <summary>Response</summary>
      <pre>
        {attempt.responseStatus === undefined
          ? `no answer${attempt.error === undefined ? "" : `: ${attempt.error}`}`
          : `${attempt.responseStatus}\n\n${attempt.responseBody ?? ""}`}
      </pre>
    </details>
  </li>
)

export const WebhooksScreen = () => {
  const { client } = useSession()
  const [filters, setFilters] = useState<Record<string, string>>({})
  const deliveries = usePaged(
    (cursor) =>
      run(
        client.webhooks.listDeliveries({
          query: { ...filters, limit: 50, ...(cursor === undefined ? {} : { cursor }) } as any
        })
      ),
    [filters]
  )
  // Every event is a new row; attempts change rows without an event, so poll while one is pending.
  useFollow(deliveries.reload, () => true, deliveries.data?.data.some((d) => d.status === "PENDING") ?? false)
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
      <NoEndpointHint />
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
        <button type="button" class="secondary" onClick={deliveries.reload}>
          Refresh
        </button>
      </form>
      <Show loaded={deliveries}>
        {(page) => (
          <>
            <div class="table-scroll">
              <table class="deliveries">
                <caption>
                  {page.totalCount} event{page.totalCount === 1 ? "" : "s"}, newest first
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
                  {page.data.map((delivery) => {
                    const payload = JSON.stringify(delivery.event, null, 2)
                    return (
                      <tr key={delivery.id}>
                        <th scope="row">
                          {delivery.type}
                          <br />
                          <small>{delivery.id}</small>
                          <details class="payload">
                            <summary>Payload</summary>
                            <pre>{payload}</pre>
                          </details>
                        </th>
                        <td>{delivery.subject}</td>
                        <td>
                          <When at={delivery.createdAt} />
                        </td>
                        <td>
                          <Badge status={delivery.status} />
                        </td>
                        <td>
                          {delivery.attempts.length === 0 ? (
                            "none yet"
                          ) : (
                            <ol class="attempts" aria-label={`Attempts of ${delivery.id}`}>
                              {delivery.attempts.map((attempt) => (
                                <Attempt key={attempt.at} attempt={attempt} id={delivery.id} payload={payload} />
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
                    )
                  })}
                </tbody>
              </table>
            </div>
            <Pager paged={deliveries} label="events" />
          </>
        )}
      </Show>
    </>
  )
}
