/**
 * Stablecoin provider accounts and stablecoins over HTTP (issue 17 slice B; docs/design/invitations-stablecoins.md
 * section 1 rows 5-10, section 3 "Link" and "Register"; docs/stablecoins.md), on every store: linking with the secret
 * kept sealed, refusals storing nothing, re-linking, the registration rules, and no provider → 501. The operations
 * are in stablecoin-operations.http.test.ts.
 */
import { StablecoinProvider, Store } from "@paycore/core"
import { snapshotStore } from "@paycore/testkit"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { expectError, type TestServer, useTestServer } from "./harness.ts"
import { expectCreated, keyed, link, register, SECRET, scriptedProvider } from "./stablecoins-kit.ts"
import { onEveryStore } from "./stores.ts"

const snapshot = (server: TestServer) =>
  Effect.runPromise(snapshotStore().pipe(Effect.provideService(Store, server.store)))

onEveryStore("stablecoin provider accounts and stablecoins", "stablecoins_http", (stores) => {
  const provider = scriptedProvider()
  const server = useTestServer(async () => {}, { ...stores(), extraLayer: provider.layer })

  it("P-08, P-09, C-09: a link answers 201 ACTIVE without any credential; the secret is in no row, response or idempotency record", async () => {
    const r = await link(server, { providerAccountId: "acct-secret-check" })
    const linked = expectCreated(r)
    expect(linked).toEqual({
      id: expect.stringMatching(/^StablecoinProviderAccount:/),
      provider: "BRALE",
      providerAccountId: "acct-secret-check",
      providerEnvironment: "SANDBOX",
      status: "ACTIVE",
      lastVerifiedAt: linked.createdAt,
      createdAt: linked.createdAt,
      updatedAt: linked.createdAt
    })
    expect(JSON.stringify(linked)).not.toContain(SECRET)
    expect((await server.call("GET", `/stablecoin-provider-accounts/${linked.id}`)).json).toEqual(linked)
    const listed = await server.call("GET", "/stablecoin-provider-accounts?status=ACTIVE&provider=BRALE")
    expect(listed.status).toBe(200)
    expect(listed.json.data.map((a: { id: string }) => a.id)).toContain(linked.id)
    expect(JSON.stringify(listed.json)).not.toContain(SECRET)
    // Sealed at rest: neither the secret nor its base64 is in any stored row (idempotency records included).
    const stored = JSON.stringify(await snapshot(server))
    expect(stored).not.toContain(SECRET)
    expect(stored).not.toContain(Buffer.from(SECRET).toString("base64"))
    const row = await Effect.runPromise(server.store.stablecoinProviderAccounts.get(linked.id))
    expect(row?.sealedSecret).toMatch(/^v1\./)
  })

  it("P-08: credentials the provider refuses (sandbox client id …002) → 400 STABLECOIN_PROVIDER_ACCOUNT_INVALID, nothing stored", async () => {
    const before = (await snapshot(server)).collections.stablecoinProviderAccounts
    const r = await link(server, { apiClientId: "client-refused-002" })
    expectError(r, 400, "STABLECOIN_PROVIDER_ACCOUNT_INVALID")
    expect((await snapshot(server)).collections.stablecoinProviderAccounts).toEqual(before)
  })

  it("P-08, Q11: a second ACTIVE link of the same provider account → 409 CONFLICT; the same key replays the first", async () => {
    const key: string = crypto.randomUUID()
    const first = expectCreated(await link(server, { providerAccountId: "acct-dup" }, key))
    const replay = await link(server, { providerAccountId: "acct-dup" }, key)
    // Another body under the same key is another request: 409 IDEMPOTENCY_KEY_REUSED.
    expectError(replay, 409, "IDEMPOTENCY_KEY_REUSED")
    const again = await server.call(
      "POST",
      "/stablecoin-provider-accounts",
      { provider: "BRALE", apiClientId: "same-client", apiClientSecret: SECRET, providerAccountId: "acct-dup2" },
      keyed(`${key}-2`)
    )
    expectCreated(again)
    const sameBody = await server.call(
      "POST",
      "/stablecoin-provider-accounts",
      { provider: "BRALE", apiClientId: "same-client", apiClientSecret: SECRET, providerAccountId: "acct-dup2" },
      keyed(`${key}-2`)
    )
    expect(sameBody.status).toBe(201)
    expect(sameBody.headers.get("idempotent-replayed")).toBe("true")
    expect(sameBody.json).toEqual(again.json)
    const dup = await link(server, { providerAccountId: "acct-dup" })
    expectError(dup, 409, "CONFLICT")
    expect(dup.json.details).toEqual({ stablecoinProviderAccountId: first.id })
  })

  it("P-15, design section 0: a provider outage → 503 SERVICE_UNAVAILABLE and no row; the same key then links", async () => {
    const key: string = crypto.randomUUID()
    const before = (await snapshot(server)).collections.stablecoinProviderAccounts
    provider.outage(true)
    try {
      expectError(
        await link(server, { apiClientId: "client-outage", providerAccountId: "acct-outage" }, key),
        503,
        "SERVICE_UNAVAILABLE"
      )
    } finally {
      provider.outage(false)
    }
    expect((await snapshot(server)).collections.stablecoinProviderAccounts).toEqual(before)
    expectCreated(await link(server, { apiClientId: "client-outage", providerAccountId: "acct-outage" }, key))
  })

  it("P-11, Q11: a revoked link (client …006) answers 400 …_REVOKED on register, moves REVOKED, and is re-linked with the same id", async () => {
    const revoked = expectCreated(await link(server, { apiClientId: "client-006", providerAccountId: "acct-revoked" }))
    const r = await register(server, { stablecoinProviderAccountId: revoked.id })
    expectError(r, 400, "STABLECOIN_PROVIDER_ACCOUNT_REVOKED")
    expect((await server.call("GET", `/stablecoin-provider-accounts/${revoked.id}`)).json.status).toBe("REVOKED")
    expectError(
      await register(server, { stablecoinProviderAccountId: revoked.id }),
      400,
      "STABLECOIN_PROVIDER_ACCOUNT_REVOKED"
    )
    const relinked = expectCreated(await link(server, { apiClientId: "client-ok", providerAccountId: "acct-revoked" }))
    expect(relinked.id).toBe(revoked.id)
    expect(relinked.status).toBe("ACTIVE")
  })

  it("C-28, P-09: an unknown link → 404 STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND", async () => {
    const r = await server.call(
      "GET",
      "/stablecoin-provider-accounts/StablecoinProviderAccount:00000000-0000-7000-8000-000000000000"
    )
    expectError(r, 404, "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND")
  })
})

onEveryStore("registering stablecoins", "stablecoins_register_http", (stores) => {
  const provider = scriptedProvider()
  const server = useTestServer(async () => {}, { ...stores(), extraLayer: provider.layer })

  it("P-10, P-11, P-12: the link is chosen (none 404, one used, several 400 …_SELECTION_REQUIRED); ENABLED and NOT_ENABLED coins; 409 twice; unknown token 400", async () => {
    expectError(await register(server), 404, "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND")
    const only = expectCreated(await link(server, { providerAccountId: "acct-reg-1" }))
    const usdb = expectCreated(await register(server))
    expect(usdb).toMatchObject({
      name: "USDB",
      symbol: "USDB",
      baseCurrency: "USD",
      network: "SPARK",
      decimals: 6,
      issuanceStatus: "PROVISIONED",
      serviceOperationsStatus: "ENABLED",
      currency: "USDB",
      provider: "BRALE",
      stablecoinProviderAccountId: only.id,
      providerEnvironment: "SANDBOX",
      providerTokenIdentifier: "usdb",
      networkTokenIdentifier: "btkn1usdb"
    })
    const twice = await register(server)
    expectError(twice, 409, "CONFLICT")
    expect(twice.json.details).toEqual({ stablecoinId: usdb.id })
    const unknown = await register(server, { providerTokenIdentifier: "nope" })
    expectError(unknown, 400, "INVALID_INPUT")
    expect(unknown.json.details.errors[0].field).toBe("providerTokenIdentifier")

    const second = expectCreated(await link(server, { providerAccountId: "acct-reg-2" }))
    const ambiguous = await register(server, { providerTokenIdentifier: "acme-usd" })
    expectError(ambiguous, 400, "STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED")
    const acme = expectCreated(
      await register(server, { providerTokenIdentifier: "acme-usd", stablecoinProviderAccountId: second.id })
    )
    expect(acme.serviceOperationsStatus).toBe("NOT_ENABLED")
    expect(acme.currency).toBeUndefined()
    expect(acme.symbol).toBe("ACMEUSD")
    expectError(
      await register(server, {
        providerTokenIdentifier: "acme-usd",
        stablecoinProviderAccountId: "StablecoinProviderAccount:00000000-0000-7000-8000-000000000000"
      }),
      404,
      "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND"
    )

    expect((await server.call("GET", `/stablecoins/${acme.id}`)).json).toEqual(acme)
    const enabled = await server.call("GET", "/stablecoins?serviceOperationsStatus=ENABLED")
    expect(enabled.json.data.map((c: { id: string }) => c.id)).toEqual([usdb.id])
    const all = await server.call("GET", "/stablecoins?provider=BRALE&issuanceStatus=PROVISIONED")
    expect(all.json.data.map((c: { id: string }) => c.id)).toEqual([acme.id, usdb.id])
    expectError(
      await server.call("GET", "/stablecoins/Stablecoin:00000000-0000-7000-8000-000000000000"),
      404,
      "REFERENCE_NOT_FOUND"
    )
  })

  it("P-10, P-15: an outage while registering → 503 and no stablecoin", async () => {
    const before = (await snapshot(server)).collections.stablecoins
    provider.outage(true)
    try {
      const linked = (await server.call("GET", "/stablecoin-provider-accounts?status=ACTIVE")).json.data[0].id
      const r = await register(server, { providerTokenIdentifier: "brand-new", stablecoinProviderAccountId: linked })
      expectError(r, 503, "SERVICE_UNAVAILABLE")
    } finally {
      provider.outage(false)
    }
    expect((await snapshot(server)).collections.stablecoins).toEqual(before)
  })
})

describe("no stablecoin provider configured", () => {
  const server = useTestServer(async () => {}, {
    extraLayer: Layer.succeed(StablecoinProvider, undefined) as Layer.Layer<never>
  })

  it("every stablecoin route answers 501 NOT_IMPLEMENTED (rows 5-14)", async () => {
    const id = "Stablecoin:00000000-0000-7000-8000-000000000000"
    const calls: ReadonlyArray<[string, string, unknown?]> = [
      ["POST", "/stablecoin-provider-accounts", { provider: "BRALE", apiClientId: "c", apiClientSecret: "s" }],
      ["GET", "/stablecoin-provider-accounts"],
      ["GET", "/stablecoin-provider-accounts/StablecoinProviderAccount:00000000-0000-7000-8000-000000000000"],
      ["POST", "/stablecoins", { providerTokenIdentifier: "usdb", networkTokenIdentifier: "x", network: "SPARK" }],
      ["GET", "/stablecoins"],
      ["GET", `/stablecoins/${id}`],
      [
        "POST",
        `/stablecoins/${id}/mints`,
        { amount: "10000", fundingSource: { type: "WIRE" }, destination: { accountId: "x" } }
      ],
      [
        "POST",
        `/stablecoins/${id}/burns`,
        {
          amount: "10000",
          source: { type: "EXTERNAL_ACCOUNT" },
          destination: { type: "EXTERNAL_ACCOUNT", externalAccountId: "x", rail: "WIRE" }
        }
      ],
      ["GET", `/stablecoins/${id}/operations`],
      ["GET", "/stablecoin-operations/StablecoinOperation:00000000-0000-7000-8000-000000000000"]
    ]
    for (const [method, path, body] of calls) {
      const r = await server.call(method, path, body, method === "POST" ? keyed() : undefined)
      expectError(r, 501, "NOT_IMPLEMENTED")
    }
  })
})
