/**
 * A conformance suite for `Store` adapters: every repository of the port, its filters, paging, unique keys,
 * ledger arithmetic, outbox numbering and leasing, and transaction rollback. The in-memory store is the
 * reference; an adapter passes when it behaves the same way through the port.
 */

import { describe, layer } from "@effect/vitest"
import type { Store } from "@paycore/core"
import type { Duration, Layer } from "effect"
import {
  agentActionsCase,
  agentActionTests,
  agentDeviceCodesCase,
  agentDeviceCodeTests,
  agentsCase,
  agentTests
} from "./store-conformance/agent-tests.ts"
import {
  cardNetworkEventsCase,
  cardNetworkEventTests,
  cardRevealsCase,
  cardsCase,
  cardTests,
  cardTransactionsCase,
  cardTransactionTests
} from "./store-conformance/card-tests.ts"
import {
  beneficialOwnersCase,
  bulkImportJobsCase,
  type CollectionCase,
  collectionTests,
  customersCase,
  documentsCase,
  externalAccountsCase,
  internalAccountsCase,
  ownershipChallengesCase,
  quotesCase,
  tokensCase,
  transactionsCase,
  verificationsCase
} from "./store-conformance/collections.ts"
import type { It } from "./store-conformance/ids.ts"
import { invitationsCase, invitationTests } from "./store-conformance/invitation-tests.ts"
import { ledgerTests } from "./store-conformance/ledger-tests.ts"
import { lookupsCase, lookupTests } from "./store-conformance/lookup-tests.ts"
import {
  beneficialOwnerTests,
  bulkImportJobTests,
  contactChallengeTests,
  documentTests,
  verificationTests
} from "./store-conformance/onboarding-tests.ts"
import { keyValueTests, outboxTests } from "./store-conformance/outbox-tests.ts"
import { quoteTests, transactionTests } from "./store-conformance/payment-tests.ts"
import {
  customerTests,
  externalAccountTests,
  internalAccountTests,
  tokenTests
} from "./store-conformance/platform-tests.ts"
import {
  scaChallengesCase,
  scaChallengeTests,
  scaFactorResetsCase,
  scaFactorResetTests,
  scaFactorsCase,
  scaFactorTests,
  scaSecurityCase,
  scaSessionsCase,
  scaSessionTests,
  trustedBeneficiariesCase
} from "./store-conformance/sca-tests.ts"
import {
  providerAccountsCase,
  stablecoinOperationsCase,
  stablecoinsCase,
  stablecoinTests
} from "./store-conformance/stablecoin-tests.ts"
import { timelineTests, transitionsCase } from "./store-conformance/timeline-tests.ts"
import { storeTransactionTests } from "./store-conformance/transaction-tests.ts"
import {
  delegatedKeysCase,
  delegatedKeyTests,
  otpChallengesCase,
  signedRequestsCase,
  walletCredentialsCase,
  walletCredentialTests,
  walletSessionsCase,
  walletSessionTests
} from "./store-conformance/wallet-auth-tests.ts"

// ---------------------------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------------------------

export interface StoreConformanceOptions {
  /** How long building (and closing) the store layer may take, e.g. starting a database and migrating it. */
  readonly timeout?: Duration.Input
}

/**
 * Registers the Store conformance suite, `describe("Store conformance: <name>")`, at the top level of a
 * vitest file:
 *
 * ```ts
 * storeConformance("memory", layer)
 * ```
 *
 * **One store for the whole suite.** `layer` is built once, before the first test (with `@effect/vitest`'s
 * `layer`), and closed after the last; every test runs against that one store. A database-backed adapter can
 * pass a layer that creates one fresh schema (or PGlite instance) for the file. Tests do not interfere
 * because each one works on its own rows: fresh time-ordered ids (`<Type>:<uuid v7>`), its own names, keys,
 * subjects and customer ids, and a random window of instants for the filters that can only be scoped by time
 * (list tests check exact results where their filter is scoped, and otherwise that every listed row matches
 * the filter, that their own rows are in and the others out).
 *
 * What the store must give:
 * - it starts without a platform config (`config.get()` is `undefined` until the config test puts one): the
 *   layer must not seed one, and a second run on the same database fails that one test. Other rows already in
 *   the store are tolerated (outbox rows due before 1900 are leased away before the claim test);
 * - tests run one after another (vitest's default within a file), not concurrently.
 */
export const storeConformance = (
  name: string,
  storeLayer: Layer.Layer<Store, unknown>,
  options: StoreConformanceOptions = {}
): void => {
  layer(storeLayer, options.timeout === undefined ? {} : { timeout: options.timeout })(
    `Store conformance: ${name}`,
    (it) => {
      const collection = <T extends { readonly id: string }, F>(c: CollectionCase<T, F>, more: (it: It) => void) =>
        describe(c.name, () => {
          collectionTests(it, c)
          more(it)
        })
      collection(tokensCase, tokenTests)
      collection(customersCase, customerTests)
      collection(internalAccountsCase, internalAccountTests)
      collection(externalAccountsCase, externalAccountTests)
      collection(ownershipChallengesCase, () => {})
      collection(quotesCase, quoteTests)
      collection(lookupsCase, lookupTests)
      collection(transactionsCase, transactionTests)
      collection(transitionsCase, timelineTests)
      collection(beneficialOwnersCase, beneficialOwnerTests)
      collection(verificationsCase, verificationTests)
      collection(documentsCase, documentTests)
      collection(bulkImportJobsCase, bulkImportJobTests)
      collection(walletCredentialsCase, walletCredentialTests)
      collection(walletSessionsCase, walletSessionTests)
      collection(signedRequestsCase, () => {})
      collection(otpChallengesCase, () => {})
      collection(delegatedKeysCase, delegatedKeyTests)
      collection(scaChallengesCase, scaChallengeTests)
      collection(scaSessionsCase, scaSessionTests)
      collection(scaSecurityCase, () => {})
      collection(scaFactorsCase, scaFactorTests)
      collection(trustedBeneficiariesCase, () => {})
      collection(scaFactorResetsCase, scaFactorResetTests)
      collection(cardsCase, cardTests)
      collection(cardTransactionsCase, cardTransactionTests)
      collection(cardNetworkEventsCase, cardNetworkEventTests)
      collection(cardRevealsCase, () => {})
      collection(agentsCase, agentTests)
      collection(agentDeviceCodesCase, agentDeviceCodeTests)
      collection(agentActionsCase, agentActionTests)
      collection(invitationsCase, invitationTests)
      collection(providerAccountsCase, () => {})
      collection(stablecoinsCase, () => {})
      collection(stablecoinOperationsCase, stablecoinTests)
      describe("contactChallenges", () => contactChallengeTests(it))
      describe("ledger", () => ledgerTests(it))
      describe("outbox", () => outboxTests(it))
      describe("idempotency, counters, config", () => keyValueTests(it))
      describe("transaction", () => storeTransactionTests(it))
    }
  )
}
