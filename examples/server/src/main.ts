/**
 * The runnable sandbox service: core + in-memory store + sandbox rail/FX/directory + HTTP binding.
 *
 *   PORT=8080                                  listen on 127.0.0.1:$PORT
 *   PAYCORE_SANDBOX_CREDENTIALS=<id>:<secret>  create that sandbox token at start (else one is generated)
 *   PAYCORE_SANDBOX_SPEEDUP=3600               rail settlement runs this many times faster than the spec's table
 *   PAYCORE_WEBHOOK_PRIVATE_KEY=<64 hex>       the webhook signing key (else one is generated per start)
 */
import { createServer } from "node:http"
import { NodeRuntime } from "@effect/platform-node"
import { Ids, Tokens, WebhookSigner } from "@paycore/core"
import { API_VERSION, fetchWebhookTransportLayer, makeApp } from "@paycore/http"
import * as Sandbox from "@paycore/sandbox"
import * as MemoryStore from "@paycore/store-memory"
import { Config, Context, Effect, Layer, Redacted } from "effect"

const ALL_PERMISSIONS = ["VIEW", "TRANSACT", "MANAGE"] as const

const program = Effect.gen(function* () {
  const port = yield* Config.Int("PORT").pipe(Config.withDefault(8080))
  const speedUp = yield* Config.Number("PAYCORE_SANDBOX_SPEEDUP").pipe(Config.withDefault(3600))
  const given = yield* Config.option(Config.Redacted("PAYCORE_SANDBOX_CREDENTIALS"))

  const ports = Layer.mergeAll(
    MemoryStore.layer,
    Ids.layer,
    Sandbox.layer({ speedUp }),
    fetchWebhookTransportLayer(),
    WebhookSigner.layerFromEnv
  )
  const portsContext = yield* Layer.build(ports)
  const { listener, context } = yield* makeApp().pipe(Effect.provide(portsContext))
  const tokens = Context.get(context, Tokens)
  const signer = Context.get(portsContext, WebhookSigner)

  // The operator's first sandbox token: given by the environment, or generated now.
  let clientId: string
  let secret: Redacted.Redacted<string>
  if (given._tag === "Some") {
    const raw = Redacted.value(given.value)
    const colon = raw.indexOf(":")
    clientId = raw.slice(0, colon)
    secret = Redacted.make(raw.slice(colon + 1))
    yield* tokens.createWithCredentials({
      clientId,
      clientSecret: Redacted.value(secret),
      name: "sandbox (PAYCORE_SANDBOX_CREDENTIALS)",
      permissions: ALL_PERMISSIONS,
      environment: "SANDBOX"
    })
  } else {
    const created = yield* tokens.create({ name: "sandbox (generated at start)", permissions: [...ALL_PERMISSIONS] })
    clientId = created.clientId
    secret = Redacted.make(created.clientSecret)
  }

  const server = createServer(listener)
  yield* Effect.acquireRelease(
    Effect.callback<void, Error>((resume) => {
      server.once("error", (error) => resume(Effect.fail(error)))
      server.listen(port, "127.0.0.1", () => resume(Effect.void))
    }),
    () =>
      Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
  )
  const baseUrl = `http://127.0.0.1:${port}/${API_VERSION}`
  // The operator asked for these credentials on the console; they are printed once, never logged.
  process.stdout.write(
    [
      "paycore sandbox is up (in-memory store: data is lost when it stops)",
      `  base URL        ${baseUrl}`,
      `  API reference   ${baseUrl}/docs`,
      `  token id        ${clientId}`,
      `  token secret    ${Redacted.value(secret)}`,
      `  try             curl -u '${clientId}:${Redacted.value(secret)}' ${baseUrl}/config`,
      "  webhook public key (verify X-Service-Signature with it):",
      signer.publicKeyPem.trim(),
      ""
    ].join("\n")
  )
  return yield* Effect.never
})

NodeRuntime.runMain(Effect.scoped(program))
