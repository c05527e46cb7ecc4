import { CardFundingSources, type CardFundingSourcesService } from "@paycore/core"
import { Effect, Layer } from "effect"

export interface CardFundingSourcesRegistry {
  /**
   * Makes the embedded wallet `internalAccountId` a funding source of card `cardId` (a fresh `Card:<uuid>` when
   * omitted); returns both ids (the funding source's is a fresh `CardFundingSource:<uuid>` unless given).
   */
  readonly register: (source: {
    readonly internalAccountId: string
    readonly cardId?: string
    readonly fundingSourceId?: string
  }) => { readonly cardId: string; readonly fundingSourceId: string }
  /** The port's service over the registered sources. */
  readonly service: CardFundingSourcesService
  /** `service` as a layer, to provide beside the other ports (e.g. `startTestServer({ extraLayer })`). */
  readonly layer: Layer.Layer<never>
}

/**
 * Card funding sources for tests of delegated keys (W-42 … W-47), until cards exist: the core's
 * `CardFundingSources` port knows no card by default, and the cards issue will provide the real service over its
 * cards and their funding sources. Register a source, provide `layer`, and `POST /auth/delegated-keys` finds it.
 */
export const cardFundingSourcesRegistry = (): CardFundingSourcesRegistry => {
  const sources = new Map<string, string>()
  const keyOf = (cardId: string, internalAccountId: string) => `${cardId}\n${internalAccountId}`
  const service: CardFundingSourcesService = {
    find: (cardId, internalAccountId) =>
      Effect.sync(() => {
        const fundingSourceId = sources.get(keyOf(cardId, internalAccountId))
        return fundingSourceId === undefined ? undefined : { fundingSourceId }
      })
  }
  return {
    register: ({ internalAccountId, cardId = `Card:${crypto.randomUUID()}`, fundingSourceId }) => {
      const id = fundingSourceId ?? `CardFundingSource:${crypto.randomUUID()}`
      sources.set(keyOf(cardId, internalAccountId), id)
      return { cardId, fundingSourceId: id }
    },
    service,
    layer: Layer.succeed(CardFundingSources, service)
  }
}
