/**
 * `paycore trigger` and `paycore listen` (issue 18 item 4; docs/cli.md): against a sandbox the test starts, `listen`
 * forwards the server's webhook stream to a local receiver that accepts only what verifies with the printed secret
 * (Standard Webhooks); each trigger's webhooks arrive there, about the ids it printed. Against a stream that drops
 * the connection, `listen` connects again with `Last-Event-ID` and forwards each event once.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  apiEnv,
  interrupt,
  jsonLines,
  type Receiver,
  type Running,
  runCli,
  startCli,
  startReceiver,
  startSandbox
} from "./kit.ts"

/** Each trigger and the webhook types it must make arrive. */
const TRIGGERS = {
  "payment.completed": ["OUTGOING_PAYMENT.COMPLETED"],
  "payment.failed": ["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_PENDING", "OUTGOING_PAYMENT.REFUND_COMPLETED"],
  "payment.returned": ["INCOMING_PAYMENT.REFUND_PENDING", "INCOMING_PAYMENT.REFUND_COMPLETED"],
  "card.authorization": ["CARD_TRANSACTION.AUTHORIZED"],
  "kyc.approved": ["CUSTOMER.KYC_APPROVED"],
  "kyc.rejected": ["CUSTOMER.KYC_REJECTED"]
} as const

/** Starts `paycore listen --json` and waits until it is connected; its signing secret. */
const startListener = async (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const running = await startCli(["listen", ...args, "--json"], env, (out) => out.includes('"connected"'))
  const [start] = jsonLines(running.stdout())
  return { running, secret: start.secret as string }
}

// Each command is a process that loads the engine: seconds apiece on a loaded machine. A limit, not a measurement.
describe("paycore trigger, forwarded by paycore listen (issue 18 item 4)", { timeout: 240_000 }, () => {
  let sandbox: Running & { readonly baseUrl: string }
  let receiver: Receiver
  let listener: Running
  let secret = ""
  beforeAll(async () => {
    sandbox = await startSandbox()
    receiver = await startReceiver(() => secret)
    const started = await startListener(["--forward-to", receiver.url], apiEnv(sandbox.baseUrl))
    listener = started.running
    secret = started.secret
  })
  afterAll(async () => {
    await interrupt(listener)
    await interrupt(sandbox)
    await receiver.close()
  })

  it("listen prints a new whsec_ secret at start", () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
  })

  for (const [event, types] of Object.entries(TRIGGERS)) {
    it(`trigger ${event}: prints the ids it made and ${types.join(", ")}, which arrive signed`, async () => {
      const run = await runCli(["trigger", event, "--json"], apiEnv(sandbox.baseUrl))
      expect(run.code, run.stderr).toBe(0)
      const [result] = jsonLines(run.stdout)
      expect(result).toMatchObject({ event, expect: types })
      // Issue 32 item 4: when they come. A payout's at its rail's settlement, as the server computed it (its
      // speed-up in force); the others within the next worker pass.
      if (event.startsWith("payment.") && event !== "payment.returned") {
        expect(result.expectedAt).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/))
      } else {
        expect(result.expectedAt).toBeNull()
      }
      const ids = Object.values(result.ids as Record<string, string>)
      expect(ids.length).toBeGreaterThan(0)
      for (const type of types) {
        const arrived = await receiver.waitFor((e) => e.type === type && ids.some((id) => e.body.includes(id)))
        expect(JSON.parse(arrived.body).type).toBe(type)
      }
      expect(receiver.refused).toEqual([])
    })
  }

  it("listen prints one line per forwarded event: the receiver's status, the type, the subject", () => {
    const forwarded = jsonLines(listener.stdout()).filter((line) => "type" in line)
    expect(forwarded.length).toBeGreaterThanOrEqual(receiver.verified.length)
    expect(new Set(forwarded.map((line) => line.status))).toEqual(new Set([204]))
    expect(forwarded.map((line) => line.type)).toEqual(expect.arrayContaining(Object.values(TRIGGERS).flat()))
  })
})

describe("paycore listen against a stream that drops (issue 18 item 4)", { timeout: 240_000 }, () => {
  it("connects again with Last-Event-ID; --events forwards only those types; the human line", async () => {
    const seen: Array<string | undefined> = []
    let next = 0
    // Two events per connection, then the server hangs up.
    const stream = createServer((req, res) => {
      seen.push(req.headers["last-event-id"] as string | undefined)
      res.writeHead(200, { "content-type": "text/event-stream" })
      for (const type of ["OUTGOING_PAYMENT.COMPLETED", "CUSTOMER.KYC_APPROVED"]) {
        next += 1
        const body = JSON.stringify({
          id: `Webhook:${next}`,
          type,
          timestamp: "2026-01-01T00:00:00Z",
          data: { id: `Transaction:${next}` }
        })
        res.write(`id: Webhook:${next}\nevent: ${type}\ndata: ${body}\n\n`)
      }
      res.end()
    })
    await new Promise<void>((resolve) => stream.listen(0, "127.0.0.1", resolve))
    let secret = ""
    const receiver = await startReceiver(() => secret)
    const running = await startCli(
      [
        "listen",
        "--forward-to",
        receiver.url,
        "--events",
        "OUTGOING_PAYMENT.COMPLETED",
        "--secret",
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
      ],
      {
        PAYCORE_API: `http://127.0.0.1:${(stream.address() as AddressInfo).port}`,
        PAYCORE_CLIENT_ID: "id",
        PAYCORE_CLIENT_SECRET: "secret"
      },
      (out) => out.includes("Ready.")
    )
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    await receiver.waitFor((e) => e.body.includes("Transaction:5"))
    await interrupt(running)
    stream.close()
    await receiver.close()

    expect(seen.slice(0, 3)).toEqual([undefined, "Webhook:2", "Webhook:4"])
    // Only the asked-for type, each event once, in order.
    expect(receiver.verified.map((e) => JSON.parse(e.body).id).slice(0, 3)).toEqual([
      "Webhook:1",
      "Webhook:3",
      "Webhook:5"
    ])
    expect(new Set(receiver.verified.map((e) => e.type))).toEqual(new Set(["OUTGOING_PAYMENT.COMPLETED"]))
    expect(receiver.refused).toEqual([])
    expect(running.stdout()).toContain("→ 204 OUTGOING_PAYMENT.COMPLETED Transaction:1\n")
    // A secret the user gave is theirs: never printed back.
    expect(running.stdout()).not.toContain(secret)
  })
})
