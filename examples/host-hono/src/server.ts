/**
 * The Hono host, started and stopped: paycore's store opens its own pool here (`layerPg`) and migrates at start,
 * the other way to hold the database beside examples/host-node-http's own pool and migrations called by the host.
 */
import type { AddressInfo } from "node:net"
import { serve } from "@hono/node-server"
import { Ids, Tokens, WebhookSigner } from "@paycore/core"
import { type App, fetchWebhookTransportLayer, makeApp } from "@paycore/http"
import * as Sandbox from "@paycore/sandbox"
import * as PostgresStore from "@paycore/store-postgres"
import { Context, Effect, Layer, ManagedRuntime } from "effect"
import { hostApp } from "./app.ts"

export interface HostConfig {
  /** Listen on 127.0.0.1 at this port (0: a free one). */
  readonly port: number
  /** A PostgreSQL server (and the schema, which must exist); without it, an embedded PGlite in memory. */
  readonly databaseUrl?: string | undefined
  readonly schema?: string | undefined
  /** The bearer token the host's callers present. */
  readonly apiToken: string
  /** The client secret of the platform token the host speaks to paycore with: the same on every instance. */
  readonly paycoreSecret: string
  /** The key that signs webhooks (64 hex): the same on every instance. */
  readonly webhookPrivateKey: string
}

export interface RunningHost {
  readonly url: string
  readonly close: () => Promise<void>
}

/** The store and the file store, each on a pool the store opens and closes; the Store migrates when it starts. */
const storeLayer = ({ databaseUrl, schema }: HostConfig) =>
  databaseUrl === undefined
    ? Layer.mergeAll(PostgresStore.layerPglite(), PostgresStore.documentStoreLayerPglite())
    : Layer.mergeAll(
        PostgresStore.layerPg({ connectionString: databaseUrl, schema, max: 10 }),
        PostgresStore.documentStoreLayerPg({ connectionString: databaseUrl, schema, max: 2 })
      )

class PaycoreHttp extends Context.Service<PaycoreHttp, App>()("example-host-hono/PaycoreHttp") {}

const paycoreLayer = (config: HostConfig) =>
  Layer.effect(PaycoreHttp, makeApp()).pipe(
    Layer.provide(
      Layer.mergeAll(
        storeLayer(config),
        Ids.layer,
        Sandbox.layer({ speedUp: 3600 }),
        fetchWebhookTransportLayer(),
        WebhookSigner.layerFromHex(config.webhookPrivateKey)
      )
    )
  )

export const startHost = async (config: HostConfig): Promise<RunningHost> => {
  const runtime = ManagedRuntime.make(paycoreLayer(config))
  const paycore = await runtime.runPromise(Effect.service(PaycoreHttp))
  const clientId = "host-server"
  await runtime.runPromise(
    Context.get(paycore.context, Tokens).createWithCredentials({
      clientId,
      clientSecret: config.paycoreSecret,
      name: "the host's server",
      permissions: ["VIEW", "TRANSACT", "MANAGE"],
      environment: "SANDBOX"
    })
  )
  const app = hostApp(paycore, {
    apiToken: config.apiToken,
    paycoreAuthorization: `Basic ${Buffer.from(`${clientId}:${config.paycoreSecret}`).toString("base64")}`
  })
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, port: config.port, hostname: "127.0.0.1" }, () => resolve(started))
  })

  const close = async () => {
    const deadline = setTimeout(() => "closeAllConnections" in server && server.closeAllConnections(), 10_000)
    await new Promise<void>((resolve) => server.close(() => resolve()))
    clearTimeout(deadline)
    await runtime.dispose() // the worker and the dispatcher stop, then the store closes its pool
  }
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close }
}
