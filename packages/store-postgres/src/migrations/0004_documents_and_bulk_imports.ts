import type { Migration } from "kysely/migration"
import { ID, INSTANT, OPTIONAL_INSTANT, statements } from "./ddl.ts"

/** Issue 4, continued: documents' metadata and bulk customer import jobs. */
export const documentsAndImports: Migration = {
  up: statements(
    `CREATE TABLE documents (
      id ${ID},
      document_holder text COLLATE "C" NOT NULL,
      document jsonb NOT NULL,
      files jsonb NOT NULL,
      submitted_at ${OPTIONAL_INSTANT},
      deleted_at ${OPTIONAL_INSTANT},
      CONSTRAINT documents_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX documents_holder_idx ON documents (document_holder, id)`,

    `CREATE TABLE bulk_import_jobs (
      id ${ID},
      status text NOT NULL,
      job jsonb NOT NULL,
      file_key text NOT NULL,
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT bulk_import_jobs_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX bulk_import_jobs_status_idx ON bulk_import_jobs (status, id)`
  )
}
