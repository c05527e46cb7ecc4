/**
 * `paycore listen --forward-to URL`: reads the server's event stream (`GET /webhooks/stream`, Server-Sent Events),
 * re-signs each event with a Standard Webhooks secret of its own and POSTs it to a local URL, as `stripe listen`
 * does: a developer's machine receives the sandbox's webhooks without a public URL. After a dropped connection it
 * resumes where it stopped (`Last-Event-ID`).
 */
import { randomBytes } from "node:crypto"
import { connect } from "node:net"
import { Duration, Effect, Option, Redacted, Ref, Schedule, Stream } from "effect"
import { Command, Flag } from "effect/cli"
import { Sse } from "effect/encoding"
import { HttpClient, HttpClientRequest } from "effect/http"
import { Webhook } from "standardwebhooks"
import { ApiError, authenticatedHttpClient, CliFailure, versionedBase } from "../client.ts"
import { dim, emit, green, red, yellow } from "../output.ts"
import { paycore } from "../root.ts"

/** How long to wait before connecting again after the stream dropped. */
const RECONNECT_AFTER = Duration.seconds(1)

/** A fresh Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(24).toString("base64")}`

/** The resource an event is about, for the one-line summary: the id in its `data`, when there is one. */
const subjectOf = (body: string): string => {
  const parsed = Option.liftThrowable(JSON.parse)(body)
  const id = Option.isSome(parsed) ? (parsed.value as { data?: { id?: unknown } } | null)?.data?.id : undefined
  return typeof id === "string" ? id : ""
}

/** 401, 403, 404: connecting again would be answered the same; stop and say why. */
const isFinal = (error: unknown) => error instanceof ApiError && error.status < 500

/** `--forward-to` as a URL the receiver can be reached at, or the user's mistake said. */
const receiverUrl = (forwardTo: string) =>
  Effect.try({
    try: () => {
      const url = new URL(forwardTo)
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(url.protocol)
      return url
    },
    catch: () =>
      new CliFailure({ message: `--forward-to: an http:// or https:// URL, e.g. http://localhost:3000/webhooks` })
  })

/**
 * Fails when nothing listens at the receiver's address: the user starts listen before their receiver more often than
 * not by mistake. Only a TCP connection: the receiver gets no request that is not an event.
 */
const receiverListening = (url: URL) =>
  Effect.callback<void, CliFailure>((resume) => {
    const port = Number(url.port || (url.protocol === "https:" ? 443 : 80))
    const socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ""), port, timeout: 5000 })
    const done = (effect: Effect.Effect<void, CliFailure>) => {
      socket.destroy()
      resume(effect)
    }
    socket.once("connect", () => done(Effect.void))
    socket.once("timeout", () => done(Effect.void))
    socket.once("error", (error: NodeJS.ErrnoException) =>
      done(
        Effect.fail(
          new CliFailure({
            message:
              `nothing listens at ${url.href} (${error.code ?? error.message}): start your webhook receiver first, ` +
              `or fix --forward-to`
          })
        )
      )
    )
    return Effect.sync(() => socket.destroy())
  })

/** What the user can do about a receiver's answer or failure; nothing when it took the event. */
const receiverHint = (status: number | string): string =>
  typeof status === "string"
    ? ` (your receiver is unreachable: ${status}; is it still running?)`
    : status === 400 || status === 401 || status === 403
      ? " (your receiver refused it: does it verify with the signing secret above?)"
      : status >= 300
        ? " (your receiver did not take it)"
        : ""

export const listen = Command.make(
  "listen",
  {
    forwardTo: Flag.String("forward-to").pipe(Flag.withDescription("POST each event to this URL")),
    events: Flag.String("events").pipe(
      Flag.withDescription(
        "Only these webhook types, comma-separated (e.g. OUTGOING_PAYMENT.COMPLETED,CUSTOMER.KYC_APPROVED)"
      ),
      Flag.optional
    ),
    secret: Flag.Redacted("secret").pipe(
      Flag.withDescription("Sign with this whsec_… secret (else a new one, printed at start)"),
      Flag.optional
    )
  },
  Effect.fnUntraced(function* ({ forwardTo, events, secret }) {
    const root = yield* paycore
    const target = yield* receiverUrl(forwardTo)
    yield* receiverListening(target)
    const api = yield* authenticatedHttpClient
    // The receiver is not the API: it gets no credentials.
    const receiver = yield* HttpClient.HttpClient
    const signingSecret = Option.isSome(secret) ? Redacted.value(secret.value) : newSecret()
    const signer = yield* Effect.try({
      try: () => new Webhook(signingSecret),
      catch: () => new CliFailure({ message: "--secret: a Standard Webhooks secret, whsec_ and base64" })
    })
    const only = Option.map(events, (list) => new Set(list.split(",").map((type) => type.trim())))
    const lastEventId = yield* Ref.make(Option.none<string>())
    // Until the stream answered once, a failure to reach it is the user's to fix (no server there), not a drop.
    const connected = yield* Ref.make(false)
    const streamUrl = `${versionedBase(root.api)}/webhooks/stream`

    // The user verifies the forwarded events with a secret made now: printed once, at start (one given is not).
    const made = Option.isNone(secret)
    yield* emit({ listening: streamUrl, forwardTo, secret: made ? signingSecret : null }, () => [
      `Forwarding webhooks from ${streamUrl} to ${forwardTo}`,
      made
        ? `Signing secret ${yellow(signingSecret)} (Standard Webhooks v1)`
        : "Signing with the secret of --secret (Standard Webhooks v1)"
    ])

    const forward = Effect.fnUntraced(function* (event: Sse.Event) {
      if (event.id !== undefined) yield* Ref.set(lastEventId, Option.some(event.id))
      if (Option.isSome(only) && !only.value.has(event.event)) return
      const id = event.id ?? ""
      const at = new Date(Math.floor(Date.now() / 1000) * 1000)
      const request = HttpClientRequest.post(forwardTo).pipe(
        HttpClientRequest.setHeaders({
          "webhook-id": id,
          "webhook-timestamp": String(at.getTime() / 1000),
          "webhook-signature": signer.sign(id, at, event.data)
        }),
        HttpClientRequest.bodyText(event.data, "application/json")
      )
      const status = yield* receiver.execute(request).pipe(
        Effect.map((response) => response.status),
        Effect.catch((error) => Effect.succeed(error.message))
      )
      const subject = subjectOf(event.data)
      yield* emit({ id, type: event.event, subject, status }, () => [
        typeof status === "number" && status < 300
          ? `→ ${green(String(status))} ${event.event} ${subject}`.trimEnd()
          : `→ ${red(typeof status === "number" ? String(status) : "failed")} ${event.event} ${subject}${receiverHint(status)}`
      ])
    })

    const connectOnce = Effect.gen(function* () {
      const after = yield* Ref.get(lastEventId)
      const request = HttpClientRequest.get(streamUrl).pipe(
        HttpClientRequest.setHeader("accept", "text/event-stream"),
        Option.isSome(after) ? HttpClientRequest.setHeader("last-event-id", after.value) : (r) => r
      )
      const response = yield* api.execute(request)
      yield* Ref.set(connected, true)
      yield* emit({ connected: streamUrl, after: Option.getOrNull(after) }, () => [
        dim(Option.isSome(after) ? `Connected again, after ${after.value}. Ctrl-C to stop.` : "Ready. Ctrl-C to stop.")
      ])
      yield* response.stream.pipe(
        Stream.decodeText,
        Stream.pipeThroughChannel(Sse.decode()),
        Stream.runForEach(forward)
      )
    })

    // The server closed the stream or the connection dropped: connect again, from the last event seen.
    return yield* connectOnce.pipe(
      Effect.catchIf(
        (error) => !isFinal(error) && Ref.getUnsafe(connected),
        (error) =>
          Effect.sync(() =>
            process.stderr.write(
              `${dim(`stream dropped (${error._tag === "Retry" ? "the server asked to" : error.message}); reconnecting`)}\n`
            )
          )
      ),
      Effect.andThen(Effect.sleep(RECONNECT_AFTER)),
      Effect.repeat(Schedule.forever)
    )
  })
).pipe(Command.withDescription("Forward the sandbox's webhooks to a local URL, signed with a secret of its own"))
