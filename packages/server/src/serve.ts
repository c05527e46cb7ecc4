/**
 * `serve`: the runnable sandbox service: core + a store (see `store.ts`) + the sandbox ports (rail, FX, directory,
 * KYC, the card issuer: `POST /cards` issues cards, activated by the worker within a second; docs/cards.md) + HTTP
 * binding, `GET /healthz` (alias `/health`: the process is up), `GET /readyz` (ready for traffic) and `GET /metrics`
 * (Prometheus text; see telemetry.ts); `/` redirects to the dashboard and `/docs` to the API reference. SIGTERM or
 * SIGINT stops it gracefully (lifecycle.ts, run.ts).
 *
 *   PORT=8080                                  listen on 127.0.0.1:$PORT
 *   DATABASE_URL / PAYCORE_DATA_DIR / PAYCORE_STORE   where the data lives (store.ts)
 *   PAYCORE_SANDBOX_CREDENTIALS=<id>:<secret>  create that sandbox token at start (else one is generated and,
 *                                              with a data folder, kept there for the next start)
 *   PAYCORE_SANDBOX_SPEEDUP=3600               rail settlement runs this many times faster than the spec's table
 *   PAYCORE_WEBHOOK_LEASE_SECONDS=10           after a crash, events being delivered are sent again after this long
 *                                              (a live dispatcher renews its lease every third of it)
 *   PAYCORE_WEBHOOK_PRIVATE_KEY=<64 hex>       the webhook signing key (else one is generated and, with a data
 *                                              folder, kept there; on a PostgreSQL server, see PAYCORE_MASTER_KEY)
 *   PAYCORE_OIDC_ISSUERS="<iss>=<jwks url> …"  check embedded-wallet OAuth tokens' signatures against these issuers'
 *                                              keys (else the sandbox rule: identity, freshness and nonce only)
 *   PAYCORE_WALLET_KEK=<64 hex>                the embedded wallets' key-encryption key: the KeyVault's, the
 *                                              WalletVault's and the BundleSigner's keys are derived from it (else
 *                                              one is generated and, with a data folder, kept there; without one it
 *                                              lasts as the in-memory data does). Wallet mnemonics and the key
 *                                              production bundles are signed with (GET /auth/bundle-signing-key)
 *                                              follow from it: set it on a server, and never change it
 *   PAYCORE_SHUTDOWN_SECONDS=25                a stop (SIGTERM, SIGINT) drains within this long, then exits anyway
 *   PAYCORE_RATE_LIMIT=1000:2000               requests per second and burst per credential (C-43), or `off`
 *   PAYCORE_AUTH_FAILURE_LIMIT=20:60           failed authentications per window (s) per address and per client id
 *                                              before 429 (C-43), or `off`
 *   PAYCORE_MASTER_KEY=<64 hex>                on a PostgreSQL server, where either key above is not set: the first
 *                                              instance generates it and keeps it in the database sealed under this
 *                                              key, and every instance uses it (shared-keys.ts); without it such an
 *                                              instance refuses to start (SharedKeysRefused)
 *   OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME  export traces and metrics over OTLP/HTTP (telemetry.ts); none unset
 *   PAYCORE_LOG_FORMAT=json                    JSON log lines on stdout, one per request (else human-readable)
 *   PAYCORE_METRICS=off                        no `GET /metrics`
 */
import { hkdfSync, randomBytes } from "node:crypto"
import { chmodSync, writeFileSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import {
  BundleSigner,
  bundleSignerFromKey,
  defaultEngineSettings,
  EngineConfig,
  Ids,
  KeyVault,
  keyVaultFromKey,
  OidcKeys,
  PAYEE_TYPES,
  Store,
  sandboxIncomingApproval,
  Tokens,
  WalletVault,
  WebhookSecrets,
  WebhookSigner,
  walletVaultFromKey
} from "@paycore/core"
import { DASHBOARD_PATH, dashboardFiles } from "@paycore/dashboard"
import {
  API_VERSION,
  createApiServer,
  fetchWebhookTransportLayer,
  makeApp,
  parseOidcIssuers,
  remoteOidcKeys
} from "@paycore/http"
import * as Sandbox from "@paycore/sandbox"
import { Config, Context, Effect, Layer, Option, Redacted } from "effect"
import { makeLifecycle, rateLimitsConfig, shutdownSecondsConfig } from "./lifecycle.ts"
import { instanceKeys } from "./shared-keys.ts"
import { chooseStore, keptInDataDir, type StoreFlags } from "./store.ts"
import { PROMETHEUS_CONTENT_TYPE, prometheusText, serveTelemetry } from "./telemetry.ts"

const ALL_PERMISSIONS = ["VIEW", "TRANSACT", "MANAGE"] as const

/** Where a person typing the server's address lands (issue 32 item 6): `/` the dashboard, `/docs` the reference. */
const FRONT_DOORS: ReadonlyMap<string, string> = new Map([
  ["/", DASHBOARD_PATH],
  ["/docs", `/${API_VERSION}/docs`],
  ["/docs/", `/${API_VERSION}/docs`]
])

/**
 * `/dashboard/sandbox.json`: the labels of the rails and the payout suffixes on the dashboard's "Pay" screen, computed
 * from the timing table and this server's speed-up (its payee is a US account).
 */
const sandboxTimingFile = (speedUp: number) => {
  const body = Sandbox.paymentTiming(PAYEE_TYPES.USD_ACCOUNT.rails, speedUp)
  return { path: "/dashboard/sandbox.json", contentType: "application/json", body: Buffer.from(JSON.stringify(body)) }
}

/**
 * The wallet vaults under one key-encryption key (64 hex): a key of its own for each (HKDF-SHA256), so the AES-GCM
 * key that seals OTP targets is never the HMAC key wallet mnemonics are derived with, nor the P-256 key production
 * bundles are signed with.
 */
const walletVaults = (kekHex: string) => {
  if (!/^[0-9a-fA-F]{64}$/.test(kekHex)) throw new Error("PAYCORE_WALLET_KEK must be 64 hex characters (32 bytes)")
  const kek = Buffer.from(kekHex, "hex")
  const subkey = (info: string) => new Uint8Array(hkdfSync("sha256", kek, new Uint8Array(0), info, 32))
  return Layer.mergeAll(
    Layer.succeed(KeyVault, keyVaultFromKey(subkey("paycore/KeyVault"))),
    Layer.succeed(WalletVault, walletVaultFromKey(subkey("paycore/WalletVault"))),
    Layer.succeed(BundleSigner, bundleSignerFromKey(subkey("paycore/BundleSigner")))
  )
}

export interface ServeOptions extends StoreFlags {
  /** Listen on 127.0.0.1 at this port (0: a free one); else `PORT`, else 8080. */
  readonly port?: number | undefined
  /** `false`: no settlement worker and no webhook dispatcher in this process (another process runs them). */
  readonly worker?: boolean | undefined
  /** How long a stop may take (the scope closing: draining, then the store); else `PAYCORE_SHUTDOWN_SECONDS`, 25. */
  readonly shutdownSeconds?: number | undefined
}

/** What a started sandbox tells its operator: printed once by `banner`. */
export interface RunningSandbox {
  /** `http://127.0.0.1:<port>/2025-10-13` */
  readonly baseUrl: string
  /** `http://127.0.0.1:<port>/dashboard/` */
  readonly dashboardUrl: string
  /** Where the data lives, one line. */
  readonly store: string
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  /** The webhook endpoint's first Standard Webhooks secret; undefined when one was made at an earlier start. */
  readonly webhookSecret: string | undefined
  readonly webhookPublicKeyPem: string
  /**
   * `<data folder>/sandbox.env` (none without a data folder): the base URL and the token as shell variables, written
   * at each start.
   */
  readonly envFile?: string | undefined
}

/**
 * Starts the sandbox service in the scope (`npm start` and `paycore serve`): the store, the ports, the HTTP server
 * and (unless `worker: false`) the background worker; stops it all when the scope closes. An option given wins over
 * its environment variable.
 */
export const serve = Effect.fnUntraced(function* (options: ServeOptions = {}) {
  const port = options.port ?? (yield* Config.Int("PORT").pipe(Config.withDefault(8080)))
  const speedUp = yield* Config.Number("PAYCORE_SANDBOX_SPEEDUP").pipe(Config.withDefault(3600))
  const configured = yield* Config.option(Config.Redacted("PAYCORE_SANDBOX_CREDENTIALS"))
  const configuredKey = yield* Config.option(Config.Redacted("PAYCORE_WEBHOOK_PRIVATE_KEY"))
  const configuredKek = yield* Config.option(Config.Redacted("PAYCORE_WALLET_KEK"))
  const masterKey = yield* Config.option(Config.Redacted("PAYCORE_MASTER_KEY"))
  const store = yield* chooseStore(options)
  const keys = yield* instanceKeys(
    { shared: store.shared ? store.open : undefined, dataDir: store.dataDir },
    { webhookPrivateKey: configuredKey, walletKek: configuredKek, masterKey }
  )
  const given = Option.isSome(configured)
    ? Option.some(Redacted.value(configured.value))
    : store.dataDir === undefined
      ? Option.none()
      : Option.some(
          keptInDataDir(
            store.dataDir,
            "sandbox-credentials",
            () => `sandbox-${randomBytes(4).toString("hex")}:${randomBytes(24).toString("hex")}`
          )
        )

  const ports = Layer.mergeAll(
    store.layer,
    store.documents,
    Ids.layer,
    Sandbox.layer({ speedUp }),
    fetchWebhookTransportLayer(),
    WebhookSigner.layerFromHex(keys.webhookPrivateKey),
    // The wallet's references: makeApp passes those of its context on to the handlers.
    walletVaults(keys.walletKek)
  )
  const portsContext = yield* Layer.build(ports)
  // Traces, metrics and logs (telemetry.ts): built once, around the app (its handlers, worker and dispatcher).
  const telemetry = yield* serveTelemetry()
  const webhookLeaseSeconds = yield* Config.Int("PAYCORE_WEBHOOK_LEASE_SECONDS").pipe(Config.withDefault(10))
  const oidcIssuers = yield* Config.option(Config.String("PAYCORE_OIDC_ISSUERS"))
  const shutdownSeconds = options.shutdownSeconds ?? (yield* shutdownSecondsConfig)
  const { listener, context, drain } = yield* makeApp({
    ...(yield* rateLimitsConfig),
    webhookLeaseSeconds,
    // The dashboard's files are read once, here: built at install (a 503 page says so when they are missing).
    files: [...dashboardFiles(), sandboxTimingFile(speedUp)],
    ...(options.worker === false ? { workerIntervalMillis: 0, webhookIntervalMillis: 0 } : {}),
    logRequests: telemetry.logRequests
  }).pipe(
    Effect.provide(portsContext),
    telemetry.withTelemetry,
    // WH-21 (design Q4): the sandbox asks the platform to approve each UMA payment received, as the upstream does.
    Effect.provideService(EngineConfig, { ...defaultEngineSettings, incomingApproval: sandboxIncomingApproval }),
    Option.isSome(oidcIssuers)
      ? Effect.provideService(OidcKeys, remoteOidcKeys(parseOidcIssuers(oidcIssuers.value)))
      : (effect) => effect
  )
  const tokens = Context.get(context, Tokens)
  const signer = Context.get(portsContext, WebhookSigner)

  // The operator's first sandbox token: given by the environment, or generated now.
  let clientId: string
  let secret: Redacted.Redacted<string>
  if (Option.isSome(given)) {
    const raw = given.value
    const colon = raw.indexOf(":")
    clientId = raw.slice(0, colon)
    secret = Redacted.make(raw.slice(colon + 1))
    yield* tokens.createWithCredentials({
      clientId,
      clientSecret: Redacted.value(secret),
      name: Option.isSome(configured) ? "sandbox (PAYCORE_SANDBOX_CREDENTIALS)" : "sandbox (kept in the data folder)",
      permissions: ALL_PERMISSIONS,
      environment: "SANDBOX"
    })
  } else {
    const created = yield* tokens.create({ name: "sandbox (generated at start)", permissions: [...ALL_PERMISSIONS] })
    clientId = created.clientId
    secret = Redacted.make(created.clientSecret)
  }

  // The webhook endpoint's first Standard Webhooks secret, made (and shown) once: a kept data folder has one.
  const firstSecret = yield* Context.get(context, WebhookSecrets).ensure()

  // `/healthz` and `/readyz`, outside the API and without credentials; the requests in flight, for a graceful stop.
  const lifecycle = makeLifecycle(Context.get(portsContext, Store))
  const server = createApiServer((req, res) => {
    if (lifecycle.answer(req, res)) return
    // `GET /metrics`: the Prometheus text, without credentials (PAYCORE_METRICS=off: none; docs/operations.md).
    if (telemetry.metrics && req.method === "GET" && req.url === "/metrics") {
      res.writeHead(200, { "content-type": PROMETHEUS_CONTENT_TYPE }).end(prometheusText(context))
      return
    }
    const door = req.method === "GET" || req.method === "HEAD" ? FRONT_DOORS.get(req.url ?? "") : undefined
    if (door !== undefined) {
      res.writeHead(302, { location: door, "content-length": 0 }).end()
      return
    }
    listener(req, res)
  })
  yield* Effect.acquireRelease(
    Effect.callback<void, Error>((resume) => {
      server.once("error", (error) => resume(Effect.fail(error)))
      server.listen(port, "127.0.0.1", () => resume(Effect.void))
    }),
    // The drain's budget leaves the rest of the deadline to close the store (run.ts bounds the whole stop).
    () => lifecycle.stop(server, drain, shutdownSeconds * 1000 - Math.min(2_000, shutdownSeconds * 200))
  )
  // PORT=0 picks a free port: report the one the server got.
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const envFile =
    store.dataDir === undefined
      ? undefined
      : writeSandboxEnv(store.dataDir, `${origin}/${API_VERSION}`, clientId, secret)
  return {
    baseUrl: `${origin}/${API_VERSION}`,
    dashboardUrl: `${origin}${DASHBOARD_PATH}`,
    store: store.description,
    clientId,
    clientSecret: secret,
    webhookSecret: firstSecret?.secret,
    webhookPublicKeyPem: signer.publicKeyPem,
    envFile
  } satisfies RunningSandbox
})

/**
 * `<data folder>/sandbox.env`, written at each start (owner-only, as the credentials kept there): what a shell needs to
 * call this sandbox, in the variables the CLI reads. A walk-through starts with `. ./.paycore-data/sandbox.env`, in
 * whatever order the reader started things, and whichever port or token this start has.
 */
const SANDBOX_ENV_FILE = "sandbox.env"

const writeSandboxEnv = (dataDir: string, baseUrl: string, clientId: string, secret: Redacted.Redacted<string>) => {
  const quoted = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`
  const lines = [
    "# Written by the paycore sandbox at each start: its base URL and token, for curl and the CLI (. this file).",
    `export PAYCORE_API=${quoted(baseUrl)}`,
    `export PAYCORE_CLIENT_ID=${quoted(clientId)}`,
    `export PAYCORE_CLIENT_SECRET=${quoted(Redacted.value(secret))}`,
    ""
  ]
  const file = join(dataDir, SANDBOX_ENV_FILE)
  writeFileSync(file, lines.join("\n"), { mode: 0o600 })
  // An existing file keeps its mode: make sure it is the owner's only.
  chmodSync(file, 0o600)
  return file
}

/** The console's welcome: the operator asked for these credentials; they are printed once, never logged. */
export const banner = (sandbox: RunningSandbox): string =>
  [
    `paycore sandbox is up (${sandbox.store})`,
    `  base URL        ${sandbox.baseUrl}`,
    `  API reference   ${sandbox.baseUrl}/docs`,
    `  dashboard       ${sandbox.dashboardUrl}  (sign in with the token below)`,
    `  token id        ${sandbox.clientId}`,
    `  token secret    ${Redacted.value(sandbox.clientSecret)}`,
    `  try             curl -u '${sandbox.clientId}:${Redacted.value(sandbox.clientSecret)}' ${sandbox.baseUrl}/config`,
    ...(sandbox.envFile === undefined
      ? []
      : [`  in a shell      . ${sandbox.envFile}  (sets PAYCORE_API, PAYCORE_CLIENT_ID, PAYCORE_CLIENT_SECRET)`]),
    sandbox.webhookSecret === undefined
      ? "  webhook secret  set earlier (a new one: POST /webhooks/signing-secrets/rotate)"
      : `  webhook secret  ${sandbox.webhookSecret}  (Standard Webhooks v1; shown once)`,
    "  webhook public key (verify X-Service-Signature with it):",
    sandbox.webhookPublicKeyPem.trim(),
    ""
  ].join("\n")
