/** Sign in with a token's client id and secret (kept in sessionStorage, sent as HTTP Basic). */
import { useState } from "preact/hooks"
import { ApiFailure, type Credentials } from "../client.ts"
import { ErrorMessage } from "../ui.tsx"

export const SignIn = ({ onSignIn }: { readonly onSignIn: (credentials: Credentials) => Promise<void> }) => {
  const [error, setError] = useState<ApiFailure | undefined>()
  const [busy, setBusy] = useState(false)
  const submit = (event: SubmitEvent) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    setBusy(true)
    setError(undefined)
    onSignIn({ clientId: String(form.get("clientId")), clientSecret: String(form.get("clientSecret")) })
      .catch((failure) =>
        setError(failure instanceof ApiFailure ? failure : new ApiFailure(0, "CLIENT_ERROR", String(failure)))
      )
      .finally(() => setBusy(false))
  }
  return (
    <main class="sign-in">
      <h1>paycore sandbox dashboard</h1>
      <form class="card" onSubmit={submit}>
        <fieldset disabled={busy}>
          <legend>Sign in with an API token</legend>
          <label>
            <span>Client id</span>
            <input name="clientId" autocomplete="username" required />
          </label>
          <label>
            <span>Client secret</span>
            <input name="clientSecret" type="password" autocomplete="current-password" required />
          </label>
          <button type="submit">Sign in</button>
        </fieldset>
        <p class="hint">
          The credentials stay in this tab (sessionStorage) and are sent as HTTP Basic to this server only.{" "}
          <code>npm start</code> prints the sandbox token.
        </p>
        {error === undefined ? null : <ErrorMessage error={error} />}
      </form>
    </main>
  )
}
