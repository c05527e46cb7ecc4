/**
 * Embedded-wallet steps the HTTP tests share, over the client kit (`@paycore/testkit/wallet-client`): a wallet, an
 * OTP sign-in with the sandbox code, the headers of a signed retry, store snapshots.
 */
import { randomUUID } from "node:crypto"
import { Store } from "@paycore/core"
import { type StoreSnapshot, snapshotStore } from "@paycore/testkit"
import { type SessionKey, sealOtpBundle, sessionKey } from "@paycore/testkit/wallet-client"
import { Effect } from "effect"
import { expect } from "vitest"
import { type CallResult, consent, type TestServer } from "./harness.ts"

/** SB-11: the sandbox's OTP. */
export const SANDBOX_OTP = "000000"

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

/** The two headers of a signed retry of the 202 `r`, stamped by `key` (W-37). */
export const retry = (r: CallResult, key: SessionKey, requestId = r.json.requestId as string) => ({
  "service-wallet-signature": key.stamp(r.json.payloadToSign),
  "request-id": requestId
})

/** Adds USDB to the platform's currencies (a customer of a USDB platform gets an embedded wallet: AC-02). */
export const ensureUsdb = async (server: TestServer) => {
  const config = await server.call("GET", "/config")
  const currencies: Array<string> = config.json.supportedCurrencies
  if (!currencies.includes("USDB")) {
    const r = await server.call("PATCH", "/config", { supportedCurrencies: [...currencies, "USDB"] })
    expect(r.status, JSON.stringify(r.json)).toBe(200)
  }
}

/** Wallet steps against `server` (a USDB platform: see `ensureUsdb`). */
export const walletKit = (server: TestServer) => {
  /** A customer with an email: an embedded wallet with its first credential. */
  const newWallet = async (extra: Record<string, unknown> = {}): Promise<Wallet> => {
    const email = `wallet.${randomUUID()}@example.com`
    const c = await server.call("POST", "/customers", {
      customerType: "INDIVIDUAL",
      fullName: "Wanda Wallet",
      email,
      endUserTermsConsent: consent,
      ...extra
    })
    expect(c.status, JSON.stringify(c.json)).toBe(201)
    const accounts = await server.call(
      "GET",
      `/customers/internal-accounts?customerId=${c.json.id}&type=EMBEDDED_WALLET`
    )
    expect(accounts.json.data).toHaveLength(1)
    const accountId: string = accounts.json.data[0].id
    const credentials = await server.call("GET", `/auth/credentials?accountId=${accountId}`)
    expect(credentials.json.data).toHaveLength(1)
    return { customerId: c.json.id, accountId, email, emailCredentialId: credentials.json.data[0].id }
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

  const snapshot = (): Promise<StoreSnapshot> =>
    Effect.runPromise(snapshotStore().pipe(Effect.provideService(Store, server.store)))

  /** Ages a signed request past its `expiresAt` (L-08) without waiting five minutes. */
  const expire = async (requestId: string) => {
    const row = await Effect.runPromise(server.store.signedRequests.get(requestId))
    await Effect.runPromise(server.store.signedRequests.update({ ...row!, expiresAt: "2020-01-01T00:00:00.000Z" }))
  }

  return { newWallet, allowResend, otpSignIn, signIn, snapshot, expire }
}
