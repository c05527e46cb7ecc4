import { assert, describe, it } from "@effect/vitest"
import type {
  BeneficialOwner,
  BulkImportJobRecord,
  ContactChallenge,
  DocumentRecord,
  IdempotencyRecord,
  LedgerBalance,
  LedgerTransfer,
  Verification,
  WebhookSecretRecord
} from "@paycore/core"
import type { Counter, OutboxSubject, Table } from "@paycore/store-tables"
import * as tables from "@paycore/store-tables"
import * as agentRecords from "../../testkit/src/store-conformance/agent-tests.ts"
import * as cardRecords from "../../testkit/src/store-conformance/card-tests.ts"
import { makeScope } from "../../testkit/src/store-conformance/ids.ts"
import * as invitationRecords from "../../testkit/src/store-conformance/invitation-tests.ts"
import * as lookupRecords from "../../testkit/src/store-conformance/lookup-tests.ts"
import { ownershipChallengeFull, ownershipChallengeMinimal } from "../../testkit/src/store-conformance/records.ts"
import * as scaRecords from "../../testkit/src/store-conformance/sca-tests.ts"
import * as stablecoinRecords from "../../testkit/src/store-conformance/stablecoin-tests.ts"
import * as timelineRecords from "../../testkit/src/store-conformance/timeline-tests.ts"
import * as walletRecords from "../../testkit/src/store-conformance/wallet-auth-tests.ts"
import { rowCodecOf } from "../src/codec.ts"
import { idOf } from "./helpers.ts"
import {
  bareIndividual,
  business,
  externalAccount,
  individual,
  internalAccount,
  outboxRecord,
  platformConfig,
  quote,
  quoteAwaitingAuthorization,
  token,
  transaction
} from "./records.ts"

// The codecs derived from the descriptions, without a database: compiled (the store's, where `new Function` is
// allowed) and interpreted (the fallback) write the same parameters and read the same records, with their keys in
// the same order (the JSON a handler sends follows it); a record read back from its row is the record.

const at = "2026-11-21T13:36:44.123+01:00"
const owner: BeneficialOwner = {
  id: idOf("BeneficialOwner", 1),
  customerId: idOf("Customer", 3),
  roles: ["UBO", "DIRECTOR"],
  ownershipPercentage: 30,
  personalInfo: {
    firstName: "Ada",
    lastName: "Lovelace",
    birthDate: "1990-12-10",
    nationality: "GB",
    address: { line1: "1 Main St", city: "London", postalCode: "N1", country: "GB" },
    idType: "SSN",
    identifier: "123-45-6789"
  },
  kycStatus: "PENDING",
  createdAt: at,
  updatedAt: at
}
const verification: Verification = {
  id: idOf("Verification", 1),
  customerId: idOf("Customer", 3),
  verificationStatus: "RESOLVE_ERRORS",
  errors: [{ resourceId: idOf("Customer", 3), type: "MISSING_FIELD", field: "businessInfo.taxId", reason: "required" }],
  createdAt: at,
  updatedAt: at
}
const challenge: ContactChallenge = {
  key: `${idOf("Customer", 3)}/EMAIL`,
  customerId: idOf("Customer", 3),
  channel: "EMAIL",
  codeHash: "ab12",
  sentTo: "ada@example.com",
  sentAt: at,
  expiresAt: at,
  attempts: 0
}
const document = (n: number, extra: Partial<DocumentRecord> = {}): DocumentRecord => ({
  id: idOf("Document", n),
  document: {
    id: idOf("Document", n),
    documentHolder: idOf("Customer", 3),
    documentType: "PASSPORT",
    country: "GB",
    fileName: "passport.pdf",
    createdAt: at,
    updatedAt: at
  },
  files: [],
  ...extra
})
const job: BulkImportJobRecord = {
  id: idOf("BulkImportJob", 1),
  job: {
    id: idOf("BulkImportJob", 1),
    status: "PROCESSING",
    progress: { total: 10, processed: 4, successful: 3, failed: 1 },
    errors: []
  },
  fileKey: "imports/1.csv",
  createdAt: at,
  updatedAt: at
}
const transfer: LedgerTransfer = {
  id: `${idOf("Transaction", 1)}#1`,
  debit: idOf("InternalAccount", 1),
  credit: "system:payouts:USD",
  amount: 9_000_000_000_000_000,
  currency: "USD",
  state: "PENDING",
  reference: idOf("Transaction", 1),
  createdAt: at
}
const balance: LedgerBalance = {
  account: "system:fx:USD",
  currency: "USD",
  posted: -5,
  pendingDebits: 0,
  pendingCredits: 7
}
const subject: OutboxSubject = { subject: idOf("Transaction", 1), lastSequence: 3 }
const secret = (extra: Partial<WebhookSecretRecord> = {}): WebhookSecretRecord => ({
  id: idOf<WebhookSecretRecord["id"]>("WebhookSecret", 1),
  secret: "whsec_c2VjcmV0",
  createdAt: at,
  ...extra
})
const idempotent: IdempotencyRecord = { key: "platform:k1", fingerprint: "f", status: 201, body: "{}", createdAt: at }
const counter: Counter = { key: "daily-volume:platform:USD:2026-11-21", value: 125_000 }
const withoutKey = <T extends object, K extends keyof T>(record: T, key: K): Omit<T, K> => {
  const { [key]: _, ...rest } = record
  return rest
}

// The wallet tables' records as the Store conformance suite makes them (every optional field, and none).
const walletScope = makeScope()

/** Records of every table: with every optional field, and without. */
const samples: ReadonlyMap<Table<any, any, any>, ReadonlyArray<object>> = new Map<Table<any, any, any>, Array<object>>([
  [tables.tokens, [token(1), token(2, { deletedAt: at })]],
  [tables.platformConfig, [platformConfig, withoutKey(withoutKey(platformConfig, "cardConfigs"), "webhookEndpoint")]],
  [tables.customers, [individual(1), bareIndividual(2), business(3), business(4, { isDeleted: true })]],
  [
    tables.internalAccounts,
    [internalAccount(1), withoutKey(internalAccount(2, { platformCurrency: "USD" }), "customerId")]
  ],
  [tables.externalAccounts, [externalAccount(1), withoutKey(externalAccount(2), "customerId")]],
  [
    tables.ownershipChallenges,
    [
      ownershipChallengeFull(walletScope),
      ownershipChallengeMinimal(walletScope),
      withoutKey(ownershipChallengeMinimal(walletScope), "customerId")
    ]
  ],
  [tables.quotes, [quote(1), quoteAwaitingAuthorization(2)]],
  [tables.lookups, [lookupRecords.lookupFull(walletScope), lookupRecords.lookupMinimal(walletScope)]],
  [
    tables.transactions,
    [
      transaction(1),
      transaction(2, { stalledAt: at }),
      {
        id: idOf("Transaction", 3),
        state: "PENDING",
        transaction: withoutKey(
          withoutKey(withoutKey(transaction(3).transaction, "reconciliationInstructions"), "refund"),
          "agentId"
        )
      }
    ]
  ],
  [tables.beneficialOwners, [owner]],
  [tables.verifications, [verification]],
  [tables.contactChallenges, [challenge]],
  [tables.documents, [document(1), document(2, { submittedAt: at, deletedAt: at })]],
  [tables.bulkImportJobs, [job]],
  [tables.ledgerTransfers, [transfer]],
  [tables.ledgerBalances, [balance]],
  [
    tables.outbox,
    [
      outboxRecord(1),
      withoutKey(withoutKey(outboxRecord(2), "leaseUntil"), "roundStartedAt"),
      outboxRecord(3, { leaseOwner: "Webhook:0190a000-0000-7000-8000-000000000033" })
    ]
  ],
  [tables.outboxSubjects, [subject]],
  [
    tables.transactionLookups,
    [
      { id: "Transaction:019a0000-0000-7000-8000-000000000001", status: "PROCESSING", dueAt: at },
      { id: "Transaction:019a0000-0000-7000-8000-000000000002", status: "COMPLETED" }
    ]
  ],
  [tables.instanceKeys, [{ name: "wallet-kek", sealed: "v1.AAAA", createdAt: "2026-11-21T13:36:44.123Z" }]],
  [tables.webhookSecrets, [secret(), secret({ expiresAt: at })]],
  [tables.walletCredentials, [walletRecords.credentialFull(walletScope), walletRecords.credentialMinimal(walletScope)]],
  [tables.walletSessions, [walletRecords.sessionFull(walletScope), walletRecords.sessionMinimal(walletScope)]],
  [
    tables.signedRequests,
    [walletRecords.signedRequestFull(walletScope), walletRecords.signedRequestMinimal(walletScope)]
  ],
  [tables.otpChallenges, [walletRecords.otpChallengeMinimal(walletScope)]],
  [tables.delegatedKeys, [walletRecords.delegatedKeyFull(walletScope), walletRecords.delegatedKeyMinimal(walletScope)]],
  [tables.scaChallenges, [scaRecords.scaChallengeFull(walletScope), scaRecords.scaChallengeMinimal(walletScope)]],
  [tables.scaSessions, [scaRecords.scaSessionFull(walletScope), scaRecords.scaSessionMinimal(walletScope)]],
  [tables.scaSecurity, [scaRecords.scaSecurityFull(walletScope), scaRecords.scaSecurityMinimal(walletScope)]],
  [tables.scaFactors, [scaRecords.scaFactorFull(walletScope), scaRecords.scaFactorMinimal(walletScope)]],
  [
    tables.trustedBeneficiaries,
    [scaRecords.trustedBeneficiaryFull(walletScope), scaRecords.trustedBeneficiaryMinimal(walletScope)]
  ],
  [tables.scaFactorResets, [scaRecords.scaFactorResetFull(walletScope), scaRecords.scaFactorResetMinimal(walletScope)]],
  [tables.cards, [cardRecords.cardFull(walletScope), cardRecords.cardMinimal(walletScope)]],
  [
    tables.cardTransactions,
    [cardRecords.cardTransactionFull(walletScope), cardRecords.cardTransactionMinimal(walletScope)]
  ],
  [
    tables.cardNetworkEvents,
    [cardRecords.cardNetworkEventFull(walletScope), cardRecords.cardNetworkEventMinimal(walletScope)]
  ],
  [tables.cardReveals, [cardRecords.cardRevealFull(walletScope)]],
  [tables.transitions, [timelineRecords.transitionFull(walletScope), timelineRecords.transitionMinimal(walletScope)]],
  [tables.agents, [agentRecords.agentFull(walletScope), agentRecords.agentMinimal(walletScope)]],
  [
    tables.agentDeviceCodes,
    [agentRecords.agentDeviceCodeFull(walletScope), agentRecords.agentDeviceCodeMinimal(walletScope)]
  ],
  [tables.agentActions, [agentRecords.agentActionFull(walletScope), agentRecords.agentActionMinimal(walletScope)]],
  [
    tables.invitations,
    [invitationRecords.invitationFull(walletScope), invitationRecords.invitationMinimal(walletScope)]
  ],
  [
    tables.stablecoinProviderAccounts,
    [stablecoinRecords.providerAccountFull(walletScope), stablecoinRecords.providerAccountMinimal(walletScope)]
  ],
  [
    tables.stablecoins,
    [stablecoinRecords.stablecoinFull(walletScope), stablecoinRecords.stablecoinMinimal(walletScope)]
  ],
  [
    tables.stablecoinOperations,
    [stablecoinRecords.stablecoinOperationFull(walletScope), stablecoinRecords.stablecoinOperationMinimal(walletScope)]
  ],
  [tables.idempotency, [idempotent]],
  [tables.counters, [counter]]
])

/** The row PostgreSQL gives back for these parameters: JSONB parsed, store columns and computed ones ignored. */
const rowOf = (table: Table<any, any, any>, columns: ReadonlyArray<string>, params: ReadonlyArray<unknown>) => {
  const json = new Set(table.columns.filter((c) => c.kind === "json").map((c) => c.name))
  return Object.fromEntries(
    columns.map((c, i) => [c, json.has(c) && params[i] !== null ? JSON.parse(params[i] as string) : params[i]])
  )
}

describe("row codecs derived from the table descriptions", () => {
  it("have a sample record for every table", () => {
    assert.deepStrictEqual(
      tables.tables.filter((t) => !samples.has(t)).map((t) => t.name),
      []
    )
  })

  it("read back every record exactly (no undefined or null key), compiled and interpreted alike", () => {
    for (const [table, records] of samples) {
      const compiled = rowCodecOf(table)
      const interpreted = rowCodecOf(table, { compile: false })
      assert.deepStrictEqual(compiled.columns, interpreted.columns)
      for (const record of records) {
        const params = compiled.params(record)
        assert.deepStrictEqual(params, interpreted.params(record), table.name)
        const row = rowOf(table, compiled.columns, params)
        const read = compiled.decode(row)
        assert.deepStrictEqual(read, record, table.name)
        assert.strictEqual(JSON.stringify(read), JSON.stringify(interpreted.decode(row)), table.name)
      }
    }
  })

  it("write an absent optional field as NULL and a JSONB field as its JSON text", () => {
    const codec = rowCodecOf(tables.webhookSecrets)
    const params = codec.params(secret())
    assert.strictEqual(params[codec.columns.indexOf("expires_at")], null)
    const config = rowCodecOf(tables.platformConfig)
    assert.strictEqual(
      config.params(platformConfig)[config.columns.indexOf("fee_configs")],
      JSON.stringify(platformConfig.feeConfigs)
    )
  })
})
