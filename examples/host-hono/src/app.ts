/**
 * The host's Hono application with paycore mounted in it: the HTTP binding under `/payments`, behind Hono's bearer
 * authentication (the host's own check), beside the host's own routes. The binding is a `node:http` listener: the
 * route hands it Node's request and response (`@hono/node-server`'s bindings) and tells Hono the answer is sent.
 */
import type { HttpBindings } from "@hono/node-server"
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response"
import type { App } from "@paycore/http"
import { Hono } from "hono"
import { bearerAuth } from "hono/bearer-auth"

/** Where the host mounts paycore: its API is at `/payments/2025-10-13/…`. */
export const PREFIX = "/payments"

export interface HostAppOptions {
  /** The bearer token the host's callers present: your own authentication stands here. */
  readonly apiToken: string
  /** The `Authorization` of the platform token the host speaks to paycore with. */
  readonly paycoreAuthorization: string
}

export const hostApp = (paycore: App, options: HostAppOptions) => {
  const app = new Hono<{ Bindings: HttpBindings }>()
  app.get("/health", (c) => c.json({ ok: true }))
  app.use(`${PREFIX}/*`, bearerAuth({ token: options.apiToken }))
  app.all(`${PREFIX}/*`, (c) => {
    const { incoming, outgoing } = c.env
    incoming.url = incoming.url?.slice(PREFIX.length) ?? "/" // the binding routes /2025-10-13/…
    incoming.headers.authorization = options.paycoreAuthorization // the caller passed your check
    paycore.listener(incoming, outgoing)
    return RESPONSE_ALREADY_SENT
  })
  app.notFound((c) => c.json({ error: "not found", by: "host" }, 404))
  return app
}
