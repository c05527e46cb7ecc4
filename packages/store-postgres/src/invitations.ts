import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { makeQueue } from "./collection.ts"
import type { Executor } from "./statements.ts"

/** UMA invitations. */
export const invitationRepositories = (x: Executor): Pick<Repositories, "invitations"> => ({
  invitations: makeQueue(x, tables.invitations)
})
