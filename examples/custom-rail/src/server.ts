/**
 * A paycore server whose payouts go over the Quill rail: the HTTP binding (`@paycore/http`'s `makeApp`) on an
 * in-memory store, with `QuillRail` as its `Rail` in place of the sandbox's, and the sandbox's other ports (FX rates,
 * directory, notifier, KYC) where a deployment would plug in its providers. The settlement worker runs in the
 * process and polls Quill for each payout's outcome.
 */
import type { AddressInfo } from "node:net"
import { Ids, Tokens, WebhookSigner } from "@paycore/core"
import { type App, createApiServer, fetchWebhookTransportLayer, makeApp } from "@paycore/http"
import { SandboxDirectory, SandboxFxRates, SandboxKycProvider, SandboxNotifier } from "@paycore/sandbox"
import * as MemoryStore from "@paycore/store-memory"
import { Context, Effect, Layer, ManagedRuntime } from "effect"
import { QuillRail } from "./rail.ts"
import { type QuillApi, simulatedQuill } from "./scheme.ts"

export interface QuillServerOptions {
  /** Listen on 127.0.0.1 at this port (0: a free one). */
  readonly port: number
  /** The scheme: its HTTP client in production; by default the simulated scheme. */
  readonly scheme?: QuillApi | undefined
  /** The per-payment limit of the participant agreement, in euro cents (default €100,000.00). */
  readonly perPaymentLimitCents?: number | undefined
}

export interface RunningQuillServer {
  /** `http://127.0.0.1:<port>/2025-10-13` */
  readonly api: string
  /** The `Authorization` of the platform token made at start. */
  readonly authorization: string
  readonly close: () => Promise<void>
}

class QuillApp extends Context.Service<QuillApp, App>()("example-custom-rail/QuillApp") {}

/** The ports, with the Quill rail as the `Rail`. */
const ports = (options: QuillServerOptions) =>
  Layer.mergeAll(
    MemoryStore.layer,
    MemoryStore.documentStoreLayer,
    Ids.layer,
    QuillRail({ api: options.scheme ?? simulatedQuill(), perPaymentLimitCents: options.perPaymentLimitCents }),
    SandboxFxRates,
    SandboxDirectory,
    SandboxNotifier,
    SandboxKycProvider(),
    fetchWebhookTransportLayer(),
    WebhookSigner.layerGenerated
  )

export const startQuillServer = async (options: QuillServerOptions): Promise<RunningQuillServer> => {
  const runtime = ManagedRuntime.make(
    Layer.effect(QuillApp, makeApp({ workerIntervalMillis: 250, webhookIntervalMillis: 1000 })).pipe(
      Layer.provide(ports(options))
    )
  )
  const app = await runtime.runPromise(Effect.service(QuillApp))
  const clientId = "quill-example"
  const clientSecret = crypto.randomUUID()
  await runtime.runPromise(
    Context.get(app.context, Tokens).createWithCredentials({
      clientId,
      clientSecret,
      name: "the Quill example's platform",
      permissions: ["VIEW", "TRANSACT", "MANAGE"],
      environment: "SANDBOX" // the example funds accounts through /sandbox routes
    })
  )
  const server = createApiServer(app.listener)
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port, "127.0.0.1", resolve)
  })
  const close = async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
    await runtime.dispose()
  }
  return {
    api: `http://127.0.0.1:${(server.address() as AddressInfo).port}/2025-10-13`,
    authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}`,
    close
  }
}
