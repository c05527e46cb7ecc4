/**
 * The commands the install test runs, as a user runs them in a shell: with none of the monorepo's environment (no
 * `NODE_OPTIONS=--conditions=@paycore/source`, which vitest.config.ts sets for the processes tests spawn; no npm or
 * vitest variables), and, on failure, a message that shows the command and what it printed.
 */
import { type ChildProcess, spawn } from "node:child_process"

export interface Ran {
  /** The command line, as a user would type it. */
  readonly command: string
  readonly cwd: string
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  readonly millis: number
}

export interface RunOptions {
  readonly cwd: string
  /** Variables added to the user's environment (`undefined` removes one). */
  readonly env?: Record<string, string | undefined> | undefined
  /** Killed after this long (its output so far goes into the failure message). */
  readonly timeoutMs?: number | undefined
}

/**
 * What the monorepo's processes have and a user's shell has not: the source condition (`NODE_OPTIONS`), vitest's
 * variables, what `npm test` sets about this package and this folder (an `npm_config_prefix` or `local_prefix` would
 * send a child `npm install` to the repository). The npm configuration of the machine (`npm_config_registry`, the
 * cache, proxies) stays. `DATABASE_URL` and `PAYCORE_*` go too: each program gets the ones it is meant to see.
 */
const NOT_THE_USERS =
  /^(NODE_OPTIONS|NODE_ENV|INIT_CWD|TEST|FORCE_COLOR|DATABASE_URL|npm_command|npm_execpath|npm_node_execpath)$|^(VITEST|PAYCORE_|npm_package_|npm_lifecycle_|npm_config_(local_prefix|prefix|workspaces?|include_workspace_root|user_agent|npm_version)$)/i

/** A user's shell: the machine's variables (PATH, HOME, the npm configuration), none of the monorepo's. */
export const userEnv = (extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !NOT_THE_USERS.test(name)) env[name] = value
  env.NO_COLOR = "1"
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name]
    else env[name] = value
  }
  return env
}

const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`)

export const commandLine = (command: string, args: ReadonlyArray<string>) => [command, ...args].map(quote).join(" ")

const tail = (text: string, max = 6_000) => (text.length <= max ? text : `…${text.slice(-max)}`)

/** What the user saw: the command, where, how it ended, and its output (the end of it, when long). */
export const describeRun = (ran: Ran): string =>
  [
    `$ ${ran.command}`,
    `  (in ${ran.cwd}; ${ran.signal === null ? `exit code ${ran.code}` : `killed by ${ran.signal}`} after ${(ran.millis / 1000).toFixed(1)} s)`,
    ran.stdout.trim() === "" ? "  (no output on stdout)" : `--- stdout ---\n${tail(ran.stdout.trimEnd())}`,
    ran.stderr.trim() === "" ? "  (no output on stderr)" : `--- stderr ---\n${tail(ran.stderr.trimEnd())}`
  ].join("\n")

/** Runs a command to its end; never rejects (a command that could not start ends with code null and the error). */
export const run = (command: string, args: ReadonlyArray<string>, options: RunOptions): Promise<Ran> =>
  new Promise((resolve) => {
    const started = performance.now()
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: userEnv(options.env),
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            stderr += `\n[the install test stopped it after ${options.timeoutMs} ms]`
            child.kill("SIGKILL")
          }, options.timeoutMs)
    const done = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer)
      resolve({
        command: commandLine(command, args),
        cwd: options.cwd,
        code,
        signal,
        stdout,
        stderr,
        millis: performance.now() - started
      })
    }
    child.once("error", (error) => {
      stderr += String(error)
      done(null, null)
    })
    child.once("close", done)
  })

/** Runs a command and throws what the user saw unless it exited 0. */
export const succeed = async (command: string, args: ReadonlyArray<string>, options: RunOptions): Promise<Ran> => {
  const ran = await run(command, args, options)
  if (ran.code !== 0) throw new Error(`this command failed:\n${describeRun(ran)}`)
  return ran
}

export interface Started {
  readonly command: string
  /** The match of the line that said it is ready. */
  readonly ready: RegExpMatchArray
  /** Everything it printed so far, stdout and stderr interleaved. */
  readonly output: () => string
  /** Sends `signal` and waits for the process to end (SIGKILL after `graceMs`): its exit code, or the signal. */
  readonly stop: (signal?: NodeJS.Signals, graceMs?: number) => Promise<number | NodeJS.Signals | null>
}

/** Starts a long-running program and waits until its output matches `ready`; throws what it printed otherwise. */
export const start = (
  command: string,
  args: ReadonlyArray<string>,
  options: RunOptions & { readonly ready: RegExp }
): Promise<Started> =>
  new Promise((resolve, reject) => {
    const line = commandLine(command, args)
    const child: ChildProcess = spawn(command, args, {
      cwd: options.cwd,
      env: userEnv(options.env),
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    let started = false
    let timer: NodeJS.Timeout | undefined
    const exited = new Promise<number | NodeJS.Signals | null>((done) =>
      child.once("exit", (code, signal) => done(signal ?? code))
    )
    const stop = async (signal: NodeJS.Signals = "SIGTERM", graceMs = 15_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return child.signalCode ?? child.exitCode
      child.kill(signal)
      const kill = setTimeout(() => child.kill("SIGKILL"), graceMs)
      const result = await exited
      clearTimeout(kill)
      return result
    }
    const fail = (why: string) => {
      if (started) return
      started = true
      clearTimeout(timer)
      void stop("SIGKILL")
      reject(new Error(`$ ${line}\n  (in ${options.cwd}) ${why}\n--- output ---\n${tail(output.trimEnd())}`))
    }
    const onData = (chunk: string) => {
      output += chunk
      const match = output.match(options.ready)
      if (match !== null && !started) {
        started = true
        clearTimeout(timer)
        resolve({ command: line, ready: match, output: () => output, stop })
      }
    }
    child.stdout?.setEncoding("utf8").on("data", onData)
    child.stderr?.setEncoding("utf8").on("data", onData)
    child.once("error", (error) => fail(`could not start: ${String(error)}`))
    void exited.then((code) => fail(`ended (${code}) before printing ${options.ready}`))
    const timeoutMs = options.timeoutMs ?? 60_000
    timer = setTimeout(() => fail(`printed no ${options.ready} within ${timeoutMs} ms`), timeoutMs)
  })

/** Runs `task` over `items`, at most `limit` at once, in order of the results. */
export const mapLimit = async <A, B>(items: ReadonlyArray<A>, limit: number, task: (item: A) => Promise<B>) => {
  const results: Array<B> = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await task(items[index]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}
