/**
 * Receiver lookups kept for the quotes that follow them (Q-03, C-23, Q-48): `GET /receiver/...` stores what it looked
 * up (`recordLookup`) under the `lookupId` it answers, for `LOOKUP_LIFETIME_SECONDS`; `POST /quotes` checks the one
 * it names (`checkLookupSteps`).
 */
import { Clock, Effect } from "effect"
import type { Mutable } from "effect/Types"
import type { CounterpartyFieldDefinition } from "../platform/model.ts"
import type { Store } from "../ports/store.ts"
import type { CustomerId } from "../shared/ids.ts"
import { isoAfter, isoOf } from "../shared/time.ts"
import type { Steps } from "../shared/tracing.ts"
import { lookupNotFound, lookupOfAnotherReceiver, lookupRequired, missingPayerData, type QuoteError } from "./errors.ts"
import type { CreateQuoteRequest, LookupRecord } from "./model.ts"
import type { ReceiverLookupPorts } from "./ports.ts"

/** How long a quote may name a lookup by its `lookupId`: long enough to show the receiver's terms and quote. */
export const LOOKUP_LIFETIME_SECONDS = 15 * 60

/** Stores a lookup (in its own store transaction), live for `LOOKUP_LIFETIME_SECONDS` from now; returns it. */
export const recordLookup = Effect.fnUntraced(
  function* (
    ports: ReceiverLookupPorts,
    destinationType: LookupRecord["destinationType"],
    receiver: string,
    requiredPayerDataFields: ReadonlyArray<CounterpartyFieldDefinition>,
    customerId: CustomerId | undefined
  ) {
    const id = yield* ports.ids.make("Lookup")
    const nowMs = yield* Clock.currentTimeMillis
    const lookup: Mutable<LookupRecord> = {
      id,
      destinationType,
      receiver,
      requiredPayerDataFields,
      createdAt: isoOf(nowMs),
      expiresAt: isoAfter(nowMs, LOOKUP_LIFETIME_SECONDS)
    }
    if (customerId !== undefined) lookup.customerId = customerId
    yield* ports.store.transaction(ports.store.lookups.insert(lookup))
    return lookup
  },
  // A fresh id taken is a bug, not the client's doing.
  Effect.catchTag("UniqueViolation", (e) => Effect.die(e))
)

/** UMA addresses as receivers match them: case aside, with or without the leading `$`. */
const umaKey = (address: string): string => address.trim().toLowerCase().replace(/^\$/, "")

/** A value the payer data field is given by: present, not null, not an empty string. */
const given = (info: Readonly<Record<string, unknown>> | undefined, name: string): boolean => {
  const value = info?.[name]
  return value !== undefined && value !== null && value !== ""
}

/**
 * The receiver lookup a quote names, checked against the quote (inside no store transaction; one read): a quote to an
 * UMA address must name one (400 on `lookupId`); a named lookup must be live at `now` (404
 * `LOOKUP_REQUEST_NOT_FOUND` when unknown or expired), of the quote's destination (400 on `lookupId`), and the
 * quote's `senderCustomerInfo` must carry every mandatory payer data field it asked for (400
 * `MISSING_MANDATORY_USER_INFO`, each field named).
 */
export function* checkLookupSteps(
  store: Store["Service"],
  request: CreateQuoteRequest,
  now: string
): Steps<void, QuoteError> {
  const destination = request.destination
  const id = request.lookupId
  if (id === undefined) {
    if (destination.destinationType === "UMA_ADDRESS") return yield* Effect.fail(lookupRequired(destination.umaAddress))
    return
  }
  const lookup = yield* store.lookups.get(id)
  if (lookup === undefined || now >= lookup.expiresAt) return yield* Effect.fail(lookupNotFound(id))
  const same =
    destination.destinationType === "UMA_ADDRESS"
      ? lookup.destinationType === "UMA_ADDRESS" && umaKey(lookup.receiver) === umaKey(destination.umaAddress)
      : lookup.destinationType === "ACCOUNT" && lookup.receiver === destination.accountId
  if (!same) {
    const target = destination.destinationType === "UMA_ADDRESS" ? destination.umaAddress : destination.accountId
    return yield* Effect.fail(lookupOfAnotherReceiver(id, lookup.receiver, target))
  }
  const missing = lookup.requiredPayerDataFields
    .filter((field) => field.mandatory && !given(request.senderCustomerInfo, field.name))
    .map((field) => field.name)
  if (missing.length > 0) return yield* Effect.fail(missingPayerData(id, missing))
}
