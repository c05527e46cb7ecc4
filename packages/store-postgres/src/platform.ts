import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
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
    tokens: makeCollection(x, tables.tokens),
    config: {
      get: () =>
        Effect.map(x.query(`SELECT * FROM platform_config`, []), (rows) =>
          rows.length === 0 ? undefined : codecs.platformConfig.decode(rows[0] as any)
        ),
      put: (config) => x.run(putConfig, valuesOf(codecs.platformConfig, config))
    }
  }
}
