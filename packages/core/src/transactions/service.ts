import { Context, Effect, Layer } from "effect"
import { Ids } from "../ports/ids.ts"
import { Rail } from "../ports/rail.ts"
import { Store } from "../ports/store.ts"
import { Quotes } from "../quotes/service.ts"
import type { Conflict, InvalidInput, LimitExceeded, NotFound, Refused, StoreError } from "../shared/errors.ts"
import type { IllegalTransition } from "../shared/machine.ts"
import type { Page } from "../shared/paging.ts"
import { command } from "../shared/tracing.ts"
import { fundSandbox, sandboxSend, sandboxUmaReceive } from "./incoming.ts"
import type {
  ListTransactionsQuery,
  SandboxSendRequest,
  SandboxUmaReceiveRequest,
  Transaction,
  TransferInRequest,
  TransferOutRequest
} from "./model.ts"
import type { PaymentPorts } from "./moves.ts"
import { getTransaction, listTransactions } from "./reads.ts"
import { type ProcessDueReport, processDue } from "./settlement.ts"
import { transferIn, transferOut } from "./transfers.ts"

export type TransactionsError =
  | InvalidInput
  | NotFound
  | Refused
  | Conflict
  | LimitExceeded
  | StoreError
  | IllegalTransition

/**
 * Transactions: reads (reads.ts), the settlement worker (settlement.ts), incoming payments and the sandbox money
 * helpers (incoming.ts), and the deprecated transfers (transfers.ts). Executing quotes (execute.ts) is reached
 * through `Quotes`, which asks for it as `QuotePayments`.
 */
export class Transactions extends Context.Service<
  Transactions,
  {
    /** `GET /transactions`. */
    readonly list: (query: ListTransactionsQuery) => Effect.Effect<Page<Transaction>, InvalidInput | StoreError>
    /** `GET /transactions/{transactionId}` (404 `TRANSACTION_NOT_FOUND`). */
    readonly get: (id: string) => Effect.Effect<Transaction, NotFound | StoreError>
    /** One pass of the background worker (see `processDue`). */
    readonly processDue: () => Effect.Effect<ProcessDueReport, StoreError>
    /** `POST /sandbox/internal-accounts/{accountId}/fund`; returns the account id. */
    readonly fundSandbox: (accountId: string, amount: number) => Effect.Effect<string, TransactionsError>
    /** `POST /sandbox/send`. */
    readonly sandboxSend: (request: SandboxSendRequest) => Effect.Effect<Transaction, TransactionsError>
    /** `POST /sandbox/uma/receive`. */
    readonly sandboxUmaReceive: (request: SandboxUmaReceiveRequest) => Effect.Effect<Transaction, TransactionsError>
    /** Deprecated `POST /transfer-in`. */
    readonly transferIn: (request: TransferInRequest) => Effect.Effect<Transaction, TransactionsError>
    /** Deprecated `POST /transfer-out`: a same-currency quote locked on the sending side, executed at once. */
    readonly transferOut: (request: TransferOutRequest) => Effect.Effect<Transaction, TransactionsError>
  }
>()("paycore/transactions/Transactions") {
  static readonly layer: Layer.Layer<Transactions, never, Store | Ids | Rail | Quotes> = Layer.effect(
    Transactions,
    Effect.gen(function* () {
      const ports: PaymentPorts = { store: yield* Store, ids: yield* Ids, rail: yield* Rail }
      const quotes = yield* Quotes
      return Transactions.of({
        list: Effect.fn("Transactions.list")(function* (query: ListTransactionsQuery) {
          return yield* listTransactions(ports, query)
        }),
        get: Effect.fn("Transactions.get")(function* (id: string) {
          return yield* getTransaction(ports, id)
        }),
        // A hot command (see shared/tracing.ts): the worker's pass, whose span would enclose every settlement.
        processDue: () => command("Transactions.processDue", (env) => processDue(ports, env.clock)),
        fundSandbox: Effect.fn("Transactions.fundSandbox")(function* (accountId: string, amount: number) {
          return yield* fundSandbox(ports, accountId, amount)
        }),
        sandboxSend: Effect.fn("Transactions.sandboxSend")(function* (request: SandboxSendRequest) {
          return yield* sandboxSend(ports, request)
        }),
        sandboxUmaReceive: Effect.fn("Transactions.sandboxUmaReceive")(function* (request: SandboxUmaReceiveRequest) {
          return yield* sandboxUmaReceive(ports, request)
        }),
        transferIn: Effect.fn("Transactions.transferIn")(function* (request: TransferInRequest) {
          return yield* transferIn(ports, request)
        }),
        transferOut: Effect.fn("Transactions.transferOut")(function* (request: TransferOutRequest) {
          return yield* transferOut(ports, quotes, request)
        })
      })
    })
  )
}
