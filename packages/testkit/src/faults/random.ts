/**
 * A small seeded random source for simulations: the same seed draws the same numbers on every machine, so a run
 * replays from its seed alone (no `Math.random`, no crypto).
 */
export interface SimRandom {
  /** A number in [0, 1). */
  readonly next: () => number
  /** An integer in [0, n). */
  readonly int: (n: number) => number
  /** An integer in [min, max]. */
  readonly between: (min: number, max: number) => number
  /** True with probability `p`. */
  readonly chance: (p: number) => boolean
  /** One of `items` (not empty). */
  readonly pick: <A>(items: ReadonlyArray<A>) => A
  /** A new source drawn from this one: a stream of its own, so draws from one do not shift the other. */
  readonly fork: () => SimRandom
}

/** Mixes two numbers into one 32-bit seed (a sequence's seed from the run's seed and its index). */
export const mixSeed = (seed: number, index: number): number => {
  let h = (seed ^ 0x9e3779b9) >>> 0
  h = Math.imul(h ^ (index + 0x7f4a7c15), 0x85ebca6b) >>> 0
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0
  return (h ^ (h >>> 16)) >>> 0
}

/** A `SimRandom` from a 32-bit seed (mulberry32). */
export const simRandom = (seed: number): SimRandom => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  return {
    next,
    int,
    between: (min, max) => min + int(max - min + 1),
    chance: (p) => p > 0 && next() < p,
    pick: (items) => items[int(items.length)]!,
    fork: () => simRandom(Math.floor(next() * 4294967296))
  }
}
