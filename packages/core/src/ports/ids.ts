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
  /** Time from the Clock, randomness from `crypto.getRandomValues`. */
  static readonly layer = Layer.sync(Ids, () => {
    const next = makeUuidV7(Math.random)
    return Ids.of({
      make: <T extends keyof IdOf>(type: T) =>
        Clock.currentTimeMillis.pipe(Effect.map((ms) => `${type}:${next(ms)}` as IdOf[T])),
      randomHex: (bytes) =>
        Effect.sync(() => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex"))
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
          Clock.currentTimeMillis.pipe(Effect.map((ms) => `${type}:${next(ms)}` as IdOf[T])),
        randomHex: (bytes) =>
          Effect.sync(() => {
            let out = ""
            for (let i = 0; i < bytes; i++) out += Math.floor(random() * 256).toString(16).padStart(2, "0")
            return out
          })
      })
    })
}
