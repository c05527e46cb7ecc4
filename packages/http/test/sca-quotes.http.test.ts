/**
 * Quotes under Strong Customer Authentication on the HTTP surface (issue 14, slice S2; FEATURES S-03 … S-11, Q-19,
 * L-14; docs/sca.md "Quotes under SCA"): execute leaves a subject customer's payment waiting in
 * PENDING_AUTHORIZATION with nothing moved; `POST /quotes/{id}/authorize` with the sandbox code moves it on (or
 * carries the next challenge); the resend; the challenge's expiry failing it with SCA_NOT_COMPLETED; the race of
 * twenty authorizes. Time rules are met by ageing rows through `server.store` (the worker's expiry on a TestClock
 * is in packages/core/test/sca-quotes.test.ts). The whole file runs on the memory store, on PGlite, and on the
 * PostgreSQL server named by DATABASE_URL (where the race is a real one).
 */
import { randomUUID } from "node:crypto"
import { expect, it } from "vitest"
import {
  addMxPayee,
  addUsPayee,
  balanceIn,
  expectError,
  fundAccount,
  quoteBody,
  type TestServer,
  useTestServer
} from "./harness.ts"
import {
  ageChallenge,
  END_USER_IP,
  readyForSca,
  run,
  SANDBOX_CODE,
  scaCustomer,
  scaLogin,
  trustMove,
  verifyPhone
} from "./sca-kit.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

/** A customer of `region` with USD, MXN and USDC accounts and a phone (not verified); its id and accounts. */
const customerIn = async (server: TestServer, region: string) => {
  const { id, accounts } = await scaCustomer(server, {
    region,
    phone: "unverified",
    currencies: ["USD", "MXN", "USDC"]
  })
  return { id, usd: accounts.USD!, mxn: accounts.MXN!, usdc: accounts.USDC! }
}

const scaQuotesSuite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(async () => {}, stores())

  /** An EEA customer with a verified phone and a live SCA session, its USD account funded, and a US payee. */
  const subject = async (funding = 10_000) => {
    const customer = await customerIn(server, "DE")
    await readyForSca(server, customer.id)
    if (funding > 0) await fundAccount(server, customer.usd, funding)
    const payee = await addUsPayee(server, customer.id)
    return { ...customer, payee }
  }

  const createQuote = async (body: Record<string, unknown>) => {
    const r = await server.call("POST", "/quotes", body)
    expect(r.status, JSON.stringify(r.json)).toBe(201)
    return r.json as { id: string; transactionId: string; totalSendingAmount: number }
  }
  const execute = (quoteId: string, body?: unknown) => server.call("POST", `/quotes/${quoteId}/execute`, body)
  const authorize = (quoteId: string, code: string = SANDBOX_CODE) =>
    server.call("POST", `/quotes/${quoteId}/authorize`, { code, endUserIpAddress: END_USER_IP })
  const resend = (quoteId: string) => server.call("POST", `/quotes/${quoteId}/authorize/resend`)
  const getQuote = async (quoteId: string) => (await server.call("GET", `/quotes/${quoteId}`)).json
  const getTx = async (id: string) => (await server.call("GET", `/transactions/${id}`)).json
  const eventsOf = async (transactionId: string) =>
    (await run(server.store.outbox.list({ subject: transactionId }, { limit: 50, sortOrder: "asc" }))).data.map(
      (e) => e.type
    )
  const transfersOf = (transactionId: string) => run(server.store.ledger.transfers(transactionId))
  const challengeRow = async (id: string) => (await run(server.store.scaChallenges.get(id)))!
  const security = (customerId: string) => run(server.store.scaSecurity.get(customerId))

  /** Moves a payment's `dueAt` `ms` into the past (as if that much time had gone by). */
  const ageDueAt = async (transactionId: string, ms: number) => {
    const tx = (await run(server.store.transactions.get(transactionId)))!
    const dueAt = tx.dueAt === undefined ? undefined : new Date(Date.parse(tx.dueAt) - ms).toISOString()
    await run(server.store.transactions.update({ ...tx, dueAt }))
  }

  it("S-03, Q-19, Q-23: execute → PENDING_AUTHORIZATION with scaChallenge; nothing moved; OUTGOING_PAYMENT.PENDING_AUTHORIZATION in the outbox; a re-execute is 409 QUOTE_ALREADY_EXECUTED", async () => {
    const c = await subject()
    const quote = await createQuote(quoteBody(c.usd, c.payee, 1_000))
    const before = Date.now()
    const executed = await execute(quote.id)
    expect(executed.status, JSON.stringify(executed.json)).toBe(200)
    expect(executed.json.status).toBe("PENDING_AUTHORIZATION")
    const challenge = executed.json.scaChallenge
    expect(challenge).toMatchObject({ factor: "SMS_OTP", availableFactors: ["SMS_OTP"], purpose: "PAYOUT" })
    expect(challenge.id).toMatch(/^ScaChallenge:[0-9a-f-]{36}$/)
    const expiresMs = Date.parse(challenge.expiresAt)
    expect(expiresMs).toBeGreaterThanOrEqual(before + 300_000 - 1000)
    expect(expiresMs).toBeLessThanOrEqual(Date.now() + 300_000 + 1000)
    expect(await getQuote(quote.id)).toMatchObject({ status: "PENDING_AUTHORIZATION", scaChallenge: challenge })

    // Funds not moved: no hold, no ledger row, the balance as funded.
    expect(await transfersOf(quote.transactionId)).toEqual([])
    expect(await balanceIn(server, c.id)).toBe(10_000)
    const tx = await getTx(quote.transactionId)
    expect(tx.status).toBe("PENDING_AUTHORIZATION")
    const listed = await server.call("GET", `/transactions?customerId=${c.id}&status=PENDING_AUTHORIZATION`)
    expect(listed.status).toBe(200)
    expect(listed.json.data.map((t: { id: string }) => t.id)).toEqual([quote.transactionId])
    expect(await eventsOf(quote.transactionId)).toEqual([
      "OUTGOING_PAYMENT.PENDING",
      "OUTGOING_PAYMENT.PENDING_AUTHORIZATION"
    ])
    // The challenge is linked to what it authorizes; its code is stored only as a hash.
    const row = await challengeRow(challenge.id)
    expect(row).toMatchObject({ kind: "QUOTE", subjectId: quote.id, step: 1, status: "OPEN" })
    expect(row.linked).toEqual({ amount: quote.totalSendingAmount, currency: "USD", payee: c.payee })
    expect(JSON.stringify(row)).not.toContain(SANDBOX_CODE)

    const again = await execute(quote.id)
    expectError(again, 409, "QUOTE_ALREADY_EXECUTED")
    expect((await getQuote(quote.id)).scaChallenge.id).toBe(challenge.id)
  })

  it("S-04, S-15: a wrong code is 400 and counted; the right code → PROCESSING, the money moves once, failedAttempts back to 0", async () => {
    const c = await subject()
    const quote = await createQuote(quoteBody(c.usd, c.payee, 1_000))
    const challenge = (await execute(quote.id)).json.scaChallenge

    const wrong = await authorize(quote.id, "000000")
    expectError(wrong, 400, "INVALID_INPUT")
    expect(wrong.json.details.errors[0]).toMatchObject({ field: "code", constraint: { valid: true } })
    expect((await security(c.id))?.failedAttempts).toBe(1)
    expect((await challengeRow(challenge.id)).attempts).toBe(1)
    // L-14: a proof within 1 s of a failed one is 429, uncounted.
    const tooSoon = await authorize(quote.id)
    expectError(tooSoon, 429, "RATE_LIMITED")
    expect(tooSoon.headers.get("retry-after")).toBe("1")
    expect((await security(c.id))?.failedAttempts).toBe(1)
    await ageChallenge(server, challenge.id, 2_000)

    const right = await authorize(quote.id)
    expect(right.status, JSON.stringify(right.json)).toBe(200)
    expect(["PROCESSING", "COMPLETED"]).toContain(right.json.status)
    expect(right.json.scaChallenge).toBeUndefined()
    expect((await security(c.id))?.failedAttempts).toBe(0)
    expect((await challengeRow(challenge.id)).status).toBe("PASSED")
    const moved = await transfersOf(quote.transactionId)
    expect(moved.length).toBeGreaterThan(0)
    expect(await balanceIn(server, c.id)).toBe(10_000 - quote.totalSendingAmount)
    expect((await eventsOf(quote.transactionId)).filter((t) => t === "OUTGOING_PAYMENT.PROCESSING")).toHaveLength(1)

    // Nothing pending any more: 409, counted nowhere, the money moved once.
    expectError(await authorize(quote.id), 409, "CONFLICT")
    expect(await transfersOf(quote.transactionId)).toHaveLength(moved.length)
    expect(await balanceIn(server, c.id)).toBe(10_000 - quote.totalSendingAmount)
  })

  it("S-05: a cross-currency send authorizes two challenges in turn (CURRENCY_CONVERSION, then PAYOUT), each with its own id and event", async () => {
    const c = await subject()
    const mxPayee = await addMxPayee(server, c.id)
    const quote = await createQuote(quoteBody(c.usd, mxPayee, 2_000))
    const first = (await execute(quote.id)).json.scaChallenge
    expect(first.purpose).toBe("CURRENCY_CONVERSION")

    const step = await authorize(quote.id)
    expect(step.status, JSON.stringify(step.json)).toBe(200)
    expect(step.json.status).toBe("PENDING_AUTHORIZATION")
    const second = step.json.scaChallenge
    expect(second.purpose).toBe("PAYOUT")
    expect(second.id).not.toBe(first.id)
    expect((await challengeRow(first.id)).status).toBe("PASSED")
    expect(await challengeRow(second.id)).toMatchObject({ step: 2, status: "OPEN", factor: "SMS_OTP" })
    expect(await transfersOf(quote.transactionId)).toEqual([])
    expect((await getTx(quote.transactionId)).status).toBe("PENDING_AUTHORIZATION")

    const done = await authorize(quote.id)
    expect(done.status, JSON.stringify(done.json)).toBe(200)
    expect(["PROCESSING", "COMPLETED"]).toContain(done.json.status)
    expect(await eventsOf(quote.transactionId)).toEqual(
      expect.arrayContaining([
        "OUTGOING_PAYMENT.PENDING",
        "OUTGOING_PAYMENT.PENDING_AUTHORIZATION",
        "OUTGOING_PAYMENT.PENDING_AUTHORIZATION",
        "OUTGOING_PAYMENT.PROCESSING"
      ])
    )
    const types = await eventsOf(quote.transactionId)
    expect(types.slice(0, 4)).toEqual([
      "OUTGOING_PAYMENT.PENDING",
      "OUTGOING_PAYMENT.PENDING_AUTHORIZATION",
      "OUTGOING_PAYMENT.PENDING_AUTHORIZATION",
      "OUTGOING_PAYMENT.PROCESSING"
    ])
    expect(await balanceIn(server, c.id)).toBe(10_000 - quote.totalSendingAmount)
  })

  it("S-04: a transfer between internal accounts is one TRANSFER challenge, then COMPLETED at once", async () => {
    const c = await subject()
    const other = await customerIn(server, "US")
    const quote = await createQuote(quoteBody(c.usd, other.usd, 700))
    const challenge = (await execute(quote.id)).json.scaChallenge
    expect(challenge.purpose).toBe("TRANSFER")
    const done = await authorize(quote.id)
    expect(done.status, JSON.stringify(done.json)).toBe(200)
    expect(done.json.status).toBe("COMPLETED")
    expect(await balanceIn(server, other.id)).toBe(700)
  })

  it("S-07, L-14: resend → 204 with the same challenge and expiresAt; a second within 60 s → 429 with Retry-After; the new code works", async () => {
    const c = await subject()
    const quote = await createQuote(quoteBody(c.usd, c.payee, 1_000))
    const challenge = (await execute(quote.id)).json.scaChallenge
    expectError(await resend(quote.id), 429, "RATE_LIMITED")
    await ageChallenge(server, challenge.id, 61_000)
    const aged = await challengeRow(challenge.id)

    const sent = await resend(quote.id)
    expect(sent.status, JSON.stringify(sent.json)).toBe(204)
    const after = await getQuote(quote.id)
    expect(after.scaChallenge.id).toBe(challenge.id)
    const row = await challengeRow(challenge.id)
    expect(row.expiresAt).toBe(aged.expiresAt)
    expect(row.sends).toBe(2)
    expect(row.status).toBe("OPEN")

    const limited = await resend(quote.id)
    expectError(limited, 429, "RATE_LIMITED")
    const retryAfter = Number(limited.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(60)

    expect((await authorize(quote.id)).status).toBe(200)
    expectError(await resend(quote.id), 409, "CONFLICT")
  })

  it("S-11, Q-35: past the challenge's expiry the worker fails the payment with SCA_NOT_COMPLETED; nothing moved, no refund; authorize then → 409", async () => {
    const c = await subject()
    const quote = await createQuote(quoteBody(c.usd, c.payee, 1_000))
    const challenge = (await execute(quote.id)).json.scaChallenge
    await ageChallenge(server, challenge.id, 301_000)
    await ageDueAt(quote.transactionId, 301_000)
    await server.processDue()

    const tx = await getTx(quote.transactionId)
    expect(tx).toMatchObject({ status: "FAILED", failureReason: "SCA_NOT_COMPLETED" })
    expect(tx.refund).toBeUndefined()
    const failed = await getQuote(quote.id)
    expect(failed.status).toBe("FAILED")
    expect(failed.scaChallenge).toBeUndefined()
    expect((await challengeRow(challenge.id)).status).toBe("EXPIRED")
    expect(await transfersOf(quote.transactionId)).toEqual([])
    expect(await balanceIn(server, c.id)).toBe(10_000)
    expect(await eventsOf(quote.transactionId)).toEqual([
      "OUTGOING_PAYMENT.PENDING",
      "OUTGOING_PAYMENT.PENDING_AUTHORIZATION",
      "OUTGOING_PAYMENT.FAILED"
    ])
    expectError(await authorize(quote.id), 409, "CONFLICT")
    expectError(await resend(quote.id), 409, "CONFLICT")
    // The worker does nothing twice.
    await server.processDue()
    expect(await eventsOf(quote.transactionId)).toHaveLength(3)
  })

  it("S-11: an authorize after the challenge expired (before the worker) is 400 expired and fails the payment", async () => {
    const c = await subject()
    const quote = await createQuote(quoteBody(c.usd, c.payee, 1_000))
    const challenge = (await execute(quote.id)).json.scaChallenge
    await ageChallenge(server, challenge.id, 301_000)
    const late = await authorize(quote.id)
    expectError(late, 400, "INVALID_INPUT")
    expect(late.json.details.errors[0]).toMatchObject({ field: "code", constraint: { expired: true } })
    expect(await getTx(quote.transactionId)).toMatchObject({ status: "FAILED", failureReason: "SCA_NOT_COMPLETED" })
    expect((await getQuote(quote.id)).status).toBe("FAILED")
    expect(await transfersOf(quote.transactionId)).toEqual([])
    expectError(await authorize(quote.id), 409, "CONFLICT")
  })

  it("S-08: scaFactor TOTP is 400 on execute and on POST /quotes; a factor the customer cannot use is 400", async () => {
    const c = await subject()
    const quote = await createQuote(quoteBody(c.usd, c.payee, 1_000))
    const totp = await execute(quote.id, { scaFactor: "TOTP" })
    expectError(totp, 400, "INVALID_INPUT")
    expect(totp.json.details.errors[0].field).toBe("scaFactor")
    const created = await server.call("POST", "/quotes", quoteBody(c.usd, c.payee, 1_000, { scaFactor: "TOTP" }))
    expectError(created, 400, "INVALID_INPUT")
    expect(created.json.details.errors[0].field).toBe("scaFactor")
    // No passkey enrolled.
    const passkey = await execute(quote.id, { scaFactor: "PASSKEY" })
    expectError(passkey, 400, "INVALID_INPUT")
    expect(passkey.json.details.errors[0].field).toBe("scaFactor")
    expect((await getQuote(quote.id)).status).toBe("PENDING")
    // SMS_OTP asked for explicitly.
    const sms = await execute(quote.id, { scaFactor: "SMS_OTP" })
    expect(sms.status).toBe(200)
    expect(sms.json.scaChallenge.factor).toBe("SMS_OTP")
  })

  it("S-09: without a live SCA session execute is 409 SCA_SESSION_REQUIRED and writes nothing", async () => {
    const customer = await customerIn(server, "DE")
    await verifyPhone(server, customer.id)
    await fundAccount(server, customer.usd, 5_000)
    const payee = await addUsPayee(server, customer.id)
    const quote = await createQuote(quoteBody(customer.usd, payee, 1_000))
    expectError(await execute(quote.id), 409, "SCA_SESSION_REQUIRED")
    expect((await getQuote(quote.id)).status).toBe("PENDING")
    expect(await eventsOf(quote.transactionId)).toEqual(["OUTGOING_PAYMENT.PENDING"])
    const immediate = await server.call(
      "POST",
      "/quotes",
      quoteBody(customer.usd, payee, 1_000, { immediatelyExecute: true })
    )
    expectError(immediate, 409, "SCA_SESSION_REQUIRED")
    await scaLogin(server, customer.id)
    expect((await execute(quote.id)).json.status).toBe("PENDING_AUTHORIZATION")
  })

  it("S-03: the funds and the limits are checked before a challenge: INSUFFICIENT_FUNDS issues none", async () => {
    const c = await subject(500)
    const quote = await createQuote(quoteBody(c.usd, c.payee, 1_000))
    expectError(await execute(quote.id), 400, "INSUFFICIENT_FUNDS")
    expect(await getQuote(quote.id)).toMatchObject({ status: "PENDING" })
    expect(await eventsOf(quote.transactionId)).toEqual(["OUTGOING_PAYMENT.PENDING"])
  })

  it("S-04: a refusal of the reservation at the last authorize rolls everything back; the challenge stays open", async () => {
    const c = await subject()
    const quote = await createQuote(quoteBody(c.usd, c.payee, 1_000))
    const challenge = (await execute(quote.id)).json.scaChallenge
    const limit = await server.call("PATCH", "/config", {
      transactionLimits: [{ currency: "USD", maxTransactionAmount: 100, maxDailyVolume: 1_000_000 }]
    })
    expect(limit.status).toBe(200)
    try {
      expectError(await authorize(quote.id), 400, "TRANSACTION_SIZE_LIMIT_EXCEEDED")
      expect(await challengeRow(challenge.id)).toMatchObject({ status: "OPEN", attempts: 0 })
      expect(await getQuote(quote.id)).toMatchObject({ status: "PENDING_AUTHORIZATION" })
      expect(await transfersOf(quote.transactionId)).toEqual([])
    } finally {
      await server.call("PATCH", "/config", { transactionLimits: [] })
    }
    expect((await authorize(quote.id)).status).toBe(200)
  })

  it("S-10, C-41: a locked customer gets 423 ACCOUNT_LOCKED on execute, authorize and resend (no new code is sent); nothing is counted", async () => {
    const c = await subject()
    const quote = await createQuote(quoteBody(c.usd, c.payee, 1_000))
    const other = await createQuote(quoteBody(c.usd, c.payee, 1_000))
    expect((await execute(quote.id)).status).toBe(200)
    const lockedUntil = new Date(Date.now() + 15 * 60_000).toISOString()
    await run(
      server.store.scaSecurity.insert({
        id: c.id,
        failedAttempts: 5,
        lockedUntil,
        suspended: false,
        updatedAt: new Date().toISOString()
      })
    )
    const refused = await authorize(quote.id)
    expectError(refused, 423, "ACCOUNT_LOCKED")
    expect(refused.json.details).toMatchObject({ suspended: false, lockedUntil, failedAttempts: 5 })
    expectError(await execute(other.id), 423, "ACCOUNT_LOCKED")
    expectError(await resend(quote.id), 423, "ACCOUNT_LOCKED")
    expect((await security(c.id))?.failedAttempts).toBe(5)
    expect((await getQuote(other.id)).status).toBe("PENDING")
  })

  it("AC-38, S-03: a trusted USDC wallet is paid without a challenge (a live session still required); after untrust the next payment is challenged", async () => {
    const c = await subject(0)
    await fundAccount(server, c.usdc, 50_000_000)
    const wallet = await server.call("POST", "/customers/external-accounts", {
      customerId: c.id,
      currency: "USDC",
      ownershipType: "THIRD_PARTY",
      accountInfo: { accountType: "ETHEREUM_WALLET", address: `0x${randomUUID().replaceAll("-", "").padEnd(40, "0")}` }
    })
    expect(wallet.status, JSON.stringify(wallet.json)).toBe(201)
    await trustMove(server, wallet.json.id, "trust")
    // 5 USDC: more than the Ethereum withdrawal fees (1.50 USDC + 10 bps, Q5).
    const trusted = await createQuote(quoteBody(c.usdc, wallet.json.id, 5_000_000))
    const paid = await execute(trusted.id)
    expect(paid.status, JSON.stringify(paid.json)).toBe(200)
    expect(["PROCESSING", "COMPLETED"]).toContain(paid.json.status)
    expect(paid.json.scaChallenge).toBeUndefined()
    expect(await eventsOf(trusted.transactionId)).not.toContain("OUTGOING_PAYMENT.PENDING_AUTHORIZATION")

    await trustMove(server, wallet.json.id, "untrust")
    const again = await createQuote(quoteBody(c.usdc, wallet.json.id, 5_000_000))
    const challenged = await execute(again.id)
    expect(challenged.json.status).toBe("PENDING_AUTHORIZATION")
    expect(challenged.json.scaChallenge.purpose).toBe("PAYOUT")
  })

  it("C-39, S-01: a US customer's execute is unchanged (PROCESSING, no challenge); authorize and resend are 409 CONFLICT", async () => {
    const us = await customerIn(server, "US")
    await fundAccount(server, us.usd, 5_000)
    const payee = await addUsPayee(server, us.id)
    const quote = await createQuote(quoteBody(us.usd, payee, 1_000))
    const executed = await execute(quote.id)
    expect(executed.status).toBe(200)
    expect(["PROCESSING", "COMPLETED"]).toContain(executed.json.status)
    expect(executed.json.scaChallenge).toBeUndefined()
    expectError(await authorize(quote.id), 409, "CONFLICT")
    expectError(await resend(quote.id), 409, "CONFLICT")
    expectError(await authorize(`Quote:${randomUUID()}`), 404, "QUOTE_NOT_FOUND")
  })

  it("S-06: a real-time-funded quote of a subject customer is 202 PENDING_AUTHORIZATION without payment instructions; authorized → PENDING with them; the deposit executes it without another challenge", async () => {
    const c = await subject(0)
    const created = await server.call("POST", "/quotes", {
      source: { sourceType: "REALTIME_FUNDING", currency: "USD", customerId: c.id },
      destination: { destinationType: "ACCOUNT", accountId: c.payee },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 1_500
    })
    expect(created.status, JSON.stringify(created.json)).toBe(202)
    expect(created.json.status).toBe("PENDING_AUTHORIZATION")
    expect(created.json.paymentInstructions).toEqual([])
    expect(created.json.scaChallenge).toMatchObject({ factor: "SMS_OTP", purpose: "PAYOUT" })
    expect(await eventsOf(created.json.transactionId)).toEqual([
      "OUTGOING_PAYMENT.PENDING",
      "OUTGOING_PAYMENT.PENDING_AUTHORIZATION"
    ])
    const early = await server.call("POST", "/sandbox/send", { quoteId: created.json.id, currencyCode: "USD" })
    expectError(early, 409, "QUOTE_ALREADY_EXECUTED")

    const authorized = await authorize(created.json.id)
    expect(authorized.status, JSON.stringify(authorized.json)).toBe(200)
    expect(authorized.json.status).toBe("PENDING")
    expect(authorized.json.scaChallenge).toBeUndefined()
    expect(authorized.json.paymentInstructions).toHaveLength(1)
    const tx = await getTx(created.json.transactionId)
    expect(tx.status).toBe("PENDING")
    expect(authorized.json.paymentInstructions[0].accountOrWalletInfo.reference).toBe(
      tx.reconciliationInstructions.reference
    )
    const sent = await server.call("POST", "/sandbox/send", { quoteId: created.json.id, currencyCode: "USD" })
    expect(sent.status, JSON.stringify(sent.json)).toBe(200)
    expect(["PROCESSING", "COMPLETED"]).toContain(sent.json.status)
  })

  it("S-04, L-14: 20 concurrent authorizes with the right code → exactly one 200, the rest 409; one set of transfers, debited once, one PROCESSING event, nothing counted", async () => {
    const c = await subject()
    const quote = await createQuote(quoteBody(c.usd, c.payee, 1_000))
    expect((await execute(quote.id)).status).toBe(200)
    const results = await Promise.all(Array.from({ length: 20 }, () => authorize(quote.id)))
    const statuses = results.map((r) => r.status).sort()
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    const losers = results.filter((r) => r.status !== 200)
    expect(losers).toHaveLength(19)
    for (const r of losers) expectError(r, 409, "CONFLICT")
    const transfers = await transfersOf(quote.transactionId)
    expect(new Set(transfers.map((t) => t.id)).size).toBe(transfers.length)
    expect(await balanceIn(server, c.id)).toBe(10_000 - quote.totalSendingAmount)
    expect((await eventsOf(quote.transactionId)).filter((t) => t === "OUTGOING_PAYMENT.PROCESSING")).toHaveLength(1)
    expect((await security(c.id))?.failedAttempts ?? 0).toBe(0)
  })
}

onEveryStore("quotes under SCA", "sca_quotes_http", scaQuotesSuite)
