/**
 * Issue 32 item 4: every failure a person can cause is one line on stderr saying what to do, exit code 1, nothing on
 * stdout and no stack trace; `--verbose` adds the cause. Each case is the CLI as a child process: no server running,
 * half-given credentials (not silently replaced by the kept ones), an unknown event for `trigger`, a receiver that is
 * not listening for `listen`. Wrong credentials (401) against a real sandbox: cli.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Finished, runCli } from "./kit.ts"

/** A port nothing listens on: one the OS gave and took back. */
const closedPort = async (): Promise<number> => {
  const server = createServer()
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  const { port } = server.address() as AddressInfo
  await new Promise((done) => server.close(done))
  return port
}

/** One line on stderr, nothing on stdout, exit code 1, no stack trace. */
const expectOneLine = (run: Finished): string => {
  expect(run.code, run.stderr).toBe(1)
  expect(run.stdout).toBe("")
  const lines = run.stderr.trimEnd().split("\n")
  expect(lines, run.stderr).toHaveLength(1)
  expect(lines[0]).toMatch(/^error /)
  expect(run.stderr).not.toMatch(/\n\s+at |HttpClientError|TypeError/)
  return lines[0]!
}

// Each command is a process that loads the engine: seconds apiece on a loaded machine. A limit, not a measurement.
describe("paycore's failures, told in one line (issue 32 item 4)", { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), "paycore-cli-errors-"))
  let noServer = ""
  let receiver: Server
  let receiverUrl = ""
  beforeAll(async () => {
    noServer = `http://127.0.0.1:${await closedPort()}`
    // The credentials a sandbox keeps in its data folder: there, so a half-given pair could fall back to them.
    mkdirSync(dataDir, { recursive: true })
    writeFileSync(join(dataDir, "sandbox-credentials"), "kept-id:kept-secret\n")
    receiver = createServer((_, res) => res.writeHead(204).end())
    await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done))
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`
  })
  afterAll(async () => {
    await new Promise((done) => receiver.close(done))
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("no server running: says none answers there and how to start one; --verbose shows the cause", async () => {
    const env = { PAYCORE_API: noServer, PAYCORE_CLIENT_ID: "id", PAYCORE_CLIENT_SECRET: "secret" }
    const line = expectOneLine(await runCli(["tokens", "list"], env))
    expect(line).toBe(
      `error no server answers at ${noServer} (connection refused): start one with \`npm start\` or \`paycore serve\`, ` +
        "or point --api (PAYCORE_API) at yours"
    )
    const verbose = await runCli(["tokens", "list", "--verbose"], env)
    expect(verbose.code).toBe(1)
    expect(verbose.stderr.split("\n")[0]).toBe(line)
    expect(verbose.stderr).toContain("ECONNREFUSED")
  })

  it("half-given credentials are refused, not replaced by the kept ones", async () => {
    const env = { PAYCORE_API: noServer, PAYCORE_DATA_DIR: dataDir }
    const secretOnly = expectOneLine(await runCli(["tokens", "list", "--client-secret", "s3cret"], env))
    expect(secretOnly).toContain("--client-secret (or PAYCORE_CLIENT_SECRET) was given without --client-id")
    expect(secretOnly).not.toContain("s3cret")
    const idOnly = expectOneLine(await runCli(["tokens", "list"], { ...env, PAYCORE_CLIENT_ID: "someone" }))
    expect(idOnly).toContain("--client-id (or PAYCORE_CLIENT_ID) was given without --client-secret")
  })

  it("trigger with an unknown event: names the events and the command's --help, no help page dumped", async () => {
    const line = expectOneLine(await runCli(["trigger", "payment.nope"], { PAYCORE_API: noServer }))
    expect(line).toContain('"payment.nope"')
    expect(line).toContain('"payment.failed"')
    expect(line).toContain("(see `paycore trigger --help`)")
  })

  it("listen to a receiver that is not listening: says so before connecting anywhere", async () => {
    const receiverDown = `http://127.0.0.1:${await closedPort()}/webhooks`
    const line = expectOneLine(
      await runCli(["listen", "--forward-to", receiverDown], { PAYCORE_API: noServer, PAYCORE_DATA_DIR: dataDir })
    )
    expect(line).toBe(
      `error nothing listens at ${receiverDown} (ECONNREFUSED): start your webhook receiver first, or fix --forward-to`
    )
    const notUrl = expectOneLine(await runCli(["listen", "--forward-to", "localhost:3000"], { PAYCORE_API: noServer }))
    expect(notUrl).toContain("--forward-to: an http:// or https:// URL")
  })

  it("listen with no server: one line and exit 1, not an endless reconnect", async () => {
    const run = await runCli(["listen", "--forward-to", receiverUrl], {
      PAYCORE_API: noServer,
      PAYCORE_DATA_DIR: dataDir
    })
    expect(run.code).toBe(1)
    // The start banner (the signing secret) is on stdout; the failure is the one line on stderr.
    expect(run.stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(/^error no server answers at /)])
  })
})
