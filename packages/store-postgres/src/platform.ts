import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { Effect } from "effect"
import { rowCodecOf } from "./codec.ts"
import { makeCollection } from "./collection.ts"
import { upsertSql } from "./queries.ts"
import type { Executor } from "./statements.ts"

const configCodec = rowCodecOf(tables.platformConfig)
// `singleton` (the primary key) is always true: written by its default, so a second put replaces the row.
const putConfigSql = upsertSql(configCodec, ["singleton"])

/** API tokens and the platform's configuration (one row at most). */
export const platformRepositories = (x: Executor): Pick<Repositories, "tokens" | "config"> => ({
  tokens: makeCollection(x, tables.tokens),
  config: {
    get: () =>
      Effect.map(x.query(`SELECT * FROM platform_config`, []), (rows) =>
        rows.length === 0 ? undefined : configCodec.decode(rows[0]!)
      ),
    put: (config) => x.run(putConfigSql, configCodec.params(config))
  }
})
