/**
 * Signed-retry throughput: wallet actions authorized per second through the core on the in-memory store, against the
 * bare ECDSA P-256 verify of `node:crypto` measured in the same run.
 *
 *   node --conditions=@paycore/source bench/wallet.ts [--seconds 5]
 *
 * One action is a session refresh (W-31) end to end, both legs: the first call (`WalletAuth.refreshSession` without
 * headers → the 202 with `payloadToSign`) and the stamped retry (parse the stamp, verify it over the payload, lock
 * and consume the `requestId`, check the signer's session, write the new session). The client's stamp is made
 * between the two legs and is not timed (it is the client's work); the session key stays the same from one refresh
 * to the next, as a client refreshing its session does. Rounds alternate with the baseline: `crypto.verify` of a
 * DER ECDSA-SHA256 signature over a payload of the same length with a prepared `KeyObject`.
 */
import { createPrivateKey, createPublicKey, createSign, generateKeyPairSync, sign, verify } from "node:crypto"
import { hexToBytes } from "@noble/hashes/utils.js"
import type { SignedRetryChallenge } from "@paycore/core"
import { Accounts, Customers, Ids, PlatformConfigService, StampVerifier, Store, WalletAuth } from "@paycore/core"
import { nodeStampVerifier } from "@paycore/http"
import { layer as sandbox } from "@paycore/sandbox"
import { layer as memoryStore } from "@paycore/store-memory"
import { sealOtpBundle, sessionKey, sessionKeyFrom } from "@paycore/testkit/wallet-client"
import { Effect, Layer } from "effect"
import { fmt, median, numberFlag } from "./figures.ts"

export interface WalletBenchResult {
  readonly rounds: number
  readonly actions: number
  /** Signed retries (first leg + stamped retry) per second of time spent in the service. */
  readonly signedRetriesPerSecond: number
  /** `node:crypto` ECDSA P-256 verifies per second. */
  readonly nodeVerifiesPerSecond: number
  readonly ratio: number
}

const now = () => performance.now()

/**
 * The client's stamper with `node:crypto` (as a native or Web Crypto client signs). The client kit's `stamp` signs
 * with @noble/curves, whose BigInt garbage is collected during the timed legs that follow and triples the
 * measured verify time; the header is the same.
 */
const nativeStamper = (privateKey: Uint8Array, compressedPublicKey: string, uncompressed: Uint8Array) => {
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url")
  const key = createPrivateKey({
    key: {
      kty: "EC",
      crv: "P-256",
      d: b64(privateKey),
      x: b64(uncompressed.subarray(1, 33)),
      y: b64(uncompressed.subarray(33))
    },
    format: "jwk"
  })
  return (payload: string): string =>
    b64(
      Buffer.from(
        JSON.stringify({
          publicKey: compressedPublicKey,
          scheme: "SIGNATURE_SCHEME_TK_API_P256",
          signature: sign("SHA256", Buffer.from(payload), key).toString("hex")
        })
      )
    )
}

/** Verifies per second of `node:crypto` for `ms` milliseconds. */
const nodeVerifies = (ms: number): number => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
  const key = createPublicKey(publicKey.export({ format: "pem", type: "spki" }))
  const payload = Buffer.from("x".repeat(330))
  const signature = createSign("SHA256").update(payload).sign(privateKey)
  let n = 0
  const start = now()
  while (now() - start < ms) {
    for (let i = 0; i < 100; i++) if (!verify("SHA256", payload, key, signature)) throw new Error("bench: verify")
    n += 100
  }
  return (n * 1000) / (now() - start)
}

export const benchWallet = async (options: { readonly seconds: number }): Promise<WalletBenchResult> => {
  const layer = Layer.mergeAll(Customers.layer, WalletAuth.layer).pipe(
    Layer.provideMerge(Accounts.layer),
    Layer.provideMerge(PlatformConfigService.layer),
    Layer.provideMerge(Layer.mergeAll(memoryStore, Ids.layer, sandbox()))
  )
  return Effect.runPromise(
    Effect.gen(function* () {
      const customers = yield* Customers
      const wallets = yield* WalletAuth
      const store = yield* Store
      yield* (yield* PlatformConfigService).update({ supportedCurrencies: ["USD", "USDB"] })
      // A wallet signed in by the sandbox OTP (the client kit seals the code).
      const customer = yield* customers.create({
        customerType: "INDIVIDUAL",
        fullName: "Bench Wallet",
        email: "bench.wallet@example.com",
        currencies: ["USDB"]
      })
      const [account] = (yield* store.internalAccounts.list(
        { customerId: customer.id },
        { limit: 1, sortOrder: "asc" }
      )).data
      const [credential] = (yield* wallets.listCredentials(account!.id)).data
      const challenge = yield* wallets.challengeCredential(credential!.id, null, "SANDBOX")
      const key = sessionKey()
      const bundle = yield* Effect.promise(() =>
        sealOtpBundle(
          (challenge as { otpEncryptionTargetBundle: string }).otpEncryptionTargetBundle,
          "000000",
          key.publicKey
        )
      )
      const body = JSON.stringify({ type: "EMAIL_OTP", encryptedOtpBundle: bundle })
      const verifyReq = { type: "EMAIL_OTP", encryptedOtpBundle: bundle } as const
      const first = (yield* wallets.verifyCredential(credential!.id, verifyReq, {
        rawBody: body
      })) as SignedRetryChallenge
      let session = (yield* wallets.verifyCredential(credential!.id, verifyReq, {
        rawBody: body,
        signature: key.stamp(first.payloadToSign),
        requestId: first.requestId
      })) as { id: string }

      const stamp = nativeStamper(
        key.privateKey,
        key.publicKey,
        hexToBytes(sessionKeyFrom(key.privateKey, { legacy: true }).publicKey)
      )
      const refreshBody = JSON.stringify({ clientPublicKey: key.publicKey })
      const refresh = { clientPublicKey: key.publicKey }
      /** One signed retry; the time spent in the service (both legs), in ms. */
      const one = Effect.gen(function* () {
        const t0 = now()
        const leg = (yield* wallets.refreshSession(session.id, refresh, {
          rawBody: refreshBody
        })) as SignedRetryChallenge
        const t1 = now()
        const signature = stamp(leg.payloadToSign)
        const t2 = now()
        session = (yield* wallets.refreshSession(session.id, refresh, {
          rawBody: refreshBody,
          signature,
          requestId: leg.requestId
        })) as { id: string }
        return t1 - t0 + (now() - t2)
      })
      // Warm-up.
      for (let i = 0; i < 300; i++) yield* one
      const retryRates: Array<number> = []
      const nodeRates: Array<number> = []
      const roundMs = (options.seconds * 1000) / 6
      let actions = 0
      for (let round = 0; round < 3; round++) {
        let spent = 0
        let n = 0
        const start = now()
        while (now() - start < roundMs) {
          spent += yield* one
          n++
        }
        actions += n
        retryRates.push((n * 1000) / spent)
        nodeRates.push(nodeVerifies(roundMs))
      }
      const signedRetriesPerSecond = median(retryRates)
      const nodeVerifiesPerSecond = median(nodeRates)
      return {
        rounds: 3,
        actions,
        signedRetriesPerSecond,
        nodeVerifiesPerSecond,
        ratio: signedRetriesPerSecond / nodeVerifiesPerSecond
      }
    }).pipe(Effect.provide(layer), Effect.provideService(StampVerifier, nodeStampVerifier()))
  )
}

export const formatWalletBench = (r: WalletBenchResult): string =>
  [
    "Signed retries (session refresh: 202 + stamped retry), memory store, vs node:crypto ECDSA P-256 verify",
    `  signed retries/s ${fmt(r.signedRetriesPerSecond)}   node:crypto verifies/s ${fmt(r.nodeVerifiesPerSecond)}   ratio ${r.ratio.toFixed(2)}x (target >= 0.5x)   (${fmt(r.actions)} actions, median of ${r.rounds} alternated rounds)`
  ].join("\n")

if (import.meta.main) console.log(formatWalletBench(await benchWallet({ seconds: numberFlag("seconds") ?? 6 })))
