import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import type { Collections } from "./collection.ts"

/** The moves of payments' and card transactions' machines (timelines). */
export const timelineRepositories = (collection: Collections): Pick<Repositories, "transitions"> => ({
  transitions: collection({ table: tables.transitions })
})
