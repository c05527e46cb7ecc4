/**
 * WH-22: `INTERNAL_ACCOUNT.BALANCE_UPDATED` comes from the ledger steps of accounts/balance-updates.ts. That holds
 * only while no command writes the ledger past them: checked here on the sources. The events themselves are tested
 * over HTTP (packages/http/test/internal-account-events.http.test.ts).
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import type { LedgerTransfer } from "@paycore/core"
import { describe, expect, it } from "vitest"
import { accountsMovedBy } from "../src/accounts/balance-updates.ts"

const SRC = fileURLToPath(new URL("../src/", import.meta.url))

const sources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
  )

const transfer = (debit: string, credit: string): LedgerTransfer => ({
  id: `T#${debit}>${credit}`,
  debit,
  credit,
  amount: 100,
  currency: "USD",
  state: "POSTED",
  reference: "T",
  createdAt: "2026-01-01T00:00:00.000Z"
})

describe("WH-22 INTERNAL_ACCOUNT.BALANCE_UPDATED", () => {
  it("no context writes the ledger but through accounts/balance-updates.ts (so every balance change is announced)", () => {
    const writers =
      /\b(recordSteps|recordIfAvailableSteps|writeTransfersSteps|resolveSteps)\b[^;]*from "\.\.\/ledger\/transfers\.ts"/s
    const offenders = sources(SRC)
      .map((file) => relative(SRC, file))
      .filter((file) => !file.startsWith("ledger/") && file !== "accounts/balance-updates.ts")
      .filter((file) => {
        const text = readFileSync(join(SRC, file), "utf8")
        const ledgerImports = text.match(/import \{[^}]*\} from "\.\.\/ledger\/transfers\.ts"/g) ?? []
        return ledgerImports.some((i) => writers.test(i)) || /\.ledger\.(record|recordIfAvailable|resolve)\(/.test(text)
      })
    expect(offenders).toEqual([])
  })

  it("names the internal accounts whose shown balances a write moves: both sides of a posting, the debited side of a hold", () => {
    const a = "InternalAccount:a"
    const b = "InternalAccount:b"
    const moves = [transfer(a, "system:payouts:USD"), transfer("system:deposits:USD", b), transfer(a, b)]
    expect(accountsMovedBy(moves, true).map((m) => m.account)).toEqual([a, b])
    // A hold written or voided changes its debited account's available balance only.
    expect(accountsMovedBy(moves, false).map((m) => m.account)).toEqual([a])
    expect(accountsMovedBy([transfer("system:deposits:USD", b)], false)).toEqual([])
  })
})
