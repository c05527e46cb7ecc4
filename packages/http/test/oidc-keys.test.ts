import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { oidcIssuer } from "@paycore/testkit/wallet-client"
import { jwtVerify } from "jose"
import { afterAll, describe, expect, it } from "vitest"
import { parseOidcIssuers, remoteOidcKeys } from "../src/oidc-keys.ts"

describe("OIDC keys from issuers' JWKS URLs (W-20)", () => {
  const servers: Array<ReturnType<typeof createServer>> = []
  afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))))

  it("a token is checked against its own issuer's published keys; an issuer not configured has none", async () => {
    const issuer = await oidcIssuer({ iss: "https://accounts.example", aud: "app" })
    const server = createServer((_, res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(issuer.jwks))
    })
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`
    const { resolver } = remoteOidcKeys(parseOidcIssuers(`${issuer.iss}=${url}`))
    const verified = await jwtVerify(await issuer.mint({ sub: "u1" }), resolver!)
    expect(verified.payload.sub).toBe("u1")
    // Same issuer name, another key: the published set does not have it.
    const forger = await oidcIssuer({ iss: issuer.iss, aud: "app" })
    await expect(jwtVerify(await forger.mint({ sub: "u1" }), resolver!)).rejects.toThrow()
    const stranger = await oidcIssuer({ iss: "https://elsewhere.example", aud: "app" })
    await expect(jwtVerify(await stranger.mint({ sub: "u1" }), resolver!)).rejects.toThrow(/not configured/)
  })

  it("PAYCORE_OIDC_ISSUERS pairs: spaces or commas between, `=` after the issuer; anything else is an error", () => {
    expect(parseOidcIssuers("https://a.example=https://a.example/jwks?x=1, https://b.example=https://b/jwks")).toEqual({
      "https://a.example": "https://a.example/jwks?x=1",
      "https://b.example": "https://b/jwks"
    })
    expect(() => parseOidcIssuers("https://a.example")).toThrow(/expected/)
  })
})
