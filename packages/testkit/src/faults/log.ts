/** What a run of fault adapters injected: a count per kind, and the last injections in order (for a failure report). */
export interface FaultLog {
  /** Injections per kind (`store.fail`, `rail.submitTimeout`, `webhook.closed`...), over the log's life. */
  readonly counts: Readonly<Record<string, number>>
  /** The last `keep` injections, oldest first, each as `kind: detail`. */
  readonly recent: () => ReadonlyArray<string>
  readonly record: (kind: string, detail: string) => void
  /** Forgets the recent injections (the counts stay). */
  readonly clearRecent: () => void
}

export const makeFaultLog = (keep = 200): FaultLog => {
  const counts: Record<string, number> = {}
  let recent: Array<string> = []
  return {
    counts,
    recent: () => recent,
    record: (kind, detail) => {
      counts[kind] = (counts[kind] ?? 0) + 1
      recent.push(`${kind}: ${detail}`)
      if (recent.length > keep * 2) recent = recent.slice(-keep)
    },
    clearRecent: () => {
      recent = []
    }
  }
}

/**
 * The probability of each fault kind of one adapter, per call (0 or absent: never). A switch turns them all off
 * (`healed`), as when the simulated network or provider recovers.
 */
export interface FaultSwitch {
  /** While true, no adapter sharing this switch injects anything. */
  healed: boolean
}
