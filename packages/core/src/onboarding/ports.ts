import type { Customers } from "../customers/service.ts"
import type { PlatformConfigService } from "../platform/service.ts"
import type { DocumentStore } from "../ports/document-store.ts"
import type { Ids } from "../ports/ids.ts"
import type { KycProvider } from "../ports/kyc.ts"
import type { Notifier } from "../ports/notifier.ts"
import type { Store } from "../ports/store.ts"

/**
 * What the `Onboarding` use cases run on (verification.ts, beneficial-owners.ts, contact-verification.ts), resolved
 * once when its layer is built.
 */
export interface OnboardingPorts {
  readonly store: Store["Service"]
  readonly ids: Ids["Service"]
  readonly kyc: KycProvider["Service"]
  readonly config: PlatformConfigService["Service"]
  readonly notifier: Notifier["Service"]
}

/** What the `Documents` use cases run on (documents.ts): the files in the DocumentStore, screened by the provider. */
export interface DocumentPorts {
  readonly store: Store["Service"]
  readonly ids: Ids["Service"]
  readonly files: DocumentStore["Service"]
  readonly kyc: KycProvider["Service"]
}

/** What a bulk import runs on (bulk-import.ts): its CSV in the DocumentStore, its rows made customers. */
export interface BulkImportPorts {
  readonly store: Store["Service"]
  readonly ids: Ids["Service"]
  readonly files: DocumentStore["Service"]
  readonly customers: Customers["Service"]
}
