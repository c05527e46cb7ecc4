import { Effect, Layer } from "effect"
import type { InternalAccountRecord } from "../accounts/model.ts"
import { platformSetCustomerId } from "../customers/rules.ts"
import { CardFundingSources } from "../ports/card-funding-sources.ts"
import type { CardIssuerService } from "../ports/card-issuer.ts"
import type { Ids } from "../ports/ids.ts"
import { Store, type UniqueViolation } from "../ports/store.ts"
import type { EngineSettings } from "../shared/engine-config.ts"
import { InvalidInput, type StoreError } from "../shared/errors.ts"
import type { InternalAccountId } from "../shared/ids.ts"
import type { Steps } from "../shared/tracing.ts"
import { revokedKey } from "../wallet-auth/delegated-keys.ts"
import { cardIssuerUnavailable, fundingSourceIneligible, limitNotSupported } from "./errors.ts"
import type { CardFundingBinding, CardProgramCapabilities, CardRecord } from "./model.ts"

// A card's funding sources (CD-13, CD-15, CD-26, CD-44, W-42 … W-47): which internal accounts may fund a card, the
// bindings (one `CardFundingSource` id per account, what a delegated key names), the capabilities they give the
// card, and the real `CardFundingSources` service `POST /auth/delegated-keys` asks.

/**
 * The accounts `accountIds` name, in order, when they may fund a card of `cardholderId` (CD-15, CD-44): each an
 * `ACTIVE` internal account of the cardholder in a card currency (the engine's `cardCurrencies` and the issuer's),
 * all in one currency (`currency` when the card has one already), and the issuer takes them. Else 400
 * `FUNDING_SOURCE_INELIGIBLE` naming the first that is not. Reads only, and one issuer call (told the cardholder's
 * `platformCustomerId` when the platform set it): before any store transaction of the caller's own.
 */
export const eligibleFundingAccounts = Effect.fnUntraced(function* (
  store: Store["Service"],
  issuer: CardIssuerService,
  settings: Pick<EngineSettings, "cardCurrencies">,
  cardholderId: string,
  accountIds: ReadonlyArray<string>,
  currency: string | undefined
) {
  const accounts: Array<InternalAccountRecord> = []
  for (const id of accountIds) {
    const account = yield* store.internalAccounts.get(id)
    if (account === undefined) return yield* fundingSourceIneligible(id, "no such internal account")
    if (account.customerId !== cardholderId) {
      return yield* fundingSourceIneligible(id, "it belongs to another customer than the cardholder")
    }
    if (account.status !== "ACTIVE") return yield* fundingSourceIneligible(id, `it is ${account.status}, not ACTIVE`)
    if (!settings.cardCurrencies.includes(account.currency) || !issuer.program.currencies.includes(account.currency)) {
      return yield* fundingSourceIneligible(id, `${account.currency} is not a card currency`)
    }
    const expected = currency ?? accounts[0]?.currency
    if (expected !== undefined && account.currency !== expected) {
      return yield* fundingSourceIneligible(id, `it holds ${account.currency}, the card ${expected}`)
    }
    accounts.push(account)
  }
  const holder = yield* store.customers.get(cardholderId)
  const platformCustomerId = holder === undefined ? undefined : platformSetCustomerId(holder)
  const eligibility = yield* issuer
    .fundingEligibility(accounts, { id: cardholderId, platformCustomerId })
    .pipe(Effect.mapError((e) => cardIssuerUnavailable(e.message)))
  if (eligibility._tag === "Ineligible") {
    return yield* fundingSourceIneligible(eligibility.accountId, eligibility.reason)
  }
  return accounts
})

/**
 * What a card funded by `accounts` can do (CD-07, CD-10): reveal as the program allows; spend and count limits when
 * the service decides authorizations (not an `ISSUER` program, CD-27) and every funding account supports them.
 */
export const capabilitiesOf = (
  program: CardIssuerService["program"],
  accounts: ReadonlyArray<Pick<InternalAccountRecord, "cardCapabilities">>
): CardProgramCapabilities => {
  const serviceDecides = program.decisioning === "SERVICE"
  return {
    supportsPanReveal: program.supportsPanReveal,
    supportsSpendLimits: serviceDecides && accounts.every((a) => a.cardCapabilities.supportsSpendLimits),
    supportsTransactionCountLimit:
      serviceDecides && accounts.every((a) => a.cardCapabilities.supportsTransactionCountLimit)
  }
}

/** The limits a request sets (a value; `null` clears, which needs no capability). */
interface RequestedLimits {
  readonly maxSpendPerTransaction?: number | null | undefined
  readonly maxSpendPerDay?: number | null | undefined
  readonly maxTransactionsPerDay?: number | null | undefined
}

/**
 * 400 naming every limit set without the capability it needs (CD-10, CD-28, CD-30): the spend limits need
 * `supportsSpendLimits`, the count limit `supportsTransactionCountLimit`. `undefined` when all are allowed.
 */
export const unsupportedLimits = (
  limits: RequestedLimits,
  capabilities: CardProgramCapabilities
): InvalidInput | undefined => {
  const refused: Array<InvalidInput> = []
  const spend = ["maxSpendPerTransaction", "maxSpendPerDay"] as const
  for (const field of spend) {
    if (typeof limits[field] === "number" && !capabilities.supportsSpendLimits) {
      refused.push(limitNotSupported(field, "supportsSpendLimits"))
    }
  }
  if (typeof limits.maxTransactionsPerDay === "number" && !capabilities.supportsTransactionCountLimit) {
    refused.push(limitNotSupported("maxTransactionsPerDay", "supportsTransactionCountLimit"))
  }
  const first = refused[0]
  if (first === undefined) return undefined
  return refused.length === 1
    ? first
    : new InvalidInput({ message: first.message, errors: refused.flatMap((e) => e.errors) })
}

/**
 * The bindings of `accounts` in their order (the priority, CD-26): an account already bound keeps its binding (and
 * so its delegated key, W-45); a new one gets a fresh `CardFundingSource` id.
 */
export const bindingsFor = Effect.fnUntraced(function* (
  ids: Ids["Service"],
  accounts: ReadonlyArray<Pick<InternalAccountRecord, "id" | "type">>,
  current: ReadonlyArray<CardFundingBinding>
) {
  const bindings: Array<CardFundingBinding> = []
  for (const account of accounts) {
    const kept = current.find((b) => b.accountId === account.id)
    bindings.push(
      kept ?? { id: yield* ids.make("CardFundingSource"), accountId: account.id, accountType: account.type }
    )
  }
  return bindings
})

/** The account ids of bindings, in order: the card's `fundingSources`. */
export const accountIdsOf = (bindings: ReadonlyArray<CardFundingBinding>): ReadonlyArray<InternalAccountId> =>
  bindings.map((b) => b.accountId)

/**
 * A write on a row whose unique keys it does not change: a violation is a bug, not a client error. A `StoreError`
 * passes on (the PostgreSQL store runs the transaction again on a deadlock or serialization failure).
 */
export const dieOnUnique = <A>(write: Effect.Effect<A, StoreError | UniqueViolation>): Effect.Effect<A, StoreError> =>
  Effect.catchTag(write, "UniqueViolation", (v) => Effect.die(new Error(`unexpected unique violation on ${v.index}`)))

/**
 * Detaches the bindings a card no longer has (a new `fundingSources`, or all of them on a close, CD-24): each one's
 * `ACTIVE` delegated key is revoked (W-46), so no key signs for an account that no longer funds the card. Inside the
 * caller's store transaction.
 */
export function* detachSteps(
  store: Pick<Store["Service"], "delegatedKeys">,
  removed: ReadonlyArray<CardFundingBinding>,
  now: string
): Steps<void, StoreError> {
  for (const binding of removed) {
    const key = yield* store.delegatedKeys.findUnique("activeSlot", binding.id)
    if (key === undefined) continue
    const revoked = revokedKey(key, now)
    // Leaving the slot frees it: no unique key to be taken.
    if (revoked !== undefined) yield* dieOnUnique(store.delegatedKeys.update(revoked))
  }
}

/** The bindings of `before` that `after` does not keep. */
export const removedBindings = (
  before: ReadonlyArray<CardFundingBinding>,
  after: ReadonlyArray<CardFundingBinding>
): ReadonlyArray<CardFundingBinding> => before.filter((b) => !after.some((kept) => kept.id === b.id))

/**
 * The real `CardFundingSources` (W-42, W-45): the binding of a card that is not `CLOSED` to the embedded wallet the
 * request names (a closed card's bindings are detached: 404). A card the store does not know is asked of the port as
 * it was provided before (the testkit's registry in wallet-only tests; by default it knows none).
 */
export const cardFundingSourcesLayer: Layer.Layer<never, never, Store> = Layer.effect(
  CardFundingSources,
  Effect.gen(function* () {
    const store = yield* Store
    const provided = yield* CardFundingSources
    return {
      find: (cardId: string, internalAccountId: string) =>
        Effect.flatMap(store.cards.get(cardId), (card: CardRecord | undefined) => {
          if (card === undefined) return provided.find(cardId, internalAccountId)
          const binding = card.bindings.find((b) => b.accountId === internalAccountId)
          return Effect.succeed(binding === undefined ? undefined : { fundingSourceId: binding.id })
        })
    }
  })
)
