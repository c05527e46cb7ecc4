/**
 * A host's TypeScript over the public API of every package, checked by `tsc --noEmit` under the host's own options
 * (tsconfig.nodenext.json, tsconfig.bundler.json; `skipLibCheck: false` checks every .d.ts the packages ship and every
 * .d.ts of their dependencies). The examples copied beside it are checked with it.
 */
import * as Cli from "@paycore/cli"
import * as Core from "@paycore/core"
import { Customers, EngineLayer, Ids, type Quote, type Transaction, WebhookSigner } from "@paycore/core"
import * as Dashboard from "@paycore/dashboard"
import * as Http from "@paycore/http"
import * as HttpApi from "@paycore/http/api"
import * as Sandbox from "@paycore/sandbox"
import * as Server from "@paycore/server"
import * as MemoryStore from "@paycore/store-memory"
import * as PostgresStore from "@paycore/store-postgres"
import * as StoreTables from "@paycore/store-tables"
import * as Testkit from "@paycore/testkit"
import * as Browser from "@paycore/testkit/browser"
import * as DocumentStoreConformance from "@paycore/testkit/document-store-conformance"
import * as RailConformance from "@paycore/testkit/rail-conformance"
import * as StoreConformance from "@paycore/testkit/store-conformance"
import * as WalletClient from "@paycore/testkit/wallet-client"
import { Effect, Layer } from "effect"
import type { Kysely } from "kysely"

export const entryPoints = {
  Cli,
  Core,
  Dashboard,
  Http,
  HttpApi,
  Sandbox,
  Server,
  MemoryStore,
  PostgresStore,
  StoreTables,
  Testkit,
  Browser,
  DocumentStoreConformance,
  RailConformance,
  StoreConformance,
  WalletClient
}

/** The engine on the memory store and the sandbox's ports: nothing left to provide. */
export const engine = EngineLayer.pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      MemoryStore.layer,
      MemoryStore.documentStoreLayer,
      Ids.layer,
      Sandbox.layer({ speedUp: 1e6 }),
      Testkit.makeWebhookRecorder().layer,
      WebhookSigner.layerGenerated
    )
  )
)

/** A program over a service, provided with the engine: its requirements are `never`, or tsc says which are missing. */
export const customerCount: Effect.Effect<number, unknown> = Effect.gen(function* () {
  const customers = yield* Customers
  return (yield* customers.list({})).data.length
}).pipe(Effect.provide(engine))

export const describePayment = (quote: Quote, transaction: Transaction): string =>
  `${quote.id}: ${quote.totalSendingAmount} ${quote.sendingCurrency.code} -> ${transaction.status}`

/** The store on the host's own Kysely instance, and the migrations the host runs. */
export const storeOn = (db: Kysely<PostgresStore.Database>) => ({
  store: PostgresStore.makePostgresStore(db),
  migrate: (): Promise<ReadonlyArray<string>> => PostgresStore.migrate(db)
})

/** The HTTP binding, as a host mounts it. */
export const binding: Effect.Effect<Http.App, unknown, unknown> = Http.makeApp()

export const dashboard: ReadonlyArray<Http.StaticFile> = Dashboard.dashboardFiles()
export const cli = Cli.run(["--help"])
export const sandboxServer = Server.serve
export const conformance = [StoreConformance.storeConformance, DocumentStoreConformance.documentStoreConformance]
