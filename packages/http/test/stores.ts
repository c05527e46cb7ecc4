import type { DocumentStore } from "@paycore/core"
import { documentStoreLayer } from "@paycore/store-memory"
import { documentStoreLayerPglite, layerPglite } from "@paycore/store-postgres"
import type { Layer } from "effect"
import { describe } from "vitest"
import { pgliteConfig, pgliteMigratedConfig, testDatabase } from "../../store-postgres/test/helpers.ts"
import type { TestServerOptions } from "./harness.ts"

/** A store and the DocumentStore beside it, as a deployment pairs them. */
export type StoresUnderTest = TestServerOptions & { readonly documentStoreLayer: Layer.Layer<DocumentStore, unknown> }

/**
 * Runs `suite` as `<name> on the memory stores`, `on PGlite` and `on PostgreSQL` (the server named by
 * DATABASE_URL, in a fresh schema named after `database`; skipped without it).
 */
export const onEveryStore = (name: string, database: string, suite: (stores: () => StoresUnderTest) => void) => {
  describe(`${name} on the memory stores`, () => {
    suite(() => ({ documentStoreLayer }))
  })
  describe(`${name} on PGlite`, () => {
    suite(() => ({
      // Migrated already: its migrate() at start finds every migration applied (the store's own tests migrate).
      storeLayer: layerPglite(pgliteMigratedConfig()),
      documentStoreLayer: documentStoreLayerPglite(pgliteConfig())
    }))
  })
  describe.runIf(process.env.DATABASE_URL)(`${name} on PostgreSQL`, () => {
    const db = testDatabase(database)
    suite(() => ({ storeLayer: db.layer(), documentStoreLayer: db.documentStoreLayer() }))
  })
}
