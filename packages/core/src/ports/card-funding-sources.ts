import { Context, Effect } from "effect"
import type { StoreError } from "../shared/errors.ts"

/** A card's funding source backed by an embedded-wallet internal account. */
export interface CardFundingSource {
  readonly fundingSourceId: string
}

export interface CardFundingSourcesService {
  /**
   * The funding source of card `cardId` backed by the embedded wallet `internalAccountId`; `undefined` when there
   * is no such card, or when that account does not fund it (W-42, W-45: both answer 404).
   */
  readonly find: (cardId: string, internalAccountId: string) => Effect.Effect<CardFundingSource | undefined, StoreError>
}

/**
 * The cards a delegated key can be created for (W-42 … W-47, design open question 7). The engine provides the real
 * service over the card records (`cards/funding-sources.ts`, docs/cards.md); this default, which knows no card, is
 * what it falls back on for a card it does not store: wallet-only tests register funding sources there with the
 * testkit's `cardFundingSourcesRegistry()`.
 */
export const CardFundingSources = Context.Reference<CardFundingSourcesService>("paycore/ports/CardFundingSources", {
  defaultValue: () => ({ find: () => Effect.succeed(undefined) })
})
