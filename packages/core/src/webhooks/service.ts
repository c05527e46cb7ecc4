import { Config, Context, type Deferred, Effect, Layer, Option, Redacted, type Stream } from "effect"
import { Ids } from "../ports/ids.ts"
import { type OutboxFilter, Store } from "../ports/store.ts"
import { WebhookTransport } from "../ports/webhook-transport.ts"
import type { Conflict, NotFound, Refused, StoreError } from "../shared/errors.ts"
import type { Page, PageRequest } from "../shared/paging.ts"
import { operation } from "../shared/tracing.ts"
import {
  DEFAULT_LEASE_SECONDS,
  type DispatcherOptions,
  type DispatchSummary,
  dispatchDueEvents,
  getEvent,
  listEvents,
  replayEvent,
  runDispatcher,
  sendTestEvent,
  type TestDelivery
} from "./dispatch.ts"
import { type FollowOptions, followOutbox } from "./follow.ts"
import { type OutboxRecord, WebhookReplies, type WebhookSecretInfo } from "./model.ts"
import type { DispatcherPorts, WebhookPorts } from "./ports.ts"
import { ensureSecret, listSecrets, type NewWebhookSecret, rotateSecrets } from "./secrets.ts"
import { generateWebhookKeys, type WebhookKeys, webhookKeysFromHex } from "./signing.ts"

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

/** The webhook endpoint's Standard Webhooks signing secrets: requires `Store` and `Ids`; time from the Clock. */
export class WebhookSecrets extends Context.Service<WebhookSecrets, WebhookSecretsService>()(
  "paycore/webhooks/WebhookSecrets"
) {
  /** The service over the context's `Store` and `Ids`, outside a layer (`makeWebhookSecrets`). */
  static readonly make = Effect.fnUntraced(function* () {
    const ports: WebhookPorts = { store: yield* Store, ids: yield* Ids }
    return WebhookSecrets.of({
      rotate: operation("WebhookSecrets.rotate")(function* (overlapSeconds?: number) {
        return yield* rotateSecrets(ports, overlapSeconds)
      }),
      list: operation("WebhookSecrets.list")(function* () {
        return yield* listSecrets(ports)
      }),
      ensure: operation("WebhookSecrets.ensure")(function* () {
        return yield* ensureSecret(ports)
      })
    })
  })

  static readonly layer: Layer.Layer<WebhookSecrets, never, Store | Ids> = Layer.effect(
    WebhookSecrets,
    WebhookSecrets.make()
  )
}

/** `WebhookSecrets.make`, under the name the package has exported. */
export const makeWebhookSecrets = WebhookSecrets.make

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
  /**
   * `dispatchDue` every `intervalMillis` (draining full batches at once); errors are logged. Forever, or until `stop`
   * is done: then the attempts under way finish and are recorded, none starts, the rows not tried are given back, and
   * the loop ends (a server's graceful stop). Interrupting it instead is a crash: its rows wait out their lease.
   */
  readonly run: (intervalMillis: number, stop?: Deferred.Deferred<void>) => Effect.Effect<void>
}

/** Delivers the outbox: requires `Store`, `WebhookTransport`, `WebhookSigner` and `Ids`; time from the Clock. */
export class WebhookDispatcher extends Context.Service<WebhookDispatcher, WebhookDispatcherService>()(
  "paycore/webhooks/WebhookDispatcher"
) {
  /** A dispatcher over the context's ports, outside a layer: several in one process (`makeWebhookDispatcher`). */
  static readonly make = Effect.fnUntraced(function* (options?: DispatcherOptions) {
    const ports: DispatcherPorts = {
      store: yield* Store,
      ids: yield* Ids,
      transport: yield* WebhookTransport,
      signer: yield* WebhookSigner,
      replies: yield* WebhookReplies,
      batchSize: options?.batchSize ?? 50,
      leaseSeconds: options?.leaseSeconds ?? DEFAULT_LEASE_SECONDS,
      concurrency: options?.concurrency ?? 8
    }
    const dispatchUntil = operation("WebhookDispatcher.dispatchDue")(function* (
      stop: Deferred.Deferred<void> | undefined
    ) {
      return yield* dispatchDueEvents(ports, stop)
    })
    const dispatchDue = () => dispatchUntil(undefined)
    return WebhookDispatcher.of({
      dispatchDue,
      replay: operation("WebhookDispatcher.replay")(function* (eventId: string) {
        return yield* replayEvent(ports, eventId)
      }),
      get: operation("WebhookDispatcher.get")(function* (eventId: string) {
        return yield* getEvent(ports, eventId)
      }),
      list: operation("WebhookDispatcher.list")(function* (filter: OutboxFilter, page: PageRequest) {
        return yield* listEvents(ports, filter, page)
      }),
      sendTest: operation("WebhookDispatcher.sendTest")(function* () {
        return yield* sendTestEvent(ports)
      }),
      follow: operation("WebhookDispatcher.follow")(function* (
        after: string | undefined,
        followOptions: FollowOptions
      ) {
        return yield* followOutbox(ports.store, after, followOptions)
      }),
      // No span: a span around a loop that never ends would never be reported; each pass has its own.
      run: (intervalMillis: number, stop?: Deferred.Deferred<void>) =>
        runDispatcher(ports, dispatchUntil, intervalMillis, stop)
    })
  })

  static readonly layer: Layer.Layer<WebhookDispatcher, never, Store | WebhookTransport | WebhookSigner | Ids> =
    Layer.effect(WebhookDispatcher, WebhookDispatcher.make())

  static readonly layerWith = (
    options: DispatcherOptions
  ): Layer.Layer<WebhookDispatcher, never, Store | WebhookTransport | WebhookSigner | Ids> =>
    Layer.effect(WebhookDispatcher, WebhookDispatcher.make(options))
}

/** `WebhookDispatcher.make`, under the name the package has exported. */
export const makeWebhookDispatcher = WebhookDispatcher.make
