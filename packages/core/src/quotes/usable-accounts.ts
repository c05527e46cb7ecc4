/** The accounts a payment can move money between (quote creation, and transactions' funding and transfer-in). */
import { Effect } from "effect"
import type { ExternalAccount, InternalAccountRecord } from "../accounts/model.ts"
import type { Store } from "../ports/store.ts"
import type { Steps } from "../shared/tracing.ts"
import { accountNotActive, accountNotFound, externalAccountNotUsable, type QuoteError } from "./errors.ts"

/** Why internal account `id` (read as `account`) cannot be moved from or to; `undefined` when it exists and is ACTIVE or PENDING. */
export const internalAccountRefusal = (
  id: string,
  account: InternalAccountRecord | undefined
): QuoteError | undefined => {
  if (account === undefined) return accountNotFound(id)
  if (account.status !== "ACTIVE" && account.status !== "PENDING") return accountNotActive(id, account.status)
  return undefined
}

/** Why external account `id` (read as `account`) cannot be paid; `undefined` when it exists, is not deleted, and is usable. */
export const externalAccountRefusal = (id: string, account: ExternalAccount | undefined): QuoteError | undefined => {
  if (account === undefined || account.status === "INACTIVE") return accountNotFound(id)
  if (account.status !== "ACTIVE" && account.status !== "PENDING_OWNERSHIP_VERIFICATION") {
    return externalAccountNotUsable(account.id, account.status)
  }
  return undefined
}

/** An internal account money can move from or to: it exists and is ACTIVE or PENDING. */
export function* usableInternalAccount(store: Store["Service"], id: string): Steps<InternalAccountRecord, QuoteError> {
  const account = yield* store.internalAccounts.get(id)
  const refusal = internalAccountRefusal(id, account)
  if (refusal !== undefined) return yield* Effect.fail(refusal)
  return account!
}

/** An external account money can move to or be pulled from: it exists, is not deleted, and is usable. */
export function* usableExternalAccount(store: Store["Service"], id: string): Steps<ExternalAccount, QuoteError> {
  const account = yield* store.externalAccounts.get(id)
  const refusal = externalAccountRefusal(id, account)
  if (refusal !== undefined) return yield* Effect.fail(refusal)
  return account!
}
