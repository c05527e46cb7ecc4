/**
 * The Quill example server until it is stopped:
 *
 *   node --conditions=@paycore/source examples/custom-rail/src/main.ts     # PORT (default 8080)
 *
 * Payouts to an EUR IBAN over SEPA_INSTANT go through the (simulated) Quill scheme and settle in seconds.
 */
import { startQuillServer } from "./server.ts"

const running = await startQuillServer({ port: Number(process.env.PORT ?? 8080) })
process.stdout.write(`paycore with the Quill rail at ${running.api}\nAuthorization: ${running.authorization}\n`)
const stop = () => void running.close().then(() => process.exit(0))
process.once("SIGINT", stop)
process.once("SIGTERM", stop)
