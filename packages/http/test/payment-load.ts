import { randomUUID } from "node:crypto"
import type { Credentials, TestServer } from "./harness.ts"
import { addUsPayee, fundAccount, onboardCustomer, quoteBody } from "./harness.ts"

/*
 * A load of payments as a careful client sends them: each with an Idempotency-Key, sent again with the same key
 * after a 5xx or a dropped connection until it gets an answer that is not 5xx (or its deadline passes).
 */

export interface Payer {
  readonly customerId: string
  readonly account: string
  readonly payee: string
}

/** A customer with its USD account funded with `amount`, and a US payee. */
export const makePayer = async (server: TestServer, amount: number): Promise<Payer> => {
  const customer = await onboardCustomer(server)
  const payee = await addUsPayee(server, customer.id)
  await fundAccount(server, customer.accounts.USD!, amount)
  return { customerId: customer.id, account: customer.accounts.USD!, payee }
}

export interface Sent {
  readonly key: string
  readonly payer: Payer
  /** The answer that ended the retries (undefined: none before the deadline). */
  readonly status: number | undefined
  readonly body: any
  /** Every status met on the way (0: the connection failed), in order. */
  readonly statuses: ReadonlyArray<number>
  /** When its first attempt was sent (ms since the epoch). */
  readonly startedAt: number
  /** When the answer that ended the retries came (ms since the epoch). */
  readonly endedAt: number
}

const authorization = (credentials: Credentials) =>
  `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString("base64")}`

/** POST /quotes executing at once, with `key`: the JSON answer's status and body (status 0: no answer). */
export const postPayment = async (
  baseUrl: string,
  credentials: Credentials,
  payer: Payer,
  amount: number,
  key: string
): Promise<{ readonly status: number; readonly body: any }> => {
  try {
    const response = await fetch(`${baseUrl}/quotes`, {
      method: "POST",
      headers: {
        authorization: authorization(credentials),
        "content-type": "application/json",
        "idempotency-key": key
      },
      body: JSON.stringify(quoteBody(payer.account, payer.payee, amount, { immediatelyExecute: true })),
      signal: AbortSignal.timeout(10_000)
    })
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
  } catch (error) {
    return { status: 0, body: String(error) }
  }
}

/** One payment, sent again with its key after a 5xx or no answer, every `pauseMs`, until `deadline`. */
export const payUntilAnswered = async (
  baseUrls: ReadonlyArray<string>,
  credentials: Credentials,
  payer: Payer,
  amount: number,
  deadline: number,
  pauseMs = 100
): Promise<Sent> => {
  const key = randomUUID()
  const startedAt = Date.now()
  const statuses: Array<number> = []
  for (let attempt = 0; ; attempt++) {
    const answer = await postPayment(baseUrls[attempt % baseUrls.length]!, credentials, payer, amount, key)
    statuses.push(answer.status)
    const retry = answer.status === 0 || answer.status === 503
    if (!retry || Date.now() > deadline) {
      const status = retry ? undefined : answer.status
      return { key, payer, status, body: answer.body, statuses, startedAt, endedAt: Date.now() }
    }
    await new Promise((resolve) => setTimeout(resolve, pauseMs))
  }
}
