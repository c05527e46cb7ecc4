import {
  ApiToken,
  ApiTokenWithSecret,
  CreateTokenRequest,
  DiscoveriesQuery,
  ExchangeRate,
  ExchangeRatesQuery,
  Institution,
  ListTokensQuery,
  PageOf,
  PlatformConfig,
  TokenId,
  UmaProvider,
  UmaProvidersQuery,
  UpdateConfigRequest,
  Vasp,
  VaspsQuery
} from "@paycore/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { CarriesSecret } from "../annotations.ts"
import { created, Data } from "./shared.ts"

/** Entries of the request log a call asks for (at most the 200 kept per token). */
export const RequestLogQuery = Schema.Struct({
  limit: Schema.optionalKey(
    Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 200 }))
  )
})

/** One request of the calling token, as answered: never its body, headers or query string. */
export const RequestLogEntry = Schema.Struct({
  at: Schema.String,
  method: Schema.String,
  /** The path requested, without the query string. */
  path: Schema.String,
  status: Schema.Int,
  idempotencyKey: Schema.optionalKey(Schema.String),
  durationMs: Schema.Int,
  /** The error body answered. */
  error: Schema.optionalKey(
    Schema.Struct({
      status: Schema.Int,
      code: Schema.String,
      message: Schema.String,
      details: Schema.optionalKey(Schema.Unknown)
    })
  )
})

export const PlatformGroup = HttpApiGroup.make("platform")
  .add(
    HttpApiEndpoint.post("createToken", "/tokens", {
      payload: CreateTokenRequest,
      success: ApiTokenWithSecret.pipe(created)
    }).annotate(CarriesSecret, true)
  )
  .add(HttpApiEndpoint.get("listTokens", "/tokens", { query: ListTokensQuery, success: PageOf(ApiToken) }))
  .add(HttpApiEndpoint.get("getCurrentToken", "/tokens/me", { success: ApiToken }))
  .add(HttpApiEndpoint.get("getToken", "/tokens/:tokenId", { params: { tokenId: TokenId }, success: ApiToken }))
  .add(
    HttpApiEndpoint.delete("deleteToken", "/tokens/:tokenId", {
      params: { tokenId: TokenId },
      success: HttpApiSchema.NoContent
    })
  )
  .add(HttpApiEndpoint.get("requestLog", "/request-log", { query: RequestLogQuery, success: Data(RequestLogEntry) }))
  .add(HttpApiEndpoint.get("getConfig", "/config", { success: PlatformConfig }))
  .add(HttpApiEndpoint.patch("updateConfig", "/config", { payload: UpdateConfigRequest, success: PlatformConfig }))
  .add(
    HttpApiEndpoint.get("exchangeRates", "/exchange-rates", { query: ExchangeRatesQuery, success: Data(ExchangeRate) })
  )
  .add(HttpApiEndpoint.get("discoveries", "/discoveries", { query: DiscoveriesQuery, success: Data(Institution) }))
  .add(
    HttpApiEndpoint.get("umaProviders", "/uma-providers", { query: UmaProvidersQuery, success: PageOf(UmaProvider) })
  )
  .add(HttpApiEndpoint.get("vasps", "/vasps", { query: VaspsQuery, success: PageOf(Vasp) }))
  .annotateMerge(
    OpenApi.annotations({
      title: "Platform",
      description: "API tokens, the calling token's request log, configuration, exchange rates, directories"
    })
  )
