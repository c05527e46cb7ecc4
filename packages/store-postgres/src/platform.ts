import type { Repositories, TokenFilter } from "@paycore/core"
import { Effect } from "effect"
import * as codecs from "./codecs.ts"
import { valuesOf } from "./codecs.ts"
import { makeCollection } from "./collection.ts"
import type { Executor } from "./statements.ts"

/** API tokens and the platform's configuration (one row at most). */
export const platformRepositories = (x: Executor): Pick<Repositories, "tokens" | "config"> => {
  const configColumns = codecs.platformConfig.columns
  const putConfig =
    `INSERT INTO platform_config (${configColumns.join(", ")}) VALUES (${configColumns.map((_, i) => `$${i + 1}`).join(", ")}) ` +
    `ON CONFLICT (singleton) DO UPDATE SET ${configColumns.map((c) => `${c} = EXCLUDED.${c}`).join(", ")}`
  return {
    tokens: makeCollection(
      x,
      codecs.tokens,
      (f: TokenFilter, w) => {
        if (!f.includeDeleted) w.where("deleted_at IS NULL")
        w.eq("name", f.name)
        w.between("created_at", f.createdAfter, f.createdBefore)
      },
      [{ index: "clientId", column: "client_id", constraint: "tokens_client_id_key", value: (t) => t.clientId }]
    ),
    config: {
      get: () =>
        Effect.map(x.query(`SELECT * FROM platform_config`, []), (rows) =>
          rows.length === 0 ? undefined : codecs.platformConfig.decode(rows[0] as any)
        ),
      put: (config) => x.run(putConfig, valuesOf(codecs.platformConfig, config))
    }
  }
}
