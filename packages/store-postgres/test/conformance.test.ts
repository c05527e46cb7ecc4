import { storeConformance } from "@paycore/testkit/store-conformance"
import { layerPglite } from "../src/index.ts"
import { pgliteConfig, testDatabase } from "./helpers.ts"

// The port's conformance suite (the memory store is the reference): always on an in-memory PGlite, and on the
// real server when DATABASE_URL names one (a fresh schema for this file).
storeConformance("pglite", layerPglite(pgliteConfig()), { timeout: "60 seconds" })

if (process.env.DATABASE_URL)
  storeConformance("postgres", testDatabase("conformance").layer(), { timeout: "60 seconds" })
