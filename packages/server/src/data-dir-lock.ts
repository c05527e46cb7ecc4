/**
 * One process per data folder (issue 32 item 6). PGlite takes no lock of its own on its folder (its postmaster.pid
 * holds a fixed fake pid): two processes opening one folder both write, and the folder ends up unreadable. So the
 * sandbox keeps a lock file in its data folder, created atomically (`O_EXCL`) before anything else is read or written
 * there, naming the process that holds it; a second `npm start`, `paycore serve` or `npm run migrate` on the folder
 * refuses to start, naming the first, and writes nothing. A lock whose process is gone (killed, crashed) is stale and
 * taken over.
 */
import { linkSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Data, Effect } from "effect"

/** The lock's name inside the data folder. */
export const LOCK_FILE = "paycore.lock"

/** What the lock file holds: who has the folder, since when. */
export interface DataDirHolder {
  readonly pid: number
  readonly startedAt: string
}

/** Another process has the data folder: this one must not open it. */
export class DataDirInUse extends Data.TaggedError("DataDirInUse")<{
  readonly dataDir: string
  /** The holder, when its lock could be read (a lock being written this instant cannot). */
  readonly holder: DataDirHolder | undefined
}> {
  override get message() {
    const lockFile = join(this.dataDir, LOCK_FILE)
    const who =
      this.holder === undefined
        ? "another process (starting right now)"
        : `process ${this.holder.pid} (started ${this.holder.startedAt})`
    return (
      `The data folder ${this.dataDir} is in use by ${who}: stop it first, or give this one another folder ` +
      `(PAYCORE_DATA_DIR or --data-dir).` +
      (this.holder === undefined ? "" : ` If no paycore runs as process ${this.holder.pid}, delete ${lockFile}.`)
    )
  }
}

const readLock = (file: string): DataDirHolder | undefined => {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<DataDirHolder>
    return Number.isInteger(parsed.pid) && typeof parsed.startedAt === "string"
      ? { pid: parsed.pid as number, startedAt: parsed.startedAt }
      : undefined
  } catch {
    return undefined
  }
}

/** Whether a process of that id exists (EPERM: it does, under another user). */
const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const ageMs = (file: string): number => {
  try {
    return Date.now() - statSync(file).mtimeMs
  } catch {
    return Number.POSITIVE_INFINITY
  }
}

/** A lock file that cannot be read yet is another process writing it, for this long at most. */
const BEING_WRITTEN_MS = 10_000

/** The folders this process holds: a second open in the same process is refused as well. */
const held = new Set<string>()

const errnoOf = (error: unknown) => (error as NodeJS.ErrnoException).code

/**
 * Takes the lock of `dataDir` (which exists), or fails with `DataDirInUse`. Returns its release. A lock is stale when
 * its process is gone, or is this very process id (a container restarted on the same volume gets the same pid).
 */
const take = (dataDir: string): (() => void) | DataDirInUse => {
  const file = join(dataDir, LOCK_FILE)
  if (held.has(dataDir)) return new DataDirInUse({ dataDir, holder: readLock(file) })
  const mine: DataDirHolder = { pid: process.pid, startedAt: new Date().toISOString() }
  const text = JSON.stringify(mine)
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      writeFileSync(file, text, { flag: "wx", mode: 0o600 })
      held.add(dataDir)
      const release = () => {
        process.off("exit", release)
        held.delete(dataDir)
        // Only our own lock: never one another process took over meanwhile.
        const current = readLock(file)
        if (current?.pid === mine.pid && current.startedAt === mine.startedAt) {
          try {
            unlinkSync(file)
          } catch {
            // Gone already: nothing to release.
          }
        }
      }
      process.once("exit", release)
      return release
    } catch (error) {
      if (errnoOf(error) !== "EEXIST") throw error
    }
    const holder = readLock(file)
    if (holder === undefined ? ageMs(file) < BEING_WRITTEN_MS : holder.pid !== process.pid && isAlive(holder.pid)) {
      return new DataDirInUse({ dataDir, holder })
    }
    // Stale. Moved aside atomically, then checked: when two processes take over at once, the second may have moved
    // the first one's new lock, and puts it back (link fails if a lock is there again).
    const aside = `${file}.${process.pid}.stale`
    try {
      renameSync(file, aside)
    } catch (error) {
      if (errnoOf(error) === "ENOENT") continue
      throw error
    }
    const moved = readLock(aside)
    if (moved !== undefined && moved.pid !== process.pid && isAlive(moved.pid)) {
      try {
        linkSync(aside, file)
      } catch (error) {
        if (errnoOf(error) !== "EEXIST") throw error
      }
    }
    unlinkSync(aside)
  }
  return new DataDirInUse({ dataDir, holder: readLock(file) })
}

/** Holds the lock of `dataDir` for the scope (released when it closes, or when the process exits). */
export const lockDataDir = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const taken = take(dataDir)
      return taken instanceof DataDirInUse ? Effect.fail(taken) : Effect.succeed(taken)
    }),
    (release) => Effect.sync(release)
  )
