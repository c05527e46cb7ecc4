/**
 * Making a customer ready for payments under Strong Customer Authentication over HTTP: its phone verified (the
 * sandbox KYC provider asks an EEA customer to verify it, and SMS_OTP needs a verified phone) and an SCA login
 * session opened with the sandbox code.
 */
import { expect } from "vitest"
import type { TestServer } from "./harness.ts"

/** The sandbox's SMS and SCA code (SB-11, S-15). */
export const SANDBOX_CODE = "123456"
export const END_USER_IP = "203.0.113.42"

/** A German mobile number, different on each call. */
export const germanPhone = () => `+49151${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`

/** `POST /customers/{id}/verify-phone` and its confirm with the sandbox code: the phone is VERIFIED. */
export const verifyPhone = async (server: TestServer, customerId: string) => {
  expect((await server.call("POST", `/customers/${customerId}/verify-phone`)).status).toBe(204)
  const confirmed = await server.call("POST", `/customers/${customerId}/verify-phone/confirm`, { code: SANDBOX_CODE })
  expect(confirmed.status, JSON.stringify(confirmed.json)).toBe(200)
}

/** An SMS login with the sandbox code (S-12): the customer has a live 180-day SCA session. */
export const scaLogin = async (server: TestServer, customerId: string) => {
  const started = await server.call("POST", `/sca/login/start?customerId=${customerId}`, { factor: "SMS_OTP" })
  expect(started.status, JSON.stringify(started.json)).toBe(200)
  const done = await server.call("POST", `/sca/login/complete?customerId=${customerId}`, {
    factor: "SMS_OTP",
    endUserIpAddress: END_USER_IP,
    challengeId: started.json.challengeId,
    code: SANDBOX_CODE
  })
  expect(done.status, JSON.stringify(done.json)).toBe(200)
}

/** Both: a customer created with a phone is ready to be challenged per payment. */
export const readyForSca = async (server: TestServer, customerId: string) => {
  await verifyPhone(server, customerId)
  await scaLogin(server, customerId)
}
