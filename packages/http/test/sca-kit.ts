/**
 * The steps the SCA HTTP tests share: a customer of a region with its phone verified or not, the SMS login with the
 * sandbox code (an EEA customer needs both before payments are challenged), TOTP and passkey enrolment, a trust or
 * untrust of a beneficiary, ageing a challenge through the store, and a notifier that records every code it sends.
 */
import { randomUUID } from "node:crypto"
import { Notifier } from "@paycore/core"
import { type SoftwareAuthenticator, softwareAuthenticator, toWebAuthnJson } from "@paycore/testkit/wallet-client"
import { Effect, Layer, Redacted } from "effect"
import { expect } from "vitest"
import { type CallResult, individualPacket, type TestServer } from "./harness.ts"

/** The sandbox's SMS and SCA code (SB-11, S-15). */
export const SANDBOX_CODE = "123456"
export const END_USER_IP = "203.0.113.42"
/** A sandbox origin: the default relying party `localhost` allows http://localhost on any port. */
export const PASSKEY_ORIGIN = "http://localhost:5173"

/** Runs a store effect (reading or ageing rows) from a test. */
export const run = <A>(effect: Effect.Effect<A, unknown>) => Effect.runPromise(effect)

/** A German mobile number, different on each call. */
export const germanPhone = () => `+49151${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`

export interface ScaCustomerOptions {
  /** No region: a customer outside the SCA regions, as a US one is. */
  readonly region?: string | undefined
  /** `verified`: SMS_OTP is usable (the sandbox KYC provider asks an EEA customer to verify it); `none`: no phone. */
  readonly phone: "verified" | "unverified" | "none"
  readonly currencies?: ReadonlyArray<string>
  readonly name?: string
}

export interface ScaCustomer {
  readonly id: string
  readonly phoneNumber: string | undefined
  /** Its internal accounts' ids by currency. */
  readonly accounts: Readonly<Record<string, string>>
}

/** `POST /customers` (an individual of `region` with a fresh German phone unless `none`), the phone verified if asked. */
export const scaCustomer = async (server: TestServer, options: ScaCustomerOptions): Promise<ScaCustomer> => {
  const phoneNumber = options.phone === "none" ? undefined : germanPhone()
  const r = await server.call(
    "POST",
    "/customers",
    individualPacket(options.name ?? "Ada Lovelace", {
      ...(options.region === undefined ? {} : { region: options.region }),
      ...(options.currencies === undefined ? {} : { currencies: options.currencies }),
      ...(phoneNumber === undefined ? {} : { phoneNumber }),
      email: `sca.${randomUUID()}@example.com`
    })
  )
  expect(r.status, JSON.stringify(r.json)).toBe(201)
  const id = r.json.id as string
  if (options.phone === "verified") await verifyPhone(server, id)
  const listed = await server.call("GET", `/customers/internal-accounts?customerId=${id}`)
  expect(listed.status, JSON.stringify(listed.json)).toBe(200)
  const accounts: Record<string, string> = {}
  for (const a of listed.json.data as Array<{ id: string; currency: string }>) accounts[a.currency] = a.id
  return { id, phoneNumber, accounts }
}

/** `POST /customers/{id}/verify-phone` and its confirm with the sandbox code: the phone is VERIFIED. */
export const verifyPhone = async (server: TestServer, customerId: string) => {
  expect((await server.call("POST", `/customers/${customerId}/verify-phone`)).status).toBe(204)
  const confirmed = await server.call("POST", `/customers/${customerId}/verify-phone/confirm`, { code: SANDBOX_CODE })
  expect(confirmed.status, JSON.stringify(confirmed.json)).toBe(200)
}

/** An SMS login with the sandbox code, unchecked: the start's answer if it was refused, else the complete's. */
export const smsLoginAttempt = async (server: TestServer, customerId: string): Promise<CallResult> => {
  const started = await server.call("POST", `/sca/login/start?customerId=${customerId}`, { factor: "SMS_OTP" })
  if (started.status !== 200) return started
  return server.call("POST", `/sca/login/complete?customerId=${customerId}`, {
    factor: "SMS_OTP",
    endUserIpAddress: END_USER_IP,
    challengeId: started.json.challengeId,
    code: SANDBOX_CODE
  })
}

/** An SMS login with the sandbox code (S-12): the customer has a live 180-day SCA session. */
export const scaLogin = async (server: TestServer, customerId: string) => {
  const done = await smsLoginAttempt(server, customerId)
  expect(done.status, JSON.stringify(done.json)).toBe(200)
}

/** Both: a customer created with a phone is ready to be challenged per payment. */
export const readyForSca = async (server: TestServer, customerId: string) => {
  await verifyPhone(server, customerId)
  await scaLogin(server, customerId)
}

/** A TOTP factor enrolled and confirmed with the sandbox code (the customer must be logged in). */
export const enrolTotp = async (server: TestServer, customerId: string) => {
  const started = await server.call("POST", `/sca/factors?customerId=${customerId}`, { type: "TOTP" })
  expect(started.status, JSON.stringify(started.json)).toBe(200)
  const confirmed = await server.call("POST", `/sca/factors/confirm?customerId=${customerId}`, {
    type: "TOTP",
    secret: started.json.secret,
    code: SANDBOX_CODE
  })
  expect(confirmed.status, JSON.stringify(confirmed.json)).toBe(200)
}

/** A software authenticator of the sandbox relying party, running on `PASSKEY_ORIGIN`. */
export const passkeyDevice = () => softwareAuthenticator({ rpId: "localhost", origin: PASSKEY_ORIGIN })

export const startPasskeyEnrolment = (server: TestServer, customerId: string) =>
  server.call("POST", `/sca/factors?customerId=${customerId}`, { type: "PASSKEY" })

export const confirmPasskeyEnrolment = (
  server: TestServer,
  customerId: string,
  credential: unknown,
  origin = PASSKEY_ORIGIN
) => server.call("POST", `/sca/factors/confirm?customerId=${customerId}`, { type: "PASSKEY", origin, credential })

/** `device` enrolled as the customer's passkey (the customer must be logged in); returns the device. */
export const enrolPasskey = async (
  server: TestServer,
  customerId: string,
  device: SoftwareAuthenticator = passkeyDevice()
) => {
  const started = await startPasskeyEnrolment(server, customerId)
  expect(started.status, JSON.stringify(started.json)).toBe(200)
  const credential = toWebAuthnJson(await device.register(started.json.options.challenge))
  const confirmed = await confirmPasskeyEnrolment(server, customerId, credential)
  expect(confirmed.status, JSON.stringify(confirmed.json)).toBe(200)
  return device
}

/** A trust (or untrust) of an external account: start, then confirm with the sandbox code. */
export const trustMove = async (server: TestServer, accountId: string, move: "trust" | "untrust") => {
  const path = `/customers/external-accounts/${accountId}/${move}`
  const started = await server.call("POST", path)
  expect(started.status, JSON.stringify(started.json)).toBe(200)
  const confirmed = await server.call("POST", `${path}/confirm`, {
    challengeId: started.json.scaChallenge.id,
    code: SANDBOX_CODE
  })
  expect(confirmed.status, JSON.stringify(confirmed.json)).toBe(200)
  expect(confirmed.json).toEqual({ trusted: move === "trust" })
}

/** Moves a challenge's instants `ms` into the past (as if that much time had gone by). */
export const ageChallenge = async (server: TestServer, challengeId: string, ms: number) => {
  const row = (await run(server.store.scaChallenges.get(challengeId)))!
  const back = (iso: string | undefined) =>
    iso === undefined ? undefined : new Date(Date.parse(iso) - ms).toISOString()
  await run(
    server.store.scaChallenges.update({
      ...row,
      createdAt: back(row.createdAt)!,
      lastSentAt: back(row.lastSentAt),
      lastFailedAt: back(row.lastFailedAt),
      expiresAt: back(row.expiresAt)!
    })
  )
}

/** A Notifier that records every code the engine sends, with its channel and number (the sandbox's codes still pass). */
export const recordingNotifier = () => {
  const sent: Array<{ readonly channel: string; readonly to: string; readonly code: string }> = []
  const layer = Layer.succeed(
    Notifier,
    Notifier.of({
      send: (channel, to, code) => Effect.sync(() => void sent.push({ channel, to, code: Redacted.value(code) })),
      fixedCode: SANDBOX_CODE,
      fixedWalletCode: "000000"
    })
  )
  return { sent, layer }
}
