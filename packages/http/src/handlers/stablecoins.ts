import { Stablecoins } from "@paycore/core"
import { Effect } from "effect"
import { preparedCall } from "../prepared.ts"
// Q9: a link's environment is the calling token's.
import { environmentOf, type GroupHandlers } from "./shared.ts"

/**
 * The `stablecoins` group, P-08 … P-18. The four POSTs are prepared commands (prepared.ts): the provider is called
 * before the commit.
 */
export const stablecoinsHandlers = Effect.fnUntraced(function* () {
  const stablecoins = yield* Stablecoins
  const handlers: GroupHandlers<"stablecoins"> = {
    linkProviderAccount: ({ payload, principal }) =>
      preparedCall((request) => stablecoins.linkProviderAccount(payload, environmentOf(principal), request)),
    listProviderAccounts: ({ query }) => stablecoins.listProviderAccounts(query),
    getProviderAccount: ({ params }) => stablecoins.getProviderAccount(params.stablecoinProviderAccountId),
    registerStablecoin: ({ payload, principal }) =>
      preparedCall((request) => stablecoins.register(payload, environmentOf(principal), request)),
    listStablecoins: ({ query }) => stablecoins.list(query),
    getStablecoin: ({ params }) => stablecoins.get(params.stablecoinId),
    createMint: ({ params, payload, principal }) =>
      preparedCall((request) => stablecoins.mint(params.stablecoinId, payload, environmentOf(principal), request)),
    createBurn: ({ params, payload, principal }) =>
      preparedCall((request) => stablecoins.burn(params.stablecoinId, payload, environmentOf(principal), request)),
    listOperations: ({ params, query }) => stablecoins.listOperations(params.stablecoinId, query),
    getOperation: ({ params }) => stablecoins.getOperation(params.stablecoinOperationId)
  }
  return handlers
})
