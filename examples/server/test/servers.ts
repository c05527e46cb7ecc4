/** What the tests that start `npm start`'s server in a process of its own share: the start, calls, polls. */
import { type ChildProcess, spawn } from "node:child_process"
import { expect } from "vitest"

export const MAIN = new URL("../src/main.ts", import.meta.url).pathname

export interface ServerProcess {
  readonly api: string
  readonly origin: string
  /** What the server printed until it was up (the banner). */
  readonly banner: string
  readonly process: ChildProcess
  readonly exited: Promise<number | null>
  /** Everything it printed so far. */
  readonly output: () => string
}

/**
 * Starts `src/main.ts` with `env` on a free port; resolves once its banner is printed. It inherits this process's
 * environment but DATABASE_URL and PAYCORE_* (the test says which store and settings the server gets).
 */
export const startServerProcess = (env: Record<string, string>): Promise<ServerProcess> =>
  new Promise((resolve, reject) => {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => name !== "DATABASE_URL" && !name.startsWith("PAYCORE_"))
    )
    const child = spawn(process.execPath, ["--conditions=@paycore/source", MAIN], {
      env: { ...inherited, PORT: "0", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
    let output = ""
    let started = false
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString()
      const match = /base URL\s+(\S+)/.exec(output)
      if (!started && match !== null && output.includes("END PUBLIC KEY")) {
        started = true
        const api = match[1]!
        resolve({ api, origin: new URL(api).origin, banner: output, process: child, exited, output: () => output })
      }
    })
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString()
    })
    exited.then((code) => {
      if (!started) reject(new Error(`server exited (${code}) before it was up:\n${output}`))
    })
  })

export interface Answer {
  readonly status: number
  readonly headers: Headers
  /** `Idempotent-Replayed: true`: the stored answer of an earlier request with the same key. */
  readonly replayed: boolean
  readonly json: any
}

export type Call = (
  api: string,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>
) => Promise<Answer>

/** Calls under one `Authorization` header value; a JSON body, a JSON answer. */
export const caller =
  (authorization: string): Call =>
  async (api, method, path, body, headers = {}) => {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: { authorization, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    return {
      status: response.status,
      headers: response.headers,
      replayed: response.headers.get("idempotent-replayed") === "true",
      json: text === "" ? undefined : JSON.parse(text)
    }
  }

/** Polls `probe` every 200 ms until it answers something. */
export const until = async <A>(what: string, probe: () => Promise<A | undefined>, timeoutMs = 60_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

/** Every row of a paged list. */
export const listAll = async (call: Call, api: string, path: string): Promise<Array<any>> => {
  const rows: Array<any> = []
  let cursor: string | undefined
  for (;;) {
    const sep = path.includes("?") ? "&" : "?"
    const page = await call(api, "GET", `${path}${sep}limit=100${cursor === undefined ? "" : `&cursor=${cursor}`}`)
    expect(page.status, JSON.stringify(page.json)).toBe(200)
    rows.push(...page.json.data)
    if (!page.json.hasMore) return rows
    cursor = page.json.nextCursor
  }
}
