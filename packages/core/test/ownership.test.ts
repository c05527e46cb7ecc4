import { ed25519 } from "@noble/curves/ed25519.js"
import { secp256k1 } from "@noble/curves/secp256k1.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { utf8ToBytes } from "@noble/hashes/utils.js"
import { base58, createBase58check } from "@scure/base"
import { describe, expect, it } from "vitest"
import type { AccountInfo, ExternalAccount } from "../src/accounts/model.ts"
import { initialExternalStatus, ownershipRefusal } from "../src/accounts/ownership-rules.ts"
import { verifyWalletSignature } from "../src/accounts/wallet-signatures.ts"
import { defaultEngineSettings } from "../src/shared/engine-config.ts"
import { sparkAddressOf, sparkIdentityKey } from "../src/shared/spark-address.ts"

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

// bitcoinjs-message's documented example (Bitcoin Core's `signmessage` format): the key of WIF
// 5KYZdUEo39z3FPrtuX2QbbwGnNP5zTd7yyr2SC1j299sBCnWjss (address 1HZwkjkeaoZfTSaJxDw6aKkxp45agDiEzN) signed this message;
// header 27 (`G…`) is its uncompressed-P2PKH form, 31 (`H…`) the compressed one, both over the same r ‖ s.
const BITCOIN_WIF = "5KYZdUEo39z3FPrtuX2QbbwGnNP5zTd7yyr2SC1j299sBCnWjss"
const BITCOIN_MESSAGE = "This is an example of a signed message."
const BITCOIN_RS = "9L5yLFjti0QTHhPyFrZCT1V/MMnBtXKmoiKDZ78NDBjERki6ZTQZdSMCtkgoNmp17By9ItJr8o7ChX0XxY91nk="
/** The example's signature with another header byte (27 `G`, 31 `H`, 35 `L`, 39 `P`, 43 `r`). */
const withHeader = (header: number) => {
  const bytes = Uint8Array.from(atob(`G${BITCOIN_RS}`), (c) => c.charCodeAt(0))
  bytes[0] = header
  return btoa(String.fromCharCode(...bytes))
}
const bitcoinKey = createBase58check(sha256).decode(BITCOIN_WIF).subarray(1, 33)
const spark = (address: string) => ({ accountType: "SPARK_WALLET", address }) as const

describe("Bitcoin message signatures of Spark wallets (AC-27, BIP-137)", () => {
  const wallet = spark(sparkAddressOf(secp256k1.getPublicKey(bitcoinKey, true)))

  it("AC-27: a Spark address is bech32m over its identity key; anything else is not one", () => {
    const key = secp256k1.getPublicKey(bitcoinKey, true)
    expect(wallet.address).toMatch(/^spark1pgss/)
    expect(sparkIdentityKey(wallet.address)).toEqual(key)
    expect(sparkIdentityKey(sparkAddressOf(key, "sprt"))).toEqual(key)
    // The upstream's example address has a bad checksum; an unknown prefix, a bech32 (not -m) checksum, no key.
    expect(sparkIdentityKey("spark1pgssyuuuhnrrdjswal5c3s3rafw9w3y5dd4cjy3duxlf7hjzkp0rqx6dj6mrhu")).toBeUndefined()
    expect(sparkIdentityKey(sparkAddressOf(key, "bc"))).toBeUndefined()
    expect(sparkIdentityKey(wallet.address.toUpperCase())).toEqual(key)
    expect(sparkIdentityKey(`${wallet.address.slice(0, -1)}q`)).toBeUndefined()
    expect(sparkIdentityKey(sparkAddressOf(new Uint8Array(33).fill(5)))).toBeUndefined()
  })

  it("AC-27: BIP-137: bitcoinjs-message's example verifies under every header of its key (27, 31, 35, 39); another message or key does not", () => {
    for (const header of [27, 31, 35, 39]) {
      expect(verifyWalletSignature(wallet, BITCOIN_MESSAGE, withHeader(header))).toBe(true)
      expect(verifyWalletSignature(wallet, BITCOIN_MESSAGE, withHeader(header), "bip137")).toBe(true)
    }
    expect(verifyWalletSignature(wallet, `${BITCOIN_MESSAGE}!`, withHeader(31))).toBe(false)
    const other = spark(sparkAddressOf(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)))
    expect(verifyWalletSignature(other, BITCOIN_MESSAGE, withHeader(31))).toBe(false)
  })

  it("AC-27: electrum: headers 27–34 only (Electrum and Sparrow sign segwit addresses with them too)", () => {
    expect(verifyWalletSignature(wallet, BITCOIN_MESSAGE, withHeader(31), "electrum")).toBe(true)
    expect(verifyWalletSignature(wallet, BITCOIN_MESSAGE, withHeader(27), "electrum")).toBe(true)
    expect(verifyWalletSignature(wallet, BITCOIN_MESSAGE, withHeader(35), "electrum")).toBe(false)
    expect(verifyWalletSignature(wallet, BITCOIN_MESSAGE, withHeader(39), "electrum")).toBe(false)
  })

  it("AC-30: malformed Bitcoin signatures are false, never a throw", () => {
    for (const signature of ["", "G", withHeader(26), withHeader(43), btoa("x".repeat(65)), `${withHeader(31)}=`]) {
      expect(verifyWalletSignature(wallet, BITCOIN_MESSAGE, signature)).toBe(false)
    }
    // r = 0 is no signature.
    expect(verifyWalletSignature(wallet, BITCOIN_MESSAGE, btoa(String.fromCharCode(31, ...new Uint8Array(64))))).toBe(
      false
    )
    expect(verifyWalletSignature(spark("spark1"), BITCOIN_MESSAGE, withHeader(31))).toBe(false)
  })
})

describe("the Travel Rule's rules (AC-24, AC-25)", () => {
  const wallet: AccountInfo = { accountType: "POLYGON_WALLET", address: WEB3_ADDRESS }
  const iban: AccountInfo = {
    accountType: "IBAN",
    iban: "DE89370400440532013000",
    beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace", countryOfResidence: "GB" }
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
