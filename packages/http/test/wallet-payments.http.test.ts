import { Store } from "@paycore/core"
import * as MemoryStore from "@paycore/store-memory"
import { failingCredentialUpdates, ledgerViolations } from "@paycore/testkit"
import { sessionKey } from "@paycore/testkit/wallet-client"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { addUsPayee, type CallResult, consent, expectError, fundAccount, quoteBody, useTestServer } from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"
import { expectChallenge, freshEmail, retry, type SignedIn, type Wallet, walletKit } from "./wallet-kit.ts"

/*
 * The embedded wallet's signature on the customer's contact update (CU-14 … CU-18, W-04) and on a quote's
 * execution (Q-24, AC-07, Q-06), through the client kit, on every store.
 */

const LONG_AGO = "2020-01-01T00:00:00.000Z"

const suite = (stores: () => StoresUnderTest) => {
  // Every store is wrapped: `faulty.fault.on` makes `walletCredentials.update` fail (CU-17).
  const base = stores()
  const faulty = failingCredentialUpdates(base.storeLayer ?? MemoryStore.layer)
  const server = useTestServer(
    async (s) => {
      const r = await s.call("PATCH", "/config", { supportedCurrencies: ["USD", "USDC", "USDB"] })
      expect(r.status).toBe(200)
    },
    { ...base, storeLayer: faulty.layer }
  )
  const { walletAccount, credentialsOf, newWallet, signIn, signedCall, snapshot } = walletKit(server)

  const storedCredential = (id: string) => Effect.runPromise(server.store.walletCredentials.get(id))

  /** W-07, W-08: an SMS_OTP credential added by a signed retry, then signed in (verified). */
  const addSmsCredential = async (w: Wallet, by: SignedIn): Promise<{ id: string; signed: SignedIn }> => {
    const { done: added } = await signedCall(
      "POST",
      "/auth/credentials",
      { type: "SMS_OTP", accountId: w.accountId },
      by.key
    )
    expect(added.status, JSON.stringify(added.json)).toBe(201)
    return { id: added.json.id, signed: await signIn(added.json.id) }
  }

  describe("customer contact update with tied credentials", () => {
    it("CU-14, W-35: changing the email of a wallet customer answers 202 binding the body and the credential set", async () => {
      const w = await newWallet()
      const newEmail = freshEmail()
      const first = await server.call("PATCH", `/customers/${w.customerId}`, {
        customerType: "INDIVIDUAL",
        email: newEmail
      })
      expect(expectChallenge(first)).toEqual({
        type: "WALLET_UPDATE_CUSTOMER_CONTACT",
        requestId: first.json.requestId,
        accountId: w.accountId,
        subjectId: w.customerId,
        parameters: { customerId: w.customerId, email: newEmail },
        bodySha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        credentialSetSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        expiresAt: first.json.expiresAt
      })
      // Nothing changed yet.
      expect((await server.call("GET", `/customers/${w.customerId}`)).json.email).toBe(w.email)
      expect((await credentialsOf(w.accountId)).map((c) => c.nickname)).toEqual([w.email])
    })

    it("CU-16, CU-17: the stamped retry answers 200; the customer and its tied credential change together", async () => {
      const w = await newWallet()
      const signed = await signIn(w.emailCredentialId)
      const newEmail = freshEmail()
      // Other fields ride along: the whole body is bound.
      const body = { customerType: "INDIVIDUAL", email: newEmail, fullName: "Wanda Renamed" }
      const path = `/customers/${w.customerId}`
      const { first, done } = await signedCall("PATCH", path, body, signed.key)
      expect(done.status, JSON.stringify(done.json)).toBe(200)
      expect(done.json).toMatchObject({
        id: w.customerId,
        email: newEmail,
        fullName: "Wanda Renamed",
        contactVerification: { email: "PENDING" }
      })
      expect(await credentialsOf(w.accountId)).toEqual([
        expect.objectContaining({ id: w.emailCredentialId, type: "EMAIL_OTP", nickname: newEmail })
      ])
      expect(await storedCredential(w.emailCredentialId)).toMatchObject({ contact: newEmail, nickname: newEmail })
      // W-38: the requestId is spent, and its replay meets it first: 401, although the same body without the
      // headers now changes no contact and needs no signature (200, as is).
      expect((await Effect.runPromise(server.store.signedRequests.get(first.json.requestId)))?.status).toBe("CONSUMED")
      const replay = await server.call("PATCH", path, body, { headers: retry(first, signed.key) })
      expectError(replay, 401, "UNAUTHORIZED")
      expect((await server.call("PATCH", path, body)).json.email).toBe(newEmail)
      // Codes now go to the new address: the credential still signs in.
      await signIn(w.emailCredentialId)
    })

    it("CU-15: changing the phone number with a tied SMS_OTP credential is the same signed retry", async () => {
      const w = await newWallet({ phoneNumber: "+14155550100" })
      const email = await signIn(w.emailCredentialId)
      const sms = await addSmsCredential(w, email)
      const body = { customerType: "INDIVIDUAL", phoneNumber: "+14155550199" }
      const path = `/customers/${w.customerId}`
      const first = await server.call("PATCH", path, body)
      expect(first.status, JSON.stringify(first.json)).toBe(202)
      expect(JSON.parse(first.json.payloadToSign).parameters).toEqual({
        customerId: w.customerId,
        phoneNumber: "+14155550199"
      })
      // Any verified credential's session of the wallet signs (ANY_SESSION): here the email one.
      const done = await server.call("PATCH", path, body, { headers: retry(first, email.key) })
      expect(done.status, JSON.stringify(done.json)).toBe(200)
      expect(done.json.phoneNumber).toBe("+14155550199")
      const byId = new Map((await credentialsOf(w.accountId)).map((c) => [c.id, c.nickname]))
      expect(byId.get(sms.id)).toBe("+14155550199")
      // The email credential is not tied to the phone number.
      expect(byId.get(w.emailCredentialId)).toBe(w.email)
    })

    it("C-18, C-17, C-16, C-14, CU-16, W-37: a retry with another body, or stamped by another wallet, is 401 and changes nothing", async () => {
      const w = await newWallet()
      const other = await newWallet()
      const signed = await signIn(w.emailCredentialId)
      const stranger = await signIn(other.emailCredentialId)
      const path = `/customers/${w.customerId}`
      const body = { customerType: "INDIVIDUAL", email: freshEmail() }
      const first = await server.call("PATCH", path, body)
      expect(first.status).toBe(202)
      const good = retry(first, signed.key)
      const before = await snapshot()
      const cases: Array<[unknown, Record<string, string>, string]> = [
        [{ ...body, email: freshEmail() }, good, "WALLET_SIGNATURE_BODY_MISMATCH"],
        [{ ...body, fullName: "Someone Else" }, good, "WALLET_SIGNATURE_BODY_MISMATCH"],
        [body, retry(first, stranger.key), "WALLET_SIGNATURE_INVALID"],
        [body, retry(first, sessionKey()), "WALLET_SIGNATURE_INVALID"],
        [body, { "request-id": first.json.requestId }, "WALLET_SIGNATURE_MISSING"],
        [body, { "service-wallet-signature": good["service-wallet-signature"] }, "REQUEST_ID_MISSING"]
      ]
      for (const [sent, headers, code] of cases) {
        const r = await server.call("PATCH", path, sent, { headers })
        expectError(r, 401, code)
        expect(r.headers.get("www-authenticate")).toBeNull()
      }
      expect(await snapshot()).toEqual(before)
      expect((await server.call("PATCH", path, body, { headers: good })).status).toBe(200)
    })

    it("CU-18: an email another OTP credential already uses is 409 EMAIL_OTP_EMAIL_ALREADY_EXISTS, at either leg", async () => {
      const w = await newWallet()
      const taken = await newWallet()
      const signed = await signIn(w.emailCredentialId)
      const path = `/customers/${w.customerId}`
      expectError(
        await server.call("PATCH", path, { customerType: "INDIVIDUAL", email: taken.email }),
        409,
        "EMAIL_OTP_EMAIL_ALREADY_EXISTS"
      )
      // Free at the first leg, taken before the retry: checked again in the retry's transaction.
      const wanted = freshEmail()
      const body = { customerType: "INDIVIDUAL", email: wanted }
      const first = await server.call("PATCH", path, body)
      expect(first.status).toBe(202)
      const rival = await server.call("POST", "/customers", {
        customerType: "INDIVIDUAL",
        fullName: "Rival",
        email: wanted
      })
      expect(rival.status).toBe(201)
      const before = await snapshot()
      expectError(
        await server.call("PATCH", path, body, { headers: retry(first, signed.key) }),
        409,
        "EMAIL_OTP_EMAIL_ALREADY_EXISTS"
      )
      expect(await snapshot()).toEqual(before)
    })

    it("CU-18: a tied credential revoked and re-added between the legs is 409 EMAIL_OTP_CREDENTIAL_SET_CHANGED", async () => {
      const w = await newWallet({ phoneNumber: "+14155550111" })
      const email = await signIn(w.emailCredentialId)
      const sms = await addSmsCredential(w, email)
      const path = `/customers/${w.customerId}`
      const body = { customerType: "INDIVIDUAL", email: freshEmail() }
      const first = await server.call("PATCH", path, body)
      expect(first.status).toBe(202)

      // W-27, W-28: revoked by the SMS credential's session, then re-added (W-07) with the same address.
      const revokePath = `/auth/credentials/${w.emailCredentialId}`
      expect((await signedCall("DELETE", revokePath, undefined, sms.signed.key)).done.status).toBe(204)
      const readd = { type: "EMAIL_OTP", accountId: w.accountId }
      const { done: added } = await signedCall("POST", "/auth/credentials", readd, sms.signed.key)
      expect(added.status, JSON.stringify(added.json)).toBe(201)

      const before = await snapshot()
      expectError(
        await server.call("PATCH", path, body, { headers: retry(first, sms.signed.key) }),
        409,
        "EMAIL_OTP_CREDENTIAL_SET_CHANGED"
      )
      expect(await snapshot()).toEqual(before)
      // A new first leg binds the new set.
      expect((await signedCall("PATCH", path, body, sms.signed.key)).done.status).toBe(200)
      const byId = new Map((await credentialsOf(w.accountId)).map((c) => [c.id, c.nickname]))
      expect(byId.get(added.json.id)).toBe(body.email)
    })

    it("CU-17: a tied credential that cannot be written is 424 and nothing changes; the retry may be sent again", async () => {
      const w = await newWallet()
      const signed = await signIn(w.emailCredentialId)
      const path = `/customers/${w.customerId}`
      const body = { customerType: "INDIVIDUAL", email: freshEmail() }
      const first = await server.call("PATCH", path, body)
      expect(first.status).toBe(202)
      const headers = retry(first, signed.key)
      const before = await snapshot()
      faulty.fault.on = true
      let failed: CallResult
      try {
        failed = await server.call("PATCH", path, body, { headers })
      } finally {
        faulty.fault.on = false
      }
      expectError(failed, 424, "EMAIL_OTP_CREDENTIAL_SYNC_FAILED")
      // The customer, its credential and the requestId (still PENDING) are as they were.
      expect(await snapshot()).toEqual(before)
      expect((await server.call("GET", path)).json.email).toBe(w.email)
      expect((await Effect.runPromise(server.store.signedRequests.get(first.json.requestId)))?.status).toBe("PENDING")
      const done = await server.call("PATCH", path, body, { headers })
      expect(done.status, JSON.stringify(done.json)).toBe(200)
      expect(done.json.email).toBe(body.email)
    })

    it("CU-14: without tied credentials the PATCH answers 200 at once", async () => {
      const w = await newWallet()
      // Another field than the contact.
      const renamed = await server.call("PATCH", `/customers/${w.customerId}`, {
        customerType: "INDIVIDUAL",
        fullName: "Wanda Plain"
      })
      expect(renamed.status).toBe(200)
      // A customer without an embedded wallet.
      const plain = await server.call("POST", "/customers", {
        customerType: "INDIVIDUAL",
        fullName: "No Wallet",
        email: freshEmail(),
        currencies: ["USD"]
      })
      const moved = await server.call("PATCH", `/customers/${plain.json.id}`, {
        customerType: "INDIVIDUAL",
        email: freshEmail()
      })
      expect(moved.status, JSON.stringify(moved.json)).toBe(200)
      // Signature headers on an update that needs none are ignored.
      const ignored = await server.call(
        "PATCH",
        `/customers/${plain.json.id}`,
        { customerType: "INDIVIDUAL", fullName: "Still Plain" },
        { headers: { "service-wallet-signature": "junk", "request-id": "Request:junk" } }
      )
      expect(ignored.status).toBe(200)
    })

    it("W-04, CU-18: an email given later opens the wallet's first EMAIL_OTP credential, unless another uses it", async () => {
      const c = await server.call("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Late Email" })
      expect(c.status).toBe(201)
      const accountId = (await walletAccount(c.json.id)).id
      expect(await credentialsOf(accountId)).toEqual([])
      const taken = await newWallet()
      const path = `/customers/${c.json.id}`
      expectError(
        await server.call("PATCH", path, { customerType: "INDIVIDUAL", email: taken.email }),
        409,
        "EMAIL_OTP_EMAIL_ALREADY_EXISTS"
      )
      expect(await credentialsOf(accountId)).toEqual([])
      const email = freshEmail()
      const r = await server.call("PATCH", path, { customerType: "INDIVIDUAL", email })
      expect(r.status, JSON.stringify(r.json)).toBe(200)
      const credentials = await credentialsOf(accountId)
      expect(credentials).toEqual([expect.objectContaining({ type: "EMAIL_OTP", nickname: email })])
      // It is verified from the start and signs in (W-04).
      await signIn(credentials[0]!.id)
    })
  })

  describe("quote execution from an embedded wallet", () => {
    const FUNDED = 50_000_000
    const SENT = 10_000_000

    /** A funded wallet, a USD payee of its customer, and a PENDING quote from the wallet to it. */
    const walletQuote = async () => {
      const w = await newWallet()
      await fundAccount(server, w.accountId, FUNDED)
      const payee = await addUsPayee(server, w.customerId)
      const quote = await server.call("POST", "/quotes", quoteBody(w.accountId, payee, SENT))
      expect(quote.status, JSON.stringify(quote.json)).toBe(201)
      return { w, payee, quote: quote.json }
    }

    const walletBalance = async (w: Wallet): Promise<number> => (await walletAccount(w.customerId)).balance.amount

    const violations = () =>
      Effect.runPromise(ledgerViolations.pipe(Effect.provideService(Store, server.store), Effect.orDie))

    it("AC-07: the quote carries the EMBEDDED_WALLET payloadToSign binding its exact terms", async () => {
      const { w, payee, quote } = await walletQuote()
      expect(quote.paymentInstructions).toEqual([
        {
          instructionsNotes: expect.stringContaining("Service-Wallet-Signature"),
          accountOrWalletInfo: { accountType: "EMBEDDED_WALLET", payloadToSign: expect.any(String) }
        }
      ])
      const payload: string = quote.paymentInstructions[0].accountOrWalletInfo.payloadToSign
      expect(Object.keys(JSON.parse(payload))).toEqual([
        "type",
        "quoteId",
        "accountId",
        "sendingAmount",
        "sendingCurrency",
        "receivingAmount",
        "receivingCurrency",
        "destination",
        "paymentRail",
        "expiresAt"
      ])
      expect(JSON.parse(payload)).toEqual({
        type: "WALLET_EXECUTE_QUOTE",
        quoteId: quote.id,
        accountId: w.accountId,
        sendingAmount: quote.totalSendingAmount,
        sendingCurrency: "USDB",
        receivingAmount: quote.totalReceivingAmount,
        receivingCurrency: "USD",
        destination: payee,
        paymentRail: quote.destination.paymentRail,
        expiresAt: quote.expiresAt
      })
      // The same bytes on every read.
      const read = await server.call("GET", `/quotes/${quote.id}`)
      expect(read.json.paymentInstructions[0].accountOrWalletInfo.payloadToSign).toBe(payload)
    })

    it("Q-06: immediatelyExecute is refused for an embedded-wallet source", async () => {
      const { w, payee } = await walletQuote()
      const r = await server.call("POST", "/quotes", quoteBody(w.accountId, payee, SENT, { immediatelyExecute: true }))
      expectError(r, 400, "INVALID_INPUT")
    })

    it("C-15, Q-24: execute without a valid stamp of a live session of that wallet is 401 and moves nothing", async () => {
      const { w, quote } = await walletQuote()
      const other = await newWallet()
      const signed = await signIn(w.emailCredentialId)
      const stranger = await signIn(other.emailCredentialId)
      const payload: string = quote.paymentInstructions[0].accountOrWalletInfo.payloadToSign
      const path = `/quotes/${quote.id}/execute`
      const before = await snapshot()
      const balance = await walletBalance(w)
      expect(balance).toBe(FUNDED)
      const cases: Array<[Record<string, string>, string]> = [
        [{}, "WALLET_SIGNATURE_MISSING"],
        [{ "service-wallet-signature": "not-a-stamp" }, "WALLET_SIGNATURE_MALFORMED"],
        // Another wallet's live session, over this very payload.
        [{ "service-wallet-signature": stranger.key.stamp(payload) }, "WALLET_SIGNATURE_INVALID"],
        // A key no session holds.
        [{ "service-wallet-signature": sessionKey().stamp(payload) }, "WALLET_SIGNATURE_INVALID"],
        // This wallet's session over another payload (another quote's terms).
        [
          { "service-wallet-signature": signed.key.stamp(payload.replace(`${quote.totalSendingAmount}`, "1")) },
          "WALLET_SIGNATURE_INVALID"
        ]
      ]
      for (const [headers, code] of cases) {
        const r = await server.call("POST", path, undefined, { headers })
        expectError(r, 401, code)
        expect(r.headers.get("www-authenticate")).toBeNull()
      }
      // This wallet's session, once expired.
      const live = await Effect.runPromise(server.store.walletSessions.get(signed.session.id))
      await Effect.runPromise(server.store.walletSessions.update({ ...live!, expiresAt: LONG_AGO }))
      const stale = await server.call("POST", path, undefined, {
        headers: { "service-wallet-signature": signed.key.stamp(payload) }
      })
      expectError(stale, 401, "WALLET_SIGNATURE_INVALID")
      await Effect.runPromise(server.store.walletSessions.update(live!))

      expect(await snapshot()).toEqual(before)
      expect(await walletBalance(w)).toBe(FUNDED)
      expect((await server.call("GET", `/quotes/${quote.id}`)).json.status).toBe("PENDING")
      expect(await violations()).toEqual([])
    })

    it("Q-24: a stamp by a live session of the wallet executes the quote once", async () => {
      const { w, quote } = await walletQuote()
      const signed = await signIn(w.emailCredentialId)
      const payload: string = quote.paymentInstructions[0].accountOrWalletInfo.payloadToSign
      const headers = { "service-wallet-signature": signed.key.stamp(payload) }
      const path = `/quotes/${quote.id}/execute`
      const executed = await server.call("POST", path, undefined, { headers })
      expect(executed.status, JSON.stringify(executed.json)).toBe(200)
      expect(["PROCESSING", "COMPLETED"]).toContain(executed.json.status)
      expect(await walletBalance(w)).toBe(FUNDED - quote.totalSendingAmount)
      await server.processDue()
      expect((await server.call("GET", `/quotes/${quote.id}`)).json.status).toBe("COMPLETED")
      const tx = await server.call("GET", `/transactions/${quote.transactionId}`)
      expect(tx.json.status).toBe("COMPLETED")
      // The quote's state machine makes the stamp single-use.
      expectError(await server.call("POST", path, undefined, { headers }), 409, "QUOTE_ALREADY_EXECUTED")
      expect(await violations()).toEqual([])
    })

    it("Q-24: other quotes ignore the header", async () => {
      const c = await server.call("POST", "/customers", {
        customerType: "INDIVIDUAL",
        fullName: "Plain Payer",
        currencies: ["USD"],
        endUserTermsConsent: consent
      })
      const usd = (await server.call("GET", `/customers/internal-accounts?customerId=${c.json.id}`)).json.data[0].id
      await fundAccount(server, usd, 10_000)
      const payee = await addUsPayee(server, c.json.id)
      const quote = await server.call("POST", "/quotes", quoteBody(usd, payee, 1000))
      expect(quote.json.paymentInstructions).toEqual([])
      const r = await server.call("POST", `/quotes/${quote.json.id}/execute`, undefined, {
        headers: { "service-wallet-signature": "junk" }
      })
      expect(r.status, JSON.stringify(r.json)).toBe(200)
    })
  })
}

onEveryStore("embedded-wallet contact updates and payments", "wallet_payments_http", suite)
