/**
 * Cards: the list (paged), issuing one, and a card's page: freeze, unfreeze, close (confirmed: it cannot be undone)
 * and the sandbox network simulations; the page follows the card's events.
 */
import { useState } from "preact/hooks"
import { run } from "../client.ts"
import {
  Action,
  ActionForm,
  Amount,
  Badge,
  Choice,
  Field,
  Link,
  mentions,
  Pager,
  RawJson,
  Show,
  useFollow,
  useLoad,
  usePaged,
  useSession,
  When
} from "../ui.tsx"

export const CardsScreen = () => {
  const { client } = useSession()
  const cards = usePaged(
    (cursor) =>
      run(client.cards.listCards({ query: { limit: 50, ...(cursor === undefined ? {} : { cursor }) } as any })),
    []
  )
  return (
    <>
      <h1>Cards</h1>
      <Show loaded={cards}>
        {(page) => (
          <>
            <div class="table-scroll">
              <table>
                <caption>
                  {page.totalCount} card{page.totalCount === 1 ? "" : "s"}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Card</th>
                    <th scope="col">State</th>
                    <th scope="col">Cardholder</th>
                    <th scope="col">Platform card id</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((card) => (
                    <tr key={card.id}>
                      <th scope="row">
                        <Link to={`cards/${card.id}`}>
                          {card.brand ?? "card"} ···· {card.last4 ?? "----"}
                        </Link>
                      </th>
                      <td>
                        <Badge status={card.state} />
                      </td>
                      <td>
                        <Link to={`customers/${card.cardholderId}`}>{card.cardholderId}</Link>
                      </td>
                      <td>{card.platformCardId}</td>
                      <td>
                        <When at={card.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager paged={cards} label="cards" />
          </>
        )}
      </Show>
      <ActionForm
        title="Issue a virtual card"
        submit="Issue card"
        action={(values) =>
          run(
            client.cards.createCard({
              headers: { "idempotency-key": crypto.randomUUID() },
              payload: {
                cardholderId: values.cardholderId,
                fundingSources: [values.accountId],
                form: "VIRTUAL",
                ...(values.platformCardId ? { platformCardId: values.platformCardId } : {})
              } as any
            })
          )
        }
        done={(card: any) => {
          location.hash = `#/cards/${card.id}`
        }}
      >
        <Field label="Cardholder (customer id)" name="cardholderId" required />
        <Field label="Funding account (internal account id)" name="accountId" required />
        <Field label="Platform card id (suffix 001 stays processing, 002 rejected)" name="platformCardId" />
      </ActionForm>
    </>
  )
}

const simulations = [
  ["authorization", "Authorization"],
  ["clearing", "Clearing (of a card transaction)"],
  ["return", "Return (of a card transaction)"],
  ["authorization_advice", "Authorization advice (new total)"],
  ["return_reversal", "Return reversal"],
  ["balance_inquiry", "Balance inquiry"],
  ["credit_authorization", "Credit authorization"],
  ["financial_authorization", "Financial authorization"],
  ["financial_credit_authorization", "Financial credit authorization"],
  ["credit_authorization_advice", "Credit authorization advice"]
] as const

const descriptors = [
  ["BLUE BOTTLE COFFEE SF", "approved when the card and its funding allow it"],
  ["CORNER SHOP 002", "002: declined, insufficient funds"],
  ["CORNER SHOP 003", "003: declined, card paused"],
  ["CORNER SHOP 005", "005: approved, the pull confirmed 30 s later"],
  ["CORNER SHOP 006", "006: approved, then the pull fails"]
] as const

type Simulation = (typeof simulations)[number][0]

const byTransaction = new Set<Simulation>(["clearing", "return", "authorization_advice", "return_reversal"])

const simulate = (client: ReturnType<typeof useSession>["client"], id: any, event: Simulation, values: any) => {
  const amount = Number(values.amount)
  const merchant = { descriptor: values.descriptor, mcc: "5814" }
  const purchase = { amount, currency: { code: values.currency }, merchant }
  const ref = { cardTransactionId: values.cardTransactionId }
  const params = { id }
  switch (event) {
    case "authorization":
      return run(client.sandbox.simulateCardAuthorization({ params, payload: purchase }))
    case "credit_authorization":
      return run(client.sandbox.simulateCardCreditAuthorization({ params, payload: purchase }))
    case "financial_authorization":
      return run(client.sandbox.simulateCardFinancialAuthorization({ params, payload: purchase }))
    case "financial_credit_authorization":
      return run(client.sandbox.simulateCardFinancialCreditAuthorization({ params, payload: purchase }))
    case "credit_authorization_advice":
      return run(client.sandbox.simulateCardCreditAuthorizationAdvice({ params, payload: purchase }))
    case "balance_inquiry":
      return run(client.sandbox.simulateCardBalanceInquiry({ params, payload: { merchant } }))
    case "clearing":
      return run(client.sandbox.simulateCardClearing({ params, payload: { ...ref, amount } }))
    case "return":
      return run(client.sandbox.simulateCardReturn({ params, payload: { ...ref, amount } }))
    case "authorization_advice":
      return run(client.sandbox.simulateCardAuthorizationAdvice({ params, payload: { ...ref, amount } }))
    case "return_reversal":
      return run(client.sandbox.simulateCardReturnReversal({ params, payload: ref }))
  }
}

export const CardScreen = ({ id }: { readonly id: string }) => {
  const { client } = useSession()
  const cardId = id as any
  const card = useLoad(() => run(client.cards.getCard({ params: { id: cardId } })), [id])
  const [event, setEvent] = useState<Simulation>("authorization")
  const transactions = useLoad(async () => {
    const loaded = card.data
    if (loaded === undefined) return []
    const page = await run(
      client.payments.listTransactions({
        query: { type: "CARD", customerId: loaded.cardholderId, limit: 100 } as any
      })
    )
    return page.data.filter((transaction: any) => transaction.cardId === id)
  }, [id, card.data])
  const setState = (state: "ACTIVE" | "FROZEN" | "CLOSED") => () =>
    run(client.cards.updateCard({ params: { id: cardId }, payload: { state } as any }))
  const reload = () => {
    card.reload()
    transactions.reload()
  }
  // The card's state changes and its transactions' events name the card.
  useFollow(
    reload,
    mentions(id),
    card.data?.state === "PROCESSING" ||
      (transactions.data?.some((t: any) => t.status === "AUTHORIZED" || t.status === "PARTIALLY_SETTLED") ?? false)
  )
  return (
    <Show loaded={card}>
      {(c) => (
        <>
          <p>
            <Link to="cards">Cards</Link> / {c.id}
          </p>
          <h1>
            {c.brand ?? "Card"} ···· {c.last4 ?? "----"} <Badge status={c.state} />
          </h1>
          <button type="button" class="secondary" onClick={reload}>
            Refresh
          </button>
          <dl class="facts">
            <dt>Cardholder</dt>
            <dd>
              <Link to={`customers/${c.cardholderId}`}>{c.cardholderId}</Link>
            </dd>
            <dt>Funding</dt>
            <dd>
              {c.fundingSources.map((account) => (
                <Link key={account} to={`ledger/${account}`}>
                  {account}
                </Link>
              ))}
            </dd>
            <dt>State reason</dt>
            <dd>{c.stateReason ?? "—"}</dd>
          </dl>
          <p class="actions">
            {c.state === "ACTIVE" ? <Action label="Freeze" action={setState("FROZEN")} done={reload} /> : null}
            {c.state === "FROZEN" ? <Action label="Unfreeze" action={setState("ACTIVE")} done={reload} /> : null}
            {c.state !== "CLOSED" ? (
              <Action
                label="Close"
                action={setState("CLOSED")}
                done={reload}
                confirm={{
                  question: "Close this card for good? A closed card cannot be used or reopened.",
                  yes: "Close the card"
                }}
              />
            ) : null}
          </p>
          <ActionForm
            title="Simulate a network event"
            submit="Simulate"
            action={(values) => simulate(client, cardId, event, values)}
            done={reload}
          >
            <label>
              <span>Event</span>
              <select name="event" value={event} onChange={(e) => setEvent(e.currentTarget.value as Simulation)}>
                {simulations.map(([value, text]) => (
                  <option key={value} value={value}>
                    {text}
                  </option>
                ))}
              </select>
            </label>
            {byTransaction.has(event) ? (
              <Choice
                label="Card transaction"
                name="cardTransactionId"
                options={(transactions.data ?? []).map((t: any) => [t.id, `${t.id} (${t.status})`] as const)}
              />
            ) : (
              <>
                <Choice label="Merchant descriptor" name="descriptor" options={descriptors} />
                <Field label="Currency" name="currency" value={c.currency} />
              </>
            )}
            {event === "return_reversal" || event === "balance_inquiry" ? null : (
              <Field label="Amount (minor units)" name="amount" type="number" value="1250" required />
            )}
          </ActionForm>
          <h2>Card transactions</h2>
          <Show loaded={transactions}>
            {(list) =>
              list.length === 0 ? (
                <p>None yet.</p>
              ) : (
                <div class="table-scroll">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Card transaction</th>
                        <th scope="col">Merchant</th>
                        <th scope="col">Status</th>
                        <th scope="col">Authorized</th>
                        <th scope="col">Settled</th>
                      </tr>
                    </thead>
                    <tbody>
                      {list.map((t: any) => (
                        <tr key={t.id}>
                          <th scope="row">
                            <Link to={`payments/${t.id}`}>{t.id}</Link>
                          </th>
                          <td>{t.merchant.descriptor}</td>
                          <td>
                            <Badge status={t.status} />
                          </td>
                          <td class="num">
                            <Amount value={t.authorizedAmount} />
                          </td>
                          <td class="num">
                            <Amount value={t.settledAmount} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )
            }
          </Show>
          <RawJson value={c} />
        </>
      )}
    </Show>
  )
}
