/**
 * Invitations on a TestClock (docs/design/invitations-stablecoins.md section 4 row A; IN-10, IN-11): expiry read,
 * written by a claim, and swept; the inviter's hourly budget and the platform's miss budget with Retry-After to the
 * window's end, and the next window. (The HTTP tests run on the real clock.)
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { Invitations } from "../src/invitations/service.ts"
import { PlatformConfigService } from "../src/platform/service.ts"
import { Store } from "../src/ports/store.ts"
import { isoOf } from "../src/shared/time.ts"
import { makeEnv, seedCustomer, startClock, T0 } from "./fixtures.ts"

const layer = Invitations.layer.pipe(Layer.provide(PlatformConfigService.layer), Layer.provideMerge(makeEnv(17).layer))

const stateOf = (code: string) =>
  Effect.gen(function* () {
    const store = yield* Store
    return (yield* store.invitations.findUnique("code", code))?.state
  })

describe("invitations on a TestClock", () => {
  it.effect(
    "IN-09, IN-10: past expiresAt a read shows EXPIRED, a claim writes it and answers 400, the sweep writes the rest",
    () =>
      Effect.gen(function* () {
        yield* startClock
        const invitations = yield* Invitations
        const customer = yield* seedCustomer()
        const expiresAt = isoOf(T0 + 3_600_000)
        const claimed = yield* invitations.create({ inviterUma: customer.umaAddress, expiresAt })
        const swept = yield* invitations.create({ inviterUma: customer.umaAddress, expiresAt })
        const never = yield* invitations.create({ inviterUma: customer.umaAddress })
        yield* TestClock.adjust("59 minutes")
        expect((yield* invitations.get(claimed.code)).status).toBe("PENDING")
        yield* TestClock.adjust("1 minute")
        // At expiresAt exactly it is over.
        expect((yield* invitations.get(claimed.code)).status).toBe("EXPIRED")
        expect(yield* stateOf(claimed.code)).toBe("PENDING")
        const refused = yield* Effect.flip(invitations.claim(claimed.code, { inviteeUma: "$z@x.example" }))
        expect(refused).toMatchObject({
          code: "INVITATION_EXPIRED",
          details: { status: "EXPIRED", expirationTime: expiresAt }
        })
        expect(yield* stateOf(claimed.code)).toBe("EXPIRED")
        expect(yield* stateOf(swept.code)).toBe("PENDING")
        expect(yield* invitations.processDue()).toEqual({ expired: 1 })
        expect(yield* stateOf(swept.code)).toBe("EXPIRED")
        expect(yield* stateOf(never.code)).toBe("PENDING")
        expect(yield* invitations.processDue()).toEqual({ expired: 0 })
      }).pipe(Effect.provide(layer))
  )

  it.effect("IN-11: the 101st create of an hour is 429 with Retry-After to the hour's end; the next hour creates", () =>
    Effect.gen(function* () {
      yield* startClock
      const invitations = yield* Invitations
      const customer = yield* seedCustomer()
      // T0 is 12:00:00: 40 minutes in leaves 20 to the hour's end.
      yield* TestClock.adjust("40 minutes")
      for (let i = 0; i < 100; i++) yield* invitations.create({ inviterUma: customer.umaAddress })
      const over = yield* Effect.flip(invitations.create({ inviterUma: customer.umaAddress }))
      expect(over).toMatchObject({ _tag: "LimitExceeded", code: "RATE_LIMITED", retryAfterSeconds: 1200 })
      yield* TestClock.adjust("20 minutes")
      expect((yield* invitations.create({ inviterUma: customer.umaAddress })).status).toBe("PENDING")
    }).pipe(Effect.provide(layer))
  )

  it.effect(
    "IN-11, Q3: the 61st unknown code of a minute is 429 before any lookup, a good code included; the next minute reads",
    () =>
      Effect.gen(function* () {
        yield* startClock
        const invitations = yield* Invitations
        const customer = yield* seedCustomer()
        const known = yield* invitations.create({ inviterUma: customer.umaAddress })
        yield* TestClock.adjust("15 seconds")
        for (let miss = 0; miss < 60; miss++) {
          expect(yield* Effect.flip(invitations.get(miss % 2 === 0 ? "ffffffff" : "no code"))).toMatchObject({
            code: "INVITATION_NOT_FOUND"
          })
        }
        const over = yield* Effect.flip(invitations.claim(known.code, { inviteeUma: "$z@x.example" }))
        expect(over).toMatchObject({ _tag: "LimitExceeded", code: "RATE_LIMITED", retryAfterSeconds: 45 })
        expect(yield* stateOf(known.code)).toBe("PENDING")
        yield* TestClock.adjust("45 seconds")
        expect((yield* invitations.get(known.code)).status).toBe("PENDING")
      }).pipe(Effect.provide(layer))
  )
})
