import type { Ids } from "../ports/ids.ts"
import type { Store } from "../ports/store.ts"
import type { WebhookTransport } from "../ports/webhook-transport.ts"
import type { WebhookReplyHandler } from "./model.ts"
import type { WebhookKeys } from "./signing.ts"

/** What the outbox's use cases run on (the signing secrets), resolved once when a layer is built. */
export interface WebhookPorts {
  readonly store: Store["Service"]
  readonly ids: Ids["Service"]
}

/**
 * What a dispatcher runs on: the outbox's ports, the transport, the signing keys and the reply handlers, resolved
 * once when it is built, with its options (`DispatcherOptions`) filled in.
 */
export interface DispatcherPorts extends WebhookPorts {
  readonly transport: WebhookTransport["Service"]
  readonly signer: WebhookKeys
  readonly replies: ReadonlyArray<WebhookReplyHandler>
  readonly batchSize: number
  readonly leaseSeconds: number
  readonly concurrency: number
}
