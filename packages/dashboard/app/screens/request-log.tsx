/** The calling token's last requests (GET /request-log): method, path, status, duration, the error answered. */
import { run } from "../client.ts"
import { Badge, Show, useLoad, useSession, when } from "../ui.tsx"

export const RequestLogScreen = () => {
  const { client } = useSession()
  const log = useLoad(() => run(client.platform.requestLog({ query: { limit: 200 } })), [])
  return (
    <>
      <h1>Request log</h1>
      <p>This token's last requests to this server process, newest first.</p>
      <button type="button" onClick={log.reload}>
        Refresh
      </button>
      <Show loaded={log}>
        {({ data }) => (
          <div class="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Request</th>
                  <th scope="col">Status</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Idempotency key</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {data.map((entry, index) => (
                  <tr key={`${entry.at}-${index}`}>
                    <th scope="row">{when(entry.at)}</th>
                    <td>
                      <code>
                        {entry.method} {entry.path}
                      </code>
                    </td>
                    <td>
                      <Badge status={String(entry.status)} />
                    </td>
                    <td>{entry.durationMs} ms</td>
                    <td>{entry.idempotencyKey ?? "—"}</td>
                    <td>{entry.error === undefined ? "—" : `${entry.error.code} ${entry.error.message}`}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Show>
    </>
  )
}
