/**
 * Issue 32 item 1: the dashboard reads `GET /webhooks/stream` itself (an EventSource cannot send Basic credentials).
 * Whatever pieces the network cuts the stream into, it reads the same events, keep-alive comments skipped.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type LiveEvent, parseEvents } from "../app/sse.ts"

const eventArbitrary = fc.record({
  id: fc.stringMatching(/^Webhook:[0-9a-f-]{1,12}$/),
  type: fc.constantFrom("OUTGOING_PAYMENT.FAILED", "INCOMING_PAYMENT.COMPLETED", "TEST"),
  // JSON text holds no raw line break (the server sends one `data:` line).
  text: fc.json().map((json) => json.replace(/\n/g, " "))
})

/** The stream as the server writes it, keep-alive comments between some events. */
const streamText = (events: ReadonlyArray<LiveEvent>, comments: ReadonlyArray<boolean>): string =>
  events
    .map((e, i) => `${comments[i] ? ": keep-alive\n\n" : ""}id: ${e.id}\nevent: ${e.type}\ndata: ${e.text}\n\n`)
    .join("")

/** Feeds `text` in pieces cut at `cuts`, as the reader gets them. */
const readInPieces = (text: string, cuts: ReadonlyArray<number>): Array<LiveEvent> => {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
  const events: Array<LiveEvent> = []
  let buffer = ""
  let from = 0
  for (const to of [...points, text.length]) {
    const parsed = parseEvents(buffer + text.slice(from, to))
    buffer = parsed.rest
    events.push(...parsed.events)
    from = to
  }
  return events
}

describe("the dashboard's event stream reader (issue 32 item 1)", () => {
  it("reads every event whole, whatever pieces the stream arrives in", () => {
    fc.assert(
      fc.property(
        fc.array(eventArbitrary, { maxLength: 8 }),
        fc.array(fc.boolean(), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (events, comments, cuts) => {
          expect(readInPieces(streamText(events, comments), cuts)).toEqual(events)
        }
      )
    )
  })

  it("keeps an event that has not ended for the next piece", () => {
    const first = parseEvents("id: Webhook:1\nevent: TEST\ndata: {}\n\nid: Webhook:2\nevent: TE")
    expect(first.events).toEqual([{ id: "Webhook:1", type: "TEST", text: "{}" }])
    expect(parseEvents(`${first.rest}ST\ndata: {"a":1}\r\n\r\n`).events).toEqual([
      { id: "Webhook:2", type: "TEST", text: '{"a":1}' }
    ])
  })
})
