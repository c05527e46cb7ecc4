import { p256 } from "@noble/curves/nist.js"
import { hmac } from "@noble/hashes/hmac.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js"
import {
  Clock,
  Config,
  Context,
  Duration,
  Effect,
  Layer,
  Option,
  Random,
  Redacted,
  Schedule,
  type Stream
} from "effect"
import { Ids } from "../ports/ids.ts"
import { type NewOutboxRecord, type OutboxFilter, Store } from "../ports/store.ts"
import { type TransportResponse, WebhookTransport } from "../ports/webhook-transport.ts"
import { constantTimeEqual } from "../shared/constant-time.ts"
import { EngineConfig, type EngineSettings } from "../shared/engine-config.ts"
import type { Conflict, NotFound, Refused, StoreError } from "../shared/errors.ts"
import type { WebhookId } from "../shared/ids.ts"
import type { Page, PageRequest } from "../shared/paging.ts"
import { addSeconds, nowIso } from "../shared/time.ts"
import { webhookDeliveryError, webhookEndpointNotSet, webhookNotDead, webhookNotFound } from "./errors.ts"
import { type FollowOptions, followOutbox } from "./follow.ts"
import {
  type DeliveryAttempt,
  type OutboxRecord,
  WebhookReplies,
  type WebhookReply,
  type WebhookSecretInfo,
  type WebhookSecretRecord
} from "./model.ts"

/**
 * The outbox row of a new event; the store numbers it. `body` is the exact JSON `{id, type, timestamp, data}`,
 * serialized on first read and then kept: a store that persists bytes reads it at once, the memory store only
 * when the event is delivered (records are immutable, so `data` cannot change in between). A class, its getter
 * on the prototype: cheaper to make than a literal with a getter, but a spread would leave `body` behind, so a
 * store copies its fields by name.
 */
class NewEvent implements NewOutboxRecord {
  readonly id: WebhookId
  readonly type: string
  readonly subject: string
  readonly createdAt: string
  readonly status = "PENDING" as const
  readonly attempts: ReadonlyArray<DeliveryAttempt> = []
  readonly nextAttemptAt: string
  readonly #data: unknown
  #body: string | undefined = undefined

  constructor(id: WebhookId, type: string, subject: string, timestamp: string, data: unknown) {
    this.id = id
    this.type = type
    this.subject = subject
    this.createdAt = timestamp
    this.nextAttemptAt = timestamp
    this.#data = data
  }

  get body(): string {
    if (this.#body === undefined) {
      this.#body = JSON.stringify({ id: this.id, type: this.type, timestamp: this.createdAt, data: this.#data })
    }
    return this.#body
  }
}

/** A new event's outbox row (see `NewEvent`). */
export const newEvent = (
  id: WebhookId,
  type: string,
  subject: string,
  timestamp: string,
  data: unknown
): NewOutboxRecord => new NewEvent(id, type, subject, timestamp, data)

/**
 * `emit` for the events of one change, as a plain generator over ports the caller already holds:
 * `yield*` it inside an `Effect.gen` (inside the change's store transaction) and it costs one id per
 * event and one store call, with the command's timestamp.
 */
export function* emitSteps(
  store: Pick<Store["Service"], "outbox">,
  ids: Ids["Service"],
  types: ReadonlyArray<string>,
  subject: string,
  data: unknown,
  timestamp: string
): Generator<Effect.Effect<unknown, StoreError>, void, any> {
  if (types.length === 0) return
  const events: Array<NewOutboxRecord> = []
  for (const type of types) events.push(newEvent(yield* ids.make("Webhook"), type, subject, timestamp, data))
  yield* store.outbox.appendEvents(events)
}

/**
 * Writes a domain event into the outbox. Call it inside the `Store.transaction` of the change
 * it reports, so the event commits with the change or not at all. `subject` is the resource
 * the event is about; events of one subject get increasing sequence numbers.
 */
export const emit = Effect.fnUntraced(function* (type: string, subject: string, data: unknown) {
  const store = yield* Store
  const ids = yield* Ids
  const timestamp = yield* nowIso
  yield* emitSteps(store, ids, [type], subject, data, timestamp)
})

// =============================================================================
// Signing: ECDSA P-256 / SHA-256 (pure; no node modules, so it runs anywhere)
// =============================================================================

/** The upstream-style signature header: base64 DER ECDSA P-256/SHA-256 over the exact raw body. */
export const SIGNATURE_HEADER = "X-Service-Signature"

/** DER SubjectPublicKeyInfo header of an uncompressed P-256 key (id-ecPublicKey, prime256v1, BIT STRING of 66 bytes). */
const SPKI_P256_PREFIX = hexToBytes("3059301306072a8648ce3d020106082a8648ce3d030107034200")

const toBase64 = (bytes: Uint8Array): string => {
  let binary = ""
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]!)
  return btoa(binary)
}

const fromBase64 = (text: string): Uint8Array | undefined => {
  try {
    const binary = atob(text.trim())
    const out = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
    return out
  } catch {
    return undefined
  }
}

/** PEM (SPKI, `-----BEGIN PUBLIC KEY-----`) of an uncompressed 65-byte P-256 point. */
export const publicKeyToPem = (uncompressedPoint: Uint8Array): string => {
  const der = new Uint8Array(SPKI_P256_PREFIX.length + uncompressedPoint.length)
  der.set(SPKI_P256_PREFIX, 0)
  der.set(uncompressedPoint, SPKI_P256_PREFIX.length)
  const lines = toBase64(der).match(/.{1,64}/g) ?? []
  return `-----BEGIN PUBLIC KEY-----\n${lines.join("\n")}\n-----END PUBLIC KEY-----\n`
}

/** The 65-byte uncompressed point of a P-256 SPKI PEM, or `undefined` when it is not one. */
export const publicKeyFromPem = (pem: string): Uint8Array | undefined => {
  const der = fromBase64(pem.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, ""))
  if (der === undefined || der.length !== SPKI_P256_PREFIX.length + 65) return undefined
  for (let i = 0; i < SPKI_P256_PREFIX.length; i++) if (der[i] !== SPKI_P256_PREFIX[i]) return undefined
  const point = der.slice(SPKI_P256_PREFIX.length)
  return p256.utils.isValidPublicKey(point, false) ? point : undefined
}

/** The engine's webhook signing key pair. */
export interface WebhookKeys {
  /** SPKI PEM of the public key: publish it to the platform, which verifies deliveries with it. */
  readonly publicKeyPem: string
  /** The private key as 64 hex chars, to persist a generated key (`PAYCORE_WEBHOOK_PRIVATE_KEY`). */
  readonly privateKeyHex: Redacted.Redacted<string>
  /** Base64 of the DER ECDSA P-256 signature over SHA-256 of `message` (UTF-8). */
  readonly sign: (message: string) => string
}

const PRIVATE_KEY_HEX = /^[0-9a-fA-F]{64}$/

export const makeWebhookKeys = (secretKey: Uint8Array): WebhookKeys => {
  if (!p256.utils.isValidSecretKey(secretKey)) throw new Error("Not a valid P-256 private key")
  const key = Uint8Array.from(secretKey)
  const hex = Array.from(key, (b) => b.toString(16).padStart(2, "0")).join("")
  return {
    publicKeyPem: publicKeyToPem(p256.getPublicKey(key, false)),
    privateKeyHex: Redacted.make(hex, { label: "PAYCORE_WEBHOOK_PRIVATE_KEY" }),
    sign: (message) => toBase64(p256.sign(utf8ToBytes(message), key, { format: "der" }))
  }
}

/** A fresh random key pair (`crypto.getRandomValues`). */
export const generateWebhookKeys = (): WebhookKeys => makeWebhookKeys(p256.utils.randomSecretKey())

/** Loads a key pair from a 32-byte private key in hex; throws on anything else (a startup configuration error). */
export const webhookKeysFromHex = (privateKeyHex: string): WebhookKeys => {
  const hex = privateKeyHex.trim()
  if (!PRIVATE_KEY_HEX.test(hex)) {
    throw new Error("PAYCORE_WEBHOOK_PRIVATE_KEY must be 64 hex characters (a 32-byte P-256 private key)")
  }
  return makeWebhookKeys(hexToBytes(hex.toLowerCase()))
}

/** The signing keys the dispatcher uses. */
export class WebhookSigner extends Context.Service<WebhookSigner, WebhookKeys>()("paycore/webhooks/WebhookSigner") {
  /** A key pair generated at startup: receivers must be given the new PEM after every restart. */
  static readonly layerGenerated: Layer.Layer<WebhookSigner> = Layer.sync(WebhookSigner, generateWebhookKeys)

  static readonly layerFromHex = (privateKeyHex: string | Redacted.Redacted<string>): Layer.Layer<WebhookSigner> =>
    Layer.sync(WebhookSigner, () =>
      webhookKeysFromHex(Redacted.isRedacted(privateKeyHex) ? Redacted.value(privateKeyHex) : privateKeyHex)
    )

  /** `PAYCORE_WEBHOOK_PRIVATE_KEY` (hex) when set, else a generated key pair; an invalid key is a defect at startup. */
  static readonly layerFromEnv: Layer.Layer<WebhookSigner, Config.ConfigError> = Layer.effect(
    WebhookSigner,
    Effect.gen(function* () {
      const configured = yield* Config.option(Config.Redacted("PAYCORE_WEBHOOK_PRIVATE_KEY"))
      return Option.isSome(configured) ? webhookKeysFromHex(Redacted.value(configured.value)) : generateWebhookKeys()
    })
  )
}

// =============================================================================
// Standard Webhooks: `v1` HMAC-SHA256 signatures with the endpoint's `whsec_` secrets
// =============================================================================

const SECRET_PREFIX = "whsec_"
/** Random bytes of a new secret (the Standard Webhooks reference libraries make 24 to 64). */
const SECRET_BYTES = 32

/** The HMAC key of a `whsec_<base64>` secret (a bare base64 one too, as the reference libraries take it). */
const secretKey = (secret: string): Uint8Array | undefined =>
  fromBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret)

const standardMac = (key: Uint8Array, id: string, timestamp: string, body: string): Uint8Array =>
  hmac(sha256, key, utf8ToBytes(`${id}.${timestamp}.${body}`))

/**
 * The `webhook-signature` value for `secrets`: `v1,<base64 HMAC-SHA256 over "<id>.<timestamp>.<body>">` for
 * each, space-separated (several during a rotation's overlap). A secret that is not base64 is a defect.
 */
export const standardSignature = (
  secrets: ReadonlyArray<string>,
  id: string,
  timestampSeconds: number,
  body: string
): string =>
  secrets
    .map((secret) => {
      const key = secretKey(secret)
      if (key === undefined) throw new Error("A webhook signing secret is not base64")
      return `v1,${toBase64(standardMac(key, id, String(timestampSeconds), body))}`
    })
    .join(" ")

/**
 * Every header of a signed delivery: `X-Service-Signature` (base64 DER P-256 signature over the raw body, the
 * upstream scheme) and the Standard Webhooks headers `webhook-id`, `webhook-timestamp` (unix seconds) and, when
 * the endpoint has signing secrets, `webhook-signature` (see `standardSignature`).
 */
export const signedHeaders = (
  keys: WebhookKeys,
  secrets: ReadonlyArray<string>,
  id: string,
  timestampSeconds: number,
  body: string
): Readonly<Record<string, string>> => ({
  "Content-Type": "application/json",
  "User-Agent": "paycore-webhooks/0.1",
  [SIGNATURE_HEADER]: keys.sign(body),
  "webhook-id": id,
  "webhook-timestamp": String(timestampSeconds),
  ...(secrets.length === 0 ? {} : { "webhook-signature": standardSignature(secrets, id, timestampSeconds, body) })
})

const verifyBytes = (publicKeyPem: string, message: string, signature: Uint8Array): boolean => {
  const publicKey = publicKeyFromPem(publicKeyPem)
  if (publicKey === undefined) return false
  const msg = utf8ToBytes(message)
  const format = signature.length === 64 ? "compact" : "der"
  try {
    return p256.verify(signature, msg, publicKey, { format, lowS: false })
  } catch {
    return false
  }
}

/**
 * Checks an `X-Service-Signature` value against the raw body: base64 DER (or 64-byte compact) signature,
 * or the JSON wrapper `{"v":"1","s":"<base64>"}` receivers should also accept.
 */
export const verifyWebhookSignature = (publicKeyPem: string, body: string, signatureHeader: string): boolean => {
  let encoded = signatureHeader.trim()
  if (encoded.startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(encoded)
      const s = typeof parsed === "object" && parsed !== null ? (parsed as { s?: unknown }).s : undefined
      if (typeof s !== "string") return false
      encoded = s
    } catch {
      return false
    }
  }
  const signature = fromBase64(encoded)
  return signature !== undefined && verifyBytes(publicKeyPem, body, signature)
}

/**
 * Checks the Standard Webhooks headers as a receiver does: one of the space-separated `v1,<base64>` entries of
 * `webhook-signature` must be the HMAC of `"<webhook-id>.<webhook-timestamp>.<body>"` under `secret` (compared
 * in constant time); with `nowSeconds`, the timestamp must also lie within `toleranceSeconds` (default 300) of
 * it, so an old delivery cannot be replayed.
 */
export const verifyStandardWebhook = (
  secret: string,
  headers: { readonly id: string; readonly timestamp: string; readonly signature: string },
  body: string,
  options?: { readonly nowSeconds?: number; readonly toleranceSeconds?: number }
): boolean => {
  const key = secretKey(secret)
  if (key === undefined || !/^\d+$/.test(headers.timestamp)) return false
  if (options?.nowSeconds !== undefined) {
    const skew = Math.abs(options.nowSeconds - Number(headers.timestamp))
    if (skew > (options.toleranceSeconds ?? 300)) return false
  }
  const expected = standardMac(key, headers.id, headers.timestamp, body)
  return headers.signature.split(" ").some((entry) => {
    const [version, encoded] = entry.split(",", 2)
    if (version !== "v1" || encoded === undefined) return false
    const given = fromBase64(encoded)
    return given !== undefined && constantTimeEqual(given, expected)
  })
}

/** The records that sign at `now` (not expired), newest first; `records` as the store lists them, oldest first. */
const signingAt = (records: ReadonlyArray<WebhookSecretRecord>, now: string): Array<WebhookSecretRecord> =>
  records.filter((r) => r.expiresAt === undefined || r.expiresAt > now).reverse()

/** The secrets deliveries are signed with at `now`, newest first. */
export const activeSecrets = (records: ReadonlyArray<WebhookSecretRecord>, now: string): Array<string> =>
  signingAt(records, now).map((r) => r.secret)

const secretInfo = (r: WebhookSecretRecord): WebhookSecretInfo => ({
  id: r.id,
  createdAt: r.createdAt,
  ...(r.expiresAt === undefined ? {} : { expiresAt: r.expiresAt })
})

/** A new secret, as `POST /webhooks/signing-secrets/rotate` shows it: the only time `secret` is shown. */
export interface NewWebhookSecret extends WebhookSecretInfo {
  readonly secret: string
}

/** Longest overlap a rotation may give the secrets it retires (as long as a delivery is retried). */
export const MAX_SECRET_OVERLAP_SECONDS = 7 * 24 * 3600
export const DEFAULT_SECRET_OVERLAP_SECONDS = 24 * 3600

export interface WebhookSecretsService {
  /**
   * Makes a new secret and retires the current ones: they keep signing (beside the new one) for
   * `overlapSeconds` (default one day, 0 retires them at once); expired ones are deleted. One store transaction.
   */
  readonly rotate: (overlapSeconds?: number) => Effect.Effect<NewWebhookSecret, StoreError>
  /** The secrets deliveries are signed with now (never their value), newest first. */
  readonly list: () => Effect.Effect<ReadonlyArray<WebhookSecretInfo>, StoreError>
  /** A first secret when there is none (what `npm start` prints once); `undefined` when one exists. */
  readonly ensure: () => Effect.Effect<NewWebhookSecret | undefined, StoreError>
}

export const makeWebhookSecrets = Effect.fnUntraced(function* () {
  const store = yield* Store
  const ids = yield* Ids

  const make = Effect.fnUntraced(function* (now: string) {
    const bytes = hexToBytes(yield* ids.randomHex(SECRET_BYTES))
    const record: WebhookSecretRecord = {
      id: yield* ids.make("WebhookSecret"),
      secret: `${SECRET_PREFIX}${toBase64(bytes)}`,
      createdAt: now
    }
    yield* store.webhookSecrets.put(record)
    return { ...secretInfo(record), secret: record.secret } satisfies NewWebhookSecret
  })

  const rotate = Effect.fn("WebhookSecrets.rotate")(function* (
    overlapSeconds: number = DEFAULT_SECRET_OVERLAP_SECONDS
  ) {
    return yield* store.transaction(
      Effect.gen(function* () {
        const now = yield* nowIso
        const retireAt = addSeconds(now, Math.min(Math.max(0, overlapSeconds), MAX_SECRET_OVERLAP_SECONDS))
        for (const record of yield* store.webhookSecrets.list()) {
          const expiresAt = record.expiresAt === undefined || record.expiresAt > retireAt ? retireAt : record.expiresAt
          if (expiresAt <= now) yield* store.webhookSecrets.remove(record.id)
          else if (expiresAt !== record.expiresAt) yield* store.webhookSecrets.put({ ...record, expiresAt })
        }
        return yield* make(now)
      })
    )
  })

  const list = Effect.fn("WebhookSecrets.list")(function* () {
    const now = yield* nowIso
    return signingAt(yield* store.webhookSecrets.list(), now).map(secretInfo)
  })

  const ensure = Effect.fn("WebhookSecrets.ensure")(function* () {
    return yield* store.transaction(
      Effect.gen(function* () {
        const now = yield* nowIso
        return signingAt(yield* store.webhookSecrets.list(), now).length > 0 ? undefined : yield* make(now)
      })
    )
  })

  return { rotate, list, ensure } satisfies WebhookSecretsService
})

/** The webhook endpoint's Standard Webhooks signing secrets: requires `Store` and `Ids`; time from the Clock. */
export class WebhookSecrets extends Context.Service<WebhookSecrets, WebhookSecretsService>()(
  "paycore/webhooks/WebhookSecrets"
) {
  static readonly layer: Layer.Layer<WebhookSecrets, never, Store | Ids> = Layer.effect(
    WebhookSecrets,
    makeWebhookSecrets()
  )
}

// =============================================================================
// Dispatcher
// =============================================================================

/**
 * Seconds to wait after `failedAttempts` failures (1-based): the base doubles each time, capped at
 * `webhookMaxBackoffSeconds`, then jittered down by up to 20% (`random01` in [0, 1)), so it never exceeds the cap.
 */
export const backoffSeconds = (
  failedAttempts: number,
  settings: Pick<EngineSettings, "webhookBaseBackoffSeconds" | "webhookMaxBackoffSeconds">,
  random01: number
): number => {
  const exponent = Math.max(0, failedAttempts - 1)
  const raw = Math.min(settings.webhookMaxBackoffSeconds, settings.webhookBaseBackoffSeconds * 2 ** exponent)
  return raw * (0.8 + 0.2 * random01)
}

/** `TEST` events (and, as upstream, PENDING incoming payments awaiting approval) get one attempt only. */
export const isRetried = (type: string): boolean => type !== "TEST" && type !== "INCOMING_PAYMENT.PENDING"

/** 2xx is delivered; 409 means the receiver already has it (a duplicate): stop retrying too. */
export const isDelivered = (status: number): boolean => (status >= 200 && status < 300) || status === 409

export interface DispatcherOptions {
  /** Rows claimed per pass (default 50). */
  readonly batchSize?: number
  /** How long a claimed row is held before another dispatcher may take it (default 300 s). */
  readonly leaseSeconds?: number
  /** Subjects delivered in parallel in one pass; one subject is always sequential (default 8). */
  readonly concurrency?: number
  /** With no `webhookEndpoint` configured, due rows are looked at again after this long (default 30 s). */
  readonly noEndpointDelaySeconds?: number
}

export interface DispatchSummary {
  readonly claimed: number
  readonly delivered: number
  /** Failed attempts that will be retried. */
  readonly retrying: number
  readonly dead: number
  /** Left for later: no endpoint configured (no attempt spent). */
  readonly deferred: number
  /** Left for later: an earlier event of the same subject is still pending. */
  readonly blocked: number
}

/** What `POST /sandbox/webhooks/test` answers (upstream field names). */
export interface TestDelivery {
  readonly url: string
  readonly response_status: number
  readonly response_body: string
}

export interface WebhookDispatcherService {
  /** One pass: claim due rows, deliver them (per subject in sequence order), record every attempt. */
  readonly dispatchDue: () => Effect.Effect<DispatchSummary, StoreError>
  /** DEAD → PENDING, due now (a PENDING row is returned unchanged; a DELIVERED one is a 409). */
  readonly replay: (eventId: string) => Effect.Effect<OutboxRecord, NotFound | Conflict | StoreError>
  readonly get: (eventId: string) => Effect.Effect<OutboxRecord, NotFound | StoreError>
  /** Deliveries for an operator view: filter by status / subject / type, paged by id. */
  readonly list: (filter: OutboxFilter, page: PageRequest) => Effect.Effect<Page<OutboxRecord>, StoreError>
  /** Sends a `TEST` event now to the configured URL (not stored, not retried) and reports the answer. */
  readonly sendTest: () => Effect.Effect<TestDelivery, Refused | StoreError>
  /** Every event after `after` (none: from now on), then each one as it is committed (see `followOutbox`). */
  readonly follow: (
    after: string | undefined,
    options: FollowOptions
  ) => Effect.Effect<Stream.Stream<OutboxRecord, StoreError>, StoreError>
  /** `dispatchDue` every `intervalMillis` forever (draining full batches at once); errors are logged. */
  readonly run: (intervalMillis: number) => Effect.Effect<never>
}

interface Tally {
  claimed: number
  delivered: number
  retrying: number
  dead: number
  deferred: number
  blocked: number
}

const maxIso = (a: string, b: string): string => (a > b ? a : b)

/** How much of a receiver's answer an attempt keeps: enough to read an error, never a whole page on every row. */
export const RESPONSE_BODY_MAX_BYTES = 2048

/** The longest start of `text` whose UTF-8 takes at most `maxBytes` bytes, never splitting a character. */
export const utf8Prefix = (text: string, maxBytes: number): string => {
  // Every UTF-16 unit takes at least one UTF-8 byte and at most three: the usual short answer is kept as is.
  if (text.length * 3 <= maxBytes) return text
  let bytes = 0
  let end = 0
  for (const char of text) {
    const code = char.codePointAt(0)!
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4
    if (bytes > maxBytes) break
    end += char.length
  }
  return text.slice(0, end)
}

/** Text every store can keep: a NUL or an unpaired surrogate (PostgreSQL's jsonb refuses both) becomes U+FFFD. */
const keptText = (text: string): string => text.toWellFormed().replaceAll("\u0000", "\ufffd")

/** Delivering claimed rows: one signed attempt, a subject's rows in sequence order, a row given back. */
const makeDelivery = Effect.fnUntraced(function* () {
  const store = yield* Store
  const transport = yield* WebhookTransport
  const signer = yield* WebhookSigner
  const replies = yield* WebhookReplies

  /** Hands the reply to an attempt to the handlers that claim the event's type (see `WebhookReplies`). */
  const handReply = (row: OutboxRecord, reply: WebhookReply): Effect.Effect<void> =>
    Effect.forEach(
      replies.filter((handler) => handler.types.includes(row.type)),
      (handler) =>
        handler
          .onReply({ id: row.id, type: row.type, subject: row.subject }, reply)
          .pipe(Effect.catchCause((cause) => Effect.logWarning(`webhook reply handler failed for ${row.id}`, cause))),
      { discard: true }
    )

  /** Gives a claimed row back without an attempt, due again at `dueAt`. */
  const release = (row: OutboxRecord, dueAt: string) =>
    store.transaction(store.outbox.save({ ...row, leaseUntil: undefined, nextAttemptAt: dueAt }))

  /** One attempt: sign, POST, record it and decide the row's next state. Returns the saved row. */
  const attempt = Effect.fnUntraced(function* (
    row: OutboxRecord,
    url: string,
    settings: EngineSettings,
    secrets: ReadonlyArray<string>
  ) {
    const startedMs = yield* Clock.currentTimeMillis
    const headers = signedHeaders(signer, secrets, row.id, Math.floor(startedMs / 1000), row.body)
    const result = yield* Effect.result(transport.post(url, headers, row.body))
    const endedMs = yield* Clock.currentTimeMillis
    const at = new Date(startedMs).toISOString()
    const durationMs = Math.max(0, Math.round(endedMs - startedMs))
    const record: DeliveryAttempt =
      result._tag === "Success"
        ? {
            at,
            url,
            responseStatus: result.success.status,
            responseBody: utf8Prefix(keptText(result.success.body), RESPONSE_BODY_MAX_BYTES),
            durationMs
          }
        : { at, url, error: result.failure.message, durationMs }
    const random = yield* Random.next
    const endedAt = new Date(endedMs).toISOString()
    return yield* store
      .transaction(
        Effect.gen(function* () {
          // Re-read: after a lease expiry another dispatcher may have recorded attempts too.
          const current = (yield* store.outbox.get(row.id)) ?? row
          const attempts = [...current.attempts, record]
          const base = { ...current, attempts, leaseUntil: undefined }
          let next: OutboxRecord
          if (current.status === "DELIVERED" || (result._tag === "Success" && isDelivered(result.success.status))) {
            next = { ...base, status: "DELIVERED" }
          } else if (!isRetried(current.type)) {
            next = { ...base, status: "DEAD" }
          } else {
            // Attempts of the current round: a replay starts a new round of `webhookMaxAttempts`.
            const inRound = ((attempts.length - 1) % settings.webhookMaxAttempts) + 1
            next =
              inRound >= settings.webhookMaxAttempts
                ? { ...base, status: "DEAD" }
                : {
                    ...base,
                    status: "PENDING",
                    nextAttemptAt: addSeconds(endedAt, backoffSeconds(inRound, settings, random))
                  }
          }
          yield* store.outbox.save(next)
          return next
        })
      )
      .pipe(
        Effect.tap(() =>
          handReply(
            row,
            result._tag === "Success"
              ? { _tag: "Response", status: result.success.status, body: result.success.body }
              : { _tag: "TransportError", message: result.failure.message }
          )
        )
      )
  })

  /** Rows of one subject, in sequence order: stop at the first that stays pending. */
  const deliverSubject = Effect.fnUntraced(function* (
    rows: ReadonlyArray<OutboxRecord>,
    url: string,
    settings: EngineSettings,
    now: string,
    tally: Tally,
    secrets: ReadonlyArray<string>
  ) {
    let blockedUntil: string | undefined
    let resolvedSequence: number | undefined
    for (const row of rows) {
      if (blockedUntil === undefined && row.sequence > 1 && resolvedSequence !== row.sequence - 1) {
        const earlier = yield* store.outbox.list(
          { subject: row.subject, status: "PENDING", sequenceBelow: row.sequence },
          { limit: 1, sortOrder: "asc" }
        )
        const blocker = earlier.data[0]
        if (blocker !== undefined) blockedUntil = maxIso(now, blocker.nextAttemptAt)
      }
      if (blockedUntil !== undefined) {
        yield* release(row, maxIso(blockedUntil, row.nextAttemptAt))
        tally.blocked++
        continue
      }
      const saved = yield* attempt(row, url, settings, secrets)
      if (saved.status === "DELIVERED") tally.delivered++
      else if (saved.status === "DEAD") tally.dead++
      else tally.retrying++
      if (saved.status === "PENDING") blockedUntil = saved.nextAttemptAt
      else resolvedSequence = row.sequence
    }
  })

  return { release, deliverSubject }
})

export const makeWebhookDispatcher = Effect.fnUntraced(function* (options?: DispatcherOptions) {
  const store = yield* Store
  const transport = yield* WebhookTransport
  const signer = yield* WebhookSigner
  const ids = yield* Ids
  const batchSize = options?.batchSize ?? 50
  const leaseSeconds = options?.leaseSeconds ?? 300
  const concurrency = options?.concurrency ?? 8
  const noEndpointDelaySeconds = options?.noEndpointDelaySeconds ?? 30

  const { release, deliverSubject } = yield* makeDelivery()

  const dispatchDue = Effect.fn("WebhookDispatcher.dispatchDue")(function* () {
    const settings = yield* EngineConfig
    const now = yield* nowIso
    const claimed = yield* store.transaction(store.outbox.claimDue(now, batchSize, addSeconds(now, leaseSeconds)))
    const tally: Tally = { claimed: claimed.length, delivered: 0, retrying: 0, dead: 0, deferred: 0, blocked: 0 }
    if (claimed.length === 0) return tally as DispatchSummary
    const url = (yield* store.config.get())?.webhookEndpoint
    if (url === undefined || url === "") {
      const later = addSeconds(now, noEndpointDelaySeconds)
      yield* Effect.forEach(claimed, (row) => release(row, later), { discard: true })
      tally.deferred = claimed.length
      return tally as DispatchSummary
    }
    const bySubject = new Map<string, Array<OutboxRecord>>()
    for (const row of claimed) {
      const rows = bySubject.get(row.subject)
      if (rows === undefined) bySubject.set(row.subject, [row])
      else rows.push(row)
    }
    for (const rows of bySubject.values()) rows.sort((a, b) => a.sequence - b.sequence)
    // Read once a pass: a rotation shows in the next pass, and a retiring secret signs until it expires.
    const secrets = activeSecrets(yield* store.webhookSecrets.list(), now)
    yield* Effect.forEach(bySubject.values(), (rows) => deliverSubject(rows, url, settings, now, tally, secrets), {
      concurrency,
      discard: true
    })
    return tally as DispatchSummary
  })

  const get = Effect.fn("WebhookDispatcher.get")(function* (eventId: string) {
    const row = yield* store.outbox.get(eventId)
    if (row === undefined) return yield* webhookNotFound(eventId)
    return row
  })

  const replay = Effect.fn("WebhookDispatcher.replay")(function* (eventId: string) {
    return yield* store.transaction(
      Effect.gen(function* () {
        const row = yield* get(eventId)
        if (row.status === "PENDING") return row
        if (row.status !== "DEAD") return yield* webhookNotDead(eventId, row.status)
        const next: OutboxRecord = { ...row, status: "PENDING", nextAttemptAt: yield* nowIso, leaseUntil: undefined }
        yield* store.outbox.save(next)
        return next
      })
    )
  })

  const list = Effect.fn("WebhookDispatcher.list")(function* (filter: OutboxFilter, page: PageRequest) {
    return yield* store.outbox.list(filter, page)
  })

  const sendTest = Effect.fn("WebhookDispatcher.sendTest")(function* () {
    const url = (yield* store.config.get())?.webhookEndpoint
    if (url === undefined || url === "") return yield* webhookEndpointNotSet()
    const id = yield* ids.make("Webhook")
    const nowMs = yield* Clock.currentTimeMillis
    const timestamp = new Date(nowMs).toISOString()
    const body = JSON.stringify({ id, type: "TEST", timestamp, data: {} })
    const secrets = activeSecrets(yield* store.webhookSecrets.list(), timestamp)
    const response: TransportResponse = yield* transport
      .post(url, signedHeaders(signer, secrets, id, Math.floor(nowMs / 1000), body), body)
      .pipe(Effect.mapError((e) => webhookDeliveryError(url, e.message)))
    return { url, response_status: response.status, response_body: response.body } satisfies TestDelivery
  })

  const drain: Effect.Effect<void> = Effect.gen(function* () {
    while (true) {
      const summary = yield* dispatchDue()
      // A batch whose rows all wait behind earlier events of their subjects (another dispatcher is delivering
      // them) is given back as due at once: passing again at once would only claim it again, spinning.
      if (summary.claimed < batchSize || summary.blocked === summary.claimed) return
    }
  }).pipe(Effect.catchCause((cause) => Effect.logWarning("webhook dispatch pass failed", cause)))

  // No span: a span around a loop that never ends would never be reported; each pass has its own.
  const run = (intervalMillis: number): Effect.Effect<never> =>
    drain.pipe(Effect.repeat(Schedule.spaced(Duration.millis(intervalMillis))), Effect.andThen(Effect.never))

  return {
    dispatchDue,
    replay,
    get,
    list,
    sendTest,
    follow: (after, followOptions) => followOutbox(store, after, followOptions),
    run
  } satisfies WebhookDispatcherService
})

/** Delivers the outbox: requires `Store`, `WebhookTransport`, `WebhookSigner` and `Ids`; time from the Clock. */
export class WebhookDispatcher extends Context.Service<WebhookDispatcher, WebhookDispatcherService>()(
  "paycore/webhooks/WebhookDispatcher"
) {
  static readonly layer: Layer.Layer<WebhookDispatcher, never, Store | WebhookTransport | WebhookSigner | Ids> =
    Layer.effect(WebhookDispatcher, makeWebhookDispatcher())

  static readonly layerWith = (
    options: DispatcherOptions
  ): Layer.Layer<WebhookDispatcher, never, Store | WebhookTransport | WebhookSigner | Ids> =>
    Layer.effect(WebhookDispatcher, makeWebhookDispatcher(options))
}
