import type { Migration } from "kysely/migration"
import { OPTIONAL_INSTANT, statements } from "./ddl.ts"

/**
 * Issue 14, quotes under SCA: the challenge a quote waiting for authorization carries (`quote.scaChallenge`), the
 * factor asked for at creation, and when a real-time-funded quote was authorized (its deposit is not challenged).
 * The expiry worker's index holds PENDING quotes only now (the quote machine lets no other state expire).
 */
export const scaQuotes: Migration = {
  up: statements(
    `ALTER TABLE quotes ADD COLUMN sca_challenge jsonb`,
    `ALTER TABLE quotes ADD COLUMN sca_factor text`,
    `ALTER TABLE quotes ADD COLUMN sca_authorized_at ${OPTIONAL_INSTANT}`,
    // A quote waiting for authorization no longer expires by its own expiresAt (its challenge's expiry fails it).
    `DROP INDEX quotes_expiry_idx`,
    `CREATE INDEX quotes_expiry_idx ON quotes (expires_at) WHERE status IN ('PENDING')`
  )
}
