/**
 * The host server, until SIGINT or SIGTERM:
 *
 *   HOST_API_TOKEN=…  PAYCORE_CLIENT_SECRET=…  PAYCORE_WEBHOOK_PRIVATE_KEY=<64 hex>  node src/main.ts
 *
 * With `DATABASE_URL` (and `PAYCORE_SCHEMA`) on a PostgreSQL server, migrated beforehand by `src/migrate.ts`;
 * without it on an in-memory PGlite, migrated at start. `PAYCORE_WORKERS=false`: an instance that only serves.
 * A secret left unset is generated and printed (development only: another instance would not share it).
 */
import { randomBytes } from "node:crypto"
import { PREFIX, startHost } from "./server.ts"

const secret = (name: string, bytes: number): string => {
  const value = process.env[name]
  if (value !== undefined && value !== "") return value
  const generated = randomBytes(bytes).toString("hex")
  process.stdout.write(`${name} unset: generated ${generated}\n`)
  return generated
}

const host = await startHost({
  port: Number(process.env.PORT ?? 3000),
  databaseUrl: process.env.DATABASE_URL,
  schema: process.env.PAYCORE_SCHEMA,
  migrateAtStart: process.env.DATABASE_URL === undefined,
  apiToken: secret("HOST_API_TOKEN", 24),
  paycoreSecret: secret("PAYCORE_CLIENT_SECRET", 24),
  webhookPrivateKey: secret("PAYCORE_WEBHOOK_PRIVATE_KEY", 32),
  workers: process.env.PAYCORE_WORKERS !== "false"
})
process.stdout.write(`host on ${host.url}; paycore at ${host.url}${PREFIX}/2025-10-13 (Authorization: Bearer …)\n`)

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    host.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`)
        process.exit(1)
      }
    )
  })
}
