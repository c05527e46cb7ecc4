/** The dashboard's shared pieces: the signed-in session, loading, status badges, money, actions and raw JSON. */
import type { ComponentChildren } from "preact"
import { createContext } from "preact"
import { useCallback, useContext, useEffect, useState } from "preact/hooks"
import { ApiFailure, type Client, type Credentials } from "./client.ts"

export interface Session {
  readonly client: Client
  readonly credentials: Credentials
  /** A PRODUCTION token: the dashboard shows no write (the server refuses them too). */
  readonly readOnly: boolean
}

export const SessionContext = createContext<Session | undefined>(undefined)

export const useSession = (): Session => {
  const session = useContext(SessionContext)
  if (session === undefined) throw new Error("useSession outside a signed-in page")
  return session
}

export interface Loaded<A> {
  readonly data: A | undefined
  readonly error: ApiFailure | undefined
  readonly reload: () => void
}

const asFailure = (error: unknown): ApiFailure =>
  error instanceof ApiFailure ? error : new ApiFailure(0, "CLIENT_ERROR", String(error))

/** Loads `load()` when the page opens and whenever `deps` change; `reload` loads again. */
export const useLoad = <A,>(load: () => Promise<A>, deps: ReadonlyArray<unknown>): Loaded<A> => {
  const [state, setState] = useState<{ data?: A; error?: ApiFailure }>({})
  const [generation, setGeneration] = useState(0)
  // The caller names what the load depends on (`deps`).
  useEffect(() => {
    let current = true
    load().then(
      (data) => current && setState({ data }),
      (error) => current && setState({ error: asFailure(error) })
    )
    return () => {
      current = false
    }
  }, [...deps, generation])
  const reload = useCallback(() => setGeneration((n) => n + 1), [])
  return { data: state.data, error: state.error, reload }
}

export const ErrorMessage = ({ error }: { readonly error: ApiFailure }) => (
  <p class="error" role="alert">
    <strong>{error.status === 0 ? error.code : `${error.status} ${error.code}`}</strong> {error.message}
  </p>
)

/** What a load shows: the error, "Loading…", or `children` with the data. */
export const Show = <A,>({
  loaded,
  children
}: {
  readonly loaded: Loaded<A>
  readonly children: (data: A) => ComponentChildren
}) => {
  if (loaded.error !== undefined) return <ErrorMessage error={loaded.error} />
  if (loaded.data === undefined) return <p aria-busy="true">Loading…</p>
  return <>{children(loaded.data)}</>
}

const tones: Record<string, string> = {
  COMPLETED: "good",
  APPROVED: "good",
  ACTIVE: "good",
  SETTLED: "good",
  DELIVERED: "good",
  POSTED: "good",
  SUCCEEDED: "good",
  FAILED: "bad",
  REJECTED: "bad",
  DECLINED: "bad",
  CLOSED: "bad",
  REFUNDED: "bad",
  RETURNED: "bad",
  VOIDED: "bad",
  PRODUCTION: "bad",
  FROZEN: "warn",
  PENDING: "warn",
  PROCESSING: "warn",
  PENDING_APPROVAL: "warn",
  AUTHORIZED: "warn",
  PARTIALLY_SETTLED: "warn",
  UNVERIFIED: "warn",
  PENDING_REVIEW: "warn"
}

/** A status as text (never colour alone): the colour only repeats it. */
export const Badge = ({ status }: { readonly status: string | undefined }) => (
  <span class={`badge ${tones[status ?? ""] ?? "plain"}`}>{status ?? "—"}</span>
)

export interface Money {
  readonly amount: number
  readonly currency: { readonly code: string; readonly decimals: number }
}

export const money = (value: Money | undefined): string =>
  value === undefined
    ? "—"
    : `${(value.amount / 10 ** value.currency.decimals).toFixed(value.currency.decimals)} ${value.currency.code}`

export const when = (iso: string | undefined): string => (iso === undefined ? "—" : iso.replace("T", " ").slice(0, 19))

/** The raw JSON of a resource, with a copy button. */
export const RawJson = ({ value, label = "Raw JSON" }: { readonly value: unknown; readonly label?: string }) => {
  const text = JSON.stringify(value, null, 2)
  return (
    <details class="raw">
      <summary>{label}</summary>
      <button type="button" onClick={() => navigator.clipboard?.writeText(text)}>
        Copy JSON
      </button>
      <pre>{text}</pre>
    </details>
  )
}

/**
 * A write: a button that runs `action` once at a time and says what happened in a live region. Not shown at all
 * with a read-only (PRODUCTION) token.
 */
export const Action = ({
  label,
  action,
  done
}: {
  readonly label: string
  readonly action: () => Promise<unknown>
  /** Called after a success (e.g. reload the page's data). */
  readonly done?: (() => void) | undefined
}) => {
  const { readOnly } = useSession()
  const [state, setState] = useState<{ busy?: boolean; error?: ApiFailure; ok?: boolean }>({})
  if (readOnly) return null
  const click = () => {
    setState({ busy: true })
    action().then(
      () => {
        setState({ ok: true })
        done?.()
      },
      (error) => setState({ error: asFailure(error) })
    )
  }
  return (
    <span class="action">
      <button type="button" onClick={click} disabled={state.busy}>
        {label}
      </button>
      <span role="status">
        {state.busy ? "Working…" : state.ok ? "Done" : ""}
        {state.error === undefined ? null : <ErrorMessage error={state.error} />}
      </span>
    </span>
  )
}

/**
 * A write form: its fields are `children`; on submit `action` gets the form's values. Not shown with a read-only
 * token.
 */
export const ActionForm = ({
  title,
  submit,
  action,
  done,
  children
}: {
  readonly title: string
  readonly submit: string
  readonly action: (values: Record<string, string>) => Promise<unknown>
  readonly done?: ((result: unknown) => void) | undefined
  readonly children: ComponentChildren
}) => {
  const { readOnly } = useSession()
  const [state, setState] = useState<{ busy?: boolean; error?: ApiFailure; ok?: boolean }>({})
  if (readOnly) return null
  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault()
    const values: Record<string, string> = {}
    for (const [key, value] of new FormData(event.currentTarget as HTMLFormElement)) values[key] = String(value)
    setState({ busy: true })
    action(values).then(
      (result) => {
        setState({ ok: true })
        done?.(result)
      },
      (error) => setState({ error: asFailure(error) })
    )
  }
  return (
    <form class="card" onSubmit={onSubmit}>
      <fieldset disabled={state.busy}>
        <legend>{title}</legend>
        {children}
        <button type="submit">{submit}</button>
      </fieldset>
      <p role="status">{state.busy ? "Working…" : state.ok ? "Done" : ""}</p>
      {state.error === undefined ? null : <ErrorMessage error={state.error} />}
    </form>
  )
}

/** A labelled input. */
export const Field = ({
  label,
  name,
  value,
  type = "text",
  required = false
}: {
  readonly label: string
  readonly name: string
  readonly value?: string | undefined
  readonly type?: "text" | "number" | "email" | "date"
  readonly required?: boolean
}) => (
  <label>
    <span>{label}</span>
    {/* Preact types each input type apart; a prop holding one of several needs the cast. */}
    <input name={name} type={type as "text"} value={value} required={required} />
  </label>
)

/** A labelled choice. */
export const Choice = ({
  label,
  name,
  options,
  value
}: {
  readonly label: string
  readonly name: string
  readonly options: ReadonlyArray<readonly [value: string, text: string]>
  readonly value?: string | undefined
}) => (
  <label>
    <span>{label}</span>
    <select name={name} value={value}>
      {options.map(([option, text]) => (
        <option key={option} value={option}>
          {text}
        </option>
      ))}
    </select>
  </label>
)

/** A link to another screen of the dashboard (hash routing). */
export const Link = ({ to, children }: { readonly to: string; readonly children: ComponentChildren }) => (
  <a href={`#/${to}`}>{children}</a>
)
