import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { makeCollection } from "./collection.ts"
import type { Executor } from "./statements.ts"

/** Embedded-wallet credentials, sessions, signed-retry first legs, OTP challenges and delegated keys. */
export const walletAuthRepositories = (
  x: Executor
): Pick<
  Repositories,
  "walletCredentials" | "walletSessions" | "signedRequests" | "otpChallenges" | "delegatedKeys"
> => ({
  walletCredentials: makeCollection(x, tables.walletCredentials),
  walletSessions: makeCollection(x, tables.walletSessions),
  signedRequests: makeCollection(x, tables.signedRequests),
  otpChallenges: makeCollection(x, tables.otpChallenges),
  delegatedKeys: makeCollection(x, tables.delegatedKeys)
})
