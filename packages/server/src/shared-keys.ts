/**
 * The keys every instance on one database must share (issue 33): the webhook signing key (receivers verify every
 * delivery with one public key, whichever instance sent it) and the wallet KEK (each wallet's mnemonic and the
 * bundle-signing key are derived from it: two KEKs would give one wallet two mnemonics).
 *
 * - Given by the environment (`PAYCORE_WEBHOOK_PRIVATE_KEY`, `PAYCORE_WALLET_KEK`): used as they are.
 * - Else, on a PostgreSQL server (`DATABASE_URL`), where other instances may run and there is no data folder: kept
 *   in the database, sealed (AES-256-GCM, the key derived from `PAYCORE_MASTER_KEY` by HKDF-SHA256, the key's name
 *   as associated data). The first instance generates them; `INSERT … ON CONFLICT DO NOTHING` then a read back
 *   make every instance use the first one's. Without a master key the instance refuses to start, naming the
 *   variables: one generated per instance would sign with keys the receivers do not know.
 * - Else, on PGlite: generated once and kept in the data folder (one process per folder); on the memory store:
 *   generated per start, lasting as its data does.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto"
import { keepInstanceKeys } from "@paycore/store-postgres"
import { Data, Effect, Option, Redacted } from "effect"
import type { Kysely } from "kysely"
import { keptInDataDir } from "./store.ts"

/** A key instances share: its row in `instance_keys` and the variable that gives it instead. */
interface SharedKey {
  readonly name: string
  readonly variable: string
}

const WEBHOOK_KEY: SharedKey = { name: "webhook-private-key", variable: "PAYCORE_WEBHOOK_PRIVATE_KEY" }
const WALLET_KEK: SharedKey = { name: "wallet-kek", variable: "PAYCORE_WALLET_KEK" }
const MASTER_KEY = "PAYCORE_MASTER_KEY"

/** An instance on a shared database that cannot have the keys the others use: it must not start. */
export class SharedKeysRefused extends Data.TaggedError("SharedKeysRefused")<{
  /** The variables not set. */
  readonly missing: ReadonlyArray<string>
  readonly reason: "no master key" | "master key malformed" | "master key does not open them"
}> {
  override get message() {
    const missing = this.missing.join(" and ")
    if (this.reason === "master key malformed") return `${MASTER_KEY} must be 64 hex characters (32 bytes).`
    if (this.reason === "master key does not open them") {
      return (
        `${MASTER_KEY} does not open the keys kept in the database (instance_keys) for ${missing}: start with ` +
        `the master key the first instance used, or set ${missing}.`
      )
    }
    return (
      `On a PostgreSQL server (DATABASE_URL) every instance must sign webhooks and derive wallet secrets with ` +
      `the same keys: set ${missing} (64 hex each, the same on every instance), or ${MASTER_KEY} (64 hex) to ` +
      `keep generated ones sealed in the database.`
    )
  }
}

const sealingKey = (master: Uint8Array): Uint8Array =>
  new Uint8Array(hkdfSync("sha256", master, new Uint8Array(0), "paycore/instance-keys", 32))

/** `v1.` and the base64url of a 12-byte IV, the AES-256-GCM ciphertext of `value` and its tag; `name` is bound. */
export const sealInstanceKey = (master: Uint8Array, name: string, value: string): string => {
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", sealingKey(master), iv)
  cipher.setAAD(Buffer.from(name, "utf8"))
  const sealed = Buffer.concat([cipher.update(value, "utf8"), cipher.final()])
  return `v1.${Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString("base64url")}`
}

/** The value `sealInstanceKey` sealed under `name`, or `undefined` when `master` does not open it. */
export const openInstanceKey = (master: Uint8Array, name: string, sealed: string): string | undefined => {
  if (!sealed.startsWith("v1.")) return undefined
  const bytes = Buffer.from(sealed.slice(3), "base64url")
  if (bytes.length < 28) return undefined
  try {
    const decipher = createDecipheriv("aes-256-gcm", sealingKey(master), bytes.subarray(0, 12))
    decipher.setAAD(Buffer.from(name, "utf8"))
    decipher.setAuthTag(bytes.subarray(bytes.length - 16))
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString("utf8")
  } catch {
    return undefined
  }
}

/** Where the store is, as far as the keys care: a shared server (with its database), a data folder, or neither. */
export interface KeysStore {
  /** A PostgreSQL server other instances may share: the keys are kept there. */
  readonly shared: (() => Kysely<any>) | undefined
  readonly dataDir: string | undefined
}

/** The keys a configured instance runs with (64 hex each). */
export interface InstanceKeys {
  readonly webhookPrivateKey: string
  readonly walletKek: string
}

const generated = () => randomBytes(32).toString("hex")

/**
 * The webhook signing key and the wallet KEK this instance runs with: the environment's, else those kept in the
 * shared database (generated by the first instance), else the data folder's (see the module's comment).
 */
export const instanceKeys = Effect.fnUntraced(function* (
  store: KeysStore,
  configured: {
    readonly webhookPrivateKey: Option.Option<Redacted.Redacted<string>>
    readonly walletKek: Option.Option<Redacted.Redacted<string>>
    readonly masterKey: Option.Option<Redacted.Redacted<string>>
  }
) {
  const given = (option: Option.Option<Redacted.Redacted<string>>) =>
    Option.isSome(option) ? Redacted.value(option.value) : undefined
  let webhookPrivateKey = given(configured.webhookPrivateKey)
  let walletKek = given(configured.walletKek)
  const missing = [
    ...(webhookPrivateKey === undefined ? [WEBHOOK_KEY] : []),
    ...(walletKek === undefined ? [WALLET_KEK] : [])
  ]
  if (store.shared !== undefined && missing.length > 0) {
    const variables = missing.map((key) => key.variable)
    const masterHex = given(configured.masterKey)
    if (masterHex === undefined) return yield* new SharedKeysRefused({ missing: variables, reason: "no master key" })
    if (!/^[0-9a-fA-F]{64}$/.test(masterHex)) {
      return yield* new SharedKeysRefused({ missing: variables, reason: "master key malformed" })
    }
    const master = Buffer.from(masterHex, "hex")
    const offered = missing.map((key) => ({ name: key.name, sealed: sealInstanceKey(master, key.name, generated()) }))
    const open = store.shared
    const kept = yield* Effect.acquireUseRelease(
      Effect.sync(open),
      (db) => Effect.promise(() => keepInstanceKeys(db, offered, new Date().toISOString())),
      (db) => Effect.promise(() => db.destroy())
    )
    const opened = missing.map((key) => openInstanceKey(master, key.name, kept.get(key.name)!))
    if (opened.some((value) => value === undefined)) {
      return yield* new SharedKeysRefused({
        missing: missing.filter((_, i) => opened[i] === undefined).map((key) => key.variable),
        reason: "master key does not open them"
      })
    }
    missing.forEach((key, i) => {
      if (key === WEBHOOK_KEY) webhookPrivateKey = opened[i]
      else walletKek = opened[i]
    })
  }
  return {
    webhookPrivateKey: webhookPrivateKey ?? keptInDataDir(store.dataDir, WEBHOOK_KEY.name, generated),
    walletKek: walletKek ?? keptInDataDir(store.dataDir, WALLET_KEK.name, generated)
  } satisfies InstanceKeys
})
