/** The accounts a payment can move money between (quote creation, and transactions' funding and transfer-in). */
import { Effect } from "effect"
import type { ExternalAccount, InternalAccountRecord } from "../accounts/model.ts"
import type { Store } from "../ports/store.ts"
import type { Steps } from "../shared/tracing.ts"
import { accountNotActive, accountNotFound, externalAccountNotUsable, type QuoteError } from "./errors.ts"

/** An internal account money can move from or to: it exists and is ACTIVE or PENDING. */
export function* usableInternalAccount(store: Store["Service"], id: string): Steps<InternalAccountRecord, QuoteError> {
  const account = yield* store.internalAccounts.get(id)
  if (account === undefined) return yield* Effect.fail(accountNotFound(id))
  if (account.status !== "ACTIVE" && account.status !== "PENDING") {
    return yield* Effect.fail(accountNotActive(id, account.status))
  }
  return account
}

/** An external account money can move to or be pulled from: it exists, is not deleted, and is usable. */
export function* usableExternalAccount(store: Store["Service"], id: string): Steps<ExternalAccount, QuoteError> {
  const account = yield* store.externalAccounts.get(id)
  if (account === undefined || account.status === "INACTIVE") return yield* Effect.fail(accountNotFound(id))
  if (account.status !== "ACTIVE" && account.status !== "PENDING_OWNERSHIP_VERIFICATION") {
    return yield* Effect.fail(externalAccountNotUsable(account.id, account.status))
  }
  return account
}
