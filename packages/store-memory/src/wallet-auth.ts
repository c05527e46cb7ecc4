import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import type { Collections } from "./collection.ts"

/** Embedded-wallet credentials, sessions, signed-retry first legs, OTP challenges and delegated keys. */
export const walletAuthRepositories = (
  collection: Collections
): Pick<
  Repositories,
  "walletCredentials" | "walletSessions" | "signedRequests" | "otpChallenges" | "delegatedKeys"
> => ({
  walletCredentials: collection({ table: tables.walletCredentials }),
  walletSessions: collection({ table: tables.walletSessions }),
  signedRequests: collection({ table: tables.signedRequests }),
  otpChallenges: collection({ table: tables.otpChallenges }),
  delegatedKeys: collection({ table: tables.delegatedKeys })
})
