/**
 * Invitations raced on PostgreSQL (docs/design/invitations-stablecoins.md, "Races"; the real server with DATABASE_URL,
 * else PGlite, where they serialize): a claim or cancel locks the invitation's row, so one move wins and every loser
 * gets the 400 of the winner's state; the inviter's hourly budget is counted in the create's transaction. No deadlock
 * or serialization error reaches a caller.
 */
import { Invitations, invitationCounters, PlatformConfigService, Store, utcHour } from "@paycore/core"
import { Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { makeEnv, seedCustomer, startClock, T0 } from "../../core/test/fixtures.ts"
import { testDatabase } from "./helpers.ts"

const db = testDatabase("invitation_races")

/** A refusal's code; `undefined` for a success. */
const codeOf = (exit: Exit.Exit<unknown, unknown>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const error = (exit.cause.reasons[0] as any)?.error
  return error?.code ?? String(exit.cause)
}

const runOnInvitations = <A, E>(seed: number, effect: Effect.Effect<A, E, any>): Promise<A> => {
  const env = makeEnv(seed, { storeLayer: db.layer() })
  return Effect.runPromise(
    effect.pipe(
      Effect.provide(Invitations.layer.pipe(Layer.provide(PlatformConfigService.layer), Layer.provideMerge(env.layer))),
      Effect.provide(TestClock.layer())
    ) as Effect.Effect<A, E>
  )
}

/** A customer and a pending invitation of it. */
const newInvitation = Effect.gen(function* () {
  yield* startClock
  const customer = yield* seedCustomer()
  const invitation = yield* (yield* Invitations).create({ inviterUma: customer.umaAddress })
  return { customer, invitation }
})

/** The outbox events about an invitation's row. */
const eventsOf = (code: string) =>
  Effect.gen(function* () {
    const store = yield* Store
    const row = yield* store.invitations.findUnique("code", code)
    const page = yield* store.outbox.list({ subject: row!.id }, { limit: 100, sortOrder: "asc" })
    return page.data.map((r) => r.type)
  })

describe(`invitation races (${db.kind === "pg" ? "PostgreSQL server" : "PGlite"})`, () => {
  it("IN-04, IN-07: 20 concurrent claims of one invitation: one CLAIMED, 19 × 400 INVITATION_ALREADY_CLAIMED; one INVITATION.CLAIMED", async () => {
    const outcome = await runOnInvitations(
      4001,
      Effect.gen(function* () {
        const invitations = yield* Invitations
        const { invitation } = yield* newInvitation
        const exits = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) =>
            invitations.claim(invitation.code, { inviteeUma: `$racer${i}@x.example` })
          ),
          Effect.exit,
          { concurrency: "unbounded" }
        )
        const winners = exits.filter(Exit.isSuccess).map((e) => e.value)
        const read = yield* invitations.get(invitation.code)
        return {
          claimed: winners.map((w) => w.status),
          codes: exits.map(codeOf).filter((c) => c !== undefined),
          stored: read.inviteeUma === winners[0]?.inviteeUma && read.status === "CLAIMED",
          events: yield* eventsOf(invitation.code)
        }
      })
    )
    expect(outcome).toEqual({
      claimed: ["CLAIMED"],
      codes: Array(19).fill("INVITATION_ALREADY_CLAIMED"),
      stored: true,
      events: ["INVITATION.CLAIMED"]
    })
  }, 120_000)

  it("IN-05, IN-06: claim racing cancel: exactly one move wins; the loser's 400 names the winner's state", async () => {
    const rounds = await runOnInvitations(
      4002,
      Effect.gen(function* () {
        const invitations = yield* Invitations
        const results: Array<string> = []
        for (let round = 0; round < 5; round++) {
          const { invitation } = yield* newInvitation
          const [claimed, cancelled] = yield* Effect.all(
            [
              Effect.exit(invitations.claim(invitation.code, { inviteeUma: "$z@x.example" })),
              Effect.exit(invitations.cancel(invitation.code))
            ],
            { concurrency: "unbounded" }
          )
          const status = (yield* invitations.get(invitation.code)).status
          results.push(`${codeOf(claimed) ?? "ok"}|${codeOf(cancelled) ?? "ok"}|${status}`)
        }
        return results
      })
    )
    for (const round of rounds) {
      expect(["ok|INVITATION_ALREADY_CLAIMED|CLAIMED", "INVITATION_CANCELLED|ok|CANCELLED"]).toContain(round)
    }
  }, 120_000)

  it("IN-11: 10 concurrent creates by one inviter 3 short of its hourly budget: exactly 3 created, 7 × 429", async () => {
    const outcome = await runOnInvitations(
      4003,
      Effect.gen(function* () {
        yield* startClock
        const invitations = yield* Invitations
        const customer = yield* seedCustomer()
        const key = invitationCounters.created(customer.id, utcHour(new Date(T0).toISOString()))
        yield* (yield* Store).counters.add(key, 97)
        const exits = yield* Effect.forEach(
          Array.from({ length: 10 }, () => invitations.create({ inviterUma: customer.umaAddress })),
          Effect.exit,
          { concurrency: "unbounded" }
        )
        const mine = yield* (yield* Store).invitations.list(
          { inviterCustomerId: customer.id },
          { limit: 100, sortOrder: "asc" }
        )
        return {
          created: exits.filter(Exit.isSuccess).length,
          refused: exits.map(codeOf).filter((c) => c !== undefined),
          stored: mine.data.length,
          counted: yield* (yield* Store).counters.get(key)
        }
      })
    )
    expect(outcome).toEqual({ created: 3, refused: Array(7).fill("RATE_LIMITED"), stored: 3, counted: 100 })
  }, 120_000)
})
