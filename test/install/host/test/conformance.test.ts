/**
 * testkit's conformance suites, run by the host's vitest from the installed packages: the Store port on the memory
 * store (the reference) and on store-postgres's embedded PGlite; the DocumentStore port on both.
 */
import * as MemoryStore from "@paycore/store-memory"
import * as PostgresStore from "@paycore/store-postgres"
import { documentStoreConformance } from "@paycore/testkit/document-store-conformance"
import { storeConformance } from "@paycore/testkit/store-conformance"

storeConformance("memory", MemoryStore.layer)
storeConformance("pglite", PostgresStore.layerPglite(), { timeout: "60 seconds" })
documentStoreConformance("memory", MemoryStore.documentStoreLayer)
documentStoreConformance("pglite", PostgresStore.documentStoreLayerPglite(), { timeout: "60 seconds" })
