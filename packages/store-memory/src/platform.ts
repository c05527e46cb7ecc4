import type { PlatformConfig, Repositories } from "@paycore/core"
import { Effect } from "effect"
import { type Collections, inRange } from "./collection.ts"
import type { UndoJournal } from "./transaction.ts"

/** API tokens and the platform's configuration. */
export const platformRepositories = (
  collection: Collections,
  journal: UndoJournal
): Pick<Repositories, "tokens" | "config"> => {
  const tokens: Repositories["tokens"] = collection({
    matches: (t, f) =>
      (f.includeDeleted || t.deletedAt === undefined) &&
      (f.name === undefined || t.name === f.name) &&
      inRange(t.createdAt, f.createdAfter, f.createdBefore),
    unique: { clientId: (t) => t.clientId }
  })

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
