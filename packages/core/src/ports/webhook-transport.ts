import { Context, type Effect } from "effect"

export interface TransportResponse {
  readonly status: number
  readonly body: string
}

export interface TransportError {
  readonly _tag: "TransportError"
  readonly message: string
}

/** POSTs a signed webhook to the platform's URL. */
export class WebhookTransport extends Context.Service<
  WebhookTransport,
  {
    readonly post: (
      url: string,
      headers: Readonly<Record<string, string>>,
      body: string
    ) => Effect.Effect<TransportResponse, TransportError>
  }
>()("paycore/ports/WebhookTransport") {}
