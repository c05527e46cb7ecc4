/**
 * The sandbox card issuer (CD-43, CD-44; docs/design/cards.md section 2, "Numbers"): the issuance suffix table on the
 * sandbox clock (a `platformCardId` the platform gave), the funding suffixes (a `platformCustomerId` the platform
 * set), reveal URLs; and `005` through the cards worker on a TestClock (ACTIVE only
 * once 30 s have passed and a pass ran).
 */
import { assert, describe, it } from "@effect/vitest"
import { type CardProvisionRequest, Cards, CardsWorker } from "@paycore/core"
import { DELAYED_ISSUANCE_SECONDS, REVEAL_SECONDS, sandboxCardIssuer } from "@paycore/sandbox"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { makeEnv, seedCustomer, seedInternalAccount, startClock, T0 } from "../../core/test/fixtures.ts"

const CARD = "Card:01234567-89ab-7def-8123-456789abcdef"

let cards = 0
/** Another card: `provision` is idempotent by card id, so each card of a test has its own. */
const nextCard = (): string => `Card:01234567-89ab-7def-8123-${String(++cards).padStart(12, "0")}`

const request = (platformCardId: string, given = true, cardId = CARD): CardProvisionRequest => ({
  cardId,
  cardholderId: "Customer:01234567-89ab-7def-8123-456789abc001",
  platformCardId,
  platformCardIdGiven: given,
  form: "VIRTUAL",
  currency: "USD",
  fundingAccountIds: ["InternalAccount:01234567-89ab-7def-8123-456789abcdef"]
})

describe("SandboxCardIssuer", () => {
  it.effect(
    "CD-43: other suffixes are ACTIVE at once (last4 from the suffix, valid three years); 001 pending, re-asked hourly; 002 rejected; no platformCardId of the platform's: ACTIVE, 4242",
    () =>
      Effect.gen(function* () {
        yield* startClock
        const issuer = sandboxCardIssuer()
        const active = yield* issuer.provision(request("emp-042"))
        assert.deepInclude(active, { _tag: "Active", brand: "VISA", last4: "4042", expMonth: 3, expYear: 2029 })
        assert.match(active.processorRef, /^sbxcard:\d+:042:01234567-89ab-7def-8123-456789abcdef$/)
        assert.deepStrictEqual(yield* issuer.status(active.processorRef), active)

        const pending = yield* issuer.provision(request("emp-001", true, nextCard()))
        assert.deepInclude(pending, { _tag: "Pending", checkAgainAt: new Date(T0 + 3_600_000).toISOString() })
        yield* TestClock.adjust("2 hours")
        assert.strictEqual((yield* issuer.status(pending.processorRef))._tag, "Pending")

        assert.strictEqual((yield* issuer.provision(request("emp-002", true, nextCard())))._tag, "Rejected")
        // Without a platformCardId of the platform's nothing steers: not the made-up one, not the cardholder id (its
        // random suffix is 001 here).
        const plain = yield* issuer.provision(request("card-0123456789ab001", false, nextCard()))
        assert.deepInclude(plain, { _tag: "Active", last4: "4242" })
        assert.deepStrictEqual(yield* issuer.status(plain.processorRef), plain)
        // A platformCardId shorter than a suffix is the whole of it.
        const short = yield* issuer.provision(request("42", true, nextCard()))
        assert.deepStrictEqual(yield* issuer.status(short.processorRef), short)
        assert.deepInclude(yield* Effect.flip(issuer.status("proc_unknown")), { retryable: false })
      })
  )

  it.effect("CD-43: 005 is pending until 30 s after it was asked, then ACTIVE", () =>
    Effect.gen(function* () {
      yield* startClock
      const issuer = sandboxCardIssuer()
      const first = yield* issuer.provision(request("emp-005"))
      const ready = new Date(T0 + DELAYED_ISSUANCE_SECONDS * 1000).toISOString()
      assert.deepInclude(first, { _tag: "Pending", checkAgainAt: ready })
      yield* TestClock.adjust("29 seconds")
      assert.strictEqual((yield* issuer.status(first.processorRef))._tag, "Pending")
      yield* TestClock.adjust("1 second")
      assert.deepInclude(yield* issuer.status(first.processorRef), { _tag: "Active", last4: "4005" })
    })
  )

  it.effect(
    "CD-44: the accounts of a cardholder whose platformCustomerId ends 002 or 003 are refused (the first named); account ids never steer",
    () =>
      Effect.gen(function* () {
        const issuer = sandboxCardIssuer()
        const account = (id: string) =>
          ({
            id: `InternalAccount:01234567-89ab-7def-8123-456789abc${id}`,
            type: "INTERNAL_FIAT",
            currency: "USD"
          }) as const
        const accounts = [account("100"), account("003"), account("002")] as never
        const holder = (platformCustomerId?: string) => ({ id: "Customer:x", platformCustomerId })
        for (const suffix of ["002", "003"]) {
          assert.deepInclude(yield* issuer.fundingEligibility(accounts, holder(`emp-${suffix}`)), {
            _tag: "Ineligible",
            accountId: account("100").id
          })
        }
        assert.deepStrictEqual(yield* issuer.fundingEligibility(accounts, holder("emp-100")), { _tag: "Eligible" })
        // No platformCustomerId of the platform's: eligible, whatever the account ids end in.
        assert.deepStrictEqual(yield* issuer.fundingEligibility(accounts, holder()), { _tag: "Eligible" })
      })
  )

  it.effect(
    "CD-33: a reveal URL on a host that does not resolve, fresh each time, valid five minutes; an unknown card refused",
    () =>
      Effect.gen(function* () {
        yield* startClock
        const issuer = sandboxCardIssuer()
        const card = yield* issuer.provision(request("emp-000"))
        const a = yield* issuer.reveal(card.processorRef)
        const b = yield* issuer.reveal(card.processorRef)
        assert.match(a.panEmbedUrl, /^https:\/\/sandbox\.paycore\.invalid\/pan\/[0-9a-f]{32}$/)
        assert.notStrictEqual(a.panEmbedUrl, b.panEmbedUrl)
        assert.strictEqual(a.expiresAt, new Date(T0 + REVEAL_SECONDS * 1000).toISOString())
        assert.deepInclude(yield* Effect.flip(issuer.reveal("nope")), { retryable: false })
      })
  )

  it("the program: the service decides, PAN reveal, no 3-D Secure password, unless configured", () => {
    assert.deepStrictEqual(sandboxCardIssuer().program, {
      decisioning: "SERVICE",
      supportsPanReveal: true,
      supportsThreeDSecurePassword: false,
      currencies: ["USD", "USDB"],
      brand: "VISA"
    })
    const other = sandboxCardIssuer({
      decisioning: "ISSUER",
      supportsPanReveal: false,
      supportsThreeDSecurePassword: true
    })
    assert.deepInclude(other.program, {
      decisioning: "ISSUER",
      supportsPanReveal: false,
      supportsThreeDSecurePassword: true
    })
  })

  it.effect(
    "CD-43, CD-20: a 005 card through the cards worker is ACTIVE only after 30 s of the TestClock and a pass",
    () => {
      const env = makeEnv(7, { cardIssuer: sandboxCardIssuer() })
      return Effect.gen(function* () {
        yield* startClock
        const customer = yield* seedCustomer()
        const account = yield* seedInternalAccount(customer.id, "USD")
        const cards = yield* Cards
        const worker = yield* CardsWorker
        const card = yield* cards.create({
          cardholderId: customer.id,
          fundingSources: [account.id],
          form: "VIRTUAL",
          platformCardId: "emp-005"
        })
        yield* worker.processDue()
        assert.strictEqual((yield* cards.get(card.id)).state, "PROCESSING")
        yield* TestClock.adjust("29 seconds")
        yield* worker.processDue()
        assert.strictEqual((yield* cards.get(card.id)).state, "PROCESSING")
        yield* TestClock.adjust("1 second")
        assert.strictEqual((yield* cards.get(card.id)).state, "PROCESSING")
        yield* worker.processDue()
        assert.deepInclude(yield* cards.get(card.id), { state: "ACTIVE", last4: "4005" })
      }).pipe(Effect.provide(env.layer))
    }
  )
})
