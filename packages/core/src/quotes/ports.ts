/**
 * What the quotes' use cases run on: the ports quote creation (create.ts) and receiver lookups (receivers.ts) work
 * with, and what quotes ask of the payments context. A quote becomes an outgoing payment, and executing it moves money:
 * that is the transactions context's work. Transactions depend on quotes (their records, machine and expiry
 * rule), not the other way: quotes only know this interface, which transactions implement
 * (`quotePaymentsLayer` in transactions/execute.ts) and the engine provides to `Quotes.layer`.
 */
import { type Clock, Context, type Effect } from "effect"
import type { PaymentRail } from "../accounts/model.ts"
import type { Customer } from "../customers/model.ts"
import type { PlatformConfig } from "../platform/model.ts"
import type { Directory } from "../ports/directory.ts"
import type { Ids } from "../ports/ids.ts"
import type { NetworkFeesService } from "../ports/network-fees.ts"
import type { RailSelectionService } from "../ports/rail.ts"
import type { Store, UniqueViolation } from "../ports/store.ts"
import type { ScaFactor } from "../sca/model.ts"
import type { CommandEnv, EngineSettings } from "../shared/engine-config.ts"
import type { Conflict, InvalidInput, LimitExceeded, NotFound, Refused, StoreError } from "../shared/errors.ts"
import type { IllegalTransition } from "../shared/machine.ts"
import type { Steps } from "../shared/tracing.ts"
import type { QuoteError } from "./errors.ts"
import type { Quote, QuoteRecord } from "./model.ts"
import type { Rates } from "./rates.ts"

export type QuotesError = QuoteError | IllegalTransition

/** The ports and parts quote creation works with, resolved once by the `Quotes` layer. */
export interface QuoteCreationPorts {
  readonly store: Store["Service"]
  readonly ids: Ids["Service"]
  readonly directory: Directory["Service"]
  readonly rates: Rates
  readonly payments: QuotePayments["Service"]
  readonly networkFees: NetworkFeesService
  /** The rail of a payout whose quote names none. */
  readonly railSelection: RailSelectionService
}

/** The ports receiver lookups work with, resolved once by the `Quotes` layer. */
export interface ReceiverLookupPorts {
  readonly store: Store["Service"]
  readonly ids: Ids["Service"]
  readonly directory: Directory["Service"]
  readonly rates: Rates
}

/** What a new quote's payment needs that the quote does not carry (in its types). */
export interface PaymentTerms {
  /** The platform's own id of the paying customer (when there is one), copied onto the transaction. */
  readonly platformCustomerId: string | undefined
  /** The rail the payment goes out on (the quote's `destination.paymentRail`). */
  readonly rail: PaymentRail
  /** `MANUAL` when the request named the rail. */
  readonly railSelectionMode: "AUTO" | "MANUAL"
  /** The paying customer, as read by the creating command (`undefined` for a platform-funded quote). */
  readonly customer: Customer | undefined
  /**
   * Who is subject to SCA, when the paying customer may be (its region is one of `scaRegions`): a quote executed
   * at once or funded by payment instructions is then challenged (S-06). `undefined`: no SCA.
   */
  readonly scaSettings: Pick<EngineSettings, "scaRegions"> | undefined
  /** `OUT` for a deprecated transfer-out (SB-07: its rail is told it is a transfer). */
  readonly transfer?: "OUT" | undefined
}

/** What `POST /quotes/{quoteId}/execute` brings besides the quote id. */
export interface ExecuteRequest {
  /** The `Service-Wallet-Signature` header: a quote from an embedded wallet needs it. */
  readonly walletSignature?: string | undefined
  /** The factor of the SCA challenge this execute issues (S-08; TOTP is 400). */
  readonly scaFactor?: ScaFactor | undefined
}

export type ExecuteError = InvalidInput | NotFound | Conflict | Refused | LimitExceeded | StoreError | IllegalTransition

export class QuotePayments extends Context.Service<
  QuotePayments,
  {
    /**
     * Stores a new quote with its outgoing payment (PENDING, `OUTGOING_PAYMENT.PENDING`) in one store
     * transaction; with `execute`, the payment is executed in that same transaction under `config`'s limits and
     * submitted to its rail after the commit. A subject customer's quote that would move money (executed at once,
     * or real-time-funded) waits in PENDING_AUTHORIZATION for its first SCA challenge instead (S-03, S-06), its SMS
     * sent after the commit. Returns the quote as it then is. A step of the creating command
     * (see `Steps`): a unique violation on the fresh ids reaches that command, which makes it a defect.
     */
    readonly place: (
      quote: QuoteRecord,
      terms: PaymentTerms,
      execute: boolean,
      config: PlatformConfig | undefined,
      clock: Clock.Clock
    ) => Steps<Quote, ExecuteError | UniqueViolation>
    /**
     * Executes a stored quote (`POST /quotes/{quoteId}/execute`); returns it as it then is: moving, or waiting in
     * PENDING_AUTHORIZATION for an SCA challenge (S-03). A quote from an embedded wallet needs
     * `walletSignature`, the wallet's stamp over its `payloadToSign`.
     */
    readonly execute: (quoteId: string, env: CommandEnv, request: ExecuteRequest) => Effect.Effect<Quote, ExecuteError>
  }
>()("paycore/quotes/QuotePayments") {}
