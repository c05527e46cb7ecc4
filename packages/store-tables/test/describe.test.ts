import type { TokenFilter, TokenRecord } from "@paycore/core"
import { describe, expect, it } from "vitest"
import {
  after,
  before,
  boolean,
  contains,
  eq,
  eqAny,
  includesDeleted,
  instant,
  key,
  optional,
  present,
  table,
  tables,
  text,
  textArray
} from "../src/index.ts"

// The columns of `TokenRecord`, for descriptions that differ from the real one in one way each.
const tokenColumns = {
  id: key("id"),
  name: text("name"),
  permissions: textArray("permissions"),
  environment: text("environment"),
  clientId: text("client_id"),
  secretHash: text("secret_hash"),
  createdAt: instant("created_at"),
  updatedAt: instant("updated_at"),
  deletedAt: optional(instant("deleted_at"))
}
const tokenFilters = {
  name: eq("name"),
  createdAfter: after("createdAt"),
  createdBefore: before("createdAt"),
  includeDeleted: includesDeleted("deletedAt")
}

const { secretHash: _, ...withoutSecretHash } = tokenColumns

/**
 * Descriptions that do not fit their record, filter or keys do not compile: `npm run typecheck` fails when one of
 * these lines stops being an error (each `@ts-expect-error` must meet one). Never called: the check is the compiler's.
 */
export const misfits = () => [
  // @ts-expect-error a field of the record without a column (secretHash)
  table<TokenRecord, TokenFilter, "clientId">()({
    name: "tokens",
    columns: withoutSecretHash,
    primaryKey: ["id"],
    unique: { clientId: { column: "clientId" } },
    filters: tokenFilters
  }),
  table<TokenRecord, TokenFilter, "clientId">()({
    name: "tokens",
    columns: {
      ...tokenColumns,
      // @ts-expect-error the field may be absent, so its column must be optional
      deletedAt: instant("deleted_at")
    },
    primaryKey: ["id"],
    unique: { clientId: { column: "clientId" } },
    filters: tokenFilters
  }),
  table<TokenRecord, TokenFilter, "clientId">()({
    name: "tokens",
    columns: {
      ...tokenColumns,
      // @ts-expect-error a text column cannot hold an array
      permissions: text("permissions")
    },
    primaryKey: ["id"],
    unique: { clientId: { column: "clientId" } },
    filters: tokenFilters
  }),
  table<TokenRecord, TokenFilter, "clientId">()({
    name: "tokens",
    columns: {
      ...tokenColumns,
      // @ts-expect-error the record has no such field
      nickname: optional(text("nickname"))
    },
    primaryKey: ["id"],
    unique: { clientId: { column: "clientId" } },
    filters: tokenFilters
  }),
  table<TokenRecord, TokenFilter, "clientId">()({
    name: "tokens",
    columns: tokenColumns,
    primaryKey: ["id"],
    unique: { clientId: { column: "clientId" } },
    // @ts-expect-error a field of the filter (includeDeleted) without its condition
    filters: { name: eq("name"), createdAfter: after("createdAt"), createdBefore: before("createdAt") }
  }),
  table<TokenRecord, TokenFilter, "clientId">()({
    name: "tokens",
    columns: tokenColumns,
    primaryKey: ["id"],
    // @ts-expect-error a unique key of the port (clientId) not described
    unique: {},
    filters: tokenFilters
  })
]

describe("table descriptions", () => {
  it("refuse a condition or a key that does not fit its column's kind", () => {
    expect(() =>
      table<TokenRecord, TokenFilter, "clientId">()({
        name: "tokens",
        columns: tokenColumns,
        primaryKey: ["id"],
        unique: { clientId: { column: "clientId" } },
        filters: { ...tokenFilters, name: contains("name") }
      })
    ).toThrow("store-tables: tokens.name: a text column cannot serve contains")
    expect(() =>
      table<TokenRecord, TokenFilter, "clientId">()({
        name: "tokens",
        columns: tokenColumns,
        primaryKey: ["id"],
        unique: { clientId: { column: "clientId", unless: "name" } },
        filters: tokenFilters
      })
    ).toThrow("store-tables: tokens.name is no boolean")
    // Whether a column is set: only an optional column can be unset.
    expect(() =>
      table<TokenRecord, TokenFilter, "clientId">()({
        name: "tokens",
        columns: tokenColumns,
        primaryKey: ["id"],
        unique: { clientId: { column: "clientId" } },
        filters: { ...tokenFilters, includeDeleted: present("createdAt") }
      })
    ).toThrow("store-tables: tokens.created_at: a instant column cannot serve present")
  })

  it("name a unique key's index after its table and column unless told, and resolve filters to columns", () => {
    const flagged = { ...tokenColumns, deletedAt: optional(instant("deleted_at")) }
    const tokens = table<TokenRecord, TokenFilter, "clientId">()({
      name: "tokens",
      columns: flagged,
      storeColumns: { archived: boolean("archived") },
      primaryKey: ["id"],
      unique: { clientId: { column: "clientId" } },
      filters: tokenFilters
    })
    expect(tokens.unique.map((u) => [u.name, u.column.name, u.index])).toEqual([
      ["clientId", "client_id", "tokens_client_id_key"]
    ])
    expect(tokens.filters.map((f) => [f.name, f.condition.op])).toEqual([
      ["name", "eq"],
      ["createdAfter", "after"],
      ["createdBefore", "before"],
      ["includeDeleted", "includesDeleted"]
    ])
    expect(tokens.storeColumns.map((c) => [c.name, c.kind, c.path])).toEqual([["archived", "boolean", []]])
    const token: TokenRecord = {
      id: "Token:0190a000-0000-7000-8000-000000000001" as TokenRecord["id"],
      name: "t",
      permissions: ["VIEW"],
      environment: "SANDBOX",
      clientId: "c",
      secretHash: "h",
      createdAt: "2026-01-01T00:00:00Z",
      updatedAt: "2026-01-01T00:00:00Z",
      deletedAt: "2026-01-02T00:00:00Z"
    }
    expect(tokens.columns.map((c) => c.read(token))).toEqual([
      token.id,
      "t",
      ["VIEW"],
      "SANDBOX",
      "c",
      "h",
      token.createdAt,
      token.updatedAt,
      token.deletedAt
    ])
  })

  it("issue 34: refuse a queue outside the looked-up columns and a condition mixing both; describe each narrow table", () => {
    expect(() =>
      table<TokenRecord, TokenFilter, "clientId">()({
        name: "tokens",
        columns: tokenColumns,
        primaryKey: ["id"],
        unique: { clientId: { column: "clientId" } },
        filters: tokenFilters,
        queue: "createdAt",
        lookups: { name: "token_lookups", columns: ["name"] }
      })
    ).toThrow("store-tables: tokens: the queue's column must be looked up with the others")
    expect(() =>
      table<TokenRecord, TokenFilter, "clientId">()({
        name: "tokens",
        columns: tokenColumns,
        primaryKey: ["id"],
        unique: { clientId: { column: "clientId" } },
        filters: { ...tokenFilters, name: eqAny("name", "clientId") },
        lookups: { name: "token_lookups", columns: ["name"] }
      })
    ).toThrow("store-tables: tokens: a condition mixes looked-up columns with others")
    // Each narrow table is described (so migrated and checked), with the id and the looked-up columns, alike.
    for (const described of tables.filter((t) => t.lookups !== undefined)) {
      const narrow = tables.find((t) => t.name === described.lookups!.name)
      const shape = (cs: ReadonlyArray<{ name: string; kind: string; optional: boolean }>) =>
        cs.map((c) => [c.name, c.kind, c.optional])
      expect(narrow && shape(narrow.columns)).toEqual(shape([described.primaryKey[0]!, ...described.lookups!.columns]))
    }
  })
})
