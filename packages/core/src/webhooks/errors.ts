import { Conflict, NotFound, Refused } from "../shared/errors.ts"

/** 400: `POST /sandbox/webhooks/test` (or a TEST send) while the platform has no `webhookEndpoint`. */
export const webhookEndpointNotSet = (): Refused =>
  new Refused({
    code: "WEBHOOK_ENDPOINT_NOT_SET",
    message: "No webhook endpoint is configured: set webhookEndpoint with PATCH /config first"
  })

/** 400: the test webhook could not be delivered at all (connection refused, timeout, DNS). */
export const webhookDeliveryError = (url: string, reason: string): Refused =>
  new Refused({
    code: "WEBHOOK_DELIVERY_ERROR",
    message: `The test webhook could not be delivered to ${url}: ${reason}`,
    details: { url, reason }
  })

/** 404: no outbox row with this event id. */
export const webhookNotFound = (id: string): NotFound =>
  new NotFound({ code: "WEBHOOK_NOT_FOUND", message: `Webhook event ${id} not found` })

/** 409: only a DEAD delivery can be replayed. */
export const webhookNotDead = (id: string, status: string): Conflict =>
  new Conflict({
    code: "WEBHOOK_NOT_DEAD",
    message: `Webhook event ${id} is ${status}; only a DEAD delivery can be replayed`,
    details: { status }
  })
