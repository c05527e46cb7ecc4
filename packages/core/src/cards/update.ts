import { Effect } from "effect"
import type { InternalAccountRecord } from "../accounts/model.ts"
import { EngineConfig } from "../shared/engine-config.ts"
import type { InvalidInput } from "../shared/errors.ts"
import { nowIso } from "../shared/time.ts"
import { emitSteps } from "../webhooks/emit.ts"
import { cardMoveTarget, moveCardSteps } from "./card-moves.ts"
import {
  cardNotFound,
  cardNotMutable,
  emptyCardUpdate,
  invalidCardTransition,
  notWithClose,
  notWithStateOnIssuerProgram
} from "./errors.ts"
import {
  accountIdsOf,
  bindingsFor,
  capabilitiesOf,
  detachSteps,
  dieOnUnique,
  eligibleFundingAccounts,
  removedBindings,
  unsupportedLimits
} from "./funding-sources.ts"
import { type CardEvent, cardEventOf } from "./machine.ts"
import type { CardIssuerSync, CardRecord, CardUpdateRequest } from "./model.ts"
import type { IssuerPorts } from "./ports.ts"
import { toCard } from "./views.ts"

/** The upstream's name of the event a new `fundingSources` emits (CD-31, design Q2). */
export const FUNDING_SOURCE_CHANGE = "CARD.FUNDING_SOURCE_CHANGE"

const LIMITS = ["maxSpendPerTransaction", "maxSpendPerDay", "maxTransactionsPerDay"] as const

/**
 * The body's own rules (CD-18, CD-26 … CD-30): at least one field; neither `fundingSources` nor a limit beside
 * `state: CLOSED`; on a program where the issuer decides, `fundingSources` beside no `state` at all.
 */
const bodyError = (request: CardUpdateRequest, issuerDecides: boolean): InvalidInput | undefined => {
  const given = Object.keys(request).filter((k) => request[k as keyof CardUpdateRequest] !== undefined)
  if (given.length === 0) return emptyCardUpdate()
  if (request.state === "CLOSED") {
    const extra = given.find((k) => k !== "state")
    if (extra !== undefined) return notWithClose(extra)
  }
  if (issuerDecides && request.state !== undefined && request.fundingSources !== undefined) {
    return notWithStateOnIssuerProgram()
  }
  return undefined
}

/**
 * The 409s of a card as it is (re-checked under lock): a `CLOSED` card takes no change but a state one (then the
 * machine refuses it, CD-25: `CARD_NOT_MUTABLE` is for the rest, design Q6); a `state` needs its move (PATCH maps
 * the target to the event, so `ACTIVE → ACTIVE` and anything from `PROCESSING` or `CLOSED` are 409
 * `INVALID_STATE_TRANSITION` with `details{from, to}`).
 */
const conflictOf = (card: CardRecord, request: CardUpdateRequest) => {
  if (request.state === undefined) return card.state === "CLOSED" ? cardNotMutable(card.id) : undefined
  const event: CardEvent = cardEventOf[request.state]
  return cardMoveTarget(card.state, event) === undefined ? invalidCardTransition(card.state, request.state) : undefined
}

/** The record's limits after the request: a value sets, `null` clears (CD-28, CD-30), absent keeps. */
const withLimits = (card: CardRecord, request: CardUpdateRequest): CardRecord => {
  const next: Record<string, unknown> = { ...card }
  for (const field of LIMITS) {
    const value = request[field]
    if (value === null) delete next[field]
    else if (value !== undefined) next[field] = value
  }
  return next as unknown as CardRecord
}

/** An issuer change merged into what the issuer has not acknowledged yet (the worker sends it). */
const pendingSync = (card: CardRecord, change: CardIssuerSync): CardIssuerSync => ({ ...card.issuerSync, ...change })

/**
 * `PATCH /cards/{id}` (CD-18, CD-20 … CD-31, C-36, A-10; design section 3, "Update and close"), on the platform's
 * credential alone (signature headers are not read). The body's rules (400), the card (404), its 409s; new
 * `fundingSources` checked as at issue with the card's currency (CD-15, 400 `FUNDING_SOURCE_INELIGIBLE`), limits
 * against the capabilities the card will have (400). Then one transaction on the locked card, the 409s again: the
 * state move (a close also detaches every binding, revokes their keys, frees the live slot and closes out open
 * authorizations), the new bindings in the given order (kept accounts keep their binding id and so their delegated
 * key; a dropped one's `ACTIVE` key is revoked), the limits. Events in order, each with the card as it now is:
 * `card.state_change` when the state moved, `CARD.FUNDING_SOURCE_CHANGE` when the list changed (CD-31). A state or
 * binding change is due to the issuer (`issuerSync`, sent by the worker).
 */
export const updateCard = Effect.fnUntraced(function* (ports: IssuerPorts, id: string, request: CardUpdateRequest) {
  const { store, ids, issuer } = ports
  const invalid = bodyError(request, issuer.program.decisioning === "ISSUER")
  if (invalid !== undefined) return yield* invalid
  const seen = yield* store.cards.get(id)
  if (seen === undefined) return yield* cardNotFound(id)
  const conflict = conflictOf(seen, request)
  if (conflict !== undefined) return yield* conflict

  let accounts: ReadonlyArray<InternalAccountRecord> | undefined
  if (request.fundingSources !== undefined) {
    const settings = yield* EngineConfig
    accounts = yield* eligibleFundingAccounts(
      store,
      issuer,
      settings,
      seen.cardholderId,
      request.fundingSources,
      seen.currency
    )
  }
  const capabilities = accounts === undefined ? seen.cardCapabilities : capabilitiesOf(issuer.program, accounts)
  // The limits the card will hold, set now or kept, need what the card will be able to do.
  const refused = unsupportedLimits(withLimits(seen, request), capabilities)
  if (refused !== undefined) return yield* refused

  return yield* store.transaction(
    Effect.gen(function* () {
      const now = yield* nowIso
      const current = yield* store.cards.getForUpdate(id)
      if (current === undefined) return yield* cardNotFound(id)
      const raced = conflictOf(current, request)
      if (raced !== undefined) return yield* raced

      let next = withLimits(current, request)
      let sourcesChanged = false
      if (accounts !== undefined) {
        const bindings = yield* bindingsFor(ids, accounts, current.bindings)
        sourcesChanged = accountIdsOf(bindings).join() !== current.fundingSources.join()
        if (sourcesChanged) {
          yield* detachSteps(store, removedBindings(current.bindings, bindings), now)
          next = {
            ...next,
            bindings,
            fundingSources: accountIdsOf(bindings),
            cardCapabilities: capabilities,
            ...issuerChange(next, { fundingAccountIds: accountIdsOf(bindings) }, now)
          }
        }
      }
      if (request.state !== undefined) {
        next = yield* moveCardSteps(
          ports,
          current,
          cardEventOf[request.state],
          { ...next, ...issuerChange(next, { state: request.state }, now) },
          now
        )
      } else {
        next = { ...next, updatedAt: now }
        yield* dieOnUnique(store.cards.update(next))
      }
      if (sourcesChanged) yield* emitSteps(store, ids, [FUNDING_SOURCE_CHANGE], next.id, toCard(next), now)
      return toCard(next)
    })
  )
})

/**
 * The change due to the issuer, merged with one not sent yet. A card still provisioning is not asked about it: the
 * provisioning answer comes first, then the worker sends it (a card never provisioned gets its sources with
 * `provision`).
 */
const issuerChange = (card: CardRecord, change: CardIssuerSync, now: string): Partial<CardRecord> => {
  if (card.processorRef === undefined) return {}
  return card.state === "PROCESSING"
    ? { issuerSync: pendingSync(card, change) }
    : { issuerSync: pendingSync(card, change), dueAt: now }
}

/**
 * The service's own close (compliance; in-process only): `CLOSE_BY_SERVICE` from `ACTIVE` or `FROZEN`
 * (`stateReason` `CLOSED_BY_SERVICE`), as a platform close otherwise. 404, and 409 from another state.
 */
export const closeCardByService = Effect.fnUntraced(function* (ports: IssuerPorts, id: string) {
  const { store } = ports
  return yield* store.transaction(
    Effect.gen(function* () {
      const now = yield* nowIso
      const current = yield* store.cards.getForUpdate(id)
      if (current === undefined) return yield* cardNotFound(id)
      if (cardMoveTarget(current.state, "CLOSE_BY_SERVICE") === undefined) {
        return yield* invalidCardTransition(current.state, "CLOSED")
      }
      const closed = yield* moveCardSteps(
        ports,
        current,
        "CLOSE_BY_SERVICE",
        issuerChange(current, { state: "CLOSED" }, now),
        now
      )
      return toCard(closed)
    })
  )
})
