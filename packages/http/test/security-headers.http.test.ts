/**
 * Issue 32 item 7, headers that browsers and proxies need: every answer that carries a secret (a token's
 * `clientSecret`, a `whsec_` signing secret, a device code, a TOTP secret, sealed wallet keys, a card reveal, an
 * agent's access token) is `Cache-Control: no-store`, its idempotent replay too; the reference page sends a
 * Content-Security-Policy (own origin only, no framing), `X-Content-Type-Options: nosniff` and a Referrer-Policy.
 * The dashboard's files: packages/dashboard/test/files.test.ts; both pages under that policy in Chromium: the browser
 * tests.
 */
import { randomUUID } from "node:crypto"
import { Agent, request } from "node:http"
import { Context, type SchemaAST } from "effect"
import { HttpApi } from "effect/http-api"
import { describe, expect, it } from "vitest"
import { CarriesSecret, SecretAnswer } from "../src/annotations.ts"
import { Api } from "../src/api.ts"
import { createAgent, redeem } from "./agent-credentials-kit.ts"
import { onboardCustomer, useTestServer } from "./harness.ts"
import { scaCustomer, scaLogin } from "./sca-kit.ts"
import { onEveryStore } from "./stores.ts"

/** Fields of an answer that hold a secret the reader must not find in a cache. */
const SECRET_FIELDS = new Set([
  "clientSecret",
  "secret",
  "secretBase32Encoded",
  "totpUri",
  "encryptedSessionSigningKey",
  "encryptedWalletCredentials",
  "accessToken",
  "panEmbedUrl",
  "deviceCode"
])

/** The names of every property an AST can hold (through unions, arrays and suspensions). */
const propertyNames = (ast: SchemaAST.AST): Set<string> => {
  const names = new Set<string>()
  const seen = new Set<SchemaAST.AST>()
  const children = (node: SchemaAST.AST): ReadonlyArray<SchemaAST.AST> => {
    switch (node._tag) {
      case "Objects":
        for (const p of node.propertySignatures) if (typeof p.name === "string") names.add(p.name)
        return node.propertySignatures.map((p) => p.type)
      case "Union":
        return node.types
      case "Arrays":
        return [...node.elements, ...node.rest]
      case "Suspend":
        return [node.thunk()]
      default:
        return []
    }
  }
  const queue = [ast]
  for (let node = queue.pop(); node !== undefined; node = queue.pop()) {
    if (seen.has(node)) continue
    seen.add(node)
    queue.push(...children(node))
  }
  return names
}

describe("which answers carry a secret (issue 32 item 7)", () => {
  it("every endpoint whose answer has a secret field is marked CarriesSecret or SecretAnswer, and only those", () => {
    const withSecret: Array<string> = []
    const marked: Array<string> = []
    HttpApi.reflect(Api, {
      onGroup: () => {},
      onEndpoint: ({ group, endpoint, mergedAnnotations, successes }) => {
        const name = `${group.identifier}.${endpoint.identifier}`
        const fields = [...successes.values()].flat().flatMap((schema) => [...propertyNames(schema.ast)])
        if (fields.some((field) => SECRET_FIELDS.has(field))) withSecret.push(name)
        if (Context.get(mergedAnnotations, CarriesSecret) || Context.get(mergedAnnotations, SecretAnswer)) {
          marked.push(name)
        }
      }
    })
    // A device code's field is `code`, which elsewhere is a currency's: that one endpoint is named here.
    expect([...withSecret, "agents.createDeviceCode"].sort()).toEqual(marked.sort())
    expect(marked).toEqual(
      expect.arrayContaining([
        "platform.createToken",
        "webhooks.rotateSigningSecret",
        "agents.createAgent",
        "agents.createDeviceCode",
        "agents.redeemDeviceCode",
        "sca.startFactorEnrollment",
        "walletAuth.verifyCredential",
        "walletAuth.refreshSession",
        "walletAuth.listSessions",
        "walletAuth.exportWallet",
        "cards.revealCard"
      ])
    )
  })
})

onEveryStore("headers browsers and proxies need (issue 32 item 7)", "security_headers_http", (stores) => {
  const server = useTestServer(async () => {}, stores())

  it("POST /tokens answers its clientSecret with Cache-Control: no-store, and its idempotent replay too", async () => {
    const key = randomUUID()
    const body = { name: "ci", permissions: ["VIEW"] }
    const created = await server.call("POST", "/tokens", body, { headers: { "idempotency-key": key } })
    expect(created.status).toBe(201)
    expect(created.json.clientSecret).toEqual(expect.any(String))
    expect(created.headers.get("cache-control")).toBe("no-store")
    const replayed = await server.call("POST", "/tokens", body, { headers: { "idempotency-key": key } })
    expect(replayed.headers.get("idempotent-replayed")).toBe("true")
    expect(replayed.json.clientSecret).toBe(created.json.clientSecret)
    expect(replayed.headers.get("cache-control")).toBe("no-store")
    // Without a key it is no-store as well; a list of tokens (no secret in it) is not.
    const plain = await server.call("POST", "/tokens", body)
    expect(plain.headers.get("cache-control")).toBe("no-store")
    expect((await server.call("GET", "/tokens")).headers.get("cache-control")).toBeNull()
  })

  it("a new whsec_ signing secret is no-store", async () => {
    const rotated = await server.call("POST", "/webhooks/signing-secrets/rotate", { overlapSeconds: 0 })
    expect(rotated.status).toBe(201)
    expect(rotated.json.secret).toMatch(/^whsec_/)
    expect(rotated.headers.get("cache-control")).toBe("no-store")
  })

  it("an agent's device code (at creation and a new one) and its redemption are no-store", async () => {
    const ada = await onboardCustomer(server)
    const { agentId, created } = await createAgent(server, ada.id)
    expect(created.headers.get("cache-control")).toBe("no-store")
    const another = await server.call("POST", `/agents/${agentId}/device-codes`)
    expect(another.status).toBe(201)
    expect(another.headers.get("cache-control")).toBe("no-store")
    // The newest code is the one that redeems.
    const redeemed = await redeem(server, another.json.code)
    expect(redeemed.status, JSON.stringify(redeemed.json)).toBe(200)
    expect(redeemed.headers.get("cache-control")).toBe("no-store")
  })

  it("a TOTP enrolment's shared secret is no-store", async () => {
    const { id } = await scaCustomer(server, { region: "DE", phone: "verified" })
    await scaLogin(server, id)
    const started = await server.call("POST", `/sca/factors?customerId=${id}`, { type: "TOTP" })
    expect(started.status, JSON.stringify(started.json)).toBe(200)
    expect(started.json.secret).toEqual(expect.any(String))
    expect(started.headers.get("cache-control")).toBe("no-store")
  })

  it("keeps an idle connection open past a load balancer's 60 s idle timeout, and says so (Keep-Alive: timeout=65)", async () => {
    // Node's default of 5 s let a balancer (or a client) send a request on a connection the server was closing.
    const keepAlive = await new Promise<string | ReadonlyArray<string> | undefined>((resolve, reject) => {
      const agent = new Agent({ keepAlive: true })
      request(`${server.baseUrl}/docs`, { agent }, (res) => {
        res.resume()
        res.on("end", () => {
          agent.destroy()
          resolve(res.headers["keep-alive"])
        })
      })
        .on("error", reject)
        .end()
    })
    expect(keepAlive).toBe("timeout=65")
  })

  it("the reference page: Content-Security-Policy (own origin, no framing), nosniff, Referrer-Policy", async () => {
    const page = await fetch(`${server.baseUrl}/docs`)
    expect(page.status).toBe(200)
    const csp = page.headers.get("content-security-policy") ?? ""
    const directives = new Map(
      csp.split(";").map((d) => {
        const [name = "", ...values] = d.trim().split(/\s+/)
        return [name, values] as const
      })
    )
    expect(directives.get("default-src")).toEqual(["'self'"])
    expect(directives.get("frame-ancestors")).toEqual(["'none'"])
    // No script from elsewhere and none inline: script-src falls back to default-src.
    expect(directives.has("script-src")).toBe(false)
    expect(page.headers.get("x-content-type-options")).toBe("nosniff")
    expect(page.headers.get("referrer-policy")).toBe("no-referrer")
    for (const path of ["/openapi.json", "/docs/renderer.js"]) {
      const file = await fetch(`${server.baseUrl}${path}`)
      expect(file.status, path).toBe(200)
      expect(file.headers.get("x-content-type-options"), path).toBe("nosniff")
      expect(file.headers.get("referrer-policy"), path).toBe("no-referrer")
    }
  })
})
