/**
 * The card routes as S0 leaves them (issue 15; docs/design/cards.md, section 4): every route is in the table and
 * answers its spec'd refusal in the error body, never a 5xx. Without a card issuer every card route is 501
 * `NOT_IMPLEMENTED` (CD-42); without a network simulator every simulation is 404 (CD-52); a production token is 403 on
 * a simulation; a body or query that breaks the Schemas is 400 before anything else. The slices' behaviour has its
 * own files (cards.http.test.ts, cards-sandbox.http.test.ts).
 */
import { randomUUID } from "node:crypto"
import { CardIssuer, CardNetworkSimulator, Store } from "@paycore/core"
import { snapshotStore } from "@paycore/testkit"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import {
  type CallResult,
  type Credentials,
  expectError,
  expectInvalid,
  onboardCustomer,
  type TestServer,
  useTestServer
} from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const cardId = () => `Card:${randomUUID()}`
const cardTransactionId = () => `CardTransaction:${randomUUID()}`

/** An issue body the Schemas accept (its ids need not exist: the route refuses before it looks). */
const issueBody = (cardholderId: string, accountId: string) => ({
  cardholderId,
  fundingSources: [accountId],
  form: "VIRTUAL",
  maxSpendPerTransaction: 5000,
  maxSpendPerDay: 20_000,
  maxTransactionsPerDay: 10
})

const authorization = { amount: 1250, currency: { code: "USD" }, merchant: { descriptor: "BLUE BOTTLE COFFEE SF" } }

/** The ten simulations with a body each accepts, and a body each refuses (400) with the fields it names. */
const SIMULATIONS: ReadonlyArray<{
  readonly path: string
  readonly body: () => unknown
  readonly bad: unknown
  readonly badFields: ReadonlyArray<string>
}> = [
  { path: "authorization", body: () => authorization, bad: { ...authorization, amount: 0 }, badFields: ["amount"] },
  {
    path: "credit_authorization",
    body: () => authorization,
    bad: { ...authorization, currency: { code: "XYZ" } },
    badFields: ["currency.code"]
  },
  {
    path: "financial_authorization",
    body: () => authorization,
    bad: { amount: 10, currency: { code: "USD" } },
    badFields: ["merchant"]
  },
  {
    path: "financial_credit_authorization",
    body: () => authorization,
    bad: { ...authorization, merchant: { descriptor: "" } },
    badFields: ["merchant.descriptor"]
  },
  {
    path: "credit_authorization_advice",
    body: () => authorization,
    bad: { ...authorization, merchant: { descriptor: "SHOP", mcc: "58" } },
    badFields: ["merchant.mcc"]
  },
  {
    path: "balance_inquiry",
    body: () => ({ merchant: { descriptor: "SHELL OIL 12345678" } }),
    bad: {},
    badFields: ["merchant"]
  },
  {
    path: "clearing",
    body: () => ({ cardTransactionId: cardTransactionId(), amount: 0 }),
    bad: { cardTransactionId: cardTransactionId(), amount: -1 },
    badFields: ["amount"]
  },
  {
    path: "return",
    body: () => ({ cardTransactionId: cardTransactionId(), amount: 1500 }),
    bad: { cardTransactionId: "Transaction:1", amount: 1500 },
    badFields: ["cardTransactionId"]
  },
  {
    path: "authorization_advice",
    body: () => ({ cardTransactionId: cardTransactionId(), amount: 2000 }),
    bad: { cardTransactionId: cardTransactionId(), amount: 0 },
    badFields: ["amount"]
  },
  {
    path: "return_reversal",
    body: () => ({ cardTransactionId: cardTransactionId() }),
    bad: {},
    badFields: ["cardTransactionId"]
  }
]

const expectNotImplemented = (r: CallResult) => {
  expectError(r, 501, "NOT_IMPLEMENTED")
  expect(r.json.message).toBeTypeOf("string")
}

const cardRoutesSuite = (stores: () => StoresUnderTest) => {
  let customer: { readonly id: string; readonly accounts: Readonly<Record<string, string>> }
  let production: Credentials
  const server: TestServer = useTestServer(
    async (s) => {
      customer = await onboardCustomer(s)
      production = await s.token(["VIEW", "TRANSACT", "MANAGE"], "PRODUCTION")
    },
    // No issuer and no simulator, whatever the sandbox ports bring: the rules of an environment without cards.
    {
      ...stores(),
      extraLayer: Layer.mergeAll(Layer.succeed(CardIssuer, undefined), Layer.succeed(CardNetworkSimulator, undefined))
    }
  )
  const snapshot = (keys: ReadonlyArray<string> = []) =>
    Effect.runPromise(snapshotStore({ idempotency: keys }).pipe(Effect.provideService(Store, server.store)))

  describe("without a card issuer", () => {
    it("CD-42: every card route answers 501 NOT_IMPLEMENTED in the error body and changes nothing", async () => {
      const key = `card-${randomUUID()}`
      const before = await snapshot([`platform:${key}`])
      const id = cardId()
      const answers = [
        await server.call("POST", "/cards", issueBody(customer.id, customer.accounts.USD!), {
          headers: { "idempotency-key": key }
        }),
        await server.call("GET", "/cards"),
        await server.call("GET", `/cards?cardholderId=${customer.id}&state=ACTIVE&limit=5`),
        await server.call("GET", `/cards/${id}`),
        await server.call("PATCH", `/cards/${id}`, { state: "FROZEN" }),
        await server.call("POST", `/cards/${id}/reveal`)
      ]
      for (const r of answers) expectNotImplemented(r)
      // CD-01: a refused issue stores no answer under its key: the retry is asked again, not replayed.
      const retry = await server.call("POST", "/cards", issueBody(customer.id, customer.accounts.USD!), {
        headers: { "idempotency-key": key }
      })
      expectNotImplemented(retry)
      expect(retry.headers.get("idempotent-replayed")).toBeNull()
      expect(await snapshot([`platform:${key}`])).toEqual(before)
    })

    it("CD-02: POST /cards without an Idempotency-Key is 400 naming the header", async () => {
      const r = await server.call("POST", "/cards", issueBody(customer.id, customer.accounts.USD!))
      expectInvalid(r, ["headers.idempotency-key"])
    })

    it("CD-01, CD-06, CD-15: an issue body the Schemas refuse is 400 with every field at once", async () => {
      const headers = { "idempotency-key": `card-${randomUUID()}` }
      const account = customer.accounts.USD!
      expectInvalid(await server.call("POST", "/cards", {}, { headers }), ["cardholderId", "fundingSources", "form"])
      expectInvalid(
        await server.call(
          "POST",
          "/cards",
          { ...issueBody(customer.id, account), fundingSources: [], form: "PHYSICAL", maxSpendPerDay: 0 },
          { headers }
        ),
        ["fundingSources", "form", "maxSpendPerDay"]
      )
      // 1 … 10 distinct sources.
      expectInvalid(
        await server.call(
          "POST",
          "/cards",
          { ...issueBody(customer.id, account), fundingSources: [account, account] },
          {
            headers
          }
        ),
        ["fundingSources"]
      )
      const eleven = Array.from({ length: 11 }, () => `InternalAccount:${randomUUID()}`)
      expectInvalid(
        await server.call(
          "POST",
          "/cards",
          { ...issueBody(customer.id, account), fundingSources: eleven },
          { headers }
        ),
        ["fundingSources"]
      )
      expectInvalid(
        await server.call(
          "POST",
          "/cards",
          { ...issueBody("Customer:1", account), maxTransactionsPerDay: 1.5, maxSpendPerTransaction: null },
          { headers }
        ),
        ["cardholderId", "maxTransactionsPerDay", "maxSpendPerTransaction"]
      )
    })

    it("CD-18, CD-25, CD-28, CD-30: a PATCH body the Schemas refuse is 400; a malformed card id is 400", async () => {
      const id = cardId()
      expectInvalid(await server.call("PATCH", `/cards/${id}`, { state: "PROCESSING" }), ["state"])
      expectInvalid(await server.call("PATCH", `/cards/${id}`, { maxSpendPerDay: 0, maxTransactionsPerDay: -1 }), [
        "maxSpendPerDay",
        "maxTransactionsPerDay"
      ])
      expectInvalid(await server.call("PATCH", `/cards/${id}`, { fundingSources: [] }), ["fundingSources"])
      expectInvalid(await server.call("GET", "/cards/Card:not-a-uuid"), ["path.id"])
      expectInvalid(await server.call("POST", "/cards/Customer:1/reveal"), ["path.id"])
      // A limit's null (clear it) is a valid body: past the Schemas, the route's own answer.
      expectNotImplemented(await server.call("PATCH", `/cards/${id}`, { maxSpendPerTransaction: null }))
    })

    it("CD-04, CD-16: GET /cards refuses PENDING_KYC and a bad page size (400)", async () => {
      expectInvalid(await server.call("GET", "/cards?state=PENDING_KYC"), ["query.state"])
      expectInvalid(await server.call("GET", "/cards?limit=0&accountId=Customer:1"), ["query.limit", "query.accountId"])
    })
  })

  describe("the ten simulations without a network simulator", () => {
    it("CD-45, CD-52: each answers 404 in the error body (as in production) and changes nothing", async () => {
      const before = await snapshot()
      for (const simulation of SIMULATIONS) {
        const r = await server.call("POST", `/sandbox/cards/${cardId()}/simulate/${simulation.path}`, simulation.body())
        expect(r.status, simulation.path).toBe(404)
        expect(r.json.status).toBe(404)
        expect(r.json.code).toBe("REFERENCE_NOT_FOUND")
      }
      expect(await snapshot()).toEqual(before)
    })

    it("CD-52: a production token is 403 FORBIDDEN on each", async () => {
      for (const simulation of SIMULATIONS) {
        const r = await server.call(
          "POST",
          `/sandbox/cards/${cardId()}/simulate/${simulation.path}`,
          simulation.body(),
          {
            auth: production
          }
        )
        expectError(r, 403, "FORBIDDEN")
      }
    })

    it("CD-46 … CD-51: a body each refuses is 400 naming its fields, before the simulator is looked for", async () => {
      for (const simulation of SIMULATIONS) {
        const r = await server.call("POST", `/sandbox/cards/${cardId()}/simulate/${simulation.path}`, simulation.bad)
        expectInvalid(r, simulation.badFields)
      }
      expectInvalid(await server.call("POST", "/sandbox/cards/Card:1/simulate/authorization", authorization), [
        "path.id"
      ])
    })
  })
}

onEveryStore("the card routes (S0)", "cards_routes", cardRoutesSuite)
