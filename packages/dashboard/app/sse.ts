/** Server-Sent Events as `GET /webhooks/stream` writes them, read in the pieces the network delivers (no DOM here). */

/** One event as the webhook URL receives it: `data` is the resource after the change. */
export interface LiveEvent {
  readonly id: string
  readonly type: string
  /** The event's JSON text: a screen asks whether it names what it shows. */
  readonly text: string
}

/** The events in `buffer` (complete ones only) and what is left of it. */
export const parseEvents = (buffer: string): { events: Array<LiveEvent>; rest: string } => {
  const blocks = buffer.replace(/\r\n?/g, "\n").split("\n\n")
  const rest = blocks.pop() ?? ""
  const events: Array<LiveEvent> = []
  for (const block of blocks) {
    let id = ""
    let type = "message"
    const data: Array<string> = []
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue
      const colon = line.indexOf(":")
      const field = colon === -1 ? line : line.slice(0, colon)
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "")
      if (field === "id") id = value
      else if (field === "event") type = value
      else if (field === "data") data.push(value)
    }
    if (data.length > 0) events.push({ id, type, text: data.join("\n") })
  }
  return { events, rest }
}
