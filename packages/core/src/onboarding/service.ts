// The onboarding context's services, one file each: `Onboarding` (verification.ts: KYC links and packet reviews;
// its beneficial owners and contact verification in beneficial-owners.ts and contact-verification.ts), `Documents`
// (documents.ts) and `BulkImports` (bulk-import.ts); the packet rules the KYC providers review with (packet.ts) and
// the CSV rows of a bulk import (customer-csv.ts).
export {
  BULK_IMPORT_ABANDONED_SECONDS,
  BULK_IMPORT_BATCH_ROWS,
  BULK_IMPORT_CONCURRENCY,
  BULK_IMPORT_REPORT_ROWS,
  BulkImports,
  MAX_BULK_IMPORT_BYTES,
  MAX_BULK_IMPORT_ERRORS
} from "./bulk-import.ts"
export {
  CONTACT_CODE_MAX_ATTEMPTS,
  CONTACT_CODE_RESEND_SECONDS,
  CONTACT_CODE_TTL_SECONDS,
  pendingContactVerification
} from "./contact-verification.ts"
export { Documents } from "./documents.ts"
export {
  ACCEPTED_DOCUMENT_TYPES,
  businessPacketErrors,
  identityDocumentOf,
  individualPacketErrors,
  NON_US_ENTITY_TYPES,
  type PacketOptions,
  packetErrors,
  UBO_THRESHOLD_PERCENT
} from "./packet.ts"
export { baseFileName, type IncomingFile, type ReceivedFile } from "./uploads.ts"
export { Onboarding } from "./verification.ts"
