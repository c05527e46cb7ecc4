import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import type { Collections } from "./collection.ts"

/** UMA invitations. */
export const invitationRepositories = (collection: Collections): Pick<Repositories, "invitations"> => ({
  invitations: collection({ table: tables.invitations })
})
