import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { rowCodecOf } from "./codec.ts"
import { makeCollection } from "./collection.ts"
import { insertSql } from "./queries.ts"
import type { Executor } from "./statements.ts"

const transitionCodec = rowCodecOf(tables.transitions)
const appendSql = insertSql(transitionCodec)

/** The moves of payments' and card transactions' machines (timelines). */
export const timelineRepositories = (x: Executor): Pick<Repositories, "transitions"> => ({
  transitions: {
    ...makeCollection(x, tables.transitions),
    // Sent with the command's next statement or its COMMIT, unanswered (see `TransitionCollection.append`).
    append: (row) => x.run(appendSql, transitionCodec.params(row))
  }
})
