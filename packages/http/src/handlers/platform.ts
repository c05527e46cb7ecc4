import {
  Discoveries,
  PlatformConfigService,
  type PlatformPrincipal,
  type Principal,
  Quotes,
  Tokens
} from "@paycore/core"
import { Effect } from "effect"
import type { GroupHandlers, HttpObservations } from "./shared.ts"

/** Every group but `agentMe` authenticates Basic credentials only (app.ts), so its principal is a platform token. */
const platformOf = (principal: Principal): PlatformPrincipal => {
  if (principal.kind !== "PLATFORM") throw new Error("a platform route was reached without a platform token")
  return principal
}

/** Entries `GET /request-log` answers when no `limit` is given. */
const REQUEST_LOG_DEFAULT_LIMIT = 50

/** The `platform` group: tokens, the request log, the platform's config, rates and discoveries. */
export const platformHandlers = Effect.fnUntraced(function* (observations: HttpObservations) {
  const tokens = yield* Tokens
  const config = yield* PlatformConfigService
  const discoveries = yield* Discoveries
  const quotes = yield* Quotes
  const handlers: GroupHandlers<"platform"> = {
    createToken: ({ payload }) => tokens.create(payload),
    listTokens: ({ query }) => tokens.list(query),
    getCurrentToken: ({ principal }) => tokens.get(platformOf(principal).tokenId),
    getToken: ({ params }) => tokens.get(params.tokenId),
    deleteToken: ({ params }) => tokens.delete(params.tokenId),
    requestLog: ({ principal, query }) =>
      Effect.succeed({
        data: observations.requestLog.list(platformOf(principal).tokenId, query.limit ?? REQUEST_LOG_DEFAULT_LIMIT)
      }),
    getConfig: () => config.get(),
    updateConfig: ({ payload }) => config.update(payload),
    exchangeRates: ({ query }) => Effect.map(quotes.exchangeRates(query), (data) => ({ data })),
    discoveries: ({ query }) => Effect.map(discoveries.institutions(query), (data) => ({ data })),
    umaProviders: ({ query }) => discoveries.umaProviders(query),
    vasps: ({ query }) => discoveries.vasps(query)
  }
  return handlers
})
