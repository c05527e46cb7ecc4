import { Effect, Result } from "effect"
import type { CardIssuerError, CardIssuerUpdate, CardProvisioning } from "../ports/card-issuer.ts"
import type { KeyVaultService } from "../ports/key-vault.ts"
import { walkDue } from "../shared/due-walk.ts"
import type { StoreError } from "../shared/errors.ts"
import { addSeconds, pollBackoffSeconds } from "../shared/time.ts"
import type { Steps } from "../shared/tracing.ts"
import { moveCardSteps } from "./card-moves.ts"
import { dieOnUnique } from "./funding-sources.ts"
import type { CardIssuerSync, CardRecord } from "./model.ts"
import type { CardPorts, IssuerPorts } from "./ports.ts"

// Provisioning and issuer syncs (design section 3, "Issue" step 3, and "Update and close"): the cards worker's first
// pass. Issuer calls run between store transactions (`POST /cards` answers inside its idempotency transaction, where
// no issuer call belongs); each answer is applied in its own transaction that re-reads the card under lock, so a pass
// run twice or concurrently does nothing twice.

/** The KeyVault context of a card's sealed 3-D Secure password (design Q19): it opens for that card only. */
export const threeDSecureContext = (cardId: string): string => `card-3ds:${cardId}`

/**
 * Retryable issuer errors (and answers still pending without a time to ask again) on one card: the worker retries
 * with capped exponential backoff (5 s doubling to 1 h), then leaves the card where it is with `stalledAt` set and a
 * warning in the log, as the settlement worker does with a rail (`MAX_POLL_ATTEMPTS`). An operator resumes it by
 * setting `dueAt` again with `attempts: 0`.
 */
export const MAX_ISSUER_ATTEMPTS = 20

/** Cards read per page by a pass. */
const WORKER_PAGE = 100

type Patch = Partial<CardRecord>

/** The record without the keys of `keys` (an optional column cleared). */
const without = (card: CardRecord, ...keys: ReadonlyArray<keyof CardRecord>): CardRecord => {
  const copy: Record<string, unknown> = { ...card }
  for (const key of keys) delete copy[key]
  return copy as unknown as CardRecord
}

/** Saves `card` with `patch` applied and `cleared` removed (no move, no event). */
const saveSteps = (ports: CardPorts, card: CardRecord, patch: Patch, cleared: ReadonlyArray<keyof CardRecord>) =>
  dieOnUnique(ports.store.cards.update(without({ ...card, ...patch }, ...cleared)))

/**
 * A retryable failure (or an open-ended wait): next try after the backoff, or, at `MAX_ISSUER_ATTEMPTS`, the card
 * stalls (no `dueAt`, `stalledAt` set). `what` names the call in the warning.
 */
function* retryLaterSteps(ports: CardPorts, card: CardRecord, now: string, what: string): Steps<void, StoreError> {
  const attempts = (card.attempts ?? 0) + 1
  if (attempts < MAX_ISSUER_ATTEMPTS) {
    return yield* saveSteps(ports, card, { attempts, dueAt: addSeconds(now, pollBackoffSeconds(attempts)) }, [])
  }
  yield* stallSteps(
    ports,
    { ...card, attempts },
    now,
    `the issuer did not answer the ${what} after ${attempts} attempts`
  )
}

/** The worker stops asking about this card (an operator looks): `stalledAt` set, `dueAt` cleared, a warning logged. */
function* stallSteps(ports: CardPorts, card: CardRecord, now: string, why: string): Steps<void, StoreError> {
  yield* Effect.logWarning(`paycore cards worker: ${why} for ${card.id}; left ${card.state} for an operator`)
  yield* saveSteps(ports, card, { stalledAt: now }, ["dueAt"])
}

/** What a closed (rejected) card keeps no more: the worker's bookkeeping and any unsent issuer change. */
const ISSUE_BOOKKEEPING = [
  "threeDSecurePasswordSealed",
  "issuerSync",
  "dueAt",
  "attempts",
  "stalledAt"
] as const satisfies ReadonlyArray<keyof CardRecord>

/**
 * The issuer's answer to a `provision` or `status` call, applied to a card still `PROCESSING` with the same
 * `processorRef` (else someone else applied one). `Active` → `ACTIVATE` with the card's details (CD-20); `Rejected`
 * → `REJECT` (`CLOSED`, `ISSUER_REJECTED`, the live slot freed, CD-21); `Pending` → asked again at `checkAgainAt`, or
 * after the backoff. Any answer means the issuer has the request: the sealed 3-D Secure password is erased (Q19). A
 * non-retryable error is the issuer refusing the card: `REJECT` too.
 */
const applyProvisioning = Effect.fnUntraced(function* (
  ports: IssuerPorts,
  seen: CardRecord,
  answer: Result.Result<CardProvisioning, CardIssuerError>,
  now: string
) {
  const card = yield* ports.store.cards.getForUpdate(seen.id)
  if (card === undefined || card.state !== "PROCESSING" || card.processorRef !== seen.processorRef) return
  if (Result.isFailure(answer)) {
    const error = answer.failure
    if (error.retryable) return yield* retryLaterSteps(ports, card, now, "provisioning")
    yield* Effect.logWarning(`paycore cards worker: the issuer refused to provision ${card.id}: ${error.message}`)
    return yield* moveCardSteps(ports, without(card, ...ISSUE_BOOKKEEPING), "REJECT", {}, now)
  }
  const provisioning = answer.success
  const acknowledged = without(card, "threeDSecurePasswordSealed", "attempts", "stalledAt")
  switch (provisioning._tag) {
    case "Active": {
      const details: Patch = {
        processorRef: provisioning.processorRef,
        issuerRef: provisioning.issuerRef,
        brand: provisioning.brand,
        last4: provisioning.last4,
        expMonth: provisioning.expMonth,
        expYear: provisioning.expYear
      }
      // A change made while the card was provisioning still has to reach the issuer: due again at once.
      const base = card.issuerSync === undefined ? without(acknowledged, "dueAt") : { ...acknowledged, dueAt: now }
      return yield* moveCardSteps(ports, base, "ACTIVATE", details, now)
    }
    case "Rejected":
      return yield* moveCardSteps(
        ports,
        without(acknowledged, ...ISSUE_BOOKKEEPING),
        "REJECT",
        { processorRef: provisioning.processorRef },
        now
      )
    case "Pending": {
      const pending = { ...without(card, "threeDSecurePasswordSealed"), processorRef: provisioning.processorRef }
      if (provisioning.checkAgainAt !== undefined) {
        return yield* saveSteps(ports, pending, { dueAt: provisioning.checkAgainAt }, ["attempts"])
      }
      return yield* retryLaterSteps(ports, pending, now, "provisioning")
    }
  }
})

/** The first ask: `provision` with the sealed 3-D Secure password opened for this call only. */
const provision = Effect.fnUntraced(function* (ports: IssuerPorts, card: CardRecord) {
  let threeDSecurePassword: string | undefined
  if (card.threeDSecurePasswordSealed !== undefined) {
    const opened = yield* ports.vault.open(card.threeDSecurePasswordSealed, threeDSecureContext(card.id))
    // Sealed under another key-encryption key: the card is provisioned without it (the platform sets it again).
    if (opened === undefined) {
      yield* Effect.logWarning(`paycore cards worker: the 3-D Secure password of ${card.id} does not open here`)
    } else {
      threeDSecurePassword = new TextDecoder().decode(opened)
      opened.fill(0)
    }
  }
  return yield* ports.issuer.provision({
    cardId: card.id,
    cardholderId: card.cardholderId,
    platformCardId: card.platformCardId,
    platformCardIdGiven: card.platformCardIdGiven,
    form: card.form,
    currency: card.currency,
    fundingAccountIds: card.fundingSources,
    ...(threeDSecurePassword === undefined ? {} : { threeDSecurePassword })
  })
})

/** Two issuer changes are the same (what was sent is still what is due). */
const sameSync = (a: CardIssuerSync | undefined, b: CardIssuerSync | undefined): boolean =>
  JSON.stringify(a ?? null) === JSON.stringify(b ?? null)

/**
 * The issuer's answer to an `update` (a state move, a new binding): on success the change is done unless a newer one
 * came meanwhile (then it is sent again at once); a retryable error is retried, another stalls the card.
 */
const applySync = Effect.fnUntraced(function* (
  ports: IssuerPorts,
  sent: CardIssuerSync,
  cardId: string,
  answer: Result.Result<void, CardIssuerError>,
  now: string
) {
  const card = yield* ports.store.cards.getForUpdate(cardId)
  if (card === undefined || card.issuerSync === undefined) return
  if (Result.isFailure(answer)) {
    if (answer.failure.retryable) return yield* retryLaterSteps(ports, card, now, "update")
    return yield* stallSteps(ports, card, now, `the issuer refused the update (${answer.failure.message})`)
  }
  if (!sameSync(card.issuerSync, sent)) return yield* saveSteps(ports, card, { dueAt: now }, ["attempts"])
  return yield* saveSteps(ports, card, {}, ["issuerSync", "dueAt", "attempts", "stalledAt"])
})

/** One due card: provision or poll a `PROCESSING` one, else send its unsent issuer change. */
const stepCard = Effect.fnUntraced(function* (ports: IssuerPorts, card: CardRecord, now: string) {
  const { store, issuer } = ports
  if (card.state === "PROCESSING") {
    const ask = card.processorRef === undefined ? provision(ports, card) : issuer.status(card.processorRef)
    const answer = yield* Effect.result(ask)
    return yield* store.transaction(applyProvisioning(ports, card, answer, now))
  }
  const sync = card.issuerSync
  if (sync !== undefined && card.processorRef !== undefined) {
    const change: CardIssuerUpdate = sync
    const answer = yield* Effect.result(issuer.update(card.processorRef, change))
    return yield* store.transaction(applySync(ports, sync, card.id, answer, now))
  }
  // Nothing left to do (a sync another pass finished): no longer due.
  return yield* store.transaction(
    Effect.gen(function* () {
      const current = yield* store.cards.getForUpdate(card.id)
      const work = current?.issuerSync !== undefined && current.processorRef !== undefined
      if (current !== undefined && current.state !== "PROCESSING" && current.dueAt !== undefined && !work) {
        yield* saveSteps(ports, current, {}, ["dueAt", "attempts"])
      }
    })
  )
})

/**
 * The cards worker's first pass: every card due by `now` (provisioning, polling, an issuer change to send) stepped
 * in its own store transactions; a step that fails is logged and retried by a later pass. Nothing without an issuer.
 */
export const provisionDueCards = Effect.fnUntraced(function* (ports: CardPorts, vault: KeyVaultService, now: string) {
  const issuer = ports.issuer
  if (issuer === undefined) return { stepped: 0, errors: 0 }
  const issuing: IssuerPorts = { ...ports, issuer, vault }
  let stepped = 0
  let errors = 0
  yield* walkDue(ports.store.cards, { dueBy: now }, WORKER_PAGE, (cards) =>
    Effect.forEach(cards, (card) =>
      Effect.flatMap(Effect.exit(stepCard(issuing, card, now)), (exit) => {
        if (exit._tag === "Success") {
          stepped++
          return Effect.void
        }
        errors++
        return Effect.logWarning("paycore cards worker step failed", exit.cause)
      })
    )
  )
  return { stepped, errors }
})
