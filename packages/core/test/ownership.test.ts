import { ed25519 } from "@noble/curves/ed25519.js"
import { utf8ToBytes } from "@noble/hashes/utils.js"
import { base58 } from "@scure/base"
import { describe, expect, it } from "vitest"
import type { AccountInfo, ExternalAccount } from "../src/accounts/model.ts"
import { initialExternalStatus, ownershipRefusal } from "../src/accounts/ownership-rules.ts"
import { verifyWalletSignature } from "../src/accounts/wallet-signatures.ts"
import { defaultEngineSettings } from "../src/shared/engine-config.ts"

const rule = defaultEngineSettings.travelRule

// web3.js's documented `web3.eth.accounts.sign("Some data", key)` example: an EIP-191 signature made by another
// implementation, so the check is not only against this repository's own signing helper.
const WEB3_ADDRESS = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
const WEB3_SIGNATURE =
  "0xb91467e570a6466aa9e9876cbcd013baba02900b8979d43fe208a4a4f339f5fd6007e74cd82e037b800186422fc2da167c747ef045e5d18a5f5d4300f8e1a0291c"

const evm = (address: string) => ({ accountType: "ETHEREUM_WALLET", address }) as const

describe("wallet signatures (AC-27, FEATURES: ownership-verification signatures)", () => {
  it("AC-27: EIP-191 personal_sign: web3.js's example verifies, in any address case; another message or address does not", () => {
    expect(verifyWalletSignature(evm(WEB3_ADDRESS), "Some data", WEB3_SIGNATURE)).toBe(true)
    expect(verifyWalletSignature(evm(WEB3_ADDRESS.toLowerCase()), "Some data", WEB3_SIGNATURE)).toBe(true)
    expect(verifyWalletSignature(evm(WEB3_ADDRESS), "Some data", WEB3_SIGNATURE.slice(2))).toBe(true)
    expect(
      verifyWalletSignature({ ...evm(WEB3_ADDRESS), accountType: "BASE_WALLET" }, "Some data", WEB3_SIGNATURE)
    ).toBe(true)
    expect(verifyWalletSignature(evm(WEB3_ADDRESS), "Some datA", WEB3_SIGNATURE)).toBe(false)
    expect(verifyWalletSignature(evm(`0x${"11".repeat(20)}`), "Some data", WEB3_SIGNATURE)).toBe(false)
    // The same signature under TRON's prefix recovers another key.
    expect(
      verifyWalletSignature(
        { accountType: "TRON_WALLET", address: "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW" },
        "Some data",
        WEB3_SIGNATURE
      )
    ).toBe(false)
  })

  it("AC-27: Solana: a base58 Ed25519 signature by the address's key over the UTF-8 message", () => {
    const { secretKey, publicKey } = ed25519.keygen()
    const wallet = { accountType: "SOLANA_WALLET", address: base58.encode(publicKey) } as const
    const message = "paycore ✓ ownership"
    const signature = base58.encode(ed25519.sign(utf8ToBytes(message), secretKey))
    expect(verifyWalletSignature(wallet, message, signature)).toBe(true)
    expect(verifyWalletSignature(wallet, `${message}.`, signature)).toBe(false)
    const other = base58.encode(ed25519.keygen().publicKey)
    expect(verifyWalletSignature({ ...wallet, address: other }, message, signature)).toBe(false)
  })

  it("AC-30: malformed signatures and addresses are false, never a throw", () => {
    const solana = { accountType: "SOLANA_WALLET", address: "So1ana11111111111111111111111111111111111" } as const
    for (const signature of [
      "",
      "0x",
      "0x12",
      `0x${"zz".repeat(65)}`,
      `0x${"00".repeat(65)}`,
      `0x${"ff".repeat(64)}1d`
    ]) {
      expect(verifyWalletSignature(evm(WEB3_ADDRESS), "m", signature)).toBe(false)
      expect(verifyWalletSignature({ accountType: "TRON_WALLET", address: "T" }, "m", signature)).toBe(false)
      expect(verifyWalletSignature(solana, "m", signature)).toBe(false)
    }
    expect(verifyWalletSignature(solana, "m", "0OIl")).toBe(false)
    expect(verifyWalletSignature(solana, "m", base58.encode(new Uint8Array(64)))).toBe(false)
  })
})

describe("the Travel Rule's rules (AC-24, AC-25)", () => {
  const wallet: AccountInfo = { accountType: "POLYGON_WALLET", address: WEB3_ADDRESS }
  const iban: AccountInfo = {
    accountType: "IBAN",
    iban: "DE89370400440532013000",
    beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace" }
  }

  it("AC-25: only a FIRST_PARTY self-custody wallet of a customer in a Travel Rule region starts pending", () => {
    expect(initialExternalStatus(wallet, "FIRST_PARTY", "DE", rule)).toBe("PENDING_OWNERSHIP_VERIFICATION")
    expect(initialExternalStatus(wallet, "FIRST_PARTY", "NO", rule)).toBe("PENDING_OWNERSHIP_VERIFICATION")
    expect(initialExternalStatus(wallet, "THIRD_PARTY", "DE", rule)).toBe("ACTIVE")
    expect(initialExternalStatus(wallet, "FIRST_PARTY", "US", rule)).toBe("ACTIVE")
    expect(initialExternalStatus(wallet, "FIRST_PARTY", undefined, rule)).toBe("ACTIVE")
    expect(initialExternalStatus(iban, "FIRST_PARTY", "DE", rule)).toBe("ACTIVE")
    expect(initialExternalStatus({ accountType: "LIGHTNING", invoice: "lnbc1" }, "FIRST_PARTY", "DE", rule)).toBe(
      "ACTIVE"
    )
    expect(initialExternalStatus(wallet, "FIRST_PARTY", "DE", { ...rule, regions: [] })).toBe("ACTIVE")
  })

  it("AC-24: a pending account is refused from the threshold on, in its currency; other statuses and currencies are not", () => {
    const account = { id: "ExternalAccount:x", status: "PENDING_OWNERSHIP_VERIFICATION" } as ExternalAccount
    expect(ownershipRefusal(account, 999_999_999, "USDC", rule)).toBeUndefined()
    expect(ownershipRefusal(account, 1_000_000_000, "USDC", rule)?.code).toBe("EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED")
    expect(ownershipRefusal(account, 1_000_000_000, "USDT", rule)?.code).toBe("EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED")
    expect(ownershipRefusal(account, 10 ** 15, "BTC", rule)).toBeUndefined()
    expect(ownershipRefusal({ ...account, status: "ACTIVE" }, 10 ** 12, "USDC", rule)).toBeUndefined()
    expect(ownershipRefusal(account, 5, "USDC", { ...rule, thresholds: { USDC: 5 } })?.details).toEqual({
      status: "PENDING_OWNERSHIP_VERIFICATION",
      amount: 5,
      currency: "USDC",
      threshold: 5
    })
  })
})
