export {
  detectTransactionPooling,
  makePgKysely,
  makePgKyselyFromPool,
  makePgliteKysely,
  type PgConfig,
  type PgliteConfig,
  type PoolOptions,
  pgTypeParsers
} from "./connection.ts"
export * from "./document-store.ts"
export { keepInstanceKeys } from "./instance-keys.ts"
export type * from "./schema.ts"
export { MIGRATION_TABLE, migrate, migrations } from "./schema.ts"
export { layerFrom, layerPg, layerPglite, makePostgresStore, migrateDatabase } from "./store.ts"
export { poolConnections, registerPoolGauges } from "./telemetry.ts"
export type { GroupCommit, StoreOptions } from "./transaction.ts"
