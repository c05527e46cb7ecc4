/**
 * Issue 32 item 6, the front doors of `npm start`, with real processes: `/` redirects to the dashboard and `/docs` to
 * the API reference; a second `npm start` (or `npm run migrate`) on the same data folder refuses to start with one
 * line naming the first process (its pid and start time) and writes nothing there; the lock goes with a clean stop,
 * and the lock of a killed process is stale: the next start takes it over.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const MAIN = new URL("../src/main.ts", import.meta.url).pathname
const MIGRATE = new URL("../src/migrate.ts", import.meta.url).pathname
const LOCK = "paycore.lock"

interface Started {
  readonly process: ChildProcess
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly exited: Promise<number | null>
}

interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const env = (dataDir: string) => {
  const { DATABASE_URL: _, ...inherited } = process.env
  const own = Object.fromEntries(Object.entries(inherited).filter(([name]) => !name.startsWith("PAYCORE_")))
  return { ...own, PORT: "0", PAYCORE_DATA_DIR: dataDir }
}

/** `npm start`'s program on `dataDir`, until its banner is out. */
const start = (dataDir: string): Promise<Started> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=@paycore/source", MAIN], {
      env: env(dataDir),
      stdio: ["ignore", "pipe", "pipe"]
    })
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /base URL\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(output)
      if (match !== null && output.includes("END PUBLIC KEY")) {
        child.stdout?.off("data", onData)
        child.stdout?.resume()
        resolve({ process: child, origin: match[1]!, exited })
      }
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString()
    })
    exited.then((code) => reject(new Error(`the server exited (${code}) before it was up:\n${output}`)))
  })

/** A program on `dataDir` run to its end. */
const runToEnd = (program: string, dataDir: string): Promise<Finished> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=@paycore/source", program], {
      env: env(dataDir),
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.once("error", reject)
    child.once("close", (code) => resolve({ code, stdout, stderr }))
  })

/** Every file under `dir` with its size and modification time: what a writer would change. */
const snapshot = (dir: string): Record<string, string> => {
  const files: Record<string, string> = {}
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) walk(path)
      else {
        const stat = statSync(path)
        files[relative(dir, path)] = `${stat.size}:${stat.mtimeMs}`
      }
    }
  }
  walk(dir)
  return files
}

const lockOf = (dataDir: string) =>
  JSON.parse(readFileSync(join(dataDir, LOCK), "utf8")) as { pid: number; startedAt: string }

describe("npm start's front doors and its data folder lock (issue 32 item 6)", { timeout: 240_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), "paycore-doors-"))
  const started: Array<Started> = []
  afterAll(async () => {
    for (const s of started) {
      if (s.process.exitCode === null && s.process.signalCode === null) {
        s.process.kill("SIGCONT")
        s.process.kill("SIGKILL")
        await s.exited
      }
    }
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("/ redirects to the dashboard and /docs to the API reference", async () => {
    const first = await start(dataDir)
    started.push(first)
    for (const [path, target] of [
      ["/", "/dashboard/"],
      ["/docs", "/2025-10-13/docs"]
    ] as const) {
      for (const method of ["GET", "HEAD"]) {
        const answer = await fetch(`${first.origin}${path}`, { method, redirect: "manual" })
        expect(answer.status, `${method} ${path}`).toBe(302)
        expect(answer.headers.get("location")).toBe(target)
      }
      const followed = await fetch(`${first.origin}${path}`)
      expect(followed.url).toBe(`${first.origin}${target}`)
      expect(followed.headers.get("content-type")).toBe("text/html; charset=utf-8")
    }
  })

  it("a second npm start (and npm run migrate) on the folder refuses with one line naming the first, and writes nothing", async () => {
    const [first] = started
    const lock = lockOf(dataDir)
    expect(lock.pid).toBe(first!.process.pid)
    // The first process is frozen, so any change to the folder is the second one's.
    first!.process.kill("SIGSTOP")
    try {
      const before = snapshot(dataDir)
      for (const program of [MAIN, MIGRATE]) {
        const second = await runToEnd(program, dataDir)
        expect(second.code, program).toBe(1)
        expect(second.stdout).toBe("")
        const lines = second.stderr.trimEnd().split("\n")
        expect(lines).toHaveLength(1)
        expect(lines[0]).toContain(`in use by process ${lock.pid} (started ${lock.startedAt})`)
        expect(lines[0]).toContain("PAYCORE_DATA_DIR")
        expect(snapshot(dataDir)).toEqual(before)
      }
    } finally {
      first!.process.kill("SIGCONT")
    }
    expect((await fetch(`${first!.origin}/health`)).status).toBe(200)
  })

  it("a clean stop releases the lock; a killed server's lock is stale and the next start takes it over", async () => {
    const [first] = started
    first!.process.kill("SIGINT")
    await first!.exited
    expect(existsSync(join(dataDir, LOCK))).toBe(false)

    const second = await start(dataDir)
    started.push(second)
    expect(lockOf(dataDir).pid).toBe(second.process.pid)
    second.process.kill("SIGKILL")
    await second.exited
    // Left behind, naming a process that is gone.
    expect(lockOf(dataDir).pid).toBe(second.process.pid)

    const third = await start(dataDir)
    started.push(third)
    expect(lockOf(dataDir).pid).toBe(third.process.pid)
    expect((await fetch(`${third.origin}/health`)).status).toBe(200)
    third.process.kill("SIGINT")
    await third.exited
    expect(existsSync(join(dataDir, LOCK))).toBe(false)
  })
})
