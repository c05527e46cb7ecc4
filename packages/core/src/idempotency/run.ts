import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js"
import { Effect } from "effect"
import { type IdempotencyRecord, Store } from "../ports/store.ts"
import type { Conflict, InvalidInput, StoreError } from "../shared/errors.ts"
import { nowIso } from "../shared/time.ts"
import { idempotencyKeyInvalid, idempotencyKeyReused } from "./errors.ts"
import { IDEMPOTENCY_KEY_MAX_LENGTH, type IdempotentResponse, type RenderedResponse } from "./model.ts"

// Running a command at most once per idempotency key: in the store transaction of its own writes (`runIdempotent`),
// or after a step outside any transaction (`runPrepared`).

/** The request's identity under one key: SHA-256 (hex) of method, path and raw body. */
export const requestFingerprint = (method: string, path: string, body: string): string =>
  bytesToHex(sha256(utf8ToBytes(`${method.toUpperCase()} ${path}\n${body}`)))

/** Another request stored the same key between our lookup and our insert (PostgreSQL, no lock): replay theirs. */
const keyTaken = { _tag: "paycore/IdempotencyKeyTaken" } as const
const isKeyTaken = (e: unknown): e is typeof keyTaken => e === keyTaken

const parseBody = (text: string): unknown => (text === "" ? undefined : JSON.parse(text))

const replayed = (record: IdempotencyRecord): IdempotentResponse => ({
  status: record.status,
  body: parseBody(record.body),
  replayed: true
})

/**
 * Runs a command at most once per `<scope>:<key>`, in ONE store transaction with the command's own writes:
 * - the key is stored with the same `fingerprint` → the stored response, `replayed: true`, the effect not run;
 * - stored with another fingerprint → 409 `IDEMPOTENCY_KEY_REUSED`;
 * - absent → the effect runs (its `store.transaction` calls join this one), its response (`render`) is stored in
 *   the same transaction. A failing effect stores nothing, so a retry executes again.
 *
 * Two racing requests with one key run the effect once: the memory store serializes them; elsewhere the loser's
 * insert hits the unique key (or its effect fails after waiting on the winner's locks and finds the winner's
 * record), its transaction rolls back, and it replays the winner's response.
 * Call it outside any transaction (a joined outer transaction could not be rolled back on a lost race).
 * Records are never treated as expired here: the store keeps them at least `idempotencyRetentionHours` and
 * purging older ones is the store's job.
 * Untraced: it wraps every mutating HTTP request that carries an `Idempotency-Key`, whose command has its own span.
 */
export const runIdempotent = Effect.fnUntraced(function* <A, E, R>(
  scope: string,
  key: string,
  fingerprint: string,
  effect: Effect.Effect<A, E, R>,
  render: (value: A) => RenderedResponse
): Effect.fn.Return<IdempotentResponse, E | InvalidInput | Conflict | StoreError, R | Store> {
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH) return yield* idempotencyKeyInvalid(key)
  const store = yield* Store
  const scopedKey = `${scope}:${key}`
  const fromStored = (record: IdempotencyRecord) =>
    record.fingerprint === fingerprint ? Effect.succeed(replayed(record)) : Effect.fail(idempotencyKeyReused(key))

  const execute = store.transaction(
    Effect.gen(function* () {
      const found = yield* store.idempotency.get(scopedKey)
      if (found !== undefined) return yield* fromStored(found)
      const outcome = yield* Effect.result(effect)
      if (outcome._tag === "Failure") {
        // A racing request with this key may have committed while this one waited on its row locks (and then
        // failed, e.g. "already executed"): answer as the winner did. The failure still rolls this one back.
        if ((yield* store.idempotency.get(scopedKey)) !== undefined) return yield* Effect.fail(keyTaken)
        return yield* Effect.fail(outcome.failure)
      }
      const rendered = render(outcome.success)
      const body = rendered.body === undefined ? "" : JSON.stringify(rendered.body)
      const createdAt = yield* nowIso
      yield* store.idempotency
        .put({ key: scopedKey, fingerprint, status: rendered.status, body, createdAt })
        .pipe(Effect.catchTag("UniqueViolation", () => Effect.fail(keyTaken)))
      return { status: rendered.status, body: parseBody(body), replayed: false } satisfies IdempotentResponse
    })
  )

  return yield* execute.pipe(
    Effect.catchIf(isKeyTaken, () =>
      store.transaction(
        Effect.gen(function* () {
          const winner = yield* store.idempotency.get(scopedKey)
          if (winner === undefined) return yield* Effect.die(new Error(`Idempotency record ${scopedKey} vanished`))
          return yield* fromStored(winner)
        })
      )
    )
  )
})

/** Which request a prepared command answers: the caller's key space (`scope`), its key and its fingerprint. */
export interface IdempotentRequest {
  readonly scope: string
  readonly key: string
  readonly fingerprint: string
}

/** The provider's idempotency key of a prepared command: SHA-256 (hex) of `<scope>:<key>`, the same for every retry. */
export const clientReferenceOf = (request: IdempotentRequest): string =>
  bytesToHex(sha256(utf8ToBytes(`${request.scope}:${request.key}`)))

/**
 * A command whose first step talks to the outside world (a provider) and must not run inside a store transaction
 * (issue 17, section 0: "Provider I/O never runs inside a store transaction"):
 * - a response stored under `<scope>:<key>` → replayed (`prepare` does not run), or 409 for another fingerprint;
 * - else `prepare` runs outside any transaction (a provider read, or a provider create made idempotent by
 *   `clientReferenceOf(request)`, so a retry or a racing twin reaches the same provider operation); its failure
 *   stores nothing (a 503 leaves no row, and the same key may be sent again);
 * - then `commit(prepared)` runs as `runIdempotent` does: its writes and the response in one transaction, a racing
 *   twin replaying the winner's response.
 */
export const runPrepared = Effect.fnUntraced(function* <P, A, E1, E2, R1, R2>(
  request: IdempotentRequest,
  prepare: Effect.Effect<P, E1, R1>,
  commit: (prepared: P) => Effect.Effect<A, E2, R2>,
  render: (value: A) => RenderedResponse
): Effect.fn.Return<IdempotentResponse, E1 | E2 | InvalidInput | Conflict | StoreError, R1 | R2 | Store> {
  const { scope, key, fingerprint } = request
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH) return yield* idempotencyKeyInvalid(key)
  const store = yield* Store
  const stored = yield* store.idempotency.get(`${scope}:${key}`)
  if (stored !== undefined) {
    if (stored.fingerprint !== fingerprint) return yield* idempotencyKeyReused(key)
    return replayed(stored)
  }
  const prepared = yield* prepare
  return yield* runIdempotent(scope, key, fingerprint, commit(prepared), render)
})
