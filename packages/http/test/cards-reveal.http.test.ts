/**
 * `POST /cards/{id}/reveal` over HTTP (issue 15, slice A; CD-32, CD-33; spec Authentication 5 and the reveal rules;
 * docs/design/cards.md Q20): the URL and its expiry, answered with `Cache-Control: no-store` and kept nowhere (no
 * store row, no idempotency record whatever the key, no log line), each reveal audited with the asking token; 403
 * where the program cannot reveal, 409 unless the card is ACTIVE or FROZEN, 409 SCA_SESSION_REQUIRED for a
 * cardholder subject to SCA until it logs in. On the memory store, PGlite and PostgreSQL.
 */
import { randomUUID } from "node:crypto"
import { Store } from "@paycore/core"
import { snapshotStore } from "@paycore/testkit"
import { Effect } from "effect"
import { afterEach, describe, expect, it, vi } from "vitest"
import { activeCard, approveKyc, cardBody, cardholder, cardPlatform, endingIn, issued } from "./cards-kit.ts"
import { type Credentials, expectError, type TestServer, useTestServer } from "./harness.ts"
import { germanPhone, SANDBOX_CODE, scaLogin, verifyPhone } from "./sca-kit.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const UNKNOWN_CARD = "Card:01234567-89ab-7def-8123-456789abcdef"

/** A token made for the test: its id (what the audit names) and its credentials. */
const newToken = async (server: TestServer): Promise<{ readonly id: string; readonly auth: Credentials }> => {
  const r = await server.call("POST", "/tokens", { name: "reveal", permissions: ["VIEW", "TRANSACT"] })
  expect(r.status, JSON.stringify(r.json)).toBe(201)
  return { id: r.json.id, auth: { clientId: r.json.clientId, clientSecret: r.json.clientSecret } }
}

const auditOf = (server: TestServer, cardId: string) =>
  Effect.runPromise(server.store.cardReveals.list({ cardId }, { limit: 100, sortOrder: "asc" }))

/** Everything written to the console and the process's output while `run` runs. */
const captureOutput = async (run: () => Promise<void>): Promise<string> => {
  const written: Array<string> = []
  const keep = (...args: Array<unknown>) => {
    written.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "))
  }
  const spies = [
    ...(["log", "info", "warn", "error", "debug", "trace"] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation(keep)
    ),
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: unknown) => {
      keep(String(chunk))
      return true
    }),
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => {
      keep(String(chunk))
      return true
    })
  ]
  try {
    await run()
  } finally {
    for (const spy of spies) spy.mockRestore()
  }
  return written.join("\n")
}

const revealSuite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(cardPlatform, stores())
  const reveal = (id: string, options: { auth?: Credentials; headers?: Record<string, string> } = {}) =>
    server.call("POST", `/cards/${id}/reveal`, undefined, options)
  afterEach(() => vi.restoreAllMocks())

  it("CD-32, CD-33: 200 with panEmbedUrl and expiresAt within minutes, Cache-Control: no-store; each reveal audited with the asking token; the URL in no row, no idempotency record, no log line", async () => {
    const holder = await cardholder(server)
    const card = await activeCard(server, holder)
    const token = await newToken(server)
    const key = randomUUID()
    const answers: Array<Awaited<ReturnType<typeof reveal>>> = []
    const output = await captureOutput(async () => {
      answers.push(await reveal(card.id, { auth: token.auth }))
      answers.push(await reveal(card.id, { auth: token.auth, headers: { "idempotency-key": key } }))
      answers.push(await reveal(card.id, { auth: token.auth, headers: { "idempotency-key": key } }))
    })
    const urls = answers.map((r) => r.json.panEmbedUrl as string)
    for (const r of answers) {
      expect(r.status, JSON.stringify(r.json)).toBe(200)
      expect(Object.keys(r.json).sort()).toEqual(["expiresAt", "panEmbedUrl"])
      expect(r.json.panEmbedUrl).toMatch(/^https:\/\/sandbox\.paycore\.invalid\/pan\/[0-9a-f]{32}$/)
      const lifetime = Date.parse(r.json.expiresAt) - Date.now()
      expect(lifetime).toBeGreaterThan(0)
      expect(lifetime).toBeLessThanOrEqual(300_000)
      expect(r.headers.get("cache-control")).toBe("no-store")
      // Never replayed: each is minted anew.
      expect(r.headers.get("idempotent-replayed")).toBeNull()
    }
    expect(new Set(urls).size).toBe(3)

    const audit = await auditOf(server, card.id)
    expect(audit.data.map((row) => [row.actor, row.expiresAt])).toEqual(
      answers.map((r) => [token.id, r.json.expiresAt])
    )
    expect(audit.data.every((row) => !JSON.stringify(row).includes("http"))).toBe(true)

    const snapshot = await Effect.runPromise(
      snapshotStore({ idempotency: [`platform:${key}`] }).pipe(Effect.provideService(Store, server.store))
    )
    expect(snapshot.keyed[`idempotency/platform:${key}`]).toBeUndefined()
    const everything = JSON.stringify(snapshot)
    for (const url of urls) {
      expect(everything).not.toContain(url)
      expect(output).not.toContain(url)
    }
    // The card itself never carries one (CD-08).
    expect(JSON.stringify((await server.call("GET", `/cards/${card.id}`)).json)).not.toContain("pan")
  })

  it("CD-32, Q20: only ACTIVE and FROZEN cards reveal: PROCESSING and CLOSED are 409 CONFLICT, an unknown card 404; nothing audited", async () => {
    const holder = await cardholder(server)
    const card = await activeCard(server, holder)
    expect((await server.call("PATCH", `/cards/${card.id}`, { state: "FROZEN" })).status).toBe(200)
    expect((await reveal(card.id)).status).toBe(200)
    const processing = await issued(
      server,
      cardBody(holder.id, [holder.accounts.USD!], { platformCardId: endingIn("001") })
    )
    expectError(await reveal(processing.id), 409, "CONFLICT")
    expect((await server.call("PATCH", `/cards/${card.id}`, { state: "CLOSED" })).status).toBe(200)
    expectError(await reveal(card.id), 409, "CONFLICT")
    expectError(await reveal(UNKNOWN_CARD), 404, "REFERENCE_NOT_FOUND")
    expect((await auditOf(server, card.id)).data).toHaveLength(1)
    expect((await auditOf(server, processing.id)).data).toHaveLength(0)
  })

  it("A-11, S-09, Q20, Authentication 5: a cardholder subject to SCA reveals only with a live SCA session (409 SCA_SESSION_REQUIRED, then 200 after the login)", async () => {
    const holder = await cardholder(server, {
      approved: false,
      extra: { region: "DE", phoneNumber: germanPhone(), email: `eu.${randomUUID()}@example.com` }
    })
    // The sandbox KYC provider asks an EEA customer to verify its email and phone first.
    expect((await server.call("POST", `/customers/${holder.id}/verify-email`)).status).toBe(204)
    const confirmed = await server.call("POST", `/customers/${holder.id}/verify-email/confirm`, { code: SANDBOX_CODE })
    expect(confirmed.status, JSON.stringify(confirmed.json)).toBe(200)
    await verifyPhone(server, holder.id)
    await approveKyc(server, holder.id)
    const card = await activeCard(server, holder)
    expectError(await reveal(card.id), 409, "SCA_SESSION_REQUIRED")
    expect((await auditOf(server, card.id)).data).toHaveLength(0)
    await scaLogin(server, holder.id)
    const r = await reveal(card.id)
    expect(r.status, JSON.stringify(r.json)).toBe(200)
    expect((await auditOf(server, card.id)).data).toHaveLength(1)
  })

  describe("a program that cannot reveal", () => {
    const noReveal = useTestServer(cardPlatform, { ...stores(), sandbox: { cardIssuer: { supportsPanReveal: false } } })

    it("CD-32: supportsPanReveal is false on its cards, and a reveal is 403 FORBIDDEN, audited nowhere", async () => {
      const holder = await cardholder(noReveal)
      const card = await activeCard(noReveal, holder)
      expect(card.cardCapabilities.supportsPanReveal).toBe(false)
      const r = await noReveal.call("POST", `/cards/${card.id}/reveal`)
      expectError(r, 403, "FORBIDDEN")
      expect((await auditOf(noReveal, card.id)).data).toHaveLength(0)
    })
  })
}

onEveryStore("card reveal", "cards_reveal_http", revealSuite)
