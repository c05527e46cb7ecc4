/** The sandbox dashboard: sign in with a token, then one screen per hash route (#/customers, #/payments/…). */

import { API_VERSION } from "@paycore/http/api"
import { render } from "preact"
import { useEffect, useState } from "preact/hooks"
import { type Credentials, clearCredentials, makeClient, run, saveCredentials, savedCredentials } from "./client.ts"
import { type Live, type LiveState, startLive } from "./live.ts"
import { AgentsScreen } from "./screens/agents.tsx"
import { CardScreen, CardsScreen } from "./screens/cards.tsx"
import { CustomerScreen, CustomersScreen } from "./screens/customers.tsx"
import { LedgerScreen } from "./screens/ledger.tsx"
import { PaymentScreen, PaymentsScreen } from "./screens/payments.tsx"
import { RequestLogScreen } from "./screens/request-log.tsx"
import { SandboxScreen } from "./screens/sandbox.tsx"
import { SignIn } from "./screens/sign-in.tsx"
import { WebhooksScreen } from "./screens/webhooks.tsx"
import { Badge, type Session, SessionContext } from "./ui.tsx"

const screens = [
  ["customers", "Customers"],
  ["payments", "Payments"],
  ["cards", "Cards"],
  ["webhooks", "Webhooks"],
  ["agents", "Agent approvals"],
  ["sandbox", "Sandbox actions"],
  ["requests", "Request log"]
] as const

const useHash = (): Array<string> => {
  // `#/sandbox?account=…`: the part after `?` is the screen's own (read where it is used).
  const read = () =>
    decodeURIComponent(location.hash.replace(/^#\/?/, "").split("?")[0] ?? "")
      .split("/")
      .filter(Boolean)
  const [path, setPath] = useState(read)
  useEffect(() => {
    const changed = () => setPath(read())
    addEventListener("hashchange", changed)
    return () => removeEventListener("hashchange", changed)
  }, [])
  return path
}

const Screen = ({ path }: { readonly path: ReadonlyArray<string> }) => {
  const [screen = "customers", id] = path
  switch (screen) {
    case "customers":
      return id === undefined ? <CustomersScreen /> : <CustomerScreen id={id} />
    case "ledger":
      return id === undefined ? <p>Choose an account from a customer's page.</p> : <LedgerScreen accountId={id} />
    case "payments":
      return id === undefined ? <PaymentsScreen /> : <PaymentScreen id={id} />
    case "cards":
      return id === undefined ? <CardsScreen /> : <CardScreen id={id} />
    case "webhooks":
      return <WebhooksScreen />
    case "agents":
      return <AgentsScreen />
    case "sandbox":
      return <SandboxScreen />
    case "requests":
      return <RequestLogScreen />
    default:
      return <p>No such screen.</p>
  }
}

const liveText: Record<LiveState, string> = {
  connecting: "connecting…",
  live: "live",
  polling: "polling (the event stream is down)"
}

/** Whether the screens follow the event stream or poll. */
const LiveBadge = ({ live }: { readonly live: Live }) => {
  const [state, setState] = useState(live.state)
  useEffect(() => {
    const unsubscribe = live.onState(setState)
    // It may have changed between the first render and this effect.
    setState(live.state())
    return unsubscribe
  }, [live])
  return (
    <span class="live" data-state={state} role="status" title="How the screens follow what is in flight">
      {liveText[state]}
    </span>
  )
}

interface Signed {
  readonly session: Session
  readonly tokenName: string
  readonly environment: string
}

/** Checks the credentials by reading the token they belong to (`GET /tokens/me`). */
const signIn = async (credentials: Credentials): Promise<Signed> => {
  const client = makeClient(credentials)
  const me = await run(client.platform.getCurrentToken())
  return {
    session: { client, credentials, live: startLive(credentials), readOnly: me.environment === "PRODUCTION" },
    tokenName: me.name,
    environment: me.environment
  }
}

const App = () => {
  const path = useHash()
  const [signed, setSigned] = useState<Signed | undefined>()
  const [restoring, setRestoring] = useState(() => savedCredentials() !== undefined)
  useEffect(() => {
    const saved = savedCredentials()
    if (saved === undefined) return
    signIn(saved)
      .then(setSigned, clearCredentials)
      .finally(() => setRestoring(false))
  }, [])
  if (restoring) return <p aria-busy="true">Signing in…</p>
  if (signed === undefined) {
    return (
      <SignIn
        onSignIn={async (credentials) => {
          const result = await signIn(credentials)
          saveCredentials(credentials)
          setSigned(result)
        }}
      />
    )
  }
  const signOut = () => {
    signed.session.live.close()
    clearCredentials()
    setSigned(undefined)
  }
  const current = path[0] ?? "customers"
  return (
    <SessionContext.Provider value={signed.session}>
      <header class="top">
        <p class="brand">paycore sandbox</p>
        <nav aria-label="Screens">
          <ul>
            {screens.map(([route, title]) => (
              <li key={route}>
                <a href={`#/${route}`} aria-current={current === route ? "page" : undefined}>
                  {title}
                </a>
              </li>
            ))}
            <li>
              <a href={`/${API_VERSION}/docs`}>API reference</a>
            </li>
          </ul>
        </nav>
        <p class="who">
          <LiveBadge live={signed.session.live} /> {signed.tokenName} <Badge status={signed.environment} />
          {signed.session.readOnly ? " read-only" : ""}{" "}
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </p>
      </header>
      <main>
        <Screen path={path} />
      </main>
    </SessionContext.Provider>
  )
}

const root = document.getElementById("app")
if (root !== null) render(<App />, root)
