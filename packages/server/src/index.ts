/** The sandbox service as functions: `npm start`, `npm run migrate` and the CLI's `serve` and `migrate` call them. */
export { type DataDirHolder, DataDirInUse } from "./data-dir-lock.ts"
export * from "./migrations.ts"
export { exitCodeOnStop, serveUntilStopped } from "./run.ts"
export * from "./serve.ts"
export { SharedKeysRefused } from "./shared-keys.ts"
export type { StoreFlags } from "./store.ts"
export {
  PROMETHEUS_CONTENT_TYPE,
  prometheusText,
  type TelemetryOptions,
  telemetryLayer,
  telemetryLayerFromEnv
} from "./telemetry.ts"
