import { Clock, Effect, Redacted } from "effect"
import type { Customer } from "../customers/model.ts"
import { liveCustomer } from "../customers/rules.ts"
import type { ContactRequirement } from "../ports/kyc.ts"
import { codeDigest, codeMatches } from "../shared/digests.ts"
import type { InvalidInput } from "../shared/errors.ts"
import { isoAfter, isoOf } from "../shared/time.ts"
import {
  codeExpired,
  contactAlreadyVerified,
  contactMissing,
  contactVerificationNotRequired,
  noOpenCode,
  resendTooSoon,
  wrongCode
} from "./errors.ts"
import { CONTACT_CHANNELS, type ContactChallenge, type ContactChannel, contactChallengeKey } from "./model.ts"
import type { OnboardingPorts } from "./ports.ts"

// Verifying a customer's e-mail address and phone number with one-time codes (`Onboarding.sendContactCode`,
// `confirmContactCode`): the KYC provider says which channels must be verified before KYC begins.

/** How long a contact-verification code can be confirmed. */
export const CONTACT_CODE_TTL_SECONDS = 600
/** Wrong codes accepted before the code is void. */
export const CONTACT_CODE_MAX_ATTEMPTS = 5
/** The shortest wait between two codes sent to the same address (429 `RATE_LIMITED` with `Retry-After`). */
export const CONTACT_CODE_RESEND_SECONDS = 60

/** SHA-256 of the code bound to its customer and channel: the store never sees a code. */

const contactOf = (customer: Customer, channel: ContactChannel): string | undefined =>
  customer[CONTACT_CHANNELS[channel].field]

const isRequired = (requirement: ContactRequirement, channel: ContactChannel): boolean =>
  requirement[CONTACT_CHANNELS[channel].key]

/** The required channels that are not `VERIFIED` yet (KYC cannot begin until this is empty). */
export const pendingContactVerification = (
  customer: Customer,
  requirement: ContactRequirement
): Array<"email" | "phone"> => {
  const pending: Array<"email" | "phone"> = []
  if (requirement.email && customer.contactVerification.email !== "VERIFIED") pending.push("email")
  if (requirement.phone && customer.contactVerification.phone !== "VERIFIED") pending.push("phone")
  return pending
}

type Outcome<A, E> = { readonly ok: A } | { readonly error: E }

/** The customer, locked, when this channel can be verified now. */
const lockForContact = Effect.fnUntraced(function* (
  ports: OnboardingPorts,
  customerId: string,
  channel: ContactChannel
) {
  const customer = yield* liveCustomer(yield* ports.store.customers.getForUpdate(customerId), customerId)
  if (!isRequired(ports.kyc.contactVerification(customer), channel)) {
    return yield* contactVerificationNotRequired(customerId, channel)
  }
  if (customer.contactVerification[CONTACT_CHANNELS[channel].key] === "VERIFIED") {
    return yield* contactAlreadyVerified(customerId, channel)
  }
  return customer
})

const newCode = (ports: OnboardingPorts) =>
  Effect.map(ports.ids.randomHex(4), (hex) => String(Number.parseInt(hex, 16) % 1_000_000).padStart(6, "0"))

/** `POST /customers/{customerId}/verify-email` / `verify-phone`: sends (or re-sends) a one-time code. */
export const sendContactCode = Effect.fnUntraced(function* (
  ports: OnboardingPorts,
  customerId: string,
  channel: ContactChannel
) {
  const { store, notifier } = ports
  const sent = yield* store.transaction(
    Effect.gen(function* () {
      const customer = yield* lockForContact(ports, customerId, channel)
      const to = contactOf(customer, channel)
      if (to === undefined) return yield* contactMissing(customerId, channel)
      const key = contactChallengeKey(customerId, channel)
      const nowMs = yield* Clock.currentTimeMillis
      const open = yield* store.contactChallenges.get(key)
      if (open !== undefined && open.sentTo === to) {
        const waitMs = Date.parse(open.sentAt) + CONTACT_CODE_RESEND_SECONDS * 1000 - nowMs
        if (waitMs > 0) return yield* resendTooSoon(Math.ceil(waitMs / 1000))
      }
      const code = notifier.fixedCode ?? (yield* newCode(ports))
      const challenge: ContactChallenge = {
        key,
        customerId,
        channel,
        codeHash: codeDigest(key, code),
        sentTo: to,
        sentAt: isoOf(nowMs),
        expiresAt: isoAfter(nowMs, CONTACT_CODE_TTL_SECONDS),
        attempts: 0
      }
      yield* store.contactChallenges.put(challenge)
      return { to, code: Redacted.make(code) }
    })
  )
  // Sent once the code is stored (a store transaction may run again; a message must go once).
  yield* notifier.send(CONTACT_CHANNELS[channel].medium, sent.to, sent.code)
})

/** `POST .../verify-email/confirm` / `verify-phone/confirm`: the channel becomes `VERIFIED`. */
export const confirmContactCode = Effect.fnUntraced(function* (
  ports: OnboardingPorts,
  customerId: string,
  channel: ContactChannel,
  code: string
) {
  const { store } = ports
  // A wrong code is a failure the caller sees, but its attempt must be counted: the transaction commits
  // the count and answers the failure as a value.
  const outcome: Outcome<Customer, InvalidInput> = yield* store.transaction(
    Effect.gen(function* () {
      const customer = yield* lockForContact(ports, customerId, channel)
      const key = contactChallengeKey(customerId, channel)
      const open = yield* store.contactChallenges.get(key)
      if (open === undefined || open.sentTo !== contactOf(customer, channel)) return { error: noOpenCode() }
      const nowMs = yield* Clock.currentTimeMillis
      if (nowMs >= Date.parse(open.expiresAt)) {
        yield* store.contactChallenges.delete(key)
        return { error: codeExpired() }
      }
      if (!codeMatches(key, code, open.codeHash)) {
        const attempts = open.attempts + 1
        const left = Math.max(0, CONTACT_CODE_MAX_ATTEMPTS - attempts)
        if (left === 0) yield* store.contactChallenges.delete(key)
        else yield* store.contactChallenges.put({ ...open, attempts })
        return { error: wrongCode(left) }
      }
      yield* store.contactChallenges.delete(key)
      const next: Customer = {
        ...customer,
        contactVerification: { ...customer.contactVerification, [CONTACT_CHANNELS[channel].key]: "VERIFIED" },
        updatedAt: isoOf(nowMs)
      }
      yield* Effect.orDie(store.customers.update(next))
      return { ok: next }
    })
  )
  if ("error" in outcome) return yield* outcome.error
  return outcome.ok
})
