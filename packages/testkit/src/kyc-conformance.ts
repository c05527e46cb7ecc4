/**
 * A conformance kit for `KycProvider` adapters (`ports/kyc.ts`): what onboarding relies on (`onboarding/verification.ts`,
 * `documents.ts`, `contact-verification.ts`, and SCA's use of the contact requirement). Hosted links, packet reviews
 * (a verdict and a decision per subject, the errors the API shows), document screening over a stored file's stream,
 * the contact channels each region requires; the same answers when asked twice; failures as the port's typed errors.
 */
import {
  type BeneficialOwner,
  type BusinessCustomer,
  type ContactRequirement,
  type Customer,
  type DocumentOnFile,
  type DocumentScreening,
  type DocumentType,
  type IndividualCustomer,
  KycLink,
  KycProvider,
  type KycProviderError,
  type KycReview,
  StoreError,
  VerificationError,
  type VerificationPacket,
  VerificationStatus
} from "@paycore/core"
import { type Cause, Clock, Effect, Exit, type Layer, Schema, Stream } from "effect"
import {
  type ConformanceCheck,
  ConformanceFailure,
  endsWithin,
  expectThat,
  type RegisterOptions,
  registerChecks,
  show
} from "./port-checks.ts"

export * from "./conformance-checks.ts"
export type { RegisterOptions } from "./port-checks.ts"

/** The verdicts a complete packet can get. */
export type KycVerdict = "APPROVED" | "REJECTED" | "PENDING_MANUAL_REVIEW"

/** Reshapes the kit's complete individual so the provider decides a verdict (a suffix, a name its sandbox knows...). */
export type SteerIndividual = (customer: IndividualCustomer) => IndividualCustomer

/** Reshapes the kit's complete business and its owner(s) so the provider decides a verdict. */
export type SteerBusiness = (packet: {
  readonly customer: BusinessCustomer
  readonly owners: ReadonlyArray<BeneficialOwner>
}) => { readonly customer: BusinessCustomer; readonly owners: ReadonlyArray<BeneficialOwner> }

/** A file as the screening sees it. */
export interface ScreenedFile {
  readonly documentType: DocumentType
  readonly contentType: string
  readonly bytes: Uint8Array
}

/** How to make the provider answer each outcome; a verdict left out is not checked (say why in your test file). */
export interface KycOutcomes {
  /** Individuals (complete packets): `APPROVED` is required. */
  readonly individuals: {
    readonly APPROVED: SteerIndividual
    readonly REJECTED?: SteerIndividual | undefined
    readonly PENDING_MANUAL_REVIEW?: SteerIndividual | undefined
  }
  /** Businesses (KYB) with one owner holding it all: `APPROVED` is required when given; `ownerRejected`: an owner the provider rejects. */
  readonly businesses?:
    | {
        readonly APPROVED: SteerBusiness
        readonly REJECTED?: SteerBusiness | undefined
        readonly PENDING_MANUAL_REVIEW?: SteerBusiness | undefined
        readonly ownerRejected?: SteerBusiness | undefined
      }
    | undefined
  /** The channels a customer of each region must verify before KYC (list a region that requires some, and one that does not). */
  readonly contactVerification: ReadonlyArray<{
    readonly region: string | undefined
    readonly requires: ContactRequirement
  }>
  /** A file the provider accepts (default: a small PNG passport scan of random bytes) and one it rejects (optional). */
  readonly documents?:
    | { readonly accepted?: ScreenedFile | undefined; readonly rejected?: ScreenedFile | undefined }
    | undefined
  /**
   * Makes the provider unreachable (or failing) for a customer: `createLink` and `review` must then fail with a
   * retryable `KycProviderError` (the engine answers 503 and changes nothing) within `afterSeconds` of the
   * `TestClock` (default 30), never die or wait without end. `business` adds a business to the individual.
   */
  readonly unreachable?:
    | {
        readonly individual: SteerIndividual
        readonly business?: SteerBusiness | undefined
        readonly afterSeconds?: number | undefined
      }
    | undefined
}

export type KycKitOptions = RegisterOptions

// ---- the kit's customers and packets ----

const NOW = "2026-03-02T12:00:00.000Z"
const ADDRESS = { line1: "1 Main St", city: "San Francisco", postalCode: "94105", country: "US" }

const newId = (type: string): string => `${type}:${crypto.randomUUID()}`

const individual = (): IndividualCustomer => ({
  id: newId("Customer") as IndividualCustomer["id"],
  platformCustomerId: `kit-${crypto.randomUUID().slice(0, 8)}`,
  currencies: ["USD"],
  umaAddress: `$kit${crypto.randomUUID().slice(0, 8)}@kit.example`,
  email: "ada@kit.example",
  phoneNumber: "+14155550100",
  contactVerification: { email: "VERIFIED", phone: "VERIFIED" },
  isDeleted: false,
  createdAt: NOW,
  updatedAt: NOW,
  customerType: "INDIVIDUAL",
  kycStatus: "UNVERIFIED",
  fullName: "Ada Lovelace",
  birthDate: "1990-01-01",
  nationality: "US",
  address: ADDRESS,
  idType: "SSN",
  identifier: "123-45-6789"
})

const business = (): BusinessCustomer => ({
  id: newId("Customer") as BusinessCustomer["id"],
  platformCustomerId: `kit-${crypto.randomUUID().slice(0, 8)}`,
  currencies: ["USD"],
  umaAddress: `$kitb${crypto.randomUUID().slice(0, 8)}@kit.example`,
  email: "ops@kit.example",
  phoneNumber: "+14155550101",
  contactVerification: { email: "VERIFIED", phone: "VERIFIED" },
  isDeleted: false,
  createdAt: NOW,
  updatedAt: NOW,
  customerType: "BUSINESS",
  kybStatus: "UNVERIFIED",
  kycStatus: "UNVERIFIED",
  address: ADDRESS,
  businessInfo: {
    legalName: "Analytical Engines LLC",
    country: "US",
    registrationNumber: "R-1842",
    incorporatedOn: "2020-01-01",
    entityType: "LLC",
    taxId: "12-3456789",
    countriesOfOperation: ["US"]
  }
})

const ownerOf = (customer: BusinessCustomer): BeneficialOwner => ({
  id: newId("BeneficialOwner") as BeneficialOwner["id"],
  customerId: customer.id,
  roles: ["UBO", "CONTROL_PERSON"],
  ownershipPercentage: 100,
  personalInfo: {
    firstName: "Grace",
    lastName: "Hopper",
    birthDate: "1980-01-01",
    nationality: "US",
    address: ADDRESS,
    idType: "SSN",
    identifier: "987-65-4321"
  },
  kycStatus: "UNVERIFIED",
  createdAt: NOW,
  updatedAt: NOW
})

const document = (documentHolder: string, documentType: DocumentType): DocumentOnFile => ({
  id: newId("Document"),
  documentHolder,
  documentType
})

const SETTINGS = { isRegulatedFinancialInstitution: false, skipVerificationPaperwork: false } as const

const individualPacket = (customer: IndividualCustomer): VerificationPacket => ({
  customer,
  beneficialOwners: [],
  documents: [document(customer.id, "PASSPORT")],
  settings: SETTINGS
})

const businessPacket = (steer: SteerBusiness): VerificationPacket => {
  const base = business()
  const { customer, owners } = steer({ customer: base, owners: [ownerOf(base)] })
  return {
    customer,
    beneficialOwners: owners,
    documents: [
      document(customer.id, "CERTIFICATE_OF_INCORPORATION"),
      document(customer.id, "SHAREHOLDER_REGISTER"),
      document(customer.id, "UTILITY_BILL"),
      ...owners.map((o) => document(o.id, "NATIONAL_ID"))
    ],
    settings: SETTINGS
  }
}

// ---- calling the port ----

const isProviderError = (e: unknown): e is KycProviderError =>
  typeof e === "object" &&
  e !== null &&
  (e as { _tag?: unknown })._tag === "KycProviderError" &&
  typeof (e as { retryable?: unknown }).retryable === "boolean" &&
  typeof (e as { message?: unknown }).message === "string"

/** What a failed call ended with, as a message shows it: typed errors as they are, the rest marked. */
const endedWith = (cause: Cause.Cause<unknown>): string =>
  show(
    cause.reasons.map((r) =>
      r._tag === "Fail"
        ? isProviderError(r.error) || r.error instanceof StoreError
          ? r.error
          : { untyped: r.error }
        : r._tag === "Die"
          ? { defect: String(r.defect) }
          : r._tag
    )
  )

/** A port call that must succeed; a failure must at least be typed (else the message says it was not). */
const succeed = <A, E>(op: string, effect: Effect.Effect<A, E>) =>
  Effect.flatMap(
    Effect.exit(effect),
    (exit): Effect.Effect<A, ConformanceFailure> =>
      Exit.isSuccess(exit)
        ? Effect.succeed(exit.value)
        : Effect.fail(new ConformanceFailure({ message: `${op} failed: ${endedWith(exit.cause)}` }))
  )

/** A port call to an unreachable provider: it must end, within `seconds`, with retryable `KycProviderError`s only. */
const unreachableAnswer = Effect.fnUntraced(function* (
  op: string,
  call: Effect.Effect<unknown, unknown>,
  seconds: number
) {
  const exit = yield* endsWithin(op, call, seconds)
  if (Exit.isSuccess(exit))
    return yield* expectThat(false, `${op} answered ${show(exit.value)} while the provider is unreachable`)
  const reasons = exit.cause.reasons
  yield* expectThat(
    reasons.length > 0 &&
      reasons.every((r) => r._tag === "Fail" && isProviderError(r.error) && r.error.retryable === true),
    `${op} while the provider is unreachable ended with ${endedWith(exit.cause)}, not a retryable KycProviderError`
  )
})

const VERDICT_DECISION = { APPROVED: "APPROVED", REJECTED: "REJECTED", PENDING_MANUAL_REVIEW: "IN_REVIEW" } as const
const DECISIONS: ReadonlyArray<string> = ["IN_REVIEW", "APPROVED", "REJECTED", "HOLD"]

/** What the engine applies of any review: a known status, errors the API can show, a decision per known subject. */
const wellFormedReview = (packet: VerificationPacket, review: KycReview) =>
  Effect.gen(function* () {
    const subjects: ReadonlyArray<string> = [packet.customer.id, ...packet.beneficialOwners.map((o) => o.id)]
    const resources: ReadonlyArray<string> = [...subjects, ...packet.documents.map((d) => d.id)]
    yield* expectThat(
      Schema.is(VerificationStatus)(review.verificationStatus),
      `verificationStatus ${show(review.verificationStatus)} is not one of the API's`
    )
    for (const error of review.errors) {
      yield* expectThat(Schema.is(VerificationError)(error), `an error the API cannot show: ${show(error)}`)
      yield* expectThat(
        resources.includes(error.resourceId),
        `an error about ${error.resourceId}, none of the packet's customer, owners and documents`
      )
    }
    const seen = new Set<string>()
    for (const { subjectId, decision } of review.decisions) {
      yield* expectThat(subjects.includes(subjectId), `a decision about ${subjectId}, not a subject of the packet`)
      yield* expectThat(!seen.has(subjectId), `two decisions about ${subjectId}`)
      yield* expectThat(DECISIONS.includes(decision), `decision ${show(decision)} is none of ${DECISIONS.join(", ")}`)
      seen.add(subjectId)
    }
    const customerDecision = review.decisions.find((d) => d.subjectId === packet.customer.id)?.decision
    const expected: Record<string, ReadonlyArray<string | undefined>> = {
      APPROVED: ["APPROVED"],
      REJECTED: ["REJECTED"],
      PENDING_MANUAL_REVIEW: ["IN_REVIEW"],
      RESOLVE_ERRORS: ["HOLD", undefined]
    }
    const allowed = expected[review.verificationStatus]
    if (allowed !== undefined) {
      yield* expectThat(
        allowed.includes(customerDecision),
        `${review.verificationStatus} with the customer's decision ${show(customerDecision)} (the engine moves the customer by the decision)`
      )
    }
    if (review.verificationStatus === "APPROVED" || review.verificationStatus === "PENDING_MANUAL_REVIEW") {
      yield* expectThat(review.errors.length === 0, `${review.verificationStatus} with errors ${show(review.errors)}`)
    }
    if (review.verificationStatus === "RESOLVE_ERRORS") {
      yield* expectThat(review.errors.length > 0, "RESOLVE_ERRORS without an error saying what to resolve")
    }
  })

const reviewChecked = (kyc: KycProvider["Service"], packet: VerificationPacket) =>
  Effect.tap(succeed("review", kyc.review(packet)), (review) => wellFormedReview(packet, review))

const expectVerdict = (packet: VerificationPacket, review: KycReview, verdict: KycVerdict) =>
  Effect.gen(function* () {
    yield* expectThat(review.verificationStatus === verdict, `expected ${verdict}, got ${show(review)}`)
    const customerDecision = review.decisions.find((d) => d.subjectId === packet.customer.id)?.decision
    yield* expectThat(
      customerDecision === VERDICT_DECISION[verdict],
      `${verdict}: the customer's decision is ${show(customerDecision)}`
    )
    if (verdict === "APPROVED") {
      for (const owner of packet.beneficialOwners) {
        const decision = review.decisions.find((d) => d.subjectId === owner.id)?.decision
        yield* expectThat(
          decision === "APPROVED",
          `an approved business's owner ${owner.id} is decided ${show(decision)}`
        )
      }
    }
  })

type Check = ConformanceCheck<KycProvider>

const check = (name: string, body: (kyc: KycProvider["Service"]) => Effect.Effect<void, unknown>): Check => ({
  name,
  run: Effect.gen(function* () {
    yield* body(yield* KycProvider)
  })
})

/** Every packet the outcomes can drive, with its verdict and a label. */
const drivenPackets = (outcomes: KycOutcomes) => {
  const packets: Array<{ label: string; verdict: KycVerdict; packet: () => VerificationPacket }> = []
  for (const verdict of ["APPROVED", "REJECTED", "PENDING_MANUAL_REVIEW"] as const) {
    const steerIndividual = outcomes.individuals[verdict]
    if (steerIndividual !== undefined) {
      packets.push({
        label: `an individual ${verdict}`,
        verdict,
        packet: () => individualPacket(steerIndividual(individual()))
      })
    }
    const steerBusiness = outcomes.businesses?.[verdict]
    if (steerBusiness !== undefined) {
      packets.push({ label: `a business ${verdict}`, verdict, packet: () => businessPacket(steerBusiness) })
    }
  }
  return packets
}

const reviewChecks = (outcomes: KycOutcomes): ReadonlyArray<Check> => {
  const checks: Array<Check> = drivenPackets(outcomes).map(({ label, verdict, packet }) =>
    check(
      `K-11, K-12: ${label}: a complete packet is ${verdict}, the customer decided ${VERDICT_DECISION[verdict]}${verdict === "APPROVED" && label.includes("business") ? " with its owners" : ""}`,
      (kyc) =>
        Effect.gen(function* () {
          const p = packet()
          yield* expectVerdict(p, yield* reviewChecked(kyc, p), verdict)
        })
    )
  )
  const ownerRejected = outcomes.businesses?.ownerRejected
  if (ownerRejected !== undefined) {
    checks.push(
      check("K-13: an owner the provider rejects: the owner and the business REJECTED", (kyc) =>
        Effect.gen(function* () {
          const p = businessPacket(ownerRejected)
          const review = yield* reviewChecked(kyc, p)
          yield* expectThat(review.verificationStatus === "REJECTED", `expected REJECTED: ${show(review)}`)
          const rejectedOwner = p.beneficialOwners.some(
            (o) => review.decisions.find((d) => d.subjectId === o.id)?.decision === "REJECTED"
          )
          yield* expectThat(rejectedOwner, `no owner decided REJECTED: ${show(review.decisions)}`)
        })
      )
    )
  }
  checks.push(
    check(
      "K-03: an incomplete packet (no date of birth, no identity document): RESOLVE_ERRORS naming each, nothing decided but HOLD",
      (kyc) =>
        Effect.gen(function* () {
          const { birthDate: _omitted, ...rest } = outcomes.individuals.APPROVED(individual())
          const p: VerificationPacket = { ...individualPacket(rest as IndividualCustomer), documents: [] }
          const review = yield* reviewChecked(kyc, p)
          yield* expectThat(review.verificationStatus === "RESOLVE_ERRORS", `expected RESOLVE_ERRORS: ${show(review)}`)
          yield* expectThat(
            review.errors.some((e) => e.resourceId === p.customer.id && e.type === "MISSING_FIELD"),
            `no MISSING_FIELD error on the customer: ${show(review.errors)}`
          )
          yield* expectThat(
            review.errors.some((e) => e.resourceId === p.customer.id && e.type === "MISSING_IDENTITY_DOCUMENT"),
            `no MISSING_IDENTITY_DOCUMENT error on the customer: ${show(review.errors)}`
          )
          yield* expectThat(
            review.decisions.every((d) => d.decision === "HOLD"),
            `an incomplete packet decided ${show(review.decisions)}`
          )
        })
    ),
    check("answers are consistent: the same packet reviewed twice gets the same verdict, errors and decisions", (kyc) =>
      Effect.gen(function* () {
        for (const { label, packet } of drivenPackets(outcomes)) {
          const p = packet()
          const first = yield* reviewChecked(kyc, p)
          const again = yield* reviewChecked(kyc, p)
          yield* expectThat(show(again) === show(first), `${label}: ${show(first)}, then ${show(again)}`)
        }
      })
    )
  )
  return checks
}

const isoInstant = (value: unknown): boolean =>
  typeof value === "string" && !Number.isNaN(Date.parse(value)) && new Date(Date.parse(value)).toISOString() === value

const linkChecks: ReadonlyArray<Check> = [
  check(
    "CU-29: createLink: a fresh https link for an individual and for a business, valid until a time to come, from a known provider",
    (kyc) =>
      Effect.gen(function* () {
        const redirectUri = "https://platform.kit.example/kyc-done?from=kit"
        for (const customer of [individual(), business()] as ReadonlyArray<Customer>) {
          const first = yield* succeed("createLink", kyc.createLink({ customer, redirectUri }))
          const again = yield* succeed("createLink", kyc.createLink({ customer, redirectUri }))
          const now = yield* Clock.currentTimeMillis
          for (const link of [first, again]) {
            yield* expectThat(Schema.is(KycLink)(link), `a link the API cannot show: ${show(link)}`)
            yield* expectThat(/^https:\/\/[^\s]+$/.test(link.kycUrl), `kycUrl must be https: ${show(link.kycUrl)}`)
            yield* expectThat(isoInstant(link.expiresAt), `expiresAt must be an ISO instant: ${show(link.expiresAt)}`)
            yield* expectThat(
              Date.parse(link.expiresAt) > now,
              `expiresAt ${link.expiresAt} is not after now (${new Date(now).toISOString()})`
            )
          }
          yield* expectThat(
            first.kycUrl !== again.kycUrl,
            `a hosted link is single-use: two calls answered the same ${first.kycUrl}`
          )
        }
      })
  )
]

const contactChecks = (outcomes: KycOutcomes): ReadonlyArray<Check> => [
  check(
    "CU-37: contactVerification: the channels each region requires, for individuals and businesses, the same when asked twice",
    (kyc) =>
      Effect.gen(function* () {
        for (const { region, requires } of outcomes.contactVerification) {
          for (const base of [individual(), business()] as ReadonlyArray<Customer>) {
            const { region: _none, ...rest } = base
            const customer = (region === undefined ? rest : { ...rest, region }) as Customer
            const first = kyc.contactVerification(customer)
            const again = kyc.contactVerification(customer)
            const label = `${base.customerType} in ${region ?? "no region"}`
            yield* expectThat(
              show({ email: first.email, phone: first.phone }) ===
                show({ email: requires.email, phone: requires.phone }),
              `${label}: requires ${show(first)}, expected ${show(requires)}`
            )
            yield* expectThat(show(again) === show(first), `${label}: ${show(first)}, then ${show(again)}`)
          }
        }
      })
  )
]

const DEFAULT_ACCEPTED: ScreenedFile = {
  documentType: "PASSPORT",
  contentType: "image/png",
  bytes: (() => {
    const bytes = crypto.getRandomValues(new Uint8Array(60_000))
    bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    return bytes
  })()
}

/** A stored file's body as the DocumentStore gives it: chunks pulled one after another. */
const bodyOf = (bytes: Uint8Array, chunk = 16_384): Stream.Stream<Uint8Array, StoreError> =>
  Stream.fromIterable(Array.from({ length: Math.ceil(bytes.byteLength / chunk) }, (_, i) => i)).pipe(
    Stream.map((i) => bytes.slice(i * chunk, (i + 1) * chunk))
  )

const screen = (kyc: KycProvider["Service"], file: ScreenedFile, body = bodyOf(file.bytes)) =>
  kyc.screenDocument({
    documentType: file.documentType,
    contentType: file.contentType,
    size: file.bytes.byteLength,
    body
  })

const screeningVerdict = (label: string, verdict: DocumentScreening) =>
  Effect.gen(function* () {
    yield* expectThat(
      verdict._tag === "Accepted" || verdict._tag === "Rejected",
      `${label}: the verdict is ${show(verdict)}, neither Accepted nor Rejected`
    )
    if (verdict._tag === "Rejected") {
      yield* expectThat(
        typeof verdict.reason === "string" && verdict.reason.length > 0,
        `${label}: Rejected must say why`
      )
    }
  })

const screeningChecks = (outcomes: KycOutcomes): ReadonlyArray<Check> => {
  const accepted = outcomes.documents?.accepted ?? DEFAULT_ACCEPTED
  const rejected = outcomes.documents?.rejected
  const checks: Array<Check> = [
    check("K-25, K-26: screenDocument over a stored file's stream: Accepted, the same verdict twice", (kyc) =>
      Effect.gen(function* () {
        const first = yield* succeed("screenDocument", screen(kyc, accepted))
        yield* screeningVerdict("screenDocument", first)
        yield* expectThat(first._tag === "Accepted", `an acceptable file: ${show(first)}`)
        const again = yield* succeed("screenDocument", screen(kyc, accepted))
        yield* expectThat(show(again) === show(first), `${show(first)}, then ${show(again)}`)
      })
    ),
    check(
      "K-25: a stored file whose stream fails while read: the StoreError comes back as it is (or the file is not read), never a defect",
      (kyc) =>
        Effect.gen(function* () {
          const broken = Stream.concat(
            bodyOf(accepted.bytes.slice(0, 16_384)),
            Stream.fail(new StoreError({ message: "the kit's document store lost the file", retryable: true }))
          )
          const exit = yield* Effect.exit(screen(kyc, accepted, broken))
          if (Exit.isSuccess(exit)) return yield* screeningVerdict("screenDocument", exit.value)
          const reasons = exit.cause.reasons
          const passedOn = reasons.some(
            (r) => r._tag === "Fail" && (r.error instanceof StoreError || isProviderError(r.error))
          )
          yield* expectThat(
            passedOn && reasons.every((r) => r._tag === "Fail"),
            `the failed read ended the screening with ${show(reasons.map((r) => (r._tag === "Fail" ? r.error : r._tag === "Die" ? String(r.defect) : r._tag)))}`
          )
        })
    )
  ]
  if (rejected !== undefined) {
    checks.push(
      check("C-40, K-30: a file the provider refuses: Rejected with the failed check's reason, the same twice", (kyc) =>
        Effect.gen(function* () {
          const first = yield* succeed("screenDocument", screen(kyc, rejected))
          yield* screeningVerdict("screenDocument", first)
          yield* expectThat(first._tag === "Rejected", `a file the provider refuses: ${show(first)}`)
          const again = yield* succeed("screenDocument", screen(kyc, rejected))
          yield* expectThat(show(again) === show(first), `${show(first)}, then ${show(again)}`)
        })
      )
    )
  }
  return checks
}

const unreachableChecks = (unreachable: NonNullable<KycOutcomes["unreachable"]>): ReadonlyArray<Check> => {
  const seconds = unreachable.afterSeconds ?? 30
  const steerBusiness = unreachable.business
  const packets = (): ReadonlyArray<VerificationPacket> => [
    individualPacket(unreachable.individual(individual())),
    ...(steerBusiness === undefined ? [] : [businessPacket(steerBusiness)])
  ]
  const redirectUri = "https://platform.kit.example/kyc-done?from=kit"
  return [
    check(
      "CU-28: createLink while the provider is unreachable: a retryable KycProviderError, never a defect or a wait without end",
      (kyc) =>
        Effect.forEach(packets(), ({ customer }) =>
          unreachableAnswer(
            `createLink for ${customer.customerType}`,
            kyc.createLink({ customer, redirectUri }),
            seconds
          )
        )
    ),
    check(
      "K-02: review while the provider is unreachable: a retryable KycProviderError, never a defect or a wait without end",
      (kyc) =>
        Effect.forEach(packets(), (packet) =>
          unreachableAnswer(`review of a ${packet.customer.customerType} packet`, kyc.review(packet), seconds)
        )
    )
  ]
}

/**
 * The checks of the kit, to register (`kycProviderConformance`) or to run (`failingChecks`, with the adapter's layer
 * and a `TestClock` provided): one per promise of the port; the optional outcomes add theirs.
 */
export const kycProviderChecks = (outcomes: KycOutcomes): ReadonlyArray<ConformanceCheck<KycProvider>> => [
  ...linkChecks,
  ...reviewChecks(outcomes),
  ...screeningChecks(outcomes),
  ...contactChecks(outcomes),
  ...(outcomes.unreachable === undefined ? [] : unreachableChecks(outcomes.unreachable))
]

/**
 * Registers the KYC provider conformance kit, `describe("KycProvider conformance: <name>")`, at the top level of a
 * vitest file:
 *
 * ```ts
 * kycProviderConformance("my provider", myProviderLayer, {
 *   individuals: { APPROVED: (c) => c, REJECTED: (c) => ({ ...c, fullName: "Ada Rejected" }) },
 *   contactVerification: [{ region: "US", requires: { email: false, phone: false } }]
 * })
 * ```
 *
 * `subject` provides `KycProvider`; it is built once.
 */
export const kycProviderConformance = <E>(
  name: string,
  subject: Layer.Layer<KycProvider, E>,
  outcomes: KycOutcomes,
  options: KycKitOptions = {}
): void => registerChecks(`KycProvider conformance: ${name}`, subject, kycProviderChecks(outcomes), options)
