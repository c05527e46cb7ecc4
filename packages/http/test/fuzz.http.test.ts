/**
 * Every endpoint under fire (issue 12; C-02, C-03, E-01 and the rows of every endpoint's validation): valid and
 * hostile requests drawn from the route table and the Schemas, on the memory store, PGlite and PostgreSQL.
 * Every answer is a 2xx, or a 4xx in the error body (or a designed 5xx, `isDesignedServerAnswer`: 501 NOT_IMPLEMENTED
 * on the card routes where no card issuer is configured, CD-42, or 503 SERVICE_UNAVAILABLE from a provider the sandbox
 * makes unreachable); nothing hangs; a request answered 4xx or 5xx, and every read, changes nothing in the store; and
 * after the run no money was created or lost.
 *
 * CI runs each store for a time budget with a fixed seed. A longer run:
 *   PAYCORE_FUZZ_SECONDS=600 PAYCORE_FUZZ_SEED=random npx vitest run packages/http/test/fuzz.http.test.ts
 * A failing case prints its seed, index and a curl command; replay with PAYCORE_FUZZ_SEED=<seed>
 * PAYCORE_FUZZ_CASES=<index + 1> (the run up to it is drawn again from the seed).
 */
import { isDeepStrictEqual } from "node:util"
import { contactChallengeKey, isoOf, Store, usageKeys } from "@paycore/core"
import { ledgerViolations, type StoreSnapshot, snapshotStore } from "@paycore/testkit"
import { Effect } from "effect"
import { expect, it } from "vitest"
import { API_VERSION } from "../src/index.ts"
import { seedFixtures } from "./fixtures.ts"
import {
  answerProblems,
  describeCase,
  type FuzzCase,
  type FuzzResponse,
  IdPool,
  isAgentRoute,
  MUTATIONS,
  makeCase,
  routeTable,
  sendCase
} from "./fuzzer.ts"
import { startTestServer, type TestServer } from "./harness.ts"
import { onEveryStore } from "./stores.ts"

const seedSetting = process.env.PAYCORE_FUZZ_SEED
const SEED =
  seedSetting === "random" ? Math.floor(Math.random() * 2 ** 31) : Number(seedSetting ?? 20261124) >>> 0 || 20261124
const SECONDS = Number(process.env.PAYCORE_FUZZ_SECONDS ?? 12)
const MAX_CASES = Number(process.env.PAYCORE_FUZZ_CASES ?? Number.POSITIVE_INFINITY)

/**
 * 4xx answers that change the store by design, each with its reason. Nothing else may.
 * A wrong contact-verification code is refused (400) and counted, so codes cannot be guessed without limit.
 * A wrong or late ownership signature spends the challenge: the account becomes UNVERIFIED with its event, committed
 * before the 400 (AC-30), so one message is good for one attempt.
 */
const spentChallenge = (key: string, r: FuzzResponse) =>
  (key === "externalAccounts" || key === "ownershipChallenges" || key === "outbox") &&
  r.status === 400 &&
  /"reason":"(SIGNATURE_INVALID|CHALLENGE_EXPIRED)"/.test(r.text)
const CHANGES_BY_DESIGN: Readonly<Record<string, (key: string, r: FuzzResponse) => boolean>> = {
  "onboarding.confirmEmailCode": (key) => key.startsWith("contact/"),
  "onboarding.confirmPhoneCode": (key) => key.startsWith("contact/"),
  "accounts.verifyOwnership": spentChallenge,
  "accounts.verifyPlatformOwnership": spentChallenge
}

/** Whether `part` of `after` is `part` of `before` with rows added (none changed or gone) that all pass `added`. */
const onlyAdded = (
  before: StoreSnapshot,
  after: StoreSnapshot,
  part: string,
  added: (row: Record<string, unknown>) => boolean
): boolean => {
  const was = before.collections[part] ?? []
  const now = (after.collections[part] ?? []) as ReadonlyArray<Record<string, unknown>>
  const kept = now.filter((a) => was.some((b) => isDeepStrictEqual(a, b)))
  return kept.length === was.length && now.every((a) => kept.includes(a) || added(a))
}

/**
 * Reads that write by design, and the one part of the store each may change: a list of the platform's internal
 * accounts first creates the missing ones (AC-01), so it may add accounts without a customer; a receiver lookup is
 * kept for the quote that names it (Q-03), so it adds one lookup.
 */
const READS_THAT_WRITE: Readonly<
  Record<string, (part: string, before: StoreSnapshot, after: StoreSnapshot) => boolean>
> = {
  "accounts.listPlatformInternal": (part, before, after) =>
    part === "internalAccounts" && onlyAdded(before, after, part, (a) => a.customerId === undefined),
  "payments.lookupExternalAccount": (part, before, after) =>
    part === "lookups" && onlyAdded(before, after, part, () => true),
  "payments.lookupUma": (part, before, after) => part === "lookups" && onlyAdded(before, after, part, () => true)
}

/** The parts of two snapshots that differ: collection names and keyed records. */
const differences = (a: StoreSnapshot, b: StoreSnapshot): Array<string> => {
  const out: Array<string> = []
  for (const name of Object.keys({ ...a.collections, ...b.collections })) {
    if (!isDeepStrictEqual(a.collections[name], b.collections[name])) out.push(name)
  }
  if (!isDeepStrictEqual(a.balances, b.balances)) {
    const key = (x: unknown) => JSON.stringify(x)
    const before = new Set(a.balances.map(key))
    const after = new Set(b.balances.map(key))
    const gone = [...before].filter((x) => !after.has(x))
    const came = [...after].filter((x) => !before.has(x))
    out.push(`ledger balances (${gone.join(" ")} -> ${came.join(" ")})`)
  }
  if (!isDeepStrictEqual(a.outbox, b.outbox)) out.push("outbox")
  if (!isDeepStrictEqual(a.config, b.config)) out.push("config")
  for (const key of Object.keys({ ...a.keyed, ...b.keyed })) {
    if (!isDeepStrictEqual(a.keyed[key], b.keyed[key])) out.push(key)
  }
  return out
}

const runFuzz = async (server: TestServer, label: string) => {
  const routes = routeTable()
  const pool = new IdPool()
  const { customers, agent } = await seedFixtures(server, pool)
  const origin = new URL(server.baseUrl)
  const prefix = `/${API_VERSION}`
  const authorization = `Basic ${Buffer.from(`${server.admin.clientId}:${server.admin.clientSecret}`).toString("base64")}`
  // The agent's routes get its Bearer token, so they are fuzzed past the authentication gate (A-07).
  const credentials = { platform: authorization, agent: `Bearer ${agent.accessToken}` }
  const idempotencyKeys = new Set<string>()
  const contactKeys = customers.flatMap((id) => [contactChallengeKey(id, "EMAIL"), contactChallengeKey(id, "PHONE")])
  // The agent's usage of the run's day (a refused agent call counts nothing, AG-06).
  const agentCounters = Object.values(usageKeys(agent.agentId, "USD", isoOf(Date.now())))
  const snapshot = () =>
    Effect.runPromise(
      snapshotStore({ idempotency: idempotencyKeys, contactChallenges: contactKeys, counters: agentCounters }).pipe(
        Effect.provideService(Store, server.store)
      )
    )
  const fail = (c: FuzzCase, r: FuzzResponse | undefined, problems: ReadonlyArray<string>) => {
    const answer = r === undefined ? "no answer" : `${r.status} ${r.text.slice(0, 500)}`
    throw new Error(
      `fuzz case failed on ${label}: ${problems.join("; ")}\n` +
        `  seed ${SEED}, case ${c.index} (${c.endpoint}, ${c.mutation}); replay: PAYCORE_FUZZ_SEED=${SEED} ` +
        `PAYCORE_FUZZ_CASES=${c.index + 1}\n  ${describeCase(c, server.baseUrl)}\n  answered: ${answer}`
    )
  }

  const statuses = new Map<number, number>()
  const mutations = new Map<string, number>()
  const endpoints = new Set<string>()
  let checkedUnchanged = 0
  const deadline = Date.now() + SECONDS * 1000
  let before = await snapshot()
  let index = 0
  for (; index < MAX_CASES && (MAX_CASES !== Number.POSITIVE_INFINITY || Date.now() < deadline); index++) {
    const c = makeCase(SEED, index, routes, pool, credentials)
    // Keys are scoped to their caller (app.ts): the agent's own, or the platform's.
    const scope = isAgentRoute(c.endpoint) ? `agent:${agent.agentId}` : "platform"
    if (c.idempotencyKey !== undefined) idempotencyKeys.add(`${scope}:${c.idempotencyKey}`)
    let r: FuzzResponse
    try {
      r = await sendCase(origin, prefix, c)
    } catch (error) {
      fail(c, undefined, [String(error)])
      return
    }
    const problems = answerProblems(c, r)
    if (problems.length > 0) fail(c, r, problems)
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1)
    mutations.set(c.mutation, (mutations.get(c.mutation) ?? 0) + 1)
    endpoints.add(c.endpoint)

    const isRead = c.method === "GET" || c.method === "HEAD" || c.method === "OPTIONS"
    if (r.status >= 400 || isRead) {
      const after = await snapshot()
      const allowed = r.status >= 400 ? CHANGES_BY_DESIGN[c.endpoint] : undefined
      const writes = r.status < 400 ? READS_THAT_WRITE[c.endpoint] : undefined
      const changed = differences(before, after).filter(
        (part) => (allowed === undefined || !allowed(part, r)) && !writes?.(part, before, after)
      )
      if (changed.length > 0) fail(c, r, [`a ${isRead ? "read" : "refused request"} changed ${changed.join(", ")}`])
      checkedUnchanged++
      before = after
    } else {
      const body = r.text === "" ? undefined : (JSON.parse(r.text) as { jobId?: string })
      pool.harvest(body)
      // A bulk import goes on after its 202: wait for its job to end before the next snapshot.
      if (c.endpoint === "customers.bulkImportCsv" && body?.jobId !== undefined) await jobEnded(server, body.jobId)
      before = await snapshot()
    }
  }

  const violations = await Effect.runPromise(ledgerViolations.pipe(Effect.provideService(Store, server.store)))
  expect(violations).toEqual([])
  // The figures docs/reliability.md reports.
  console.log(
    `fuzz ${label}: seed ${SEED}, ${index} cases in ${SECONDS}s budget, ${endpoints.size}/${routes.length} endpoints, ` +
      `${checkedUnchanged} checked unchanged; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; ` +
      `mutations ${JSON.stringify(Object.fromEntries(MUTATIONS.map((m) => [m, mutations.get(m) ?? 0])))}`
  )
  expect(index).toBeGreaterThan(0)
}

const jobEnded = async (server: TestServer, jobId: string) => {
  for (let i = 0; i < 200; i++) {
    const job = await server.call("GET", `/customers/bulk/jobs/${jobId}`)
    if (job.json.status !== "PENDING" && job.json.status !== "PROCESSING") return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`bulk import job ${jobId} did not end`)
}

onEveryStore("the endpoint fuzzer", "fuzz", (stores) => {
  it(
    `every answer is a 2xx or a 4xx in the error body, and a refused request changes nothing (seed ${SEED})`,
    async () => {
      const server = await startTestServer(stores())
      try {
        await runFuzz(server, expect.getState().currentTestName?.split(" >")[0] ?? "store")
      } finally {
        await server.close()
      }
    },
    (SECONDS + 60) * 1000
  )
})
