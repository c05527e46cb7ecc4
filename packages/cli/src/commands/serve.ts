/** `paycore serve`: the sandbox service, started as `npm start` starts it (@paycore/server's `serve`). */
import { Effect, Option, Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import { emit } from "../output.ts"

/** The whole engine and its stores, loaded only by the commands that run them (the others start faster). */
export const loadServer = Effect.promise(() => import("@paycore/server"))

export const serve = Command.make(
  "serve",
  {
    port: Flag.Int("port").pipe(
      Flag.withDescription("Listen on 127.0.0.1:PORT (0: a free port; else PORT, else 8080)"),
      Flag.optional
    ),
    dataDir: Flag.String("data-dir").pipe(
      Flag.withDescription(
        "Keep the data in embedded PGlite in this folder (else PAYCORE_DATA_DIR, else .paycore-data)"
      ),
      Flag.optional
    ),
    databaseUrl: Flag.Redacted("database-url").pipe(
      Flag.withDescription("Keep the data on this PostgreSQL server (else DATABASE_URL)"),
      Flag.optional
    ),
    worker: Flag.Boolean("worker").pipe(
      Flag.withDescription("Run the settlement worker and the webhook dispatcher (--no-worker: another process does)"),
      Flag.withDefault(true)
    )
  },
  Effect.fnUntraced(function* ({ port, dataDir, databaseUrl, worker }) {
    const { banner, serveUntilStopped } = yield* loadServer
    // Until stopped: SIGTERM or SIGINT drains it gracefully within PAYCORE_SHUTDOWN_SECONDS (as `npm start`).
    return yield* serveUntilStopped(
      {
        port: Option.getOrUndefined(port),
        dataDir: Option.getOrUndefined(dataDir),
        databaseUrl: Option.getOrUndefined(databaseUrl),
        worker
      },
      // The user asked for the sandbox's credentials on their console: printed once, as `npm start` prints them.
      (sandbox) =>
        emit(
          {
            baseUrl: sandbox.baseUrl,
            store: sandbox.store,
            clientId: sandbox.clientId,
            clientSecret: Redacted.value(sandbox.clientSecret),
            webhookSecret: sandbox.webhookSecret ?? null,
            webhookPublicKeyPem: sandbox.webhookPublicKeyPem
          },
          () => [banner(sandbox).trimEnd()]
        )
    )
  })
).pipe(Command.withDescription("Run the sandbox service (what npm start does) until Ctrl-C or SIGTERM"))
