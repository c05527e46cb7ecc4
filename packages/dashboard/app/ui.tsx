/**
 * The dashboard's shared pieces: the signed-in session, loading (following the event stream), paging, status badges,
 * amounts and times, actions (confirmed when irreversible) and raw JSON.
 */
import type { ComponentChildren } from "preact"
import { createContext } from "preact"
import { useCallback, useContext, useEffect, useRef, useState } from "preact/hooks"
import { ApiFailure, type Client, type Credentials } from "./client.ts"
import type { Live, LiveEvent } from "./live.ts"

export interface Session {
  readonly client: Client
  readonly credentials: Credentials
  /** The event stream the screens follow (polling while it is down). */
  readonly live: Live
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

/**
 * Follows what a screen shows: `reload` when an event `matches` (the stream), and on every polling tick while
 * `inFlight` (the stream is down). Events that come together cause one reload.
 */
export const useFollow = (reload: () => void, matches: (event: LiveEvent) => boolean, inFlight: boolean): void => {
  const { live } = useSession()
  const latest = useRef({ reload, matches, inFlight })
  latest.current = { reload, matches, inFlight }
  useEffect(() => {
    let pending: ReturnType<typeof setTimeout> | undefined
    const unsubscribe = live.subscribe((event) => {
      const { matches, inFlight } = latest.current
      if (event === undefined ? !inFlight : !matches(event)) return
      pending ??= setTimeout(() => {
        pending = undefined
        latest.current.reload()
      }, 50)
    })
    return () => {
      unsubscribe()
      if (pending !== undefined) clearTimeout(pending)
    }
  }, [live])
}

/** Whether an event is about one of `ids` (its data names them). */
export const mentions =
  (...ids: ReadonlyArray<string | undefined>) =>
  (event: LiveEvent): boolean =>
    ids.some((id) => id !== undefined && event.text.includes(`"${id}"`))

/** Whether an event is of one of the `prefixes` (`OUTGOING_PAYMENT.`, `CARD_TRANSACTION.`). */
export const ofTypes =
  (...prefixes: ReadonlyArray<string>) =>
  (event: LiveEvent): boolean =>
    prefixes.some((prefix) => event.type.startsWith(prefix))

export interface PageLike {
  readonly hasMore: boolean
  readonly nextCursor?: string | undefined
}

export interface Paged<A extends PageLike> extends Loaded<A> {
  /** 1-based. */
  readonly number: number
  readonly next: (() => void) | undefined
  readonly previous: (() => void) | undefined
}

/**
 * A list read page by page with the API's cursors: `load(cursor)` reads one page. The pages seen are kept so
 * Previous goes back; a change of `deps` starts again at the first page.
 */
export const usePaged = <A extends PageLike>(
  load: (cursor: string | undefined) => Promise<A>,
  deps: ReadonlyArray<unknown>
): Paged<A> => {
  const key = JSON.stringify(deps)
  const [state, setState] = useState<{ key: string; cursors: ReadonlyArray<string | undefined> }>({
    key,
    cursors: [undefined]
  })
  const cursors = state.key === key ? state.cursors : [undefined]
  const cursor = cursors[cursors.length - 1]
  const loaded = useLoad(() => load(cursor), [key, cursor])
  const page = loaded.data
  return {
    ...loaded,
    number: cursors.length,
    next:
      page?.hasMore === true && page.nextCursor !== undefined
        ? () => setState({ key, cursors: [...cursors, page.nextCursor] })
        : undefined,
    previous: cursors.length > 1 ? () => setState({ key, cursors: cursors.slice(0, -1) }) : undefined
  }
}

/** Previous and next page of a `usePaged` list. */
export const Pager = <A extends PageLike>({ paged, label }: { readonly paged: Paged<A>; readonly label: string }) =>
  paged.next === undefined && paged.previous === undefined ? null : (
    <nav class="pager" aria-label={`Pages of ${label}`}>
      <button type="button" class="secondary" onClick={paged.previous} disabled={paged.previous === undefined}>
        Previous page
      </button>
      <span>Page {paged.number}</span>
      <button type="button" class="secondary" onClick={paged.next} disabled={paged.next === undefined}>
        Next page
      </button>
    </nav>
  )

/** At most this many pages of 100 are read to filter a list where the API has no such filter (10 000 rows). */
export const SCAN_PAGES = 100

/** Every row of a list, read page by page (for filters the API does not have, and the charts). */
export const scanPages = async <A,>(
  load: (cursor: string | undefined) => Promise<{ readonly data: ReadonlyArray<A> } & PageLike>
): Promise<{ readonly rows: ReadonlyArray<A>; readonly complete: boolean }> => {
  const rows: Array<A> = []
  let cursor: string | undefined
  for (let pages = 0; pages < SCAN_PAGES; pages++) {
    const page = await load(cursor)
    rows.push(...page.data)
    if (!page.hasMore || page.nextCursor === undefined) return { rows, complete: true }
    cursor = page.nextCursor
  }
  return { rows, complete: false }
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

/** An amount in a table or a fact: the figure in tabular digits, then its currency, so columns line up. */
export const Amount = ({ value }: { readonly value: Money | undefined }) => {
  if (value === undefined) return <span class="amount">—</span>
  const [figure, code] = money(value).split(" ")
  return (
    <span class="amount">
      <span class="figure">{figure}</span> <span class="ccy">{code}</span>
    </span>
  )
}

const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" })
const units: ReadonlyArray<readonly [Intl.RelativeTimeFormatUnit, number]> = [
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
  ["second", 1]
]

/** "3 minutes ago", "in 40 seconds" (`now` in ms). */
export const fromNow = (iso: string, now: number): string => {
  const seconds = Math.round((Date.parse(iso) - now) / 1000)
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size || unit === "second") return relative.format(Math.trunc(seconds / size), unit)
  }
  return iso
}

// One clock for every relative time on the page: they move together, every 10 s.
const clockListeners = new Set<() => void>()
setInterval(() => {
  for (const listener of clockListeners) listener()
}, 10_000)

const useNow = (): number => {
  const [now, setNow] = useState(Date.now)
  useEffect(() => {
    const tick = () => setNow(Date.now())
    clockListeners.add(tick)
    return () => clockListeners.delete(tick)
  }, [])
  return now
}

/** A time relative to now, the exact time (UTC) on hover. */
export const When = ({ at }: { readonly at: string | undefined }) => {
  const now = useNow()
  if (at === undefined) return <span>—</span>
  return (
    <time dateTime={at} title={`${when(at)} UTC`}>
      {fromNow(at, now)}
    </time>
  )
}

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
  done,
  confirm
}: {
  readonly label: string
  readonly action: () => Promise<unknown>
  /** Called after a success (e.g. reload the page's data). */
  readonly done?: (() => void) | undefined
  /** An irreversible action: the button is styled as dangerous and asks this question before it acts. */
  readonly confirm?: { readonly question: string; readonly yes: string } | undefined
}) => {
  const { readOnly } = useSession()
  const [state, setState] = useState<{ busy?: boolean; error?: ApiFailure; ok?: boolean }>({})
  const [asking, setAsking] = useState(false)
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
  if (asking && confirm !== undefined) {
    return (
      <fieldset class="action confirm" aria-label={`Confirm: ${label}`}>
        <legend>{confirm.question}</legend>
        <button
          type="button"
          class="danger"
          onClick={() => {
            setAsking(false)
            click()
          }}
        >
          {confirm.yes}
        </button>
        <button type="button" class="secondary" onClick={() => setAsking(false)}>
          Cancel
        </button>
      </fieldset>
    )
  }
  return (
    <span class="action">
      <button
        type="button"
        class={confirm === undefined ? undefined : "danger"}
        onClick={confirm === undefined ? click : () => setAsking(true)}
        disabled={state.busy}
      >
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
  report,
  children
}: {
  readonly title: string
  readonly submit: string
  readonly action: (values: Record<string, string>) => Promise<unknown>
  readonly done?: ((result: unknown) => void) | undefined
  /** What a success says, from the answer (default "Done"). */
  readonly report?: ((result: any) => string) | undefined
  readonly children: ComponentChildren
}) => {
  const { readOnly } = useSession()
  const [state, setState] = useState<{ busy?: boolean; error?: ApiFailure; ok?: string }>({})
  if (readOnly) return null
  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault()
    const values: Record<string, string> = {}
    for (const [key, value] of new FormData(event.currentTarget as HTMLFormElement)) values[key] = String(value)
    setState({ busy: true })
    action(values).then(
      (result) => {
        setState({ ok: report?.(result) ?? "Done" })
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
      <p role="status">{state.busy ? "Working…" : (state.ok ?? "")}</p>
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
  value,
  onChange
}: {
  readonly label: string
  readonly name: string
  readonly options: ReadonlyArray<readonly [value: string, text: string]>
  readonly value?: string | undefined
  /** Told each choice (for a form whose other fields follow this one). */
  readonly onChange?: ((value: string) => void) | undefined
}) => (
  <label>
    <span>{label}</span>
    <select
      name={name}
      value={value}
      onChange={onChange && ((event) => onChange((event.currentTarget as HTMLSelectElement).value))}
    >
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
