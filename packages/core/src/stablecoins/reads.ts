import { Effect } from "effect"
import { invalidCursor } from "../platform/errors.ts"
import { type Page, pageRequest } from "../shared/paging.ts"
import { operationNotFound, stablecoinNotFound } from "./errors.ts"
import type {
  ListOperationsQuery,
  ListStablecoinsQuery,
  Stablecoin,
  StablecoinOperation,
  StablecoinRecord
} from "./model.ts"
import type { StablecoinPorts, StablecoinsError } from "./ports.ts"
import { toStablecoin, toStablecoinOperation } from "./views.ts"

// The stablecoin reads (P-12, P-16 … P-18).

/** The stored stablecoin, or 404 `REFERENCE_NOT_FOUND`. */
export const stablecoinRecord = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  id: string
): Effect.fn.Return<StablecoinRecord, StablecoinsError> {
  const coin = yield* ports.store.stablecoins.get(id)
  if (coin === undefined) return yield* stablecoinNotFound(id)
  return coin
})

/** `GET /stablecoins/{id}` (P-12). */
export const getStablecoin = (ports: StablecoinPorts, id: string): Effect.Effect<Stablecoin, StablecoinsError> =>
  Effect.map(stablecoinRecord(ports, id), toStablecoin)

/** `GET /stablecoins` (P-12): newest first. */
export const listStablecoins = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  query: ListStablecoinsQuery
): Effect.fn.Return<Page<Stablecoin>, StablecoinsError> {
  const page = pageRequest(query)
  if (page === undefined) return yield* invalidCursor()
  const rows = yield* ports.store.stablecoins.list(
    {
      issuanceStatus: query.issuanceStatus,
      serviceOperationsStatus: query.serviceOperationsStatus,
      provider: query.provider
    },
    page
  )
  return { ...rows, data: rows.data.map(toStablecoin) }
})

/** `GET /stablecoins/{id}/operations` (P-16): newest first, `operationType` filter; unknown stablecoin 404. */
export const listOperations = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  stablecoinId: string,
  query: ListOperationsQuery
): Effect.fn.Return<Page<StablecoinOperation>, StablecoinsError> {
  yield* stablecoinRecord(ports, stablecoinId)
  const page = pageRequest(query)
  if (page === undefined) return yield* invalidCursor()
  const rows = yield* ports.store.stablecoinOperations.list(
    { stablecoinId, operationType: query.operationType },
    { ...page, sortOrder: "desc" }
  )
  return { ...rows, data: rows.data.map(toStablecoinOperation) }
})

/** `GET /stablecoin-operations/{id}` (P-17, P-18). */
export const getOperation = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  id: string
): Effect.fn.Return<StablecoinOperation, StablecoinsError> {
  const op = yield* ports.store.stablecoinOperations.get(id)
  if (op === undefined) return yield* operationNotFound(id)
  return toStablecoinOperation(op)
})
