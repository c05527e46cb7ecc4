import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

/*
 * The PostgreSQL components the pooler and failover tests start themselves: a pgbouncer, PostgreSQL clusters
 * (initdb, pg_ctl, pg_basebackup from the Debian packages), and a TCP proxy that can be pointed elsewhere.
 * As root (CI), they run as the `postgres` user: initdb and pgbouncer refuse root.
 */

export const PG_BIN = "/usr/lib/postgresql/15/bin"
const PGBOUNCER = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].find((path) => existsSync(path))

export const hasPgbouncer = PGBOUNCER !== undefined
export const hasPgBinaries = ["initdb", "pg_ctl", "pg_basebackup"].every((tool) => existsSync(join(PG_BIN, tool)))

const asRoot = process.getuid?.() === 0

/** `command args` as the postgres user when we are root. */
const asPostgres = (command: string, args: ReadonlyArray<string>): [string, Array<string>] =>
  asRoot ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, [...args]]

const run = (command: string, args: ReadonlyArray<string>): string => {
  const [file, argv] = asPostgres(command, args)
  return execFileSync(file, argv, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
}

/** A temporary folder the postgres user owns (mode 0700, as a data directory must be). */
export const postgresTempDir = (prefix: string): { readonly path: string; readonly remove: () => void } => {
  const path = mkdtempSync(join(tmpdir(), prefix))
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim())
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim())
    chownSync(path, uid, gid)
  }
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) }
}

/** A TCP port nobody listens on now. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })

/** Resolves when something accepts TCP connections on `port` (within `ms`). */
export const waitForPort = async (port: number, ms = 10_000): Promise<void> => {
  const deadline = Date.now() + ms
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect(port, "127.0.0.1")
      socket.once("connect", () => {
        socket.destroy()
        resolve(true)
      })
      socket.once("error", () => resolve(false))
    })
    if (open) return
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

// ---------------------------------------------------------------------------------------------
// pgbouncer
// ---------------------------------------------------------------------------------------------

export interface Pgbouncer {
  readonly port: number
  /** A connection string to `database` through the pooler. */
  readonly url: (database: string) => string
  /** What pgbouncer wrote (its log). */
  readonly log: () => string
  readonly stop: () => Promise<void>
}

/**
 * A pgbouncer in `poolMode` in front of the server at `target` (every database, as user postgres, trust), on a free
 * port of 127.0.0.1: a child process, stopped by `stop()`.
 */
export const startPgbouncer = async (options: {
  readonly target: { readonly host: string; readonly port: number }
  readonly poolMode: "transaction" | "session"
  readonly poolSize?: number
}): Promise<Pgbouncer> => {
  if (PGBOUNCER === undefined) throw new Error("pgbouncer is not installed")
  const dir = postgresTempDir("paycore-pgbouncer-")
  const port = await freePort()
  const ini = join(dir.path, "pgbouncer.ini")
  writeFileSync(join(dir.path, "users.txt"), `"postgres" ""\n`, { mode: 0o644 })
  writeFileSync(
    ini,
    [
      "[databases]",
      `* = host=${options.target.host} port=${options.target.port}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${join(dir.path, "users.txt")}`,
      `pool_mode = ${options.poolMode}`,
      `default_pool_size = ${options.poolSize ?? 10}`,
      "max_client_conn = 200"
    ].join("\n"),
    { mode: 0o644 }
  )
  const child: ChildProcess = spawn(PGBOUNCER, asRoot ? ["-u", "postgres", ini] : [ini], {
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += String(chunk)))
  child.stderr!.on("data", (chunk) => (output += String(chunk)))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  try {
    await waitForPort(port)
  } catch (error) {
    child.kill("SIGKILL")
    throw new Error(`pgbouncer did not start: ${String(error)}\n${output}`)
  }
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    log: () => output,
    stop: async () => {
      child.kill("SIGTERM")
      await exited
      dir.remove()
    }
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL clusters
// ---------------------------------------------------------------------------------------------

export interface Cluster {
  readonly dir: string
  readonly port: number
  readonly url: (database?: string) => string
  /** `pg_ctl stop -m <mode>`. */
  readonly stop: (mode: "fast" | "immediate") => void
  /** `pg_ctl promote -w` (a standby becomes a primary). */
  readonly promote: () => void
}

const clusterOf = (dir: string, port: number): Cluster => ({
  dir,
  port,
  url: (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`,
  stop: (mode) => {
    try {
      run(join(PG_BIN, "pg_ctl"), ["-D", dir, "-m", mode, "-w", "stop"])
    } catch {
      // Already stopped.
    }
  },
  promote: () => {
    run(join(PG_BIN, "pg_ctl"), ["-D", dir, "-w", "promote"])
  }
})

const startCluster = (dir: string): void => {
  run(join(PG_BIN, "pg_ctl"), ["-D", dir, "-l", join(dir, "server.log"), "-w", "-t", "30", "start"])
}

/** Settings of both clusters: local only, small, and ready to stream WAL to a standby. */
const clusterSettings = (dir: string, port: number): string =>
  [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${dir}'`,
    "wal_level = replica",
    "max_wal_senders = 4",
    "max_replication_slots = 4",
    "max_connections = 60",
    "shared_buffers = 32MB",
    "hot_standby = on",
    // Commits wait until the standby has flushed them: what the primary acknowledged survives its loss.
    "synchronous_standby_names = 'standby1'",
    "synchronous_commit = on"
  ].join("\n")

/**
 * A primary and a synchronous streaming standby in `root` (two clusters the postgres user owns): the primary
 * made by initdb, the standby by `pg_basebackup -R` over a replication slot; both started, the standby caught
 * up and in sync when this returns.
 */
export const startPrimaryAndStandby = async (
  root: string
): Promise<{ readonly primary: Cluster; readonly standby: Cluster }> => {
  const primaryDir = join(root, "primary")
  const standbyDir = join(root, "standby")
  const [primaryPort, standbyPort] = [await freePort(), await freePort()]
  run(join(PG_BIN, "initdb"), ["-D", primaryDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
  const conf = join(primaryDir, "postgresql.auto.conf")
  run("sh", ["-c", `printf '%s\\n' "$1" >> "$2"`, "sh", clusterSettings(primaryDir, primaryPort), conf])
  startCluster(primaryDir)
  const primary = clusterOf(primaryDir, primaryPort)
  run(join(PG_BIN, "psql"), [
    "-h",
    "127.0.0.1",
    "-p",
    String(primaryPort),
    "-U",
    "postgres",
    "-c",
    "SELECT pg_create_physical_replication_slot('standby1')"
  ])
  run(join(PG_BIN, "pg_basebackup"), [
    "-h",
    "127.0.0.1",
    "-p",
    String(primaryPort),
    "-U",
    "postgres",
    "-D",
    standbyDir,
    "-R",
    "-S",
    "standby1",
    "-X",
    "stream",
    "--no-sync"
  ])
  const standbySettings = [
    `port = ${standbyPort}`,
    `unix_socket_directories = '${standbyDir}'`,
    `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres application_name=standby1'`,
    "primary_slot_name = 'standby1'",
    // Once promoted it has no standby of its own: its commits must not wait for one.
    "synchronous_standby_names = ''"
  ].join("\n")
  run("sh", ["-c", `printf '%s\\n' "$1" >> "$2"`, "sh", standbySettings, join(standbyDir, "postgresql.auto.conf")])
  startCluster(standbyDir)
  const standby = clusterOf(standbyDir, standbyPort)
  const deadline = Date.now() + 20_000
  for (;;) {
    const state = run(join(PG_BIN, "psql"), [
      "-h",
      "127.0.0.1",
      "-p",
      String(primaryPort),
      "-U",
      "postgres",
      "-Atc",
      "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby1'"
    ]).trim()
    if (state === "sync") break
    if (Date.now() > deadline) throw new Error(`the standby is not in sync (${state})`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { primary, standby }
}

// ---------------------------------------------------------------------------------------------
// A TCP proxy the test points elsewhere (what a failover's DNS name, virtual IP or pooler does)
// ---------------------------------------------------------------------------------------------

export interface Proxy {
  readonly port: number
  /** New connections go to `port`. */
  readonly repoint: (port: number) => void
  /** Closes every connection open now (the old primary's). */
  readonly cut: () => void
  readonly close: () => Promise<void>
}

export const startProxy = async (targetPort: number): Promise<Proxy> => {
  let target = targetPort
  const open = new Set<Socket>()
  const server: Server = createServer((client) => {
    const upstream = tcpConnect(target, "127.0.0.1")
    for (const socket of [client, upstream]) {
      open.add(socket)
      socket.on("error", () => undefined)
      socket.on("close", () => {
        open.delete(socket)
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    port: (server.address() as { port: number }).port,
    repoint: (port) => {
      target = port
    },
    cut: () => {
      for (const socket of open) socket.destroy()
    },
    close: async () => {
      for (const socket of open) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The ledger, read with SQL
// ---------------------------------------------------------------------------------------------

/**
 * Where money was created or lost, as rows of text (none when the ledger holds): per currency the posted balances
 * sum to 0 and pending debits equal pending credits; every account's balance is what its transfers add up to.
 */
export const LEDGER_PROBLEMS_SQL = `
  WITH moves AS (
    SELECT debit AS account, -amount AS posted, amount AS debits, 0 AS credits FROM ledger_transfers
      WHERE state = 'POSTED'
    UNION ALL SELECT credit, amount, 0, 0 FROM ledger_transfers WHERE state = 'POSTED'
  ), journal AS (SELECT account, sum(posted) AS posted FROM moves GROUP BY account),
  balances AS (SELECT account, sum(posted) AS posted FROM ledger_balances GROUP BY account)
  SELECT 'currency ' || currency || ' sums to ' || sum(posted) || ', pending ' || sum(pending_debits) || '/' ||
    sum(pending_credits) AS problem FROM ledger_balances GROUP BY currency
    HAVING sum(posted) <> 0 OR sum(pending_debits) <> sum(pending_credits)
  UNION ALL
  SELECT 'account ' || account || ': balance ' || coalesce(b.posted, 0) || ', transfers ' || coalesce(j.posted, 0)
    FROM journal j FULL JOIN balances b USING (account) WHERE coalesce(j.posted, 0) <> coalesce(b.posted, 0)`
