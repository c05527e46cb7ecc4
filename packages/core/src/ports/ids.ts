import { Clock, Context, Effect, Layer } from "effect"
import { type IdOf, makeUuidV7 } from "../shared/ids.ts"

/** Hands out `<Type>:<uuid v7>` ids and opaque secrets. */
export class Ids extends Context.Service<
  Ids,
  {
    readonly make: <T extends keyof IdOf>(type: T) => Effect.Effect<IdOf[T]>
    /** `bytes` random bytes as lowercase hex (token client ids and secrets). */
    readonly randomHex: (bytes: number) => Effect.Effect<string>
  }
>()("paycore/ports/Ids") {
  /** Time from the Clock, randomness from `crypto.getRandomValues` (Web Crypto, buffered). */
  static readonly layer = Layer.sync(Ids, () => {
    const next = makeUuidV7(cryptoRandom())
    return Ids.of({
      make: <T extends keyof IdOf>(type: T) =>
        Effect.withFiberSucceed(
          (fiber) => `${type}:${next(fiber.getRef(Clock.Clock).currentTimeMillisUnsafe())}` as IdOf[T]
        ),
      randomHex: (bytes) => Effect.sync(() => toHex(crypto.getRandomValues(new Uint8Array(bytes))))
    })
  })

  /** Deterministic ids for tests: a seeded generator, the same sequence every run. */
  static readonly layerSeeded = (seed: number) =>
    Layer.sync(Ids, () => {
      let state = seed >>> 0 || 1
      const random = () => {
        // xorshift32: small, fast, good enough for test ids.
        state ^= state << 13
        state ^= state >>> 17
        state ^= state << 5
        return (state >>> 0) / 0x100000000
      }
      const next = makeUuidV7(random)
      return Ids.of({
        make: <T extends keyof IdOf>(type: T) =>
          Effect.withFiberSucceed(
            (fiber) => `${type}:${next(fiber.getRef(Clock.Clock).currentTimeMillisUnsafe())}` as IdOf[T]
          ),
        randomHex: (bytes) =>
          Effect.sync(() => {
            let out = ""
            for (let i = 0; i < bytes; i++)
              out += Math.floor(random() * 256)
                .toString(16)
                .padStart(2, "0")
            return out
          })
      })
    })
}

/** Random 32-bit words drawn from `crypto.getRandomValues` per refill (it allows at most 65536 bytes a call). */
const RANDOM_WORDS = 1024

/**
 * Uniform numbers in [0, 1) from the global Web Crypto `crypto.getRandomValues` (no node imports): one call fills a
 * buffer of words, so an id costs a couple of array reads instead of a call into the crypto source.
 */
export const cryptoRandom = (): (() => number) => {
  const words = new Uint32Array(RANDOM_WORDS)
  let index = RANDOM_WORDS
  return () => {
    if (index === RANDOM_WORDS) {
      crypto.getRandomValues(words)
      index = 0
    }
    return words[index++]! / 0x100000000
  }
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"))

const toHex = (bytes: Uint8Array): string => {
  let out = ""
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]!]
  return out
}
