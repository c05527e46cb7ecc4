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
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { created, Data } from "./shared.ts"

export const PlatformGroup = HttpApiGroup.make("platform")
  .add(
    HttpApiEndpoint.post("createToken", "/tokens", {
      payload: CreateTokenRequest,
      success: ApiTokenWithSecret.pipe(created)
    })
  )
  .add(HttpApiEndpoint.get("listTokens", "/tokens", { query: ListTokensQuery, success: PageOf(ApiToken) }))
  .add(HttpApiEndpoint.get("getToken", "/tokens/:tokenId", { params: { tokenId: TokenId }, success: ApiToken }))
  .add(
    HttpApiEndpoint.delete("deleteToken", "/tokens/:tokenId", {
      params: { tokenId: TokenId },
      success: HttpApiSchema.NoContent
    })
  )
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
    OpenApi.annotations({ title: "Platform", description: "API tokens, configuration, exchange rates, directories" })
  )
