import { Effect } from "effect"
import { liveCustomer } from "../customers/rules.ts"
import { EngineConfig } from "../shared/engine-config.ts"
import { nowIso } from "../shared/time.ts"
import {
  cardholderKycNotApproved,
  cardLimitReached,
  platformCardIdTaken,
  threeDSecurePasswordNotSupported
} from "./errors.ts"
import {
  accountIdsOf,
  bindingsFor,
  capabilitiesOf,
  eligibleFundingAccounts,
  unsupportedLimits
} from "./funding-sources.ts"
import { cardMachine } from "./machine.ts"
import { type CardCreateRequest, type CardRecord, type CardState, cardCounters } from "./model.ts"
import type { IssuerPorts } from "./ports.ts"
import { threeDSecureContext } from "./provisioning.ts"
import { toCard } from "./views.ts"

/**
 * `POST /cards` (CD-01 … CD-15, CD-19, L-12; design section 3, "Issue"). The checks in section 1's order, reads
 * only: the cardholder (404 `USER_NOT_FOUND`, 410), KYC `APPROVED` (CD-09), the funding accounts (CD-15, CD-44),
 * the limits against the capabilities they give (CD-10), a 3-D Secure password only where the program takes one
 * (Q19). Then one store transaction (the request's idempotency one, CD-02): the card `PROCESSING` with its bindings
 * and `dueAt = now` (the worker provisions it), `platformCardId` unique (409, Q21), and a live-card slot (400
 * `CARD_LIMIT_REACHED` over `liveCardLimit`, CD-14: counted first and checked after, so racing issues cannot
 * overshoot). No event: `card.state_change` reports moves, and the first is the issuer's answer. Platform caps are
 * not checked here (Q11): the lower of the card's and the platform's applies at each authorization.
 */
export const issueCard = Effect.fnUntraced(function* (ports: IssuerPorts, request: CardCreateRequest) {
  const { store, ids, issuer, vault } = ports
  const settings = yield* EngineConfig
  const cardholder = yield* liveCustomer(yield* store.customers.get(request.cardholderId), request.cardholderId)
  if (cardholder.kycStatus !== "APPROVED") return yield* cardholderKycNotApproved(cardholder.id, cardholder.kycStatus)
  const accounts = yield* eligibleFundingAccounts(
    store,
    issuer,
    settings,
    cardholder.id,
    request.fundingSources,
    undefined
  )
  const capabilities = capabilitiesOf(issuer.program, accounts)
  const refused = unsupportedLimits(request, capabilities)
  if (refused !== undefined) return yield* refused
  if (request.threeDSecurePassword !== undefined && !issuer.program.supportsThreeDSecurePassword) {
    return yield* threeDSecurePasswordNotSupported()
  }

  const id = yield* ids.make("Card")
  const now = yield* nowIso
  const bindings = yield* bindingsFor(ids, accounts, [])
  const platformCardId = request.platformCardId ?? `card-${yield* ids.randomHex(6)}`
  const sealed =
    request.threeDSecurePassword === undefined
      ? undefined
      : yield* vault.seal(new TextEncoder().encode(request.threeDSecurePassword), threeDSecureContext(id))
  const card: CardRecord = {
    id,
    cardholderId: cardholder.id,
    platformCardId,
    platformCardIdGiven: request.platformCardId !== undefined,
    state: cardMachine.initial as CardState,
    form: request.form,
    fundingSources: accountIdsOf(bindings),
    bindings,
    currency: accounts[0]!.currency,
    ...(request.maxSpendPerTransaction === undefined ? {} : { maxSpendPerTransaction: request.maxSpendPerTransaction }),
    ...(request.maxSpendPerDay === undefined ? {} : { maxSpendPerDay: request.maxSpendPerDay }),
    ...(request.maxTransactionsPerDay === undefined ? {} : { maxTransactionsPerDay: request.maxTransactionsPerDay }),
    cardCapabilities: capabilities,
    ...(sealed === undefined ? {} : { threeDSecurePasswordSealed: sealed }),
    dueAt: now,
    createdAt: now,
    updatedAt: now
  }
  return yield* store.transaction(
    Effect.gen(function* () {
      yield* store.cards
        .insert(card)
        .pipe(Effect.catchTag("UniqueViolation", () => Effect.fail(platformCardIdTaken(platformCardId))))
      const live = yield* store.counters.add(cardCounters.live, 1)
      // Over the limit: the request fails, and with it the insert and the count (one transaction).
      if (settings.liveCardLimit !== null && live > settings.liveCardLimit) {
        return yield* cardLimitReached(settings.liveCardLimit)
      }
      return toCard(card)
    })
  )
})
