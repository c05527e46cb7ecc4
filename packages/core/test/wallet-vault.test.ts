/**
 * The in-process WalletVault (ports/wallet-vault.ts, W-33): the mnemonic it seals is the documented derivation
 * (checked with node:crypto's HMAC), opened with the client kit; the testkit's deferred vault (W-39).
 */
import { createHmac } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { DEFERRED_VAULT_MESSAGE, deferredVault } from "@paycore/testkit"
import * as kit from "@paycore/testkit/wallet-client"
import { entropyToMnemonic, validateMnemonic } from "@scure/bip39"
import { wordlist } from "@scure/bip39/wordlists/english.js"
import { Effect } from "effect"
import { WalletVault, type WalletVaultService, walletVaultFromKey } from "../src/ports/wallet-vault.ts"

const ACCOUNT = "InternalAccount:019542f5-b3e7-7d02-8000-000000000002"
const OTHER = "InternalAccount:019542f5-b3e7-7d02-8000-000000000003"
const kek = Uint8Array.from({ length: 32 }, (_, i) => i + 1)

/** Exports `accountId` to a fresh client key; the envelope and what it opens to. */
const exported = async (vault: WalletVaultService, accountId: string) => {
  const client = kit.sessionKey({ legacy: true })
  const sealed = await Effect.runPromise(vault.exportWallet(accountId, client.publicKey))
  if (typeof sealed !== "string") throw new Error(`pending: ${sealed.message}`)
  return { sealed, mnemonic: await kit.openWalletCredentials(sealed, client.privateKey) }
}

describe("walletVaultFromKey", () => {
  it("W-33: seals the mnemonic of HMAC-SHA256(KEK, 'paycore-wallet-seed:' + accountId), first 16 bytes: 12 words", async () => {
    const { mnemonic } = await exported(walletVaultFromKey(kek), ACCOUNT)
    const entropy = createHmac("sha256", kek).update(`paycore-wallet-seed:${ACCOUNT}`).digest().subarray(0, 16)
    expect(mnemonic).toBe(entropyToMnemonic(entropy, wordlist))
    expect(mnemonic.split(" ")).toHaveLength(12)
    expect(validateMnemonic(mnemonic, wordlist)).toBe(true)
  })

  it("W-33, W-41: the same wallet and key give the same mnemonic, sealed afresh each time; another wallet or key another", async () => {
    const vault = walletVaultFromKey(kek)
    const first = await exported(vault, ACCOUNT)
    const second = await exported(vault, ACCOUNT)
    expect(second.mnemonic).toBe(first.mnemonic)
    expect(second.sealed).not.toBe(first.sealed)
    expect((await exported(vault, OTHER)).mnemonic).not.toBe(first.mnemonic)
    const otherKey = walletVaultFromKey(Uint8Array.from({ length: 32 }, (_, i) => 32 - i))
    expect((await exported(otherKey, ACCOUNT)).mnemonic).not.toBe(first.mnemonic)
  })

  it("refuses a key-encryption key that is not 32 bytes", () => {
    expect(() => walletVaultFromKey(new Uint8Array(31))).toThrow(/32 bytes/)
  })

  it("the default vault (no WalletVault provided) keeps one key for the process", async () => {
    const current = Effect.gen(function* () {
      return yield* WalletVault
    })
    const vault = Effect.runSync(current)
    expect(Effect.runSync(current)).toBe(vault)
    const { mnemonic } = await exported(vault, ACCOUNT)
    expect((await exported(vault, ACCOUNT)).mnemonic).toBe(mnemonic)
  })
})

describe("deferredVault (testkit)", () => {
  it("W-39: answers Pending as many times as armed, then as the inner vault does", async () => {
    const inner = walletVaultFromKey(kek)
    const vault = deferredVault(2, inner)
    const client = kit.sessionKey({ legacy: true })
    const ask = () => Effect.runPromise(vault.exportWallet(ACCOUNT, client.publicKey))
    expect(await ask()).toEqual({ _tag: "Pending", message: DEFERRED_VAULT_MESSAGE })
    expect(vault.remaining()).toBe(1)
    expect(await ask()).toEqual({ _tag: "Pending", message: DEFERRED_VAULT_MESSAGE })
    const sealed = await ask()
    expect(typeof sealed).toBe("string")
    expect(await kit.openWalletCredentials(sealed as string, client.privateKey)).toBe(
      (await exported(inner, ACCOUNT)).mnemonic
    )
    vault.defer(1)
    expect(await ask()).toMatchObject({ _tag: "Pending" })
    expect(typeof (await ask())).toBe("string")
  })
})
