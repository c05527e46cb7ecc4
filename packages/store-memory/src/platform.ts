import type { PlatformConfig, Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { Effect } from "effect"
import type { Collections } from "./collection.ts"
import type { UndoJournal } from "./transaction.ts"

/** API tokens and the platform's configuration. */
export const platformRepositories = (
  collection: Collections,
  journal: UndoJournal
): Pick<Repositories, "tokens" | "config"> => {
  const tokens: Repositories["tokens"] = collection({ table: tables.tokens })

  let config: PlatformConfig | undefined
  return {
    tokens,
    config: {
      get: () => Effect.sync(() => config),
      put: (next) =>
        Effect.sync(() => {
          const before = config
          config = next
          journal.remember(() => {
            config = before
          })
        })
    }
  }
}
