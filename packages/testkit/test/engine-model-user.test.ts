/**
 * A user's model-based test of paycore, as docs/testing.md shows it: the testkit's harness on the memory store and
 * the sandbox ports, extended with a command and an invariant of the user's own. It imports only the published
 * packages: the install test runs it from the tarballs. Rows: Q-20 (a quote executes once), WH-05 (signatures).
 */
import { Ids, Quotes, verifyWebhookSignature, WebhookSigner } from "@paycore/core"
import * as Sandbox from "@paycore/sandbox"
import * as MemoryStore from "@paycore/store-memory"
import {
  checkEngineModel,
  type EngineInvariant,
  type ExecuteResponse,
  engineCommand,
  executeUnderKey
} from "@paycore/testkit/engine-model"
import { Cause, Effect, Exit, Layer } from "effect"
import * as fc from "fast-check"
import { describe, it } from "vitest"

/** Your ports: here the memory store and the sandbox; in your project, your store and your rail. */
const ports = Layer.mergeAll(
  MemoryStore.layer,
  MemoryStore.documentStoreLayer,
  Ids.layer,
  Sandbox.layer({ speedUp: 1 }),
  WebhookSigner.layerGenerated
)

/** Your part of the model: how many races were run, how many webhooks were checked. */
interface Races {
  run: number
  verified: number
}

const codeOf = (exit: Exit.Exit<unknown, unknown>) => {
  const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : undefined
  return error?._tag === "Some" ? (error.value as { code?: string }).code : undefined
}

/** Two clients execute one quote at once, under two keys: one wins, the other is told it was executed. */
const executeTwiceAtOnce = (customer: number, amount: number, keys: readonly [string, string]) =>
  engineCommand<Races>({
    name: `executeTwiceAtOnce(customer ${customer}, ${amount})`,
    check: (model) => model.customers.length > 0,
    run: async (model, engine) => {
      const payer = model.customers[customer % model.customers.length]!
      const quote = await engine.run(
        Effect.flatMap(Quotes, (quotes) =>
          quotes.create({
            source: { sourceType: "ACCOUNT", accountId: payer.accountId },
            destination: { destinationType: "ACCOUNT", accountId: payer.payees.settles },
            lockedCurrencySide: "SENDING",
            lockedCurrencyAmount: amount
          })
        )
      )
      const exits = await Promise.all(keys.map((key) => engine.exit(executeUnderKey(key, quote.id))))
      const available = model.balances.get(payer.accountId) ?? 0
      const codes = exits.map(codeOf).sort()
      if (quote.totalSendingAmount > available) {
        if (codes.join() !== "INSUFFICIENT_FUNDS,INSUFFICIENT_FUNDS") throw new Error(`both refused? ${codes}`)
      } else {
        const won = exits.findIndex(Exit.isSuccess)
        const winner = exits[won]
        if (winner === undefined || Exit.isFailure(winner) || exits.filter(Exit.isSuccess).length !== 1) {
          throw new Error(`not one of 2 racing executes won: ${codes}`)
        }
        if (codes.join() !== "QUOTE_ALREADY_EXECUTED,") throw new Error(`the loser was told ${codes}`)
        model.balances.set(payer.accountId, available - quote.totalSendingAmount)
        model.payments.push({
          key: keys[won]!,
          quoteId: quote.id,
          transactionId: (winner.value.body as ExecuteResponse).transactionId,
          accountId: payer.accountId,
          debited: quote.totalSendingAmount,
          fate: "COMPLETED",
          executedAt: model.now,
          status: "PROCESSING"
        })
      }
      model.user.run++
    }
  })

/** Every webhook your receiver got carries a valid `X-Service-Signature` under the engine's key. */
const signedWebhooks: EngineInvariant<Races> = {
  name: "signed webhooks",
  violations: async (model, engine) => {
    const { publicKeyPem } = await engine.run(WebhookSigner)
    const received = engine.webhooks.requests().slice(model.user.verified)
    model.user.verified += received.length // each is checked once
    return received
      .filter((r) => !verifyWebhookSignature(publicKeyPem, r.body, r.headers["X-Service-Signature"] ?? ""))
      .map((r) => `unsigned or badly signed: ${r.body.slice(0, 80)}`)
  }
}

describe("a user's model of paycore", () => {
  it("keeps every invariant with racing executes and signature checks of our own (Q-20, WH-05)", async () => {
    await checkEngineModel<Races>(
      {
        ports,
        initialUser: () => ({ run: 0, verified: 0 }),
        commands: [
          fc
            .tuple(fc.nat(3), fc.integer({ min: 1, max: 30_000 }), fc.uuid(), fc.uuid())
            .filter(([, , a, b]) => a !== b)
            .map(([customer, amount, a, b]) => executeTwiceAtOnce(customer, amount, [a, b]))
        ],
        invariants: [signedWebhooks]
      },
      { numRuns: 30, seed: 42 }
    )
  }, 120_000)
})
