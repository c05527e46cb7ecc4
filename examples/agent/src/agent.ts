/**
 * An agent program (issue 16; docs/agents.md): what the software of a platform's agent does with nothing but
 * `fetch` and the HTTP API. Given the API's base URL and the device code the platform handed over, it redeems the
 * code for its Bearer token (kept in memory only: never written, logged or printed), reads its profile and policy,
 * picks an account its policy allows from its customer's internal accounts, quotes a payment to a payee within its
 * per-transaction limit, executes it, and polls the action with backoff until the platform's decision (or the
 * policy's) is final: APPROVED, REJECTED or FAILED.
 *
 *   node examples/agent/src/agent.ts http://127.0.0.1:8080/2025-10-13 PAYCORE-AGENT-XXXX-XXXX [amount] [payeeId]
 *
 * No paycore package is imported: the shapes below are the API's, as an agent written in any language sees them.
 */

export interface AgentPolicy {
  readonly permissions: ReadonlyArray<string>
  readonly defaultExecutionMode: "AUTO" | "APPROVAL_REQUIRED"
  readonly spendingLimits: { readonly currency: string; readonly perTransactionLimit: number }
  readonly accountRestrictions?: {
    readonly allowedAccountIds?: ReadonlyArray<string> | null
    readonly accountRules?: ReadonlyArray<{ readonly accountId: string; readonly perTransactionLimit?: number | null }>
  }
}

export interface Agent {
  readonly id: string
  readonly name: string
  readonly customerId: string
  readonly isPaused: boolean
  readonly policy: AgentPolicy
}

interface InternalAccount {
  readonly id: string
  readonly currency: string
  readonly status: string
  readonly balance: { readonly amount: number }
}

interface ExternalAccount {
  readonly id: string
  readonly currency: string
  readonly status: string
}

export interface Quote {
  readonly id: string
  readonly status: string
  readonly totalSendingAmount: number
  readonly transactionId: string
}

export type ActionStatus = "PENDING_APPROVAL" | "APPROVED" | "REJECTED" | "FAILED"

export interface AgentAction {
  readonly id: string
  readonly status: ActionStatus
  readonly quote?: Quote
  readonly transaction?: { readonly id: string; readonly status: string }
  readonly rejectionReason?: string
  readonly failureReason?: string
}

/** A refusal of the API: its status, `code` and (for a policy refusal) `details.reason`. */
export class ApiError extends Error {
  readonly status: number
  readonly code: string
  readonly reason: string | undefined
  constructor(
    method: string,
    path: string,
    status: number,
    body: { code?: string; message?: string; details?: { reason?: string } }
  ) {
    super(`${method} ${path}: ${status} ${body.code ?? ""} ${body.message ?? ""}`.trim())
    this.status = status
    this.code = body.code ?? "UNKNOWN"
    this.reason = body.details?.reason
  }
}

/** Waits `ms` milliseconds (replaceable, so a test polls fast). */
export type Sleep = (ms: number) => Promise<void>
const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

export interface Backoff {
  /** The first wait, doubled after each poll up to `maxMillis`. */
  readonly initialMillis: number
  readonly maxMillis: number
  /** How many polls before giving up (the action is still pending: the platform has not decided). */
  readonly attempts: number
}

const DEFAULT_BACKOFF: Backoff = { initialMillis: 500, maxMillis: 30_000, attempts: 40 }

/** A connected agent: its profile, and the calls it makes with its token (held in this closure only). */
export interface AgentSession {
  readonly agent: Agent
  /** Pays up to `amount` (smallest unit of the account's currency) to `payeeId`, or to the customer's first payee. */
  readonly pay: (request: PaymentRequest) => Promise<PaymentOutcome>
  /** One action, read again. */
  readonly action: (id: string) => Promise<AgentAction>
}

export interface PaymentRequest {
  readonly amount: number
  readonly payeeId?: string
  /** Called once the execute answered: `PENDING_APPROVAL` means the platform is asked. */
  readonly onSubmitted?: (action: AgentAction) => void
}

export interface PaymentOutcome {
  readonly accountId: string
  readonly quote: Quote
  /** The action as first answered by the execute. */
  readonly submitted: AgentAction
  /** The action once final (APPROVED, REJECTED or FAILED). */
  readonly final: AgentAction
}

const FINAL: ReadonlySet<ActionStatus> = new Set(["APPROVED", "REJECTED", "FAILED"])

/**
 * Redeems `deviceCode` at `baseUrl` (`POST /agents/device-codes/{code}/redeem`, public: the agent has no credential
 * yet) and reads `GET /agents/me`. The token exists only inside the returned session.
 */
export const connect = async (
  baseUrl: string,
  deviceCode: string,
  options: { readonly sleep?: Sleep; readonly backoff?: Partial<Backoff> } = {}
): Promise<AgentSession> => {
  const redeemPath = `/agents/device-codes/${encodeURIComponent(deviceCode)}/redeem`
  const redeemed = await send<{ accessToken: string }>(baseUrl, "POST", redeemPath, undefined, {})
  return sessionWith(baseUrl, redeemed.accessToken, options)
}

/** A session over a token already redeemed (the same calls; `connect` is the usual way in). */
export const sessionWith = async (
  baseUrl: string,
  accessToken: string,
  options: { readonly sleep?: Sleep; readonly backoff?: Partial<Backoff> } = {}
): Promise<AgentSession> => {
  const sleep = options.sleep ?? realSleep
  const backoff = { ...DEFAULT_BACKOFF, ...options.backoff }
  const auth = { authorization: `Bearer ${accessToken}` }
  const api = <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    send<T>(baseUrl, method, path, body, { ...auth, ...headers })

  const agent = await api<Agent>("GET", "/agents/me")

  const action = (id: string) => api<AgentAction>("GET", `/agents/me/actions/${id}`)

  const pay = async (request: PaymentRequest): Promise<PaymentOutcome> => {
    const account = await allowedAccount(api, agent.policy)
    const payeeId = request.payeeId ?? (await firstPayee(api, account.currency))
    const amount = Math.min(request.amount, perTransactionLimit(agent.policy, account))
    if (amount <= 0) throw new Error(`The policy allows no payment from ${account.id}`)
    const quote = await api<Quote>("POST", "/agents/me/quotes", {
      source: { sourceType: "ACCOUNT", accountId: account.id },
      destination: { destinationType: "ACCOUNT", accountId: payeeId },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: amount,
      description: `paid by agent ${agent.name}`
    })
    // A retry of the execute with the same key gets the same action: the payment is never made twice.
    const submitted = await api<AgentAction>("POST", `/agents/me/quotes/${quote.id}/execute`, undefined, {
      "idempotency-key": `execute-${quote.id}`
    })
    request.onSubmitted?.(submitted)
    let current = submitted
    let wait = backoff.initialMillis
    for (let attempt = 0; !FINAL.has(current.status); attempt++) {
      if (attempt >= backoff.attempts) {
        throw new Error(`Action ${current.id} is still ${current.status} after ${attempt} polls`)
      }
      await sleep(wait)
      wait = Math.min(wait * 2, backoff.maxMillis)
      current = await action(current.id)
    }
    return { accountId: account.id, quote, submitted, final: current }
  }

  return { agent, pay, action }
}

type Api = <T>(method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<T>

/**
 * An active account the policy allows (`accountRestrictions.allowedAccountIds`, every account when absent or null),
 * preferring the policy's currency, then the largest balance. `/agents/me/internal-accounts` lists all of the
 * customer's accounts: checking them against the policy is the agent's job.
 */
const allowedAccount = async (api: Api, policy: AgentPolicy): Promise<InternalAccount> => {
  const page = await api<{ data: ReadonlyArray<InternalAccount> }>("GET", "/agents/me/internal-accounts?limit=100")
  const allowed = policy.accountRestrictions?.allowedAccountIds
  const usable = page.data
    .filter((a) => a.status === "ACTIVE" && (allowed === undefined || allowed === null || allowed.includes(a.id)))
    .sort(
      (a, b) =>
        Number(b.currency === policy.spendingLimits.currency) - Number(a.currency === policy.spendingLimits.currency) ||
        b.balance.amount - a.balance.amount
    )
  const account = usable[0]
  if (account === undefined) throw new Error("No internal account of the customer is allowed by the agent's policy")
  return account
}

/** The customer's first active payee in `currency` (needs MANAGE_EXTERNAL_ACCOUNTS). */
const firstPayee = async (api: Api, currency: string): Promise<string> => {
  const page = await api<{ data: ReadonlyArray<ExternalAccount> }>(
    "GET",
    `/agents/me/external-accounts?currency=${currency}&limit=100`
  )
  const payee = page.data.find((a) => a.status === "ACTIVE")
  if (payee === undefined) throw new Error(`The customer has no ${currency} payee`)
  return payee.id
}

/**
 * The most one payment from `account` may send: its account rule's limit (in the account's currency) if it has one,
 * else the policy's when the account is in the policy's currency. Another currency's limit is converted by the
 * server, which refuses with 403 PER_TRANSACTION_LIMIT_EXCEEDED if the amount turns out to be over.
 */
const perTransactionLimit = (policy: AgentPolicy, account: InternalAccount): number => {
  const rule = policy.accountRestrictions?.accountRules?.find((r) => r.accountId === account.id)
  if (rule?.perTransactionLimit !== undefined && rule.perTransactionLimit !== null) return rule.perTransactionLimit
  return account.currency === policy.spendingLimits.currency
    ? policy.spendingLimits.perTransactionLimit
    : Number.POSITIVE_INFINITY
}

/** One call: JSON in and out; a non-2xx answer is an `ApiError` (it never carries the token). */
const send = async <T>(
  baseUrl: string,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string>
): Promise<T> => {
  const response = await fetch(baseUrl + path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  const json = text === "" ? undefined : JSON.parse(text)
  if (!response.ok) throw new ApiError(method, path, response.status, json ?? {})
  return json as T
}

// Run as a program: `node examples/agent/src/agent.ts <baseUrl> <deviceCode> [amount] [payeeId]`.
if (import.meta.main) {
  const [baseUrl, deviceCode, amount = "1000", payeeId] = process.argv.slice(2)
  if (baseUrl === undefined || deviceCode === undefined) {
    console.error("usage: node examples/agent/src/agent.ts <baseUrl> <deviceCode> [amount] [payeeId]")
    process.exit(2)
  }
  const session = await connect(baseUrl, deviceCode)
  console.log(`connected as ${session.agent.name} (${session.agent.id}) for ${session.agent.customerId}`)
  const outcome = await session.pay({
    amount: Number(amount),
    ...(payeeId === undefined ? {} : { payeeId }),
    onSubmitted: (action) => console.log(`action ${action.id}: ${action.status}`)
  })
  console.log(
    `quote ${outcome.quote.id} (${outcome.quote.totalSendingAmount} from ${outcome.accountId}): ` +
      `${outcome.final.status}${outcome.final.failureReason === undefined ? "" : ` (${outcome.final.failureReason})`}` +
      `${outcome.final.rejectionReason === undefined ? "" : ` (${outcome.final.rejectionReason})`}`
  )
}
