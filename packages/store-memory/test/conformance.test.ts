import { layer } from "@paycore/store-memory"
import { storeConformance } from "@paycore/testkit/store-conformance"

storeConformance("memory", layer)
