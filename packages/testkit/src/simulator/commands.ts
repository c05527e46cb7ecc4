/**
 * The simulation's commands: what clients, the card network and time do to the engine. Each draws its arguments from
 * the sequence's random source, runs through `Sim.exec` (faults and crashes included) and records what the client
 * was told as acknowledged writes.
 */
import {
  Accounts,
  CardNetwork,
  type CardRecord,
  CardsWorker,
  Customers,
  type NetworkEvent,
  Onboarding,
  PlatformConfigService,
  Quotes,
  Store,
  Transactions,
  WebhookDispatcher
} from "@paycore/core"
import { Clock, Effect } from "effect"
import { seedCard } from "../cards.ts"
import { executeUnderKey, IDEMPOTENCY_SCOPE } from "../engine-model/commands.ts"
import { sandboxPayees } from "../engine-model/model.ts"
import { unreliableDelivery } from "../faults/ports.ts"
import type { SimAuthorization } from "./model.ts"
import type { Sim } from "./sim.ts"

/** One step of a sequence: its name (what a failing run prints) and what it does. */
export interface SimCommand {
  readonly name: string
  readonly run: (sim: Sim) => Promise<void>
}

/** A kind of command: whether it applies now, how often it is drawn, and how to draw one. */
interface CommandKind {
  /** How often it is drawn among the commands that apply (more while the sequence has not reached it yet). */
  readonly weight: number | ((sim: Sim) => number)
  readonly applies: (sim: Sim) => boolean
  readonly draw: (sim: Sim) => SimCommand
}

const found = (ok: boolean, what: string): string | undefined => (ok ? undefined : `${what}: not found`)

const addCustomer: CommandKind = {
  weight: (sim) => (sim.state.customers.length === 0 ? 8 : 1),
  applies: (sim) => sim.state.customers.length < 4,
  draw: (sim) => {
    const name = sim.random.pick(["Ada Lovelace", "Grace Hopper", "Alan Turing"])
    // Most customers come with a payee and some money, as an onboarding flow makes them: payments in few steps.
    const payee = sim.random.chance(0.7) ? drawFate(sim) : undefined
    const funding = payee !== undefined && sim.random.chance(0.8) ? sim.random.between(1_000, 50_000) : undefined
    return {
      name: `addCustomer(${name}${payee === undefined ? "" : `, payee ${payee}`}${funding === undefined ? "" : `, funded ${funding}`})`,
      run: async (sim) => {
        const out = await sim.exec(
          Effect.gen(function* () {
            const terms = yield* Effect.flatMap(PlatformConfigService, (c) => c.endUserTerms())
            const customer = yield* Effect.flatMap(Customers, (customers) =>
              Effect.flatMap(Clock.currentTimeMillis, (now) =>
                customers.create({
                  customerType: "INDIVIDUAL",
                  fullName: name,
                  currencies: ["USD"],
                  endUserTermsConsent: {
                    acceptedAt: new Date(now).toISOString(),
                    ipAddress: "203.0.113.7",
                    termsVersion: terms.version,
                    acceptanceMethod: "CHECKBOX"
                  }
                })
              )
            )
            const [usd] = (yield* Effect.flatMap(Accounts, (a) =>
              a.listInternal({ customerId: customer.id, currency: "USD" })
            )).data
            return { customerId: customer.id as string, accountId: usd?.id as string | undefined }
          })
        )
        if (out._tag !== "ok") return
        const { customerId, accountId } = out.value
        if (accountId === undefined) throw new Error(`customer ${customerId} has no USD account`)
        sim.state.customers.push({ customerId, accountId, payees: [] })
        sim.state.acks.push({
          what: `customer ${customerId}`,
          check: Effect.flatMap(Store, (s) =>
            Effect.map(s.customers.get(customerId), (c) =>
              found(c !== undefined && "fullName" in c && c.fullName === name, `customer ${customerId}`)
            )
          )
        })
        const c = sim.state.customers.length - 1
        if (payee !== undefined) await createPayee(sim, c, payee)
        if (funding !== undefined) await runFund(sim, c, funding)
      }
    }
  }
}

/** Adds a payee the sandbox rail settles or fails to a customer; acknowledged when the account is created. */
const createPayee = async (sim: Sim, c: number, fate: "SETTLES" | "FAILS") => {
  const customer = sim.state.customers[c]!
  const accountInfo = fate === "SETTLES" ? sandboxPayees.settles : sandboxPayees.fails
  const out = await sim.exec(
    Effect.flatMap(Accounts, (a) =>
      a.createExternal({ customerId: customer.customerId as never, currency: "USD", accountInfo })
    )
  )
  if (out._tag !== "ok") return
  const id = out.value.id as string
  customer.payees.push({ id, fate })
  sim.state.acks.push({
    what: `external account ${id}`,
    check: Effect.flatMap(Store, (s) => Effect.map(s.externalAccounts.get(id), (r) => found(r !== undefined, id)))
  })
}

const drawFate = (sim: Sim) => (sim.random.chance(0.7) ? ("SETTLES" as const) : ("FAILS" as const))

const addPayee: CommandKind = {
  weight: (sim) => (sim.state.customers.some((c) => c.payees.length === 0) ? 4 : 1),
  applies: (sim) => sim.state.customers.length > 0,
  draw: (sim) => {
    const c = sim.random.int(sim.state.customers.length)
    const fate = drawFate(sim)
    return { name: `addPayee(customer ${c}, ${fate})`, run: (sim) => createPayee(sim, c, fate) }
  }
}

const verify: CommandKind = {
  weight: 1,
  applies: (sim) => sim.state.customers.length > 0,
  draw: (sim) => {
    const c = sim.random.int(sim.state.customers.length)
    return {
      name: `verify(customer ${c})`,
      run: async (sim) => {
        const customerId = sim.state.customers[c]!.customerId
        const out = await sim.exec(
          Effect.flatMap(Onboarding, (o) => o.submitVerification({ customerId: customerId as never }))
        )
        if (out._tag !== "ok") return
        const id = out.value.id as string
        sim.state.acks.push({
          what: `verification ${id}`,
          check: Effect.flatMap(Store, (s) => Effect.map(s.verifications.get(id), (r) => found(r !== undefined, id)))
        })
      }
    }
  }
}

/** Funds a customer's account in the sandbox; acknowledged as the n-th deposit of that amount. */
const runFund = async (sim: Sim, c: number, amount: number) => {
  const accountId = sim.state.customers[c]!.accountId
  const out = await sim.exec(Effect.flatMap(Transactions, (t) => t.fundSandbox(accountId, amount)))
  if (out._tag !== "ok") return
  // The n-th acknowledged funding of this amount: at least n such deposits must be on the account.
  const key = `${accountId}/${amount}`
  const nth = (sim.state.fundings.get(key) ?? 0) + 1
  sim.state.fundings.set(key, nth)
  sim.state.acks.push({
    what: `funding #${nth} of ${amount} to ${accountId}`,
    check: Effect.flatMap(Store, (s) =>
      Effect.map(
        s.transactions.list({ accountIdentifier: accountId, type: "INCOMING" }, { limit: 1_000, sortOrder: "asc" }),
        (page) => {
          const deposits = page.data.filter(
            (r) =>
              r.transaction.description === "Sandbox funding" &&
              JSON.stringify(r.transaction).includes(`"amount":${amount},`)
          ).length
          return deposits >= nth ? undefined : `${deposits} deposits of ${amount} on ${accountId}, ${nth} acknowledged`
        }
      )
    )
  })
}

const fund: CommandKind = {
  weight: 3,
  applies: (sim) => sim.state.customers.length > 0,
  draw: (sim) => {
    const c = sim.random.int(sim.state.customers.length)
    const amount = sim.random.between(1, 50_000)
    return { name: `fund(customer ${c}, ${amount})`, run: (sim) => runFund(sim, c, amount) }
  }
}

/** Creates a quote from a customer's account to one of its payees; answers its id when acknowledged. */
const createQuote = async (sim: Sim, c: number, p: number, amount: number): Promise<string | undefined> => {
  const customer = sim.state.customers[c]!
  const out = await sim.exec(
    Effect.flatMap(Quotes, (quotes) =>
      quotes.create({
        source: { sourceType: "ACCOUNT", accountId: customer.accountId as never },
        destination: { destinationType: "ACCOUNT", accountId: customer.payees[p]!.id as never },
        lockedCurrencySide: "SENDING",
        lockedCurrencyAmount: amount
      })
    )
  )
  if (out._tag !== "ok") return undefined
  const id = out.value.id as string
  sim.state.quotes.push({ id, customer: c, executed: false })
  sim.state.acks.push({
    what: `quote ${id}`,
    check: Effect.flatMap(Store, (s) => Effect.map(s.quotes.get(id), (r) => found(r !== undefined, id)))
  })
  return id
}

/** A customer with a payee, one of its payees and an amount. */
const drawPayment = (sim: Sim) => {
  const payers = sim.state.customers.flatMap((c, i) => (c.payees.length > 0 ? [i] : []))
  const c = sim.random.pick(payers)
  return { c, p: sim.random.int(sim.state.customers[c]!.payees.length), amount: sim.random.between(1, 30_000) }
}

const hasPayee = (sim: Sim) => sim.state.customers.some((c) => c.payees.length > 0)

const quote: CommandKind = {
  weight: 1,
  applies: hasPayee,
  draw: (sim) => {
    const { c, p, amount } = drawPayment(sim)
    return {
      name: `quote(customer ${c}, payee ${p}, ${amount})`,
      run: async (sim) => {
        await createQuote(sim, c, p, amount)
      }
    }
  }
}

/** Acknowledges a payment: its transaction exists and its key holds the answer the client got. */
const ackPayment = (sim: Sim, key: string, transactionId: string) => {
  sim.state.acks.push({
    what: `payment ${transactionId} under key ${key}`,
    check: Effect.gen(function* () {
      const store = yield* Store
      if ((yield* store.transactions.get(transactionId)) === undefined) return `payment ${transactionId}: not found`
      const record = yield* store.idempotency.get(`${IDEMPOTENCY_SCOPE}:${key}`)
      const body = record === undefined ? undefined : (JSON.parse(record.body) as { transactionId?: string })
      return body?.transactionId === transactionId ? undefined : `key ${key}: stored ${record?.body}`
    })
  })
}

/** Executes a payment under an idempotency key; with `retry`, the client sends an earlier payment's request again. */
const runExecute = async (sim: Sim, key: string, quoteId: string) => {
  const out = await sim.exec(executeUnderKey(key, quoteId))
  const payment = sim.state.payments.find((p) => p.key === key)
  if (out._tag !== "ok" || payment === undefined) return
  const transactionId = (out.value.body as { transactionId?: string }).transactionId
  if (out.value.status !== 200 || transactionId === undefined) return
  if (payment.transactionId !== undefined && payment.transactionId !== transactionId) {
    throw new Error(`key ${key} answered ${transactionId}, it answered ${payment.transactionId} before`)
  }
  if (payment.transactionId === undefined) {
    payment.transactionId = transactionId
    ackPayment(sim, key, transactionId)
  }
}

const execute: CommandKind = {
  weight: 2,
  applies: (sim) => sim.state.quotes.some((q) => !q.executed),
  draw: (sim) => {
    const open = sim.state.quotes.filter((q) => !q.executed)
    const q = sim.random.pick(open)
    const key = `k${sim.state.keys++}`
    return {
      name: `execute(quote ${sim.state.quotes.indexOf(q)}, key ${key})`,
      run: async (sim) => {
        q.executed = true
        sim.state.payments.push({ key, quoteId: q.id })
        await runExecute(sim, key, q.id)
      }
    }
  }
}

/** A client's payment: a quote, executed at once under a fresh key. */
const pay: CommandKind = {
  weight: 4,
  applies: hasPayee,
  draw: (sim) => {
    const { c, p, amount } = drawPayment(sim)
    const key = `k${sim.state.keys++}`
    return {
      name: `pay(customer ${c}, payee ${p}, ${amount}, key ${key})`,
      run: async (sim) => {
        const quoteId = await createQuote(sim, c, p, amount)
        if (quoteId === undefined) return
        sim.state.quotes[sim.state.quotes.length - 1]!.executed = true
        sim.state.payments.push({ key, quoteId })
        await runExecute(sim, key, quoteId)
      }
    }
  }
}

const retryExecute: CommandKind = {
  weight: 1,
  applies: (sim) => sim.state.payments.length > 0,
  draw: (sim) => {
    const p = sim.random.int(sim.state.payments.length)
    const payment = sim.state.payments[p]!
    return {
      name: `retryExecute(payment ${p}, key ${payment.key})`,
      run: (sim) => runExecute(sim, payment.key, payment.quoteId)
    }
  }
}

const incoming: CommandKind = {
  weight: 1,
  applies: (sim) => sim.state.customers.length > 0,
  draw: (sim) => {
    const c = sim.random.int(sim.state.customers.length)
    const amount = sim.random.between(100, 20_000)
    return {
      name: `incoming(customer ${c}, ${amount})`,
      run: async (sim) => {
        const out = await sim.exec(
          Effect.flatMap(Transactions, (t) =>
            t.sandboxUmaReceive({
              senderUmaAddress: "$alice@bank.example",
              customerId: sim.state.customers[c]!.customerId as never,
              receivingCurrencyCode: "USD",
              receivingCurrencyAmount: amount
            })
          )
        )
        if (out._tag !== "ok") return
        const id = out.value.id as string
        sim.state.acks.push({
          what: `incoming payment ${id}`,
          check: Effect.flatMap(Store, (s) => Effect.map(s.transactions.get(id), (r) => found(r !== undefined, id)))
        })
      }
    }
  }
}

const issueCard: CommandKind = {
  weight: 1,
  applies: (sim) => sim.state.customers.length > 0 && sim.state.cards.length < 2,
  draw: (sim) => {
    const c = sim.random.int(sim.state.customers.length)
    return {
      name: `issueCard(customer ${c})`,
      run: async (sim) => {
        const customer = sim.state.customers[c]!
        const out = await sim.exec(
          Effect.flatMap(Store, (store) =>
            store.transaction(seedCard(customer.customerId, [customer.accountId as never]))
          ) as Effect.Effect<CardRecord, unknown, never>
        )
        if (out._tag !== "ok") return
        const cardId = out.value.id as string
        sim.state.cards.push({ cardId, accountId: customer.accountId })
        sim.state.acks.push({
          what: `card ${cardId}`,
          check: Effect.flatMap(Store, (s) => Effect.map(s.cards.get(cardId), (r) => found(r !== undefined, cardId)))
        })
      }
    }
  }
}

/** Records an approved authorization's card transaction as acknowledged. */
const ackAuthorization = (sim: Sim, auth: SimAuthorization, cardTransactionId: string) => {
  auth.cardTransactionId = cardTransactionId
  sim.state.acks.push({
    what: `card transaction ${cardTransactionId}`,
    check: Effect.flatMap(Store, (s) =>
      Effect.map(s.cardTransactions.get(cardTransactionId), (r) =>
        found(r?.issuerTransactionToken === auth.token, cardTransactionId)
      )
    )
  })
}

const authorize: CommandKind = {
  weight: 2,
  applies: (sim) => sim.state.cards.length > 0,
  draw: (sim) => {
    const card = sim.random.pick(sim.state.cards)
    const amount = sim.random.between(1, 20_000)
    const token = `itt_${sim.state.keys++}`
    return {
      name: `authorize(card ${sim.state.cards.indexOf(card)}, ${amount}, ${token})`,
      run: async (sim) => {
        const auth: SimAuthorization = { cardId: card.cardId, token, amount, events: 0 }
        sim.state.authorizations.push(auth)
        // The network retries an authorization it heard nothing back from: the same token, the first decision.
        const tries = unreliableDelivery([token], [], {
          random: sim.random,
          rates: sim.world.profile.network,
          log: sim.world.log,
          faults: sim.world.faults,
          describe: (t) => `authorization ${t}`
        })
        for (const _ of tries) {
          const out = await sim.exec(
            Effect.flatMap(CardNetwork, (network) =>
              network.authorize({
                cardId: card.cardId,
                issuerTransactionToken: token,
                kind: "AUTHORIZATION",
                amount,
                currency: "USD",
                merchant: { descriptor: "SIMULATED MERCHANT", mcc: "5814", country: "US" }
              })
            )
          )
          if (out._tag !== "ok") continue
          const id = out.value.cardTransactionId
          if (id === undefined) continue
          if (auth.cardTransactionId !== undefined && auth.cardTransactionId !== id) {
            throw new Error(`${token} answered ${id}, it answered ${auth.cardTransactionId} before`)
          }
          if (auth.cardTransactionId === undefined) ackAuthorization(sim, auth, id)
        }
      }
    }
  }
}

/** A later event of the network about an authorization: a clearing, an advice or a return. */
const drawNetworkEvent = (sim: Sim, auth: SimAuthorization): NetworkEvent => {
  const base = { issuerEventId: `evt_${sim.state.keys++}`, cardId: auth.cardId, issuerTransactionToken: auth.token }
  const kind = sim.random.pick(["Clearing", "Clearing", "Advice", "Return"] as const)
  const amount = sim.random.pick([auth.amount, Math.max(1, Math.floor(auth.amount / 2)), auth.amount + 100])
  return { ...base, _tag: kind, amount }
}

const networkEvent: CommandKind = {
  weight: 2,
  applies: (sim) => sim.state.authorizations.some((a) => a.cardTransactionId !== undefined),
  draw: (sim) => {
    const approved = sim.state.authorizations.filter((a) => a.cardTransactionId !== undefined)
    const auth = sim.random.pick(approved)
    const event = drawNetworkEvent(sim, auth)
    return {
      name: `networkEvent(${event._tag} ${"amount" in event ? event.amount : ""} of ${auth.token}, ${event.issuerEventId})`,
      run: async (sim) => {
        const deliveries = unreliableDelivery([event], sim.world.heldNetworkEvents, {
          random: sim.random,
          rates: sim.world.profile.network,
          log: sim.world.log,
          faults: sim.world.faults,
          describe: (e) => `${e._tag} ${e.issuerEventId}`
        })
        for (const e of deliveries) {
          const out = await sim.exec(Effect.flatMap(CardNetwork, (network) => network.reconcile(e)))
          // Not taken: the processor delivers it again later.
          if (out._tag === "faulted") sim.world.heldNetworkEvents.push(e)
          if (out._tag !== "ok") continue
          sim.state.acks.push({
            what: `network event ${e.issuerEventId}`,
            check: Effect.flatMap(Store, (s) =>
              Effect.map(s.cardNetworkEvents.findUnique("issuerEventId", e.issuerEventId), (r) =>
                found(r !== undefined, e.issuerEventId)
              )
            )
          })
        }
      }
    }
  }
}

/** Runs the workers until nothing is due (each pass a command of its own: a fault ends the loop). */
export const runWorkers = async (sim: Sim) => {
  for (let pass = 0; pass < 10; pass++) {
    const out = await sim.exec(Effect.flatMap(Transactions, (t) => t.processDue()))
    if (out._tag !== "ok" || (out.value.stepped === 0 && out.value.expired === 0)) break
  }
  await sim.exec(Effect.flatMap(CardsWorker, (w) => w.processDue()))
}

/** Runs the webhook dispatcher until it claims nothing. */
export const runDispatcher = async (sim: Sim) => {
  for (let pass = 0; pass < 10; pass++) {
    const out = await sim.exec(Effect.flatMap(WebhookDispatcher, (d) => d.dispatchDue()))
    if (out._tag !== "ok" || out.value.claimed === 0) break
  }
}

const advance: CommandKind = {
  weight: 3,
  applies: () => true,
  draw: (sim) => {
    const seconds = sim.random.pick([1, 10, 60, 600, 3_600, 86_400])
    return {
      name: `advance(${seconds} s)`,
      run: async (sim) => {
        await sim.proc.advance(seconds)
        await runWorkers(sim)
      }
    }
  }
}

const dispatch: CommandKind = {
  weight: 2,
  applies: () => true,
  draw: () => ({ name: "dispatch()", run: runDispatcher })
}

const restart: CommandKind = {
  weight: 0.5,
  applies: () => true,
  draw: () => ({
    name: "restart()",
    run: (sim) => sim.restart()
  })
}

const KINDS: ReadonlyArray<CommandKind> = [
  addCustomer,
  addPayee,
  verify,
  fund,
  quote,
  execute,
  pay,
  retryExecute,
  incoming,
  issueCard,
  authorize,
  networkEvent,
  advance,
  dispatch,
  restart
]

/** Draws the next command among those that apply, by weight. */
export const drawCommand = (sim: Sim): SimCommand => {
  const kinds = KINDS.filter((k) => k.applies(sim))
  const weights = kinds.map((k) => (typeof k.weight === "number" ? k.weight : k.weight(sim)))
  let x = sim.random.next() * weights.reduce((a, b) => a + b, 0)
  for (const [i, k] of kinds.entries()) {
    x -= weights[i]!
    if (x < 0) return k.draw(sim)
  }
  return kinds[kinds.length - 1]!.draw(sim)
}
