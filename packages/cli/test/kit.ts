/**
 * Runs `paycore` as a user does: a child process of `node src/main.ts` (on the workspace's sources, as the monorepo
 * runs them: the `@paycore/source` export condition), its stdout and stderr collected; and a webhook receiver that
 * accepts only events signed with a given Standard Webhooks secret.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"

const MAIN = new URL("../src/main.ts", import.meta.url).pathname
/** node's arguments before the CLI's: the sources of every @paycore package, no build needed. */
const NODE_ARGS = ["--conditions=@paycore/source", MAIN]

/** The sandbox credentials every test server is started with. */
export const CREDENTIALS = { clientId: "cli-test", clientSecret: "cli-test-secret-0000000001" }

/** The parent's environment without anything that would choose a store or credentials for the child. */
const cleanEnv = (env: Record<string, string>) => {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name !== "DATABASE_URL" && !name.startsWith("PAYCORE_"))
  )
  return { ...inherited, NO_COLOR: "1", ...env }
}

export interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** `paycore ...args` to its end. */
export const runCli = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Finished> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_ARGS, ...args], {
      env: cleanEnv(env),
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

export interface Running {
  readonly process: ChildProcess
  /** Everything it printed on stdout so far. */
  readonly stdout: () => string
  readonly exited: Promise<number | null>
}

/** `paycore ...args` left running, once its stdout satisfies `ready`. */
export const startCli = (
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  ready: (stdout: string) => boolean
): Promise<Running> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_ARGS, ...args], {
      env: cleanEnv(env),
      stdio: ["ignore", "pipe", "pipe"]
    })
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
    let stdout = ""
    let stderr = ""
    let started = false
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
      if (!started && ready(stdout)) {
        started = true
        resolve({ process: child, stdout: () => stdout, exited })
      }
    })
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    exited.then((code) => {
      if (!started)
        reject(new Error(`paycore ${args.join(" ")} exited (${code}) before it was ready:\n${stdout}${stderr}`))
    })
  })

/** Interrupts a running command as Ctrl-C does; its exit code. */
export const interrupt = (running: Running): Promise<number | null> => {
  running.process.kill("SIGINT")
  return running.exited
}

/** `paycore serve` on the memory store at a free port, with known credentials; its base URL. */
export const startSandbox = async (): Promise<Running & { readonly baseUrl: string }> => {
  const running = await startCli(
    ["serve", "--port", "0"],
    {
      PAYCORE_STORE: "memory",
      PAYCORE_SANDBOX_CREDENTIALS: `${CREDENTIALS.clientId}:${CREDENTIALS.clientSecret}`,
      PAYCORE_SANDBOX_SPEEDUP: "1000000"
    },
    (out) => out.includes("END PUBLIC KEY")
  )
  const baseUrl = /base URL\s+(\S+)/.exec(running.stdout())?.[1]
  if (baseUrl === undefined) throw new Error(`no base URL in:\n${running.stdout()}`)
  return { ...running, baseUrl }
}

/** The environment a command needs to reach `baseUrl`'s server as its sandbox token. */
export const apiEnv = (baseUrl: string) => ({
  PAYCORE_API: new URL(baseUrl).origin,
  PAYCORE_CLIENT_ID: CREDENTIALS.clientId,
  PAYCORE_CLIENT_SECRET: CREDENTIALS.clientSecret
})

/** Each line of stdout parsed as one JSON document (`--json`). */
export const jsonLines = (stdout: string): Array<any> =>
  stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line))

export interface Received {
  readonly type: string
  readonly body: string
}

export interface Receiver {
  readonly url: string
  /** Events whose signature verified with the secret, in arrival order. */
  readonly verified: Array<Received>
  /** Requests whose signature did not verify. */
  readonly refused: Array<string>
  /** Resolves once an event satisfying `match` has arrived (the test's timeout bounds the wait). */
  readonly waitFor: (match: (event: Received) => boolean) => Promise<Received>
  readonly close: () => Promise<void>
}

/** A local webhook receiver that checks each request's Standard Webhooks signature with `secret()`. */
export const startReceiver = async (secret: () => string): Promise<Receiver> => {
  const verified: Array<Received> = []
  const refused: Array<string> = []
  const waiting = new Set<() => void>()
  const server: Server = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString()
    })
    req.on("end", () => {
      try {
        new Webhook(secret()).verify(body, req.headers as Record<string, string>)
        verified.push({ type: (JSON.parse(body) as { type: string }).type, body })
        res.writeHead(204).end()
        for (const wake of waiting) wake()
      } catch (error) {
        refused.push(String(error))
        res.writeHead(400).end()
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const waitFor = (match: (event: Received) => boolean) =>
    new Promise<Received>((resolve) => {
      const check = () => {
        const found = verified.find(match)
        if (found === undefined) return
        waiting.delete(check)
        resolve(found)
      }
      waiting.add(check)
      check()
    })
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    verified,
    refused,
    waitFor,
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }
}
