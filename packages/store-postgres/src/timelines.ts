import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { makeCollection } from "./collection.ts"
import type { Executor } from "./statements.ts"

/** The moves of payments' and card transactions' machines (timelines). */
export const timelineRepositories = (x: Executor): Pick<Repositories, "transitions"> => ({
  transitions: makeCollection(x, tables.transitions)
})
