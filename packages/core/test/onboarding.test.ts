import { assert, describe, it } from "@effect/vitest"
import { layer as memoryStore } from "@paycore/store-memory"
import { Effect, Layer, Redacted, Result } from "effect"
import { TestClock } from "effect/testing"
import { expect, it as vit } from "vitest"
import type { CreateCustomerRequest, KycStatus } from "../src/customers/model.ts"
import { Customers } from "../src/customers/service.ts"
import {
  CONTACT_CODE_MAX_ATTEMPTS,
  CONTACT_CODE_RESEND_SECONDS,
  CONTACT_CODE_TTL_SECONDS
} from "../src/onboarding/contact-verification.ts"
import {
  beneficialOwnerKycMachine,
  customerKybMachine,
  customerKycMachine,
  type KycDecision,
  kycEventFor
} from "../src/onboarding/machine.ts"
import { Onboarding } from "../src/onboarding/service.ts"
import { PlatformConfigService } from "../src/platform/service.ts"
import { Directory } from "../src/ports/directory.ts"
import { Ids } from "../src/ports/ids.ts"
import { KycProvider, type KycReview, type VerificationPacket } from "../src/ports/kyc.ts"
import { Notifier } from "../src/ports/notifier.ts"
import { Store } from "../src/ports/store.ts"
import { IllegalTransition, type Machine, transition } from "../src/shared/machine.ts"
import { eventsOf, T0 } from "./fixtures.ts"

// ---- the machines ----

const STATES: ReadonlyArray<KycStatus> = ["UNVERIFIED", "PENDING", "APPROVED", "REJECTED", "HOLD"]
const EVENTS = ["SUBMIT", "APPROVE", "REJECT", "HOLD"] as const

/** `state event -> next`, written from the spec; every pair not listed is illegal. */
const MOVES: Readonly<Record<string, KycStatus>> = {
  "UNVERIFIED SUBMIT": "PENDING",
  "UNVERIFIED APPROVE": "APPROVED",
  "UNVERIFIED REJECT": "REJECTED",
  "PENDING APPROVE": "APPROVED",
  "PENDING REJECT": "REJECTED",
  "PENDING HOLD": "HOLD",
  "HOLD SUBMIT": "PENDING",
  "HOLD APPROVE": "APPROVED",
  "HOLD REJECT": "REJECTED"
}

const emitted = (prefix: string | undefined, to: KycStatus): Array<string> =>
  prefix === undefined || to === "HOLD" ? [] : [`CUSTOMER.${prefix}_${to}`]

const machines: ReadonlyArray<readonly [Machine<KycStatus, string, string>, string | undefined]> = [
  [customerKycMachine, "KYC"],
  [customerKybMachine, "KYB"],
  [beneficialOwnerKycMachine, undefined]
]

describe("KYC machines", () => {
  for (const [machine, prefix] of machines) {
    describe(machine.name, () => {
      vit("has the KycStatus states, starts UNVERIFIED, ends APPROVED or REJECTED", () => {
        expect([...machine.states].sort()).toEqual([...STATES].sort())
        expect([...machine.events].sort()).toEqual([...EVENTS].sort())
        expect(machine.initial).toBe("UNVERIFIED")
        expect([...machine.terminal].sort()).toEqual(["APPROVED", "REJECTED"])
      })
      for (const state of STATES) {
        for (const event of EVENTS) {
          const want = MOVES[`${state} ${event}`]
          vit(`${state} ${event} → ${want ?? "illegal"}`, () => {
            const result = transition(machine, state, event)
            if (want === undefined) {
              assert.isTrue(Result.isFailure(result))
              if (Result.isFailure(result)) {
                expect(result.failure).toBeInstanceOf(IllegalTransition)
                expect(result.failure).toMatchObject({ machine: machine.name, from: state, event })
              }
            } else {
              assert.isTrue(Result.isSuccess(result))
              if (Result.isSuccess(result)) {
                expect(result.success.to).toBe(want)
                expect([...result.success.emits]).toEqual(emitted(prefix, want))
              }
            }
          })
        }
      }
    })
  }

  /** `state decision -> event` (absent: no move). */
  const DECISIONS: Readonly<Record<string, string>> = {
    "UNVERIFIED IN_REVIEW": "SUBMIT",
    "UNVERIFIED APPROVED": "APPROVE",
    "UNVERIFIED REJECTED": "REJECT",
    "PENDING APPROVED": "APPROVE",
    "PENDING REJECTED": "REJECT",
    "PENDING HOLD": "HOLD",
    "HOLD IN_REVIEW": "SUBMIT",
    "HOLD APPROVED": "APPROVE",
    "HOLD REJECTED": "REJECT"
  }
  for (const state of STATES) {
    for (const decision of ["IN_REVIEW", "APPROVED", "REJECTED", "HOLD"] as const) {
      const want = DECISIONS[`${state} ${decision}`]
      vit(`kycEventFor(${state}, ${decision}) → ${want ?? "no move"}`, () => {
        const event = kycEventFor(state, decision)
        expect(event).toBe(want)
        // Every event it names is a legal move of the machines.
        if (event !== undefined) assert.isTrue(Result.isSuccess(transition(customerKycMachine, state, event)))
      })
    }
  }
})

// ---- the service over a scripted provider ----

interface Script {
  /** The next review's verdict (default: approve every subject). */
  review: (packet: VerificationPacket) => KycReview
  /** Called during the review (outside the store transaction), e.g. to change the customer meanwhile. */
  during?: (() => Effect.Effect<void, never, Store>) | undefined
  failing: boolean
  required: { email: boolean; phone: boolean }
  readonly sent: Array<{ readonly channel: string; readonly to: string; readonly code: Redacted.Redacted<string> }>
  fixedCode: string | undefined
}

const approveAll = (packet: VerificationPacket): KycReview => ({
  verificationStatus: "APPROVED",
  errors: [],
  decisions: [
    ...packet.beneficialOwners.map((o) => ({ subjectId: o.id, decision: "APPROVED" as KycDecision })),
    { subjectId: packet.customer.id, decision: "APPROVED" }
  ]
})

const makeEnv = () => {
  const script: Script = {
    review: approveAll,
    failing: false,
    required: { email: false, phone: false },
    sent: [],
    fixedCode: "123456"
  }
  const provider = Layer.effect(
    KycProvider,
    Effect.map(Effect.context<Store>(), (context) =>
      KycProvider.of({
        createLink: ({ customer }) =>
          script.failing
            ? Effect.fail({ _tag: "KycProviderError", message: "down", retryable: true })
            : Effect.succeed({
                kycUrl: `https://kyc.test/${customer.id}`,
                expiresAt: "2030-01-01T00:00:00.000Z",
                provider: "SUMSUB"
              }),
        review: (packet) =>
          Effect.gen(function* () {
            if (script.failing)
              return yield* Effect.fail({ _tag: "KycProviderError" as const, message: "down", retryable: true })
            if (script.during !== undefined) yield* Effect.provide(script.during(), context)
            return script.review(packet)
          }),
        screenDocument: () => Effect.succeed({ _tag: "Accepted" }),
        contactVerification: () => script.required
      })
    )
  )
  const notifier = Layer.succeed(
    Notifier,
    Notifier.of({
      send: (channel, to, code) => Effect.sync(() => void script.sent.push({ channel, to, code })),
      get fixedCode() {
        return script.fixedCode
      },
      fixedWalletCode: undefined
    })
  )
  const directory = Layer.succeed(
    Directory,
    Directory.of({
      institutions: () => Effect.succeed([]),
      umaProviders: () => Effect.succeed([]),
      umaReceiver: () => Effect.succeed(undefined),
      vasps: () => Effect.succeed([])
    })
  )
  const ports = Layer.mergeAll(memoryStore, Ids.layerSeeded(5), notifier, directory)
  const layer = Layer.mergeAll(Onboarding.layer, Customers.layer).pipe(
    Layer.provideMerge(PlatformConfigService.layer),
    Layer.provideMerge(Layer.provideMerge(provider, ports))
  )
  return { script, layer }
}

const individual = (fields: Record<string, unknown> = {}) =>
  ({ customerType: "INDIVIDUAL", fullName: "Ada Lovelace", ...fields }) as CreateCustomerRequest
const business = {
  customerType: "BUSINESS",
  businessInfo: { legalName: "Acme", country: "US", incorporatedOn: "2020-01-01", taxId: "1" }
} as CreateCustomerRequest

describe("Onboarding service", () => {
  it.effect("decisions move customer and owners through their machines, with events in the same commit", () => {
    const { script, layer } = makeEnv()
    return Effect.gen(function* () {
      const onboarding = yield* Onboarding
      const customers = yield* Customers
      const b = yield* customers.create(business)
      const owner = yield* onboarding.createBeneficialOwner({
        customerId: b.id,
        roles: ["UBO"],
        ownershipPercentage: 30,
        personalInfo: {
          firstName: "A",
          lastName: "B",
          birthDate: "1990-01-01",
          nationality: "US",
          address: { line1: "x", postalCode: "1", country: "US" },
          idType: "SSN",
          identifier: "1"
        }
      })
      script.review = (packet) => ({
        verificationStatus: "PENDING_MANUAL_REVIEW",
        errors: [],
        decisions: [
          { subjectId: owner.id, decision: "REJECTED" },
          { subjectId: packet.customer.id, decision: "IN_REVIEW" }
        ]
      })
      const v = yield* onboarding.submitVerification({ customerId: b.id })
      assert.strictEqual(v.verificationStatus, "PENDING_MANUAL_REVIEW")
      assert.strictEqual((yield* onboarding.getBeneficialOwner(owner.id)).kycStatus, "REJECTED")
      const after = yield* customers.get(b.id)
      assert.strictEqual(after.kycStatus, "PENDING")
      assert.strictEqual(after.customerType === "BUSINESS" ? after.kybStatus : undefined, "PENDING")
      assert.deepStrictEqual(yield* eventsOf(b.id), ["VERIFICATION.PENDING_MANUAL_REVIEW", "CUSTOMER.KYB_PENDING"])
      // A decision about an owner that is final already is no move.
      script.review = approveAll
      yield* onboarding.submitVerification({ customerId: b.id })
      assert.strictEqual((yield* onboarding.getBeneficialOwner(owner.id)).kycStatus, "REJECTED")
      assert.strictEqual((yield* customers.get(b.id)).kycStatus, "APPROVED")
    }).pipe(Effect.provide(layer))
  })

  it.effect("a customer changed during the review gets 409 CONFLICT and nothing is written", () => {
    const { script, layer } = makeEnv()
    return Effect.gen(function* () {
      const onboarding = yield* Onboarding
      const customers = yield* Customers
      const c = yield* customers.create(individual())
      script.during = () =>
        Effect.gen(function* () {
          yield* TestClock.adjust(1000)
          yield* Effect.orDie(customers.update(c.id, { customerType: "INDIVIDUAL", fullName: "Ada King" }))
        }).pipe(Effect.provideService(Customers, customers)) as Effect.Effect<void, never, Store>
      const error = yield* Effect.flip(onboarding.submitVerification({ customerId: c.id }))
      assert.deepInclude(error, { _tag: "Conflict", code: "CONFLICT" })
      assert.strictEqual((yield* customers.get(c.id)).kycStatus, "UNVERIFIED")
      assert.strictEqual((yield* onboarding.listVerifications({})).totalCount, 0)
      assert.deepStrictEqual(yield* eventsOf(c.id), [])
      script.during = undefined
      assert.strictEqual((yield* onboarding.submitVerification({ customerId: c.id })).verificationStatus, "APPROVED")
    }).pipe(Effect.provide(layer))
  })

  it.effect("a provider failure is 503 SERVICE_UNAVAILABLE and changes nothing", () => {
    const { script, layer } = makeEnv()
    return Effect.gen(function* () {
      const onboarding = yield* Onboarding
      const c = yield* (yield* Customers).create(individual())
      script.failing = true
      const review = yield* Effect.flip(onboarding.submitVerification({ customerId: c.id }))
      assert.deepInclude(review, { _tag: "Refused", code: "SERVICE_UNAVAILABLE" })
      const link = yield* Effect.flip(onboarding.createKycLink(c.id, { redirectUri: "https://x.example" }))
      assert.deepInclude(link, { _tag: "Refused", code: "SERVICE_UNAVAILABLE" })
      assert.deepStrictEqual(yield* eventsOf(c.id), [])
    }).pipe(Effect.provide(layer))
  })

  it.effect("contact codes: sent through the Notifier (redacted), expire after 10 minutes", () => {
    const { script, layer } = makeEnv()
    return Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      script.required = { email: true, phone: true }
      const onboarding = yield* Onboarding
      const c = yield* (yield* Customers).create(individual({ email: "ada@example.com", phoneNumber: "+14155550123" }))
      yield* onboarding.sendContactCode(c.id, "EMAIL")
      assert.strictEqual(script.sent.length, 1)
      assert.deepInclude(script.sent[0], { channel: "EMAIL", to: "ada@example.com" })
      assert.strictEqual(Redacted.value(script.sent[0]!.code), "123456")
      assert.notInclude(String(script.sent[0]!.code), "123456", "the code prints redacted")
      yield* TestClock.adjust(CONTACT_CODE_TTL_SECONDS * 1000)
      const expired = yield* Effect.flip(onboarding.confirmContactCode(c.id, "EMAIL", "123456"))
      assert.deepInclude(expired, { _tag: "InvalidInput" })
      assert.deepStrictEqual(expired._tag === "InvalidInput" ? expired.errors[0]?.constraint : undefined, {
        expired: true
      })
      // The expired code is gone: a new one can be sent (the resend wait has passed) and confirmed.
      yield* onboarding.sendContactCode(c.id, "EMAIL")
      yield* TestClock.adjust(CONTACT_CODE_TTL_SECONDS * 1000 - 1)
      const ok = yield* onboarding.confirmContactCode(c.id, "EMAIL", "123456")
      assert.strictEqual(ok.contactVerification.email, "VERIFIED")
    }).pipe(Effect.provide(layer))
  })

  it.effect("contact codes: re-sends wait 60 s (429 with retryAfterSeconds); random codes without a fixed one", () => {
    const { script, layer } = makeEnv()
    return Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      script.required = { email: false, phone: true }
      script.fixedCode = undefined
      const onboarding = yield* Onboarding
      const c = yield* (yield* Customers).create(individual({ phoneNumber: "+14155550123" }))
      yield* onboarding.sendContactCode(c.id, "PHONE")
      yield* TestClock.adjust(15_000)
      const limited = yield* Effect.flip(onboarding.sendContactCode(c.id, "PHONE"))
      assert.deepInclude(limited, {
        _tag: "LimitExceeded",
        code: "RATE_LIMITED",
        retryAfterSeconds: CONTACT_CODE_RESEND_SECONDS - 15
      })
      yield* TestClock.adjust((CONTACT_CODE_RESEND_SECONDS - 15) * 1000)
      yield* onboarding.sendContactCode(c.id, "PHONE")
      assert.strictEqual(script.sent.length, 2)
      const [first, second] = script.sent.map((s) => Redacted.value(s.code))
      assert.match(first!, /^\d{6}$/)
      assert.match(second!, /^\d{6}$/)
      // Only the latest code counts.
      if (first !== second) {
        const stale = yield* Effect.flip(onboarding.confirmContactCode(c.id, "PHONE", first!))
        assert.strictEqual(stale._tag, "InvalidInput")
      }
      const ok = yield* onboarding.confirmContactCode(c.id, "PHONE", second!)
      assert.strictEqual(ok.contactVerification.phone, "VERIFIED")
      assert.strictEqual(ok.contactVerification.email, "PENDING")
      // Email is not required for this provider.
      const notRequired = yield* Effect.flip(onboarding.sendContactCode(c.id, "EMAIL"))
      assert.deepInclude(notRequired, { _tag: "Conflict", code: "CONFLICT" })
    }).pipe(Effect.provide(layer))
  })

  it.effect(`contact codes: the ${CONTACT_CODE_MAX_ATTEMPTS}th wrong code voids the code`, () => {
    const { script, layer } = makeEnv()
    return Effect.gen(function* () {
      script.required = { email: true, phone: false }
      const onboarding = yield* Onboarding
      const c = yield* (yield* Customers).create(individual({ email: "ada@example.com" }))
      yield* onboarding.sendContactCode(c.id, "EMAIL")
      const left: Array<unknown> = []
      for (let i = 0; i < CONTACT_CODE_MAX_ATTEMPTS; i++) {
        const e = yield* Effect.flip(onboarding.confirmContactCode(c.id, "EMAIL", "654321"))
        left.push(e._tag === "InvalidInput" ? e.errors[0]?.constraint.attemptsLeft : undefined)
      }
      assert.deepStrictEqual(left, [4, 3, 2, 1, 0])
      const store = yield* Store
      assert.isUndefined(yield* store.contactChallenges.get(`${c.id}/EMAIL`))
    }).pipe(Effect.provide(layer))
  })
})
