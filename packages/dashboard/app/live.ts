/**
 * What the screens follow: the event stream (`GET /webhooks/stream`, Server-Sent Events) read with `fetch` (an
 * `EventSource` cannot send the Authorization header), resumed with `Last-Event-ID`. While the stream is down the
 * screens are told to poll instead (`tick`), so a payment in flight still moves on the page.
 */
import { API_VERSION } from "@paycore/http/api"
import type { Credentials } from "./client.ts"
import { type LiveEvent, parseEvents } from "./sse.ts"

export type { LiveEvent } from "./sse.ts"

/** An event, or `undefined` for a polling tick (the stream is down). */
export type LiveListener = (event: LiveEvent | undefined) => void

export type LiveState = "connecting" | "live" | "polling"

export interface Live {
  readonly subscribe: (listener: LiveListener) => () => void
  readonly onState: (listener: (state: LiveState) => void) => () => void
  readonly state: () => LiveState
  readonly close: () => void
}

/** How often screens poll while the stream is down, and how long before the stream is tried again. */
export const POLL_MILLIS = 2_000
const RETRY_MILLIS = 3_000

export const startLive = (credentials: Credentials): Live => {
  const listeners = new Set<LiveListener>()
  const stateListeners = new Set<(state: LiveState) => void>()
  let state: LiveState = "connecting"
  let lastId: string | undefined
  let closed = false
  let poll: ReturnType<typeof setInterval> | undefined
  const abort = new AbortController()
  const setState = (next: LiveState) => {
    if (next === state) return
    state = next
    if (next === "polling" && poll === undefined) {
      poll = setInterval(() => {
        for (const listener of listeners) listener(undefined)
      }, POLL_MILLIS)
    }
    if (next === "live" && poll !== undefined) {
      clearInterval(poll)
      poll = undefined
      // What moved between the last poll and the stream's return: one more look.
      for (const listener of listeners) listener(undefined)
    }
    for (const listener of stateListeners) listener(next)
  }
  const connect = async () => {
    while (!closed) {
      try {
        const response = await fetch(new URL(`/${API_VERSION}/webhooks/stream`, location.origin), {
          headers: {
            authorization: `Basic ${btoa(`${credentials.clientId}:${credentials.clientSecret}`)}`,
            accept: "text/event-stream",
            ...(lastId === undefined ? {} : { "last-event-id": lastId })
          },
          credentials: "omit",
          cache: "no-store",
          signal: abort.signal
        })
        if (!response.ok || response.body === null) throw new Error(`the event stream answered ${response.status}`)
        setState("live")
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
        let buffer = ""
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          const parsed = parseEvents(buffer + value)
          buffer = parsed.rest
          for (const event of parsed.events) {
            if (event.id !== "") lastId = event.id
            for (const listener of listeners) listener(event)
          }
        }
      } catch {
        // Down, refused or closed: the screens poll until the stream answers again.
      }
      if (closed) return
      setState("polling")
      await new Promise((done) => setTimeout(done, RETRY_MILLIS))
    }
  }
  void connect()
  return {
    subscribe: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    onState: (listener) => {
      stateListeners.add(listener)
      return () => stateListeners.delete(listener)
    },
    state: () => state,
    close: () => {
      closed = true
      abort.abort()
      if (poll !== undefined) clearInterval(poll)
    }
  }
}
