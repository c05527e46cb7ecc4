/**
 * A customer's email or phone number and the embedded-wallet credentials that send codes to it (CU-14 … CU-18,
 * W-04). An `EMAIL_OTP` (`SMS_OTP`) credential is tied to the customer when it is active and its `contact` is the
 * customer's current email (phone number): changing that field changes those credentials with it, in one store
 * transaction, and needs the wallet's signature (a signed retry, `Customers.update`). The steps here run inside
 * the caller's transaction, with the `Store` (and `Ids`) in context.
 */
import { Effect } from "effect"
import { scanAll } from "../platform/paging.ts"
import type { Ids } from "../ports/ids.ts"
import { Store } from "../ports/store.ts"
import { Conflict, type StoreError } from "../shared/errors.ts"
import { activeCredentials, bootstrapCredential } from "../wallet-auth/credentials.ts"
import type { CredentialType, WalletCredentialRecord } from "../wallet-auth/model.ts"
import { contactTaken, tiedCredentialSyncFailed, tiedCredentialsChanged } from "./errors.ts"
import type { Customer, UpdateCustomerRequest } from "./model.ts"

/** A contact field a PATCH changes, and the credential type tied to it. */
export interface ContactChange {
  readonly field: "email" | "phoneNumber"
  readonly type: Extract<CredentialType, "EMAIL_OTP" | "SMS_OTP">
  readonly to: string
}

/** The contact field `req` changes (at most one: a PATCH with both is refused before), if any. */
export const contactChange = (current: Customer, req: UpdateCustomerRequest): ContactChange | undefined => {
  if (req.email !== undefined && req.email !== current.email) {
    return { field: "email", type: "EMAIL_OTP", to: req.email }
  }
  if (req.phoneNumber !== undefined && req.phoneNumber !== current.phoneNumber) {
    return { field: "phoneNumber", type: "SMS_OTP", to: req.phoneNumber }
  }
  return undefined
}

const credentialsSendingTo = (contact: string) =>
  Effect.flatMap(Store, (store) =>
    scanAll((page) => store.walletCredentials.list({ contact, includeRevoked: false }, page))
  )

/**
 * CU-14, CU-15: the customer's active credentials of `change.type` whose contact is the field's current value,
 * oldest first (verified or not: a re-added OTP credential sends its codes there too).
 */
export const tiedCredentials = Effect.fnUntraced(function* (
  customer: Customer,
  change: ContactChange
): Effect.fn.Return<ReadonlyArray<WalletCredentialRecord>, StoreError, Store> {
  const contact = change.field === "email" ? customer.email : customer.phoneNumber
  if (contact === undefined) return []
  const rows = yield* credentialsSendingTo(contact)
  return rows.filter((c) => c.customerId === customer.id && c.type === change.type)
})

/** CU-18: 409 when an active credential of the type, other than `tied`, already sends its codes to the new value. */
export const refuseTakenContact = Effect.fnUntraced(function* (
  change: ContactChange,
  tied: ReadonlyArray<WalletCredentialRecord>
): Effect.fn.Return<void, Conflict | StoreError, Store> {
  const holders = yield* credentialsSendingTo(change.to)
  if (holders.some((c) => c.type === change.type && !tied.some((t) => t.id === c.id))) {
    return yield* contactTaken(change.field)
  }
})

/**
 * CU-17: every tied credential takes the new contact (its `contact` and `nickname`), inside the caller's store
 * transaction, so the customer's field and its credentials commit together. Each is re-read under lock: one revoked
 * or moved meanwhile is a changed set (409). A credential that cannot be written fails the whole update with 424
 * (the transaction rolls back); a conflict with a concurrent transaction stays a retryable `StoreError`, for the
 * store to run the transaction again.
 */
export const syncTiedCredentials = Effect.fnUntraced(function* (
  tied: ReadonlyArray<WalletCredentialRecord>,
  change: ContactChange,
  now: string
) {
  const store = yield* Store
  for (const credential of tied) {
    const locked = yield* store.walletCredentials.getForUpdate(credential.id)
    if (locked === undefined || locked.status !== "ACTIVE" || locked.contact !== credential.contact) {
      return yield* tiedCredentialsChanged()
    }
    yield* store.walletCredentials
      .update({ ...locked, contact: change.to, nickname: change.to, updatedAt: now })
      .pipe(Effect.catch((e) => Effect.fail(e._tag === "StoreError" && e.retryable ? e : tiedCredentialSyncFailed())))
  }
})

/**
 * W-04 for a customer whose email arrives after its embedded wallet opened (`change`: the new email): each of its
 * embedded wallets without an active credential gets the `EMAIL_OTP` credential tied to the email, unless another
 * credential already sends codes there (409, CU-18). Returns what it added.
 */
export const bootstrapWalletCredentials = Effect.fnUntraced(function* (
  customer: Customer,
  change: ContactChange
): Effect.fn.Return<ReadonlyArray<WalletCredentialRecord>, Conflict | StoreError, Store | Ids> {
  const store = yield* Store
  const wallets = yield* scanAll((page) =>
    store.internalAccounts.list({ customerId: customer.id, type: "EMBEDDED_WALLET" }, page)
  )
  const added: Array<WalletCredentialRecord> = []
  for (const wallet of wallets) {
    if ((yield* activeCredentials(wallet.id)).length > 0) continue
    const credential = yield* bootstrapCredential(wallet, customer)
    if (credential === undefined) continue
    if (added.length === 0) yield* refuseTakenContact(change, [])
    // Another request gave the wallet its first credential meanwhile.
    yield* store.walletCredentials
      .insert(credential)
      .pipe(
        Effect.catchTag("UniqueViolation", () =>
          Effect.fail(
            new Conflict({ code: "CONFLICT", message: "The embedded wallet got a credential meanwhile: try again" })
          )
        )
      )
    added.push(credential)
  }
  return added
})
