/**
 * External accounts of a customer and of the platform: create (the body's checks, one per owner and number or
 * address), list, get and delete; a customer route 404s on the platform's accounts and vice versa.
 */
import { Effect } from "effect"
import { invalidCursor } from "../platform/errors.ts"
import { scanAll } from "../platform/paging.ts"
import { EngineConfig } from "../shared/engine-config.ts"
import type { FieldError } from "../shared/errors.ts"
import type { CustomerId } from "../shared/ids.ts"
import { allows } from "../shared/machine.ts"
import { type Page, pageRequest } from "../shared/paging.ts"
import { describePayeeType, payeeTypeName } from "../shared/payee-types.ts"
import { nowIso } from "../shared/time.ts"
import { invalidInput } from "../shared/validation.ts"
import {
  accountOwnerNotFound,
  beneficiaryTrusted,
  duplicateExternalAccount,
  externalAccountNotFound,
  invalidBankAccount,
  platformAccountIdTaken
} from "./errors.ts"
import { externalAccountMachine } from "./machine.ts"
import {
  type AccountInfo,
  type AccountOwner,
  type CreateExternalAccountRequest,
  type CreatePlatformExternalAccountRequest,
  type ExternalAccount,
  heldBy,
  type ListExternalAccountsQuery,
  type ListPlatformExternalAccountsQuery,
  type PaymentRail
} from "./model.ts"
import { initialExternalStatus, initialPlatformExternalStatus } from "./ownership-rules.ts"
import type { AccountsPorts } from "./ports.ts"
import { accountIdentity, beneficiaryName, crossFieldErrors, railsOf, variantCurrencies } from "./variants.ts"
import { unknownVasp, vaspNameOf } from "./vasps.ts"

/** The counter of the platform's external accounts ever created: its row is the lock of their creation. */
const PLATFORM_EXTERNAL_ACCOUNTS_CREATED = "platform-external-accounts-created"

/** The `bankName` that must be one of `GET /discoveries` (AC-18), if the account names one (SWIFT's is free text). */
const listedBankNameOf = (info: AccountInfo): string | undefined =>
  "bankName" in info && describePayeeType(payeeTypeName(info.accountType)).bankNameUnlisted !== true
    ? info.bankName
    : undefined

/** An external account as answered: its `accountInfo` carries the rails it is paid on (the upstream's shape). */
export const answered = (account: ExternalAccount): ExternalAccount => ({
  ...account,
  accountInfo: { ...account.accountInfo, paymentRails: account.paymentRails }
})

/** The 400s of a new external account's body: currency of the type, bank and VASP names, rules across fields. */
const checkNewAccount = Effect.fnUntraced(function* (
  directory: AccountsPorts["directory"],
  currency: string,
  info: AccountInfo
) {
  const errors: Array<FieldError> = []
  const currencies = variantCurrencies(info.accountType)
  if (!currencies.includes(currency)) {
    errors.push({
      field: "currency",
      constraint: { enum: currencies },
      message: `A ${info.accountType} account holds ${currencies.join(" or ")}, not ${currency}`
    })
  }
  const bankName = listedBankNameOf(info)
  if (bankName !== undefined) {
    const institutions = yield* directory.institutions()
    const allowed = [...new Set(institutions.filter((i) => currencies.includes(i.currency)).map((i) => i.bankName))]
    if (!allowed.includes(bankName)) {
      errors.push({
        field: "accountInfo.bankName",
        constraint: { enum: allowed },
        message: "Expected a bankName returned by GET /discoveries for this currency"
      })
    }
  }
  const vaspName = vaspNameOf(info)
  if (vaspName !== undefined) {
    const known = (yield* directory.vasps()).map((v) => v.vaspName)
    if (!known.includes(vaspName)) errors.push(unknownVasp(known))
  }
  errors.push(...crossFieldErrors(info))
  if (errors.length > 0) return yield* invalidInput(errors)
})

/**
 * The beneficiary name check of a new account (AC-12, SB-08), asked of the port before anything is written: the
 * fields stored with the account, or 400 `INVALID_BANK_ACCOUNT` when the rail knows no such account. An account that
 * names no beneficiary (a wallet without one, Lightning) has no name to check: `UNSUPPORTED`, the port not asked.
 */
const verifyBeneficiary = Effect.fnUntraced(function* (
  ports: AccountsPorts,
  currency: string,
  info: AccountInfo,
  paymentRails: ReadonlyArray<PaymentRail>
) {
  const name = beneficiaryName(info)
  const verdict =
    name === undefined
      ? undefined
      : yield* ports.beneficiaryVerification.verify({
          currency,
          accountInfo: info,
          paymentRails,
          beneficiaryName: name
        })
  if (verdict?._tag === "InvalidAccount") return yield* invalidBankAccount(verdict.message)
  const fields: Pick<ExternalAccount, "beneficiaryVerificationStatus" | "beneficiaryVerifiedData"> = {
    beneficiaryVerificationStatus: verdict?.status ?? "UNSUPPORTED",
    ...(verdict?.verifiedData === undefined ? {} : { beneficiaryVerifiedData: verdict.verifiedData })
  }
  return fields
})

/**
 * Stores a new external account of a customer (`customer`) or of the platform (undefined), after the body's
 * checks and its beneficiary check: 409 when its owner already has it (same currency and number or address), or, for
 * the platform, when `platformAccountId` is taken. `status` is its first status; `isDefault` takes over the customer's default.
 */
const insertExternal = Effect.fnUntraced(function* (
  ports: AccountsPorts,
  owner: { readonly customerId: CustomerId } | undefined,
  req: Pick<CreateExternalAccountRequest, "currency" | "platformAccountId" | "ownershipType" | "accountInfo">,
  status: ExternalAccount["status"],
  isDefault: boolean
) {
  const { store, ids } = ports
  const info = req.accountInfo
  yield* checkNewAccount(ports.directory, req.currency, info)
  const paymentRails = railsOf(info)
  const verification = yield* verifyBeneficiary(ports, req.currency, info, paymentRails)
  const identity = accountIdentity(info)
  return yield* store.transaction(
    Effect.gen(function* () {
      // The owner's lock first, so concurrent creates check the siblings one after the other: the customer's
      // row, or for the platform (no row of its own) its counter of created accounts.
      if (owner === undefined) yield* store.counters.add(PLATFORM_EXTERNAL_ACCOUNTS_CREATED, 1)
      else yield* store.customers.getForUpdate(owner.customerId)
      const siblings = yield* scanAll((page) =>
        store.externalAccounts.list(
          owner === undefined ? { ownedByCustomer: false } : { customerId: owner.customerId },
          page
        )
      )
      const duplicate = siblings.find((a) => a.currency === req.currency && accountIdentity(a.accountInfo) === identity)
      if (duplicate !== undefined) return yield* duplicateExternalAccount(duplicate.id)
      if (owner === undefined && req.platformAccountId !== undefined) {
        const taken = siblings.find((a) => a.platformAccountId === req.platformAccountId)
        if (taken !== undefined) return yield* platformAccountIdTaken(req.platformAccountId, taken.id)
      }
      const now = yield* nowIso
      if (isDefault) {
        // At most one default UMA deposit account per customer: the new one takes over.
        for (const other of siblings) {
          if (other.defaultUmaDepositAccount) {
            yield* Effect.orDie(
              store.externalAccounts.update({ ...other, defaultUmaDepositAccount: false, updatedAt: now })
            )
          }
        }
      }
      const account: ExternalAccount = {
        id: yield* ids.make("ExternalAccount"),
        ...(owner === undefined ? {} : { customerId: owner.customerId }),
        status,
        currency: req.currency,
        ...(req.platformAccountId === undefined ? {} : { platformAccountId: req.platformAccountId }),
        ownershipType: req.ownershipType ?? "FIRST_PARTY",
        defaultUmaDepositAccount: isDefault,
        paymentRails,
        ...verification,
        accountInfo: info,
        createdAt: now,
        updatedAt: now
      }
      yield* Effect.orDie(store.externalAccounts.insert(account))
      return answered(account)
    })
  )
})

/** `POST /customers/external-accounts` (201). */
export const createExternalAccount = Effect.fnUntraced(function* (
  ports: AccountsPorts,
  req: CreateExternalAccountRequest
) {
  const customer = yield* ports.store.customers.get(req.customerId)
  if (customer === undefined || customer.isDeleted) return yield* accountOwnerNotFound(req.customerId)
  const { travelRule } = yield* EngineConfig
  const status = initialExternalStatus(req.accountInfo, req.ownershipType ?? "FIRST_PARTY", customer.region, travelRule)
  return yield* insertExternal(
    ports,
    { customerId: req.customerId },
    req,
    status,
    req.defaultUmaDepositAccount ?? false
  )
})

/** `POST /platform/external-accounts` (201): 409 `CONFLICT` when `platformAccountId` is taken. */
export const createPlatformExternalAccount = Effect.fnUntraced(function* (
  ports: AccountsPorts,
  req: CreatePlatformExternalAccountRequest
) {
  const { travelRule } = yield* EngineConfig
  const status = initialPlatformExternalStatus(req.accountInfo, req.ownershipType ?? "FIRST_PARTY", travelRule)
  return yield* insertExternal(ports, undefined, req, status, false)
})

/** `GET /customers/external-accounts`: customers' accounts, paged; deleted accounts hidden. */
export const listExternalAccounts = Effect.fnUntraced(function* (
  ports: AccountsPorts,
  query: ListExternalAccountsQuery
) {
  const page = pageRequest(query)
  if (page === undefined) return yield* invalidCursor()
  // Customers' accounts only: the platform's own are listed by `listPlatformExternal`.
  const rows = yield* ports.store.externalAccounts.list(
    { customerId: query.customerId, ownedByCustomer: true, currency: query.currency },
    page
  )
  const result: Page<ExternalAccount> = { ...rows, data: rows.data.map(answered) }
  return result
})

/** `GET /platform/external-accounts`: the platform's accounts, paged; deleted accounts hidden. */
export const listPlatformExternalAccounts = Effect.fnUntraced(function* (
  ports: AccountsPorts,
  query: ListPlatformExternalAccountsQuery
) {
  const page = pageRequest(query)
  if (page === undefined) return yield* invalidCursor()
  const rows = yield* ports.store.externalAccounts.list({ ownedByCustomer: false, currency: query.currency }, page)
  const result: Page<ExternalAccount> = { ...rows, data: rows.data.map(answered) }
  return result
})

/** The account, not deleted, of `owner`'s side: a customer route 404s on the platform's and vice versa. */
export const getExternalAccount = Effect.fnUntraced(function* (ports: AccountsPorts, owner: AccountOwner, id: string) {
  const account = yield* ports.store.externalAccounts.get(id)
  if (account === undefined || account.status === "INACTIVE" || !heldBy(account, owner)) {
    return yield* externalAccountNotFound(id)
  }
  return answered(account)
})

/**
 * `DELETE` of an external account of `owner`'s side (204): status `INACTIVE`, hidden from lists; 409
 * `BENEFICIARY_TRUSTED` while the account is a trusted beneficiary (AC-22, AC-23).
 */
export const deleteExternalAccount = Effect.fnUntraced(function* (
  ports: AccountsPorts,
  owner: AccountOwner,
  id: string
) {
  const { store } = ports
  yield* store.transaction(
    Effect.gen(function* () {
      const account = yield* store.externalAccounts.getForUpdate(id)
      if (
        account === undefined ||
        !heldBy(account, owner) ||
        !allows(externalAccountMachine, account.status, "DELETE")
      ) {
        return yield* externalAccountNotFound(id)
      }
      // The trust confirms lock the account row too, so a trust cannot land between this read and the delete.
      if ((yield* store.trustedBeneficiaries.get(id))?.status === "TRUSTED") {
        return yield* beneficiaryTrusted(id)
      }
      const now = yield* nowIso
      yield* Effect.orDie(
        store.externalAccounts.update({
          ...account,
          status: "INACTIVE",
          defaultUmaDepositAccount: false,
          updatedAt: now
        })
      )
    })
  )
})
