/**
 * Pay-by-link (IN-13; docs/invitations.md "Pay-by-link"): the program a platform runs so that a claimed invitation
 * that carries `amountToSend` is paid. It is the platform's webhook endpoint: it verifies each delivery's Standard
 * Webhooks signature with the endpoint's `whsec_` secret, and on `INVITATION.CLAIMED` with an amount it creates a
 * sender-locked quote from the inviter's account to the invitee and executes it (`immediatelyExecute`), under an
 * `Idempotency-Key` naming the invitation: a redelivered event replays the first answer and pays once.
 *
 *   PAYCORE_API_URL=http://127.0.0.1:8080/2025-10-13 PAYCORE_CLIENT_ID=… PAYCORE_CLIENT_SECRET=… \
 *   PAYCORE_WEBHOOK_SECRET=whsec_… PORT=8090 node examples/pay-by-link/src/pay-by-link.ts
 *
 * No paycore package is imported: `node:http`, `fetch` and the Standard Webhooks reference library
 * (`standardwebhooks`), as a platform in any language would.
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"

export interface PayByLinkOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:8080/2025-10-13`. */
  readonly baseUrl: string
  /** A platform token with TRANSACT (Basic). */
  readonly clientId: string
  readonly clientSecret: string
  /** The webhook endpoint's signing secret (`whsec_…`, from `POST /webhooks/signing-secrets/rotate`). */
  readonly webhookSecret: string
  /** Port to listen on (default 0: any free port). */
  readonly port?: number
  readonly host?: string
  /** Where outcomes are reported (default `console.log`); never given a secret. */
  readonly log?: (line: string) => void
}

export interface PayByLinkServer {
  /** The URL to set as the platform's `webhookEndpoint`. */
  readonly url: string
  readonly close: () => Promise<void>
}

/** What the program did with one delivery. */
export type Outcome =
  | { readonly kind: "REJECTED"; readonly reason: string }
  | { readonly kind: "IGNORED"; readonly reason: string }
  | { readonly kind: "PAID"; readonly quoteId: string; readonly transactionId: string; readonly replayed: boolean }
  | { readonly kind: "REFUSED"; readonly status: number; readonly code: string }

interface Amount {
  readonly amount: number
  readonly currency: { readonly code: string }
}

interface Invitation {
  readonly code: string
  readonly inviterUma: string
  readonly inviteeUma?: string
  readonly status: string
  readonly amountToSend?: Amount
}

/**
 * Standard Webhooks verification by its reference library (`standardwebhooks`): any of the `v1` signatures (two
 * during a rotation) over `<webhook-id>.<webhook-timestamp>.<body>`, the timestamp within five minutes. The parsed
 * event, or `undefined`.
 */
export const verifyWebhook = (
  secret: string,
  headers: IncomingHttpHeaders,
  body: string
): { readonly id: string; readonly type: string; readonly data: unknown } | undefined => {
  const id = headers["webhook-id"]
  const timestamp = headers["webhook-timestamp"]
  const signature = headers["webhook-signature"]
  if (typeof id !== "string" || typeof timestamp !== "string" || typeof signature !== "string") return undefined
  try {
    const event = new Webhook(secret).verify(body, {
      "webhook-id": id,
      "webhook-timestamp": timestamp,
      "webhook-signature": signature
    })
    return event as { readonly id: string; readonly type: string; readonly data: unknown }
  } catch {
    return undefined
  }
}

/** A refusal of the API: status and `code`; a 5xx or a network failure is worth a redelivery, a 4xx is not. */
class ApiError extends Error {
  readonly status: number
  readonly code: string
  constructor(method: string, path: string, status: number, body: { code?: string; message?: string }) {
    super(`${method} ${path}: ${status} ${body.code ?? ""} ${body.message ?? ""}`.trim())
    this.status = status
    this.code = body.code ?? "UNKNOWN"
  }
}

type Api = <T>(
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>
) => Promise<{ readonly json: T; readonly headers: Headers }>

const apiFor = (options: PayByLinkOptions): Api => {
  const authorization = `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString("base64")}`
  return async (method, path, body, headers = {}) => {
    const response = await fetch(options.baseUrl + path, {
      method,
      headers: { authorization, ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    const json = text === "" ? undefined : JSON.parse(text)
    if (!response.ok) throw new ApiError(method, path, response.status, json ?? {})
    return { json, headers: response.headers }
  }
}

/** The live customer behind an UMA address of this platform, if any. */
const customerByUma = async (api: Api, uma: string): Promise<string | undefined> => {
  const page = await api<{ data: ReadonlyArray<{ id: string }> }>(
    "GET",
    `/customers?umaAddress=${encodeURIComponent(uma)}&limit=1`
  )
  return page.json.data[0]?.id
}

/** The customer's active internal account in `currency`, if any. */
const internalAccount = async (api: Api, customerId: string, currency: string): Promise<string | undefined> => {
  const page = await api<{ data: ReadonlyArray<{ id: string; status: string }> }>(
    "GET",
    `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=${currency}&limit=100`
  )
  return page.json.data.find((a) => a.status === "ACTIVE")?.id
}

/** `GET /receiver/uma/{address}` for the inviter (Q-03): the `lookupId` a quote to the address names. */
const lookUpReceiver = async (api: Api, umaAddress: string, customerId: string): Promise<string> => {
  const path = `/receiver/uma/${encodeURIComponent(umaAddress)}?customerId=${encodeURIComponent(customerId)}`
  return (await api<{ lookupId: string }>("GET", path)).json.lookupId
}

/**
 * Pays one claimed invitation: from the inviter's account in the amount's currency to the invitee. An invitee who
 * is a customer of this platform is paid into their internal account in that currency (an internal transfer); any
 * other UMA address is looked up first (a quote to it names the lookup, Q-03) and paid as an `UMA_ADDRESS`
 * destination. Every other input of the quote comes from the event and from reads, so a redelivery sends the same
 * request under the same key and gets the stored answer. A redelivery paying an UMA address looks it up again, so its
 * request differs from the first in `lookupId`: the key's 409 `IDEMPOTENCY_KEY_REUSED` then means an earlier
 * delivery paid. The program holds no payer data: a receiver that asks for some (`requiredPayerDataFields`, Q-48)
 * refuses the quote (400 `MISSING_MANDATORY_USER_INFO`).
 */
const payInvitation = async (api: Api, invitation: Invitation, amount: Amount): Promise<Outcome> => {
  const currency = amount.currency.code
  const inviter = await customerByUma(api, invitation.inviterUma)
  const source = inviter === undefined ? undefined : await internalAccount(api, inviter, currency)
  if (inviter === undefined || source === undefined) {
    return { kind: "IGNORED", reason: `the inviter has no ${currency} account` }
  }
  const invitee = await customerByUma(api, invitation.inviteeUma!)
  const inviteeAccount = invitee === undefined ? undefined : await internalAccount(api, invitee, currency)
  const toUma = inviteeAccount === undefined
  const lookupId = toUma ? await lookUpReceiver(api, invitation.inviteeUma!, inviter) : undefined
  const destination = toUma
    ? { destinationType: "UMA_ADDRESS", umaAddress: invitation.inviteeUma }
    : { destinationType: "ACCOUNT", accountId: inviteeAccount }
  let quote: { readonly json: { id: string; transactionId: string }; readonly headers: Headers }
  try {
    quote = await api<{ id: string; transactionId: string }>(
      "POST",
      "/quotes",
      {
        ...(lookupId === undefined ? {} : { lookupId }),
        source: { sourceType: "ACCOUNT", accountId: source },
        destination,
        lockedCurrencySide: "SENDING",
        lockedCurrencyAmount: amount.amount,
        immediatelyExecute: true,
        description: `Pay-by-link invitation ${invitation.code}`
      },
      { "idempotency-key": `pay-by-link-${invitation.code}` }
    )
  } catch (error) {
    if (toUma && error instanceof ApiError && error.code === "IDEMPOTENCY_KEY_REUSED") {
      return { kind: "IGNORED", reason: "paid by an earlier delivery" }
    }
    throw error
  }
  return {
    kind: "PAID",
    quoteId: quote.json.id,
    transactionId: quote.json.transactionId,
    replayed: quote.headers.get("idempotent-replayed") === "true"
  }
}

/**
 * What one delivery asks for: 401 for a bad signature (nothing done); 200 once paid, for any other event, and for a
 * payment the API refused with a 4xx (a redelivery would be refused again: the invitee gets nothing, IN-13); 500
 * when the API could not be reached or failed, so the platform delivers again.
 */
export const handleDelivery = async (
  options: PayByLinkOptions,
  headers: IncomingHttpHeaders,
  body: string
): Promise<{ readonly status: number; readonly outcome: Outcome }> => {
  const event = verifyWebhook(options.webhookSecret, headers, body)
  if (event === undefined) return { status: 401, outcome: { kind: "REJECTED", reason: "bad signature" } }
  if (event.type !== "INVITATION.CLAIMED") return { status: 200, outcome: { kind: "IGNORED", reason: event.type } }
  const invitation = event.data as Invitation
  if (invitation.amountToSend === undefined || invitation.inviteeUma === undefined) {
    return { status: 200, outcome: { kind: "IGNORED", reason: "no amountToSend" } }
  }
  try {
    return { status: 200, outcome: await payInvitation(apiFor(options), invitation, invitation.amountToSend) }
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) {
      return { status: 200, outcome: { kind: "REFUSED", status: error.status, code: error.code } }
    }
    throw error
  }
}

const describe = (outcome: Outcome): string => {
  switch (outcome.kind) {
    case "PAID":
      return `paid: quote ${outcome.quoteId}, transaction ${outcome.transactionId}${outcome.replayed ? " (redelivery)" : ""}`
    case "REFUSED":
      return `payment refused: ${outcome.status} ${outcome.code}`
    default:
      return `${outcome.kind.toLowerCase()}: ${outcome.reason}`
  }
}

/** Listens for the platform's webhooks (any path, POST). */
export const startPayByLink = async (options: PayByLinkOptions): Promise<PayByLinkServer> => {
  const log = options.log ?? console.log
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      if (request.method !== "POST") {
        response.writeHead(405).end()
        return
      }
      handleDelivery(options, request.headers, Buffer.concat(chunks).toString("utf8")).then(
        ({ status, outcome }) => {
          log(describe(outcome))
          response.writeHead(status).end()
        },
        (error: unknown) => {
          log(`failed, asking for a redelivery: ${error instanceof Error ? error.message : String(error)}`)
          response.writeHead(500).end()
        }
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve))
  const address = server.address() as AddressInfo
  return {
    url: `http://${address.address}:${address.port}/webhooks`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

// Run as a program (see the header for the environment it reads).
if (import.meta.main) {
  const env = (name: string): string => {
    const value = process.env[name]
    if (value === undefined || value === "") {
      console.error(`pay-by-link: ${name} is not set`)
      process.exit(2)
    }
    return value
  }
  const listening = await startPayByLink({
    baseUrl: env("PAYCORE_API_URL"),
    clientId: env("PAYCORE_CLIENT_ID"),
    clientSecret: env("PAYCORE_CLIENT_SECRET"),
    webhookSecret: env("PAYCORE_WEBHOOK_SECRET"),
    port: Number(process.env.PORT ?? 8090),
    host: process.env.HOST ?? "127.0.0.1"
  })
  console.log(`pay-by-link listening on ${listening.url}`)
}
