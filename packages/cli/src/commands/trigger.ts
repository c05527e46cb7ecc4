/**
 * `paycore trigger EVENT`: makes the sandbox emit a webhook through the public API only, as a platform would: a
 * customer, a funded account, a quote to an external account whose number ends in the sandbox rail's failing suffix,
 * a returned deposit, a card authorization, a KYC review. Prints the ids it made and the webhook types to expect.
 */
import { randomUUID } from "node:crypto"
import { type InternalAccountId, TransactionId } from "@paycore/core"
import { Effect, Schedule, Schema } from "effect"
import { Argument, Command } from "effect/cli"
import { apiClient, CliFailure } from "../client.ts"
import { bold, emit, progress } from "../output.ts"

export const TRIGGERS = [
  "payment.completed",
  "payment.failed",
  "payment.returned",
  "card.authorization",
  "kyc.approved",
  "kyc.rejected"
] as const
export type Trigger = (typeof TRIGGERS)[number]

type Client = Effect.Success<typeof apiClient>

/** The terms consent a sandbox customer gives (the current terms version). */
const CONSENT = {
  acceptedAt: "2026-01-01T00:00:00.000Z",
  ipAddress: "203.0.113.7",
  termsVersion: "2025-10-13",
  acceptanceMethod: "CHECKBOX"
} as const

/** A small PNG: the identity document a KYC review needs on file. */
const PNG = Uint8Array.from(Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex"))

/**
 * The sandbox's magic values (packages/sandbox/README.md): the last three characters of a payee's account number
 * decide a payout (`002` fails it with a refund), of a customer's full name the KYC review (`002` rejects).
 */
const SETTLING_ACCOUNT = "123456789"
const FAILING_ACCOUNT = "000000002"
const REJECTED_NAME = "Kim Trigger 002"
const APPROVED_NAME = "Kim Trigger"
/** A `platformCardId` ending `000`: the sandbox issuer activates the card at once. */
const activeAtOnce = () => `paycore-cli-${randomUUID().slice(0, 8)}-000`

/** An individual with a complete KYC packet and a USD account; the account's id. */
const newCustomer = Effect.fnUntraced(function* (client: Client, fullName: string) {
  yield* progress(`creating customer ${fullName}`)
  const customer = yield* client.customers.create({
    payload: {
      customerType: "INDIVIDUAL",
      fullName,
      birthDate: "1990-12-10",
      nationality: "US",
      address: { line1: "1 Market St", city: "San Francisco", state: "CA", postalCode: "94105", country: "US" },
      idType: "SSN",
      identifier: "123-45-6789",
      currencies: ["USD"],
      endUserTermsConsent: CONSENT
    }
  })
  const accounts = yield* client.accounts.listCustomerInternal({ query: { customerId: customer.id } })
  const usd = accounts.data.find((account) => account.currency === "USD")
  if (usd === undefined) return yield* new CliFailure({ message: `${customer.id} has no USD account` })
  return { customerId: customer.id, accountId: usd.id }
})

const fund = (client: Client, accountId: InternalAccountId) =>
  progress("funding the account").pipe(
    Effect.andThen(client.sandbox.fund({ params: { accountId }, payload: { amount: 100_000 } }))
  )

/** Pays 10.00 from a funded account to a US account ending `accountNumber`: quote, then execute. */
const payOut = Effect.fnUntraced(function* (client: Client, accountNumber: string) {
  const { customerId, accountId } = yield* newCustomer(client, APPROVED_NAME)
  yield* fund(client, accountId)
  const payee = yield* client.accounts.createExternal({
    payload: {
      customerId,
      currency: "USD",
      accountInfo: {
        accountType: "US_ACCOUNT",
        accountNumber,
        routingNumber: "021000021",
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Grace Hopper" }
      }
    }
  })
  yield* progress("quoting and executing the payment")
  const quote = yield* client.payments.createQuote({
    payload: {
      source: { sourceType: "ACCOUNT", accountId },
      destination: { destinationType: "ACCOUNT", accountId: payee.id },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 1_000
    }
  })
  const executed = yield* client.payments.executeQuote({ params: { quoteId: quote.id }, headers: {}, payload: null })
  // The rail said when it settles (the sandbox's timing table divided by the server's speed-up): the events come then.
  const payment = yield* client.payments.getTransaction({ params: { transactionId: executed.transactionId } })
  const ids = {
    customerId,
    accountId,
    externalAccountId: payee.id,
    quoteId: quote.id,
    transactionId: executed.transactionId
  }
  return { ids, expectedAt: "expectedSettlementAt" in payment ? payment.expectedSettlementAt : undefined }
})

/** "48 s", "6 min", "2 h", "3 days": how long until `at`, as a person reads it. */
const untilThen = (at: string): string => {
  const seconds = Math.max(0, Math.round((Date.parse(at) - Date.now()) / 1000))
  if (seconds < 90) return `${seconds} s`
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} h`
  return `${Math.round(seconds / 86_400)} days`
}

/** A funded account's deposit, taken back by the sending bank. */
const returnedDeposit = Effect.fnUntraced(function* (client: Client) {
  const { customerId, accountId } = yield* newCustomer(client, APPROVED_NAME)
  yield* fund(client, accountId)
  const deposits = yield* client.payments.listTransactions({
    query: { accountIdentifier: accountId, type: "INCOMING", limit: 1 }
  })
  // A card transaction's id is no deposit's: the list holds both kinds.
  const deposit = deposits.data.map((t) => t.id).find(Schema.is(TransactionId))
  if (deposit === undefined) return yield* new CliFailure({ message: `no deposit into ${accountId}` })
  yield* progress("returning the deposit")
  const returned = yield* client.sandbox.returnDeposit({ params: { transactionId: deposit } })
  return { customerId, accountId, transactionId: returned.id }
})

/** A customer whose KYC packet (with an identity document) the sandbox reviews now. */
const reviewedCustomer = Effect.fnUntraced(function* (client: Client, fullName: string) {
  const { customerId, accountId } = yield* newCustomer(client, fullName)
  const form = new FormData()
  form.append("documentHolder", customerId)
  form.append("documentType", "PASSPORT")
  form.append("country", "US")
  form.append("file", new Blob([PNG], { type: "image/png" }), "passport.png")
  const document = yield* client.onboarding.uploadDocument({ payload: form })
  yield* progress("asking for the KYC review")
  const verification = yield* client.onboarding.createVerification({ payload: { customerId } })
  return { customerId, accountId, documentId: document.id, verificationId: verification.id }
})

/** An approved cardholder's card, active, funded; then a 12.50 purchase authorized on it. */
const cardAuthorization = Effect.fnUntraced(function* (client: Client) {
  const { customerId, accountId, verificationId } = yield* reviewedCustomer(client, APPROVED_NAME)
  yield* fund(client, accountId)
  yield* progress("issuing a card")
  const issued = yield* client.cards.createCard({
    headers: { "idempotency-key": randomUUID() },
    payload: { cardholderId: customerId, fundingSources: [accountId], form: "VIRTUAL", platformCardId: activeAtOnce() }
  })
  // The issuer activates the card on the server's next worker pass.
  yield* client.cards.getCard({ params: { id: issued.id } }).pipe(
    Effect.filterOrFail(
      (card) => card.state === "ACTIVE",
      (card) => new CliFailure({ message: `card ${card.id} is ${card.state}, not ACTIVE` })
    ),
    Effect.retry({ schedule: Schedule.spaced("250 millis"), times: 40 })
  )
  yield* progress("simulating a card authorization")
  const simulated = yield* client.sandbox.simulateCardAuthorization({
    params: { id: issued.id },
    payload: { amount: 1_250, currency: { code: "USD" }, merchant: { descriptor: "PAYCORE CLI COFFEE", mcc: "5814" } }
  })
  return {
    customerId,
    accountId,
    verificationId,
    cardId: issued.id,
    issuerTransactionToken: simulated.issuerTransactionToken
  }
})

/**
 * What each trigger does, the webhook types it makes the server send (in order), and when they come: a payout's at
 * its rail's settlement (`expectedAt`), the others within the server's next worker and webhook passes (a second).
 */
const run = (client: Client, event: Trigger) => {
  switch (event) {
    case "payment.completed":
      return payOut(client, SETTLING_ACCOUNT).pipe(
        Effect.map((paid) => ({ ...paid, expect: ["OUTGOING_PAYMENT.COMPLETED"] }))
      )
    case "payment.failed":
      return payOut(client, FAILING_ACCOUNT).pipe(
        Effect.map((paid) => ({
          ...paid,
          expect: ["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_PENDING", "OUTGOING_PAYMENT.REFUND_COMPLETED"]
        }))
      )
    case "payment.returned":
      return returnedDeposit(client).pipe(
        Effect.map((ids) => ({
          ids,
          expectedAt: undefined,
          expect: ["INCOMING_PAYMENT.REFUND_PENDING", "INCOMING_PAYMENT.REFUND_COMPLETED"]
        }))
      )
    case "card.authorization":
      return cardAuthorization(client).pipe(
        Effect.map((ids) => ({ ids, expectedAt: undefined, expect: ["CARD_TRANSACTION.AUTHORIZED"] }))
      )
    case "kyc.approved":
      return reviewedCustomer(client, APPROVED_NAME).pipe(
        Effect.map((ids) => ({ ids, expectedAt: undefined, expect: ["CUSTOMER.KYC_APPROVED"] }))
      )
    case "kyc.rejected":
      return reviewedCustomer(client, REJECTED_NAME).pipe(
        Effect.map((ids) => ({ ids, expectedAt: undefined, expect: ["CUSTOMER.KYC_REJECTED"] }))
      )
  }
}

export const trigger = Command.make(
  "trigger",
  {
    event: Argument.Literals("event", TRIGGERS).pipe(Argument.withDescription(`One of ${TRIGGERS.join(", ")}`))
  },
  Effect.fnUntraced(function* ({ event }) {
    const client = yield* apiClient
    const result = yield* run(client, event)
    const ids: Readonly<Record<string, string>> = result.ids
    const expectedAt = result.expectedAt ?? null
    yield* emit({ event, ids, expect: result.expect, expectedAt }, (r) => [
      ...Object.entries(r.ids).map(([name, id]) => `${name.padEnd(24)}${id}`),
      `${bold("expect webhook".padEnd(24))}${r.expect.join(", ")}`,
      `${bold("when".padEnd(24))}${
        r.expectedAt === null
          ? "within a few seconds (the server's next worker and webhook passes)"
          : `in about ${untilThen(r.expectedAt)}, when the payout settles on its rail (${r.expectedAt})`
      }`
    ])
  })
).pipe(
  Command.withDescription("Make the sandbox send a webhook, through the public API"),
  Command.withExamples([
    { command: "paycore trigger payment.failed", description: "A payout that fails and is refunded" }
  ])
)
