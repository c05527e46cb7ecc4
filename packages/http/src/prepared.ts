import type { IdempotentRequest, IdempotentResponse } from "@paycore/core"
import { Context, Effect } from "effect"

// Prepared commands over HTTP (issue 17, section 0: "Provider I/O never runs inside a store transaction"). Their
// `Idempotency-Key` (endpoints annotated `PreparedCommand`) is not handled by `intercept`'s idempotency transaction: the handler hands the request's identity to
// the service, which runs `Idempotency.runPrepared` (provider call first, outside any transaction; then the commit).

/** A prepared request's idempotency identity, and whether its answer was a replay (set by the handler). */
export interface PreparedCall extends IdempotentRequest {
  replayed: boolean
}

/** Provided by `intercept` to a prepared endpoint's handler; absent elsewhere. */
export const PreparedRequest = Context.Reference<PreparedCall | undefined>("paycore/http/PreparedRequest", {
  defaultValue: () => undefined
})

/**
 * A prepared handler: runs the service with the request's identity and answers the stored body (the same on the
 * first run and on every replay), telling `intercept` whether it was replayed.
 */
export const preparedCall = <A, E>(
  run: (request: IdempotentRequest) => Effect.Effect<IdempotentResponse, E>
): Effect.Effect<A, E> =>
  Effect.gen(function* () {
    const call = yield* PreparedRequest
    if (call === undefined) return yield* Effect.die(new Error("a prepared endpoint ran without its Idempotency-Key"))
    const response = yield* run(call)
    call.replayed = response.replayed
    return response.body as A
  })
