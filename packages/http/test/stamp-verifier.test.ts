import { webCryptoStampVerifier } from "@paycore/core"
import { sessionKey } from "@paycore/testkit/wallet-client"
import { Effect } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { parseStamp } from "../../core/src/wallet-auth/stamp.ts"
import { nodeStampVerifier } from "../src/stamp-verifier.ts"

describe("the StampVerifier on node:crypto", () => {
  it("Signed-retry stamp: answers as the Web Crypto default for good and altered payloads (property)", async () => {
    const node = nodeStampVerifier()
    const web = webCryptoStampVerifier()
    const key = sessionKey()
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 200 }),
        fc.string({ minLength: 1, maxLength: 3 }),
        async (payload, extra) => {
          const stamp = parseStamp(key.stamp(payload))!
          for (const [text, expected] of [
            [payload, true],
            [payload + extra, false]
          ] as const) {
            const answers = await Effect.runPromise(Effect.all([node.verify(stamp, text), web.verify(stamp, text)]))
            expect(answers).toEqual([expected, expected])
          }
        }
      ),
      { numRuns: 50, seed: 20261125 }
    )
    // Another key's signature, and a signature of the wrong length, are false (never a throw).
    const other = parseStamp(sessionKey().stamp("x"))!
    expect(await Effect.runPromise(node.verify({ ...other, publicKey: key.publicKey.toLowerCase() }, "x"))).toBe(false)
    expect(await Effect.runPromise(node.verify({ ...other, der: new Uint8Array(3) }, "x"))).toBe(false)
  })
})
