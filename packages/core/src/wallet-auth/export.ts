import { Clock, Effect } from "effect"
import type { Environment } from "../platform/model.ts"
import { bundleSignerOf } from "../ports/bundle-signer.ts"
import { WalletVault } from "../ports/wallet-vault.ts"
import { signEnvelope } from "../shared/hpke.ts"
import { isoOf } from "../shared/time.ts"
import { walletAccount } from "./credentials.ts"
import { accountNotFound } from "./errors.ts"
import type {
  InternalAccountExportRequest,
  InternalAccountExportResponse,
  InternalAccountUpdateRequest,
  SignedRetryInput
} from "./model.ts"
import type { WalletAuthPorts } from "./ports.ts"
import { Pending, refuseSpentRequest, type SignerRule, signedRetry } from "./signed-retry.ts"

/** Export and privacy are stamped by any live session of the wallet (W-33, W-34). */
const ANY_SESSION: SignerRule = { kind: "ANY_SESSION" }

/**
 * Neither action changes a credential: the first leg binds the empty set, so no credential added or revoked
 * meanwhile refuses the retry (the session that stamps it must still be live: `allowedSigner`).
 */
const NO_CREDENTIALS = Effect.succeed([])

/** The path parameter the two routes name the account with (a 400 names it). */
const ACCOUNT_FIELD = "path.accountId"

// The wallet-account use cases of `WalletAuth`, over its ports: export (W-33, W-39 … W-41) and privacy (W-34, AC-01).

/**
 * W-33: the wallet's mnemonic sealed to the request's `clientPublicKey`, by a signed retry whose body binds that
 * key (another key on the retry is `WALLET_SIGNATURE_BODY_MISMATCH`). The answer is never stored (W-41): while
 * the vault answers `Pending` the retry is 200 `PROCESSING` and the identical resend asks the vault again, which
 * seals afresh; once answered, the `requestId` is used and a lapsed or used one means a new export.
 */
export const exportWallet = Effect.fnUntraced(function* (
  ports: WalletAuthPorts,
  accountId: string,
  req: InternalAccountExportRequest,
  input: SignedRetryInput,
  environment: Environment
) {
  const { provide } = ports
  const signer = yield* bundleSignerOf(environment)
  yield* provide(refuseSpentRequest({ operation: "EXPORT_WALLET", accountId, subjectId: accountId }, input))
  const account = yield* provide(walletAccount(accountId, ACCOUNT_FIELD))
  return yield* provide(
    signedRetry(
      {
        operation: "EXPORT_WALLET",
        accountId: account.id,
        subjectId: account.id,
        begin: Effect.succeed({ signer: ANY_SESSION, parameters: { clientPublicKey: req.clientPublicKey } }),
        credentialSet: NO_CREDENTIALS,
        // A read of the vault (a reference, read where the request runs): a rerun of the transaction only seals
        // again.
        apply: () =>
          Effect.gen(function* () {
            const vault = yield* WalletVault
            const sealed = yield* vault.exportWallet(account.id, req.clientPublicKey)
            const answer: InternalAccountExportResponse | Pending =
              typeof sealed === "string"
                ? {
                    id: account.id,
                    // Outside the sandbox the vault's envelope is signed (a vault that signs keeps its signature).
                    encryptedWalletCredentials: signer === undefined ? sealed : signEnvelope(sealed, signer)
                  }
                : new Pending(sealed.message)
            return answer
          })
      },
      input
    )
  )
})

/** W-34, AC-01: turns the wallet's privacy on or off by a signed retry; 200 the internal account. */
export const updateInternalAccount = Effect.fnUntraced(function* (
  ports: WalletAuthPorts,
  accountId: string,
  req: InternalAccountUpdateRequest,
  input: SignedRetryInput
) {
  const { store, accounts, provide } = ports
  yield* provide(refuseSpentRequest({ operation: "UPDATE_PRIVACY", accountId, subjectId: accountId }, input))
  const account = yield* provide(walletAccount(accountId, ACCOUNT_FIELD))
  const result = yield* provide(
    signedRetry(
      {
        operation: "UPDATE_PRIVACY",
        accountId: account.id,
        subjectId: account.id,
        begin: Effect.succeed({
          signer: ANY_SESSION,
          parameters: { privateEnabled: String(req.privateEnabled) }
        }),
        credentialSet: NO_CREDENTIALS,
        apply: () =>
          Effect.gen(function* () {
            const current = yield* store.internalAccounts.getForUpdate(account.id)
            if (current === undefined) return yield* accountNotFound(account.id)
            const updatedAt = isoOf(yield* Clock.currentTimeMillis)
            yield* Effect.orDie(
              store.internalAccounts.update({ ...current, privateEnabled: req.privateEnabled, updatedAt })
            )
            return { updated: current.id }
          })
      },
      input
    )
  )
  if (!("updated" in result)) return result
  // Read after the commit, with its balances, as `GET` lists it.
  return yield* accounts.getInternal(result.updated)
})
