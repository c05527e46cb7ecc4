/**
 * The Hono host, until SIGINT or SIGTERM:
 *
 *   HOST_API_TOKEN=…  PAYCORE_CLIENT_SECRET=…  PAYCORE_WEBHOOK_PRIVATE_KEY=<64 hex>  [DATABASE_URL=…]  node src/main.ts
 *
 * A secret left unset is generated and printed (development only).
 */
import { randomBytes } from "node:crypto"
import { PREFIX } from "./app.ts"
import { startHost } from "./server.ts"

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
  apiToken: secret("HOST_API_TOKEN", 24),
  paycoreSecret: secret("PAYCORE_CLIENT_SECRET", 24),
  webhookPrivateKey: secret("PAYCORE_WEBHOOK_PRIVATE_KEY", 32)
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
