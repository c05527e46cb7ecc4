import { Context, type Effect } from "effect"
import type { CounterpartyFieldDefinition, Institution, UmaProvider, Vasp } from "../platform/model.ts"

/** A receiver behind an UMA address at a counterparty. */
export interface UmaReceiver {
  readonly umaAddress: string
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
    /** `undefined` when the counterparty has no such receiver. */
    readonly umaReceiver: (umaAddress: string) => Effect.Effect<UmaReceiver | undefined>
    /** The VASPs a wallet's counterparty may be declared at (`GET /vasps`); the core sorts and pages them. */
    readonly vasps: () => Effect.Effect<ReadonlyArray<Vasp>>
  }
>()("paycore/ports/Directory") {}
