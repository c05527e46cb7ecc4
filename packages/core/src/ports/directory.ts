import { Context, type Effect, Schema } from "effect"
import type { CounterpartyFieldDefinition, Institution, UmaProvider, Vasp } from "../platform/model.ts"

/**
 * The counterparty of an UMA address could not be dealt with (C-50, Q-47): 412 `UNSUPPORTED_UMA_VERSION` (it speaks
 * only UMA versions this service does not), else 424: `NO_COMPATIBLE_UMA_VERSION`, `LNURLP_REQUEST_FAILED` (its
 * lookup endpoint failed), `COUNTERPARTY_PUBKEY_FETCH_ERROR` (its signing keys could not be fetched),
 * `PAYREQ_REQUEST_FAILED` (its pay request, made when quoting, failed).
 */
export class CounterpartyFailure extends Schema.TaggedError<CounterpartyFailure>()("CounterpartyFailure", {
  code: Schema.Literals([
    "UNSUPPORTED_UMA_VERSION",
    "NO_COMPATIBLE_UMA_VERSION",
    "LNURLP_REQUEST_FAILED",
    "COUNTERPARTY_PUBKEY_FETCH_ERROR",
    "PAYREQ_REQUEST_FAILED"
  ]),
  message: Schema.String
}) {}

/** Why the service asks the counterparty about a receiver: to answer a lookup, or to quote a payment to it. */
export type UmaReceiverStep = "lookup" | "quote"

/** A receiver behind an UMA address at a counterparty. */
export interface UmaReceiver {
  readonly umaAddress: string
  /**
   * `false` when the receiver's provider is not on the platform's allow list (`UmaProvider.allowListStatus`): a
   * lookup or quote to it is 403 `COUNTERPARTY_NOT_ALLOWED`. Absent: allowed.
   */
  readonly allowed?: boolean | undefined
  readonly currencies: ReadonlyArray<string>
  readonly minAmount: number
  readonly maxAmount: number
  /**
   * What the receiver's institution must be told about the payer before it takes a payment: the lookup
   * answers it as `requiredPayerDataFields`, and a quote must carry every `mandatory` one in its
   * `senderCustomerInfo`. Absent: nothing.
   */
  readonly requiredPayerDataFields?: ReadonlyArray<CounterpartyFieldDefinition> | undefined
}

/** Who is out there: payment institutions per corridor, UMA counterparties and their receivers, VASPs. */
export class Directory extends Context.Service<
  Directory,
  {
    readonly institutions: () => Effect.Effect<ReadonlyArray<Institution>>
    readonly umaProviders: () => Effect.Effect<ReadonlyArray<UmaProvider>>
    /**
     * `undefined` when the counterparty has no such receiver; `CounterpartyFailure` when the counterparty cannot be
     * dealt with at `step` (a lookup, or the pay request of a quote).
     */
    readonly umaReceiver: (
      umaAddress: string,
      step?: UmaReceiverStep
    ) => Effect.Effect<UmaReceiver | undefined, CounterpartyFailure>
    /** The VASPs a wallet's counterparty may be declared at (`GET /vasps`); the core sorts and pages them. */
    readonly vasps: () => Effect.Effect<ReadonlyArray<Vasp>>
  }
>()("paycore/ports/Directory") {}
