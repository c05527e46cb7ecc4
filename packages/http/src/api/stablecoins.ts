import {
  BurnRequest,
  IdempotencyKeyHeader,
  LinkProviderAccountRequest,
  ListOperationsQuery,
  ListProviderAccountsQuery,
  ListStablecoinsQuery,
  MintRequest,
  PageOf,
  RegisterStablecoinRequest,
  Stablecoin,
  StablecoinOperation,
  StablecoinProviderAccount
} from "@paycore/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { PreparedCommand } from "../annotations.ts"
import { created } from "./shared.ts"

/** An id in a path: any short text (an unknown one is the resource's 404, not a 400 of the path). */
const IdParam = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255))

/** C-09: the four POSTs require `Idempotency-Key`; they are prepared commands (`PreparedCommand`). */
const idempotent = { "idempotency-key": IdempotencyKeyHeader }

/** P-08 … P-18: stablecoin issuance (Basic). */
export const StablecoinsGroup = HttpApiGroup.make("stablecoins")
  .add(
    HttpApiEndpoint.post("linkProviderAccount", "/stablecoin-provider-accounts", {
      headers: idempotent,
      payload: LinkProviderAccountRequest,
      success: StablecoinProviderAccount.pipe(created)
    }).annotate(PreparedCommand, true)
  )
  .add(
    HttpApiEndpoint.get("listProviderAccounts", "/stablecoin-provider-accounts", {
      query: ListProviderAccountsQuery,
      success: PageOf(StablecoinProviderAccount)
    })
  )
  .add(
    HttpApiEndpoint.get("getProviderAccount", "/stablecoin-provider-accounts/:stablecoinProviderAccountId", {
      params: { stablecoinProviderAccountId: IdParam },
      success: StablecoinProviderAccount
    })
  )
  .add(
    HttpApiEndpoint.post("registerStablecoin", "/stablecoins", {
      headers: idempotent,
      payload: RegisterStablecoinRequest,
      success: Stablecoin.pipe(created)
    }).annotate(PreparedCommand, true)
  )
  .add(
    HttpApiEndpoint.get("listStablecoins", "/stablecoins", { query: ListStablecoinsQuery, success: PageOf(Stablecoin) })
  )
  .add(
    HttpApiEndpoint.get("getStablecoin", "/stablecoins/:stablecoinId", {
      params: { stablecoinId: IdParam },
      success: Stablecoin
    })
  )
  .add(
    HttpApiEndpoint.post("createMint", "/stablecoins/:stablecoinId/mints", {
      params: { stablecoinId: IdParam },
      headers: idempotent,
      payload: MintRequest,
      success: StablecoinOperation.pipe(created)
    }).annotate(PreparedCommand, true)
  )
  .add(
    HttpApiEndpoint.post("createBurn", "/stablecoins/:stablecoinId/burns", {
      params: { stablecoinId: IdParam },
      headers: idempotent,
      payload: BurnRequest,
      success: StablecoinOperation.pipe(created)
    }).annotate(PreparedCommand, true)
  )
  .add(
    HttpApiEndpoint.get("listOperations", "/stablecoins/:stablecoinId/operations", {
      params: { stablecoinId: IdParam },
      query: ListOperationsQuery,
      success: PageOf(StablecoinOperation)
    })
  )
  .add(
    HttpApiEndpoint.get("getOperation", "/stablecoin-operations/:stablecoinOperationId", {
      params: { stablecoinOperationId: IdParam },
      success: StablecoinOperation
    })
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Stablecoins",
      description:
        "Stablecoin issuance through a provider: link provider accounts, register provider-created stablecoins, " +
        "mint and burn them, and track the operations (501 NOT_IMPLEMENTED where no provider is configured)"
    })
  )
