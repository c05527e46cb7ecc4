import type { Vitest } from "@effect/vitest"
import {
  type CustomerId,
  cryptoRandom,
  type IdOf,
  makeUuidV7,
  type Page,
  type PageRequest,
  type Store,
  type StoreError
} from "@paycore/core"
import type { Effect } from "effect"

export type StoreService = Store["Service"]
export type It = Vitest.MethodsNonLive<Store>
export type ListFn<T, F> = (filter: F, page: PageRequest) => Effect.Effect<Page<T>, StoreError>

// ---------------------------------------------------------------------------------------------
// Ids, unique values and instants
// ---------------------------------------------------------------------------------------------

// One monotonic UUID v7 generator for the whole suite: ids of one type sort in creation order, as the
// engine's do, and never repeat across tests sharing one store.
export const nextUuid = makeUuidV7(cryptoRandom())
export const newId = <T extends keyof IdOf>(type: T): IdOf[T] => `${type}:${nextUuid(Date.now())}` as IdOf[T]
/** A fresh value for names, keys and subjects (16 hex digits). */
export const unique = (): string => crypto.randomUUID().replaceAll("-", "").slice(0, 16)

export const HOUR = 3_600_000
/** A random whole hour in [fromYear, toYear) (UTC), in milliseconds. */
export const randomHour = (fromYear: number, toYear: number): number => {
  const from = Date.UTC(fromYear, 0, 1)
  const hours = Math.floor((Date.UTC(toYear, 0, 1) - from) / HOUR)
  return from + Math.floor(Math.random() * hours) * HOUR
}
export const plusSeconds = (iso: string, seconds: number): string =>
  new Date(Date.parse(iso) + seconds * 1000).toISOString()

/** A realistic "now" for rows whose instants the test does not look at. */
export const NOW = "2026-03-02T12:00:00.000Z"

/**
 * What one test owns in a shared store: a unique tag (names, keys, subjects), a customer id its rows belong to,
 * and a one-day window of instants at a random hour (far from the instants of other tests), so its filters
 * match its own rows only.
 */
export interface Scope {
  readonly tag: string
  readonly customerId: CustomerId
  /** `seconds` after the window's start, as an ISO date-time. */
  readonly at: (seconds: number) => string
  /** The next instant of the window, one second after the previous one (creation times in order). */
  readonly next: () => string
}

/** Window size: `at(0)` and `at(DAY)` bound every instant of a scope. */
export const DAY = 86_400

export const makeScope = (fromYear = 3000, toYear = 9000): Scope => {
  const base = randomHour(fromYear, toYear)
  let n = 0
  const at = (seconds: number) => new Date(base + seconds * 1000).toISOString()
  return { tag: unique(), customerId: newId("Customer"), at, next: () => at(++n) }
}

/** An id of type `T` per scope, made on first use: the one parent (agent, wallet, ...) a scope's rows belong to. */
export const scopedId = <T extends keyof IdOf>(type: T): ((s: Scope) => IdOf[T]) => {
  const ids = new WeakMap<Scope, IdOf[T]>()
  return (s) => {
    let id = ids.get(s)
    if (id === undefined) {
      id = newId(type)
      ids.set(s, id)
    }
    return id
  }
}
