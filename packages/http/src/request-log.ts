/**
 * The request log of `GET /request-log`: the last requests of each platform token, kept in this process's memory
 * (a sandbox aid: not shared between processes, gone at restart). What an entry holds is what the listener tells
 * `onAnswered`: never a request's body, headers or query string, so never a secret sent in one.
 */
import type { AnsweredRequest, ErrorBody } from "./listener-types.ts"

export interface RequestLogEntry {
  readonly at: string
  readonly method: string
  /** Without the query string. */
  readonly path: string
  readonly status: number
  readonly idempotencyKey?: string
  readonly durationMs: number
  /** The error body answered. */
  readonly error?: ErrorBody
}

/** Entries kept per token: the oldest goes when a new one comes. */
export const REQUEST_LOG_SIZE = 200

export interface RequestLog {
  readonly record: (tokenId: string, answered: AnsweredRequest<unknown>) => void
  /** The token's last `limit` entries, newest first. */
  readonly list: (tokenId: string, limit: number) => ReadonlyArray<RequestLogEntry>
  /** Drops a deleted token's entries. */
  readonly forget: (tokenId: string) => void
}

/** An answered request as the log shows it, made when read: recording one costs an array slot. */
const toEntry = (answered: AnsweredRequest<unknown>): RequestLogEntry => ({
  at: new Date(answered.startedAt).toISOString(),
  method: answered.method,
  path: answered.path,
  status: answered.status,
  ...(answered.idempotencyKey === undefined ? {} : { idempotencyKey: answered.idempotencyKey }),
  durationMs: answered.durationMs,
  ...(answered.error === undefined ? {} : { error: answered.error })
})

/** A ring buffer of `REQUEST_LOG_SIZE` entries per token. */
export const makeRequestLog = (): RequestLog => {
  const rings = new Map<string, { readonly entries: Array<AnsweredRequest<unknown>>; next: number }>()
  return {
    record: (tokenId, answered) => {
      const ring = rings.get(tokenId)
      if (ring === undefined) {
        rings.set(tokenId, { entries: [answered], next: 1 })
      } else {
        ring.entries[ring.next % REQUEST_LOG_SIZE] = answered
        ring.next++
      }
    },
    list: (tokenId, limit) => {
      const ring = rings.get(tokenId)
      if (ring === undefined) return []
      const out: Array<RequestLogEntry> = []
      for (let i = ring.next - 1; i >= 0 && i >= ring.next - REQUEST_LOG_SIZE && out.length < limit; i--) {
        out.push(toEntry(ring.entries[i % REQUEST_LOG_SIZE]!))
      }
      return out
    },
    forget: (tokenId) => {
      rings.delete(tokenId)
    }
  }
}
