/**
 * The walk-throughs run as written (issue 32 item 3): every shell block of README.md and docs/*.md (doc-blocks.ts
 * says which blocks and how they are marked), run in a reader's folder against a fresh `npm start` per document
 * (PGlite in `./.paycore-data`, a free port): the document's blocks in order in one shell (`sh -eu`: a failing
 * command stops it), then all of them again in a new shell on the same data, as a reader who follows the page a
 * second time. Every answer `curl` gets is recorded (a `curl` first on the PATH passes the reader's options on and
 * notes the status); a block whose non-2xx answers are not exactly the ones it announces (`# → 409`) fails, and so
 * does one that stops. Also checked without running: a block not run says why, the blocks use POSIX tools only,
 * idempotency keys are made per run, credentials come from the sandbox's `sandbox.env`.
 *
 * Needs `curl` and `jq` (the walk-throughs use both; .ci/run installs jq): without them it is skipped, saying so.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { answersMatch, documents, ROOT, type ShellBlock, shellBlocks } from "./doc-blocks.ts"

const which = (tool: string): string | undefined => {
  try {
    return execFileSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim() || undefined
  } catch {
    return undefined
  }
}
const CURL = which("curl")
const missing = ["curl", "jq"].filter((tool) => which(tool) === undefined)
if (missing.length > 0) {
  console.warn(
    `docs walk-throughs skipped: ${missing.join(" and ")} not found (Debian: apt-get install ${missing.join(" ")})`
  )
}

const SERVER_MAIN = join(ROOT, "examples/server/src/main.ts")
const MIGRATE_MAIN = join(ROOT, "examples/server/src/migrate.ts")

const all = documents().map((file) => ({ file, blocks: shellBlocks(file) }))
const blocksOf = (file: string) => all.find((doc) => doc.file === file)?.blocks ?? []
const walked = all.filter((doc) => doc.blocks.some((block) => block.noRun === undefined))

/** The environment of a reader's new terminal: nothing of paycore's, the test's `curl` first on the PATH. */
const readerEnv = (bin: string, log: string): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name !== "DATABASE_URL" && !name.startsWith("PAYCORE_"))
  ),
  PATH: `${bin}:${process.env.PATH}`,
  NO_COLOR: "1",
  WALK_LOG: log
})

/**
 * `curl` as the reader's command runs it, and the status of its answer (the last status line of the exchange, `000`
 * when there was none) with the request line appended to `$WALK_LOG`.
 */
const curlShim = (realCurl: string) => `#!/bin/sh
trace=$(mktemp)
code=0
'${realCurl}' --trace-ascii "$trace" "$@" || code=$?
status=$(sed -n 's|^0000: HTTP/[0-9.]* \\([0-9][0-9][0-9]\\).*|\\1|p' "$trace" | tail -n 1)
request=$(sed -n 's|^0000: \\([A-Z][A-Z]* [^ ]*\\) HTTP/.*|\\1|p' "$trace" | head -n 1)
[ -n "$request" ] || request=$(printf 'curl %s' "$*" | tr '\\n' ' ')
printf '%s %s\\n' "\${status:-000}" "$request" >> "$WALK_LOG"
rm -f "$trace"
exit $code
`

interface Sandbox {
  readonly process: ChildProcess
  readonly exited: Promise<unknown>
  /** What its banner printed. */
  readonly banner: string
}

/** `npm start`'s program with its data in `dataDir`, at a free port; up once it printed its banner. */
const startSandbox = (dataDir: string): Promise<Sandbox> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=@paycore/source", SERVER_MAIN], {
      cwd: ROOT,
      env: { ...readerEnv("", ""), PATH: process.env.PATH, PORT: "0", PAYCORE_DATA_DIR: dataDir },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const exited = new Promise((done) => child.once("exit", done))
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes("END PUBLIC KEY")) {
        child.stdout?.off("data", onData)
        child.stdout?.resume()
        resolve({ process: child, exited, banner: output })
      }
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString()
    })
    void exited.then((code) => reject(new Error(`the sandbox exited (${code}) before it was up:\n${output}`)))
  })

/** One run of a shell script in `cwd`; its exit code and output. */
const runShell = (script: string, cwd: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    // A walk-through that waits forever (a loop on a status that never comes) is stopped before the test's timeout.
    const child = spawn("sh", ["-eu"], {
      cwd,
      env,
      stdio: ["pipe", "pipe", "pipe"],
      timeout: 120_000,
      killSignal: "SIGKILL"
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.once("close", (code) => resolve({ code, output }))
    child.stdin.end(script)
  })

const where = (block: ShellBlock) => `${block.file}:${block.line}`

/** The blocks a document runs: those of the document it goes on from first (`after=`), then its own. */
const runBlocks = (file: string): ReadonlyArray<ShellBlock> => {
  const own = blocksOf(file).filter((block) => block.noRun === undefined)
  const after = own.find((block) => block.after !== undefined)?.after
  return [...(after === undefined ? [] : runBlocks(after)), ...own]
}

/** The document's blocks as one script, each announced in the log before it runs. */
const scriptOf = (blocks: ReadonlyArray<ShellBlock>): string =>
  [
    ...blocks.flatMap((block) => [`echo '@block ${where(block)}' >> "$WALK_LOG"`, block.script]),
    `echo '@end' >> "$WALK_LOG"`,
    ""
  ].join("\n")

/** What went wrong in one pass: blocks whose non-2xx answers differ from their announcements, or where it stopped. */
const problems = (blocks: ReadonlyArray<ShellBlock>, log: string, run: { code: number | null; output: string }) => {
  const answers = new Map<string, Array<string>>()
  let current = ""
  let ended = false
  for (const line of log.split("\n").filter((l) => l !== "")) {
    if (line.startsWith("@block ")) current = line.slice(7)
    else if (line === "@end") ended = true
    else answers.set(current, [...(answers.get(current) ?? []), line])
  }
  const found: Array<string> = []
  for (const block of blocks) {
    const failed = (answers.get(where(block)) ?? []).filter((a) => !/^2\d\d /.test(a))
    if (
      !answersMatch(
        failed.map((a) => Number(a.slice(0, 3))),
        block.announced
      )
    ) {
      found.push(
        `${where(block)}: non-2xx answers ${JSON.stringify(failed)}, announced ${JSON.stringify(block.announced)}`
      )
    }
  }
  if (!ended || run.code !== 0) found.push(`stopped (exit ${run.code}) in ${current}`)
  if (found.length > 0) found.push(`the shell's output ends:\n${run.output.split("\n").slice(-30).join("\n")}`)
  return found
}

describe("the docs' shell blocks (issue 32 item 3)", () => {
  const blocks = all.flatMap((doc) => doc.blocks)

  it("finds the walk-throughs", () => {
    expect(walked.map((doc) => doc.file)).toContain("README.md")
    expect(blocks.filter((block) => block.noRun === undefined).length).toBeGreaterThan(30)
  })

  it("reads announcements: each non-2xx answer announced in order; `or` a 2xx makes one optional", () => {
    expect(answersMatch([], [])).toBe(true)
    expect(answersMatch([409], [[409]])).toBe(true)
    expect(answersMatch([], [[409]])).toBe(false)
    expect(answersMatch([400], [[409]])).toBe(false)
    expect(answersMatch([409, 404], [[404], [409]])).toBe(false)
    expect(answersMatch([], [[201, 409]])).toBe(true)
    expect(answersMatch([409], [[201, 409]])).toBe(true)
    expect(answersMatch([409, 400], [[201, 409], [400]])).toBe(true)
    expect(answersMatch([400], [[201, 409], [400]])).toBe(true)
  })

  it("a block that is not run says why", () => {
    expect(blocks.filter((block) => block.noRun === "").map(where)).toEqual([])
  })

  it("uses POSIX tools and options only (macOS and Linux alike)", () => {
    const nonPosix = [
      /\bdate\b[^|;\n]*\s-d\b/, // GNU date's -d; POSIX has none
      /\buuidgen\b/,
      /\bsed\s+-i\b/,
      /\breadlink\s+-f\b/,
      /\bgrep\s+-[a-zA-Z]*P/,
      /\bbase64\s+-w\b/,
      /\[\[/,
      /<<</,
      /\$RANDOM\b/,
      /^\s*function\s/m,
      /\becho\s+-e\b/,
      /^\s*source\s/m
    ]
    const offending = blocks.flatMap((block) =>
      nonPosix.filter((pattern) => pattern.test(block.script)).map((pattern) => `${where(block)}: ${pattern}`)
    )
    expect(offending).toEqual([])
  })

  it("makes an idempotency key per run, and takes the credentials npm start wrote (sandbox.env)", () => {
    const fixedKeys = blocks.filter((block) => /Idempotency-Key:\s*[^$\s"'][^"'\s]*/i.test(block.script))
    expect(
      fixedKeys.map(where),
      "an Idempotency-Key must be made per run, e.g. $(od -An -N16 -tx1 /dev/urandom | tr -d ' \\n')"
    ).toEqual([])
    const fixedCredentials = blocks.filter((block) => /-u\s+['"]?[\w-]+:[\w-]+/.test(block.script))
    expect(fixedCredentials.map(where), "credentials come from . ./.paycore-data/sandbox.env").toEqual([])
  })
})

describe.skipIf(missing.length > 0)("the walk-throughs, run as written against npm start (issue 32 item 3)", () => {
  let work = ""
  let template = ""
  let bin = ""

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "paycore-walk-"))
    template = join(work, "template")
    bin = join(work, "bin")
    // Every document gets a fresh sandbox: its database migrated once here, copied for each (no migration to wait for).
    execFileSync(process.execPath, ["--conditions=@paycore/source", MIGRATE_MAIN], {
      cwd: ROOT,
      env: { ...readerEnv("", ""), PATH: process.env.PATH, PAYCORE_DATA_DIR: template },
      stdio: "pipe"
    })
    mkdirSync(bin)
    writeFileSync(join(bin, "curl"), curlShim(CURL!))
    chmodSync(join(bin, "curl"), 0o755)
  }, 180_000)
  afterAll(() => {
    if (work !== "") rmSync(work, { recursive: true, force: true })
  })

  // The documents run side by side (each its own sandbox): most of a walk-through's time is waiting on its server.
  it.concurrent.for(walked.map((doc) => doc.file))(
    "%s: every block, then every block again on the same data",
    { timeout: 300_000 },
    async (file, { expect }) => {
      const blocks = runBlocks(file)
      const reader = mkdtempSync(join(work, "reader-"))
      // The reader's folder: the sandbox's data folder in it, and the packages as `npx paycore` finds them.
      symlinkSync(join(ROOT, "node_modules"), join(reader, "node_modules"))
      cpSync(template, join(reader, ".paycore-data"), { recursive: true })
      const sandbox = await startSandbox(join(reader, ".paycore-data"))
      try {
        for (const pass of [1, 2]) {
          const log = join(reader, `walk-${pass}.log`)
          writeFileSync(log, "")
          const run = await runShell(scriptOf(blocks), reader, readerEnv(bin, log))
          expect(problems(blocks, readFileSync(log, "utf8"), run), `pass ${pass} of ${file}`).toEqual([])
        }
      } finally {
        sandbox.process.kill("SIGTERM")
        await sandbox.exited
      }
    }
  )

  // Beside the documents (declared after them: they take the first slots of vitest's maxConcurrency, cli.md the
  // longest among them), not before them.
  it.concurrent("npm start writes sandbox.env at each start: the URL and token its banner printed, owner-only", async ({
    expect
  }) => {
    const reader = mkdtempSync(join(work, "restart-"))
    cpSync(template, join(reader, ".paycore-data"), { recursive: true })
    const env = join(reader, ".paycore-data", "sandbox.env")
    const read = () =>
      execFileSync("sh", ["-c", ". ./.paycore-data/sandbox.env && echo $PAYCORE_API $PAYCORE_CLIENT_ID"], {
        cwd: reader,
        encoding: "utf8"
      }).trim()
    const seen: Array<string> = []
    for (const _ of [1, 2]) {
      const sandbox = await startSandbox(join(reader, ".paycore-data"))
      // What the banner printed, as the file says it.
      const printed = (name: string) => new RegExp(`${name}\\s+(\\S+)`).exec(sandbox.banner)?.[1]
      expect(read()).toBe(`${printed("base URL")} ${printed("token id")}`)
      expect(statSync(env).mode & 0o777).toBe(0o600)
      seen.push(read())
      sandbox.process.kill("SIGTERM")
      await sandbox.exited
    }
    // The token is kept in the data folder: the same at the second start.
    expect(seen[1]!.split(" ")[1]).toBe(seen[0]!.split(" ")[1])
    // Two starts and stops of the sandbox on PGlite, beside the walk-throughs' own sandboxes: 23-26 s in a full run,
    // past 30 s once in CI. A limit, not a measurement.
  }, 120_000)
})
