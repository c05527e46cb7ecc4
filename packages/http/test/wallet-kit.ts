/**
 * Embedded-wallet steps the HTTP tests share, over the client kit (`@paycore/testkit/wallet-client`): a wallet, an
 * OTP sign-in with the sandbox code, a signed retry's 202 and its stamped retry, store snapshots.
 */
import { randomUUID } from "node:crypto"
import { Store } from "@paycore/core"
import { type StoreSnapshot, snapshotStore } from "@paycore/testkit"
import { type SessionKey, sealOtpBundle, sessionKey } from "@paycore/testkit/wallet-client"
import { Effect } from "effect"
import { expect } from "vitest"
import { type CallResult, consent, type TestServer, UUID } from "./harness.ts"

/** SB-11: the sandbox's OTP. */
export const SANDBOX_OTP = "000000"

const REQUEST_ID = new RegExp(`^Request:${UUID}$`)

/** An email address no other test uses. */
export const freshEmail = () => `wallet.${randomUUID()}@example.com`

export interface Wallet {
  readonly customerId: string
  readonly accountId: string
  readonly email: string
  /** The EMAIL_OTP credential the wallet starts with (W-04). */
  readonly emailCredentialId: string
}

export interface SignedIn {
  readonly session: { readonly id: string; readonly credentialId: string; readonly expiresAt: string }
  readonly key: SessionKey
}

/** A wallet and a live session of its EMAIL_OTP credential. */
export type SignedInWallet = Wallet & SignedIn

/** A credential as GET /auth/credentials lists it (W-11). */
export interface ListedCredential {
  readonly id: string
  readonly type: string
  readonly nickname: string
}

/** The two headers of a signed retry of the 202 `r`, stamped by `key` (W-37). */
export const retry = (r: CallResult, key: SessionKey, requestId = r.json.requestId as string) => ({
  "service-wallet-signature": key.stamp(r.json.payloadToSign),
  "request-id": requestId
})

/**
 * A signed retry's first leg (W-35): 202 with exactly a payload to sign, its requestId and its expiry. Returns the
 * parsed payload, for the test to check what it binds.
 */
export const expectChallenge = (r: CallResult): Record<string, unknown> => {
  expect(r.status, JSON.stringify(r.json)).toBe(202)
  expect(r.json).toEqual({
    payloadToSign: expect.any(String),
    requestId: expect.stringMatching(REQUEST_ID),
    expiresAt: expect.any(String)
  })
  return JSON.parse(r.json.payloadToSign)
}

/** Adds USDB to the platform's currencies (a customer of a USDB platform gets an embedded wallet: AC-02). */
export const ensureUsdb = async (server: TestServer) => {
  const config = await server.call("GET", "/config")
  const currencies: Array<string> = config.json.supportedCurrencies.map((c: { currencyCode: string }) => c.currencyCode)
  if (!currencies.includes("USDB")) {
    const r = await server.call("PATCH", "/config", { supportedCurrencies: [...currencies, "USDB"] })
    expect(r.status, JSON.stringify(r.json)).toBe(200)
  }
}

/** Wallet steps against `server` (a USDB platform: see `ensureUsdb`). */
export const walletKit = (server: TestServer) => {
  /** The customer's one EMBEDDED_WALLET internal account (AC-02), as listed. */
  const walletAccount = async (customerId: string): Promise<{ id: string; balance: { amount: number } }> => {
    const accounts = await server.call(
      "GET",
      `/customers/internal-accounts?customerId=${customerId}&type=EMBEDDED_WALLET`
    )
    expect(accounts.json.data).toHaveLength(1)
    return accounts.json.data[0]
  }

  /** The wallet's credentials (W-11). */
  const credentialsOf = async (accountId: string): Promise<Array<ListedCredential>> =>
    (await server.call("GET", `/auth/credentials?accountId=${accountId}`)).json.data

  /** A customer with an email (`extra` adds to or overrides its body): an embedded wallet with its first credential. */
  const newWallet = async (extra: Record<string, unknown> = {}): Promise<Wallet> => {
    const email = freshEmail()
    const c = await server.call("POST", "/customers", {
      customerType: "INDIVIDUAL",
      fullName: "Wanda Wallet",
      email,
      endUserTermsConsent: consent,
      ...extra
    })
    expect(c.status, JSON.stringify(c.json)).toBe(201)
    const accountId = (await walletAccount(c.json.id)).id
    const credentials = await credentialsOf(accountId)
    expect(credentials).toHaveLength(1)
    return { customerId: c.json.id, accountId, email, emailCredentialId: credentials[0]!.id }
  }

  /** Lets a new OTP challenge go out at once (the resend limit, W-15, is tested on its own). */
  const allowResend = async (credentialId: string) => {
    const open = await Effect.runPromise(server.store.otpChallenges.get(credentialId))
    if (open !== undefined) {
      await Effect.runPromise(server.store.otpChallenges.update({ ...open, issuedAt: "2020-01-01T00:00:00.000Z" }))
    }
  }

  /** W-13, W-17, W-18: an OTP sign-in's first leg; its retry is stamped by the key sealed with the code. */
  const otpSignIn = async (credentialId: string, key: SessionKey = sessionKey(), code = SANDBOX_OTP) => {
    await allowResend(credentialId)
    const challenge = await server.call("POST", `/auth/credentials/${credentialId}/challenge`)
    expect(challenge.status, JSON.stringify(challenge.json)).toBe(200)
    const body = {
      type: challenge.json.type,
      encryptedOtpBundle: await sealOtpBundle(challenge.json.otpEncryptionTargetBundle, code, key.publicKey)
    }
    const first = await server.call("POST", `/auth/credentials/${credentialId}/verify`, body)
    return { first, body, key }
  }

  /** A session of `credentialId` by OTP, and its key. */
  const signIn = async (credentialId: string, key: SessionKey = sessionKey()): Promise<SignedIn> => {
    const { first, body } = await otpSignIn(credentialId, key)
    expect(first.status, JSON.stringify(first.json)).toBe(202)
    const done = await server.call("POST", `/auth/credentials/${credentialId}/verify`, body, {
      headers: retry(first, key)
    })
    expect(done.status, JSON.stringify(done.json)).toBe(200)
    return { session: done.json, key }
  }

  /** A new wallet signed in with its EMAIL_OTP credential: the signer of its signed retries. */
  const signedInWallet = async (extra: Record<string, unknown> = {}): Promise<SignedInWallet> => {
    const wallet = await newWallet(extra)
    return { ...wallet, ...(await signIn(wallet.emailCredentialId)) }
  }

  /**
   * A signed retry by `key` (W-35, W-37): the first leg, which must answer 202, then the same request with the
   * stamp of its payload. Both answers; the test checks the second's status.
   */
  const signedCall = async (method: string, path: string, body: unknown, key: SessionKey) => {
    const first = await server.call(method, path, body)
    expect(first.status, JSON.stringify(first.json)).toBe(202)
    const done = await server.call(method, path, body, { headers: retry(first, key) })
    return { first, done }
  }

  const snapshot = (): Promise<StoreSnapshot> =>
    Effect.runPromise(snapshotStore().pipe(Effect.provideService(Store, server.store)))

  /** Ages a signed request past its `expiresAt` (L-08) without waiting five minutes. */
  const expire = async (requestId: string) => {
    const row = await Effect.runPromise(server.store.signedRequests.get(requestId))
    await Effect.runPromise(server.store.signedRequests.update({ ...row!, expiresAt: "2020-01-01T00:00:00.000Z" }))
  }

  return {
    walletAccount,
    credentialsOf,
    newWallet,
    allowResend,
    otpSignIn,
    signIn,
    signedInWallet,
    signedCall,
    snapshot,
    expire
  }
}
