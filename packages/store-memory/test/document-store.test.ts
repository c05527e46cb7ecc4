import { documentStoreConformance } from "@paycore/testkit/document-store-conformance"
import { documentStoreLayer } from "../src/document-store.ts"

documentStoreConformance("memory", documentStoreLayer)
