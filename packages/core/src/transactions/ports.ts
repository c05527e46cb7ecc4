import { Effect } from "effect"
import type { PlatformConfigService } from "../platform/service.ts"
import { Ids } from "../ports/ids.ts"
import type { KycProvider } from "../ports/kyc.ts"
import type { Notifier } from "../ports/notifier.ts"
import { Rail } from "../ports/rail.ts"
import { Screening, type ScreeningService } from "../ports/screening.ts"
import { Store } from "../ports/store.ts"
import { type Challenges, challengesInContext } from "../sca/challenges.ts"
import type { Conflict, InvalidInput, LimitExceeded, NotFound, Refused, StoreError } from "../shared/errors.ts"
import type { IllegalTransition } from "../shared/machine.ts"

/** The ports the payment engine works with, resolved once (by a layer) instead of on every call. */
export interface PaymentPorts {
  readonly store: Store["Service"]
  readonly ids: Ids["Service"]
  readonly rail: Rail["Service"]
  /** Compliance screening of a payout as it is executed (Q-38; the default clears all). */
  readonly screening: ScreeningService
}

/** The payment ports and the SCA challenges (sca/challenges.ts over the same store). */
export interface ScaPaymentPorts extends PaymentPorts {
  readonly challenges: Challenges
}

/** The payment ports of the layer that builds them, with the challenges over them. */
export const scaPaymentPorts: Effect.Effect<
  ScaPaymentPorts,
  never,
  Store | Ids | Rail | Notifier | KycProvider | PlatformConfigService
> = Effect.gen(function* () {
  return {
    store: yield* Store,
    ids: yield* Ids,
    rail: yield* Rail,
    screening: yield* Screening,
    challenges: yield* challengesInContext
  }
})

export type TransactionsError =
  | InvalidInput
  | NotFound
  | Refused
  | Conflict
  | LimitExceeded
  | StoreError
  | IllegalTransition
