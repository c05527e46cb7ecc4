import { Effect } from "effect"
import type { StoreError } from "../shared/errors.ts"
import type { CardPorts } from "./card-ports.ts"

/**
 * The cards worker's first pass (slice A; design section 3, "Issue"): cards due by `now` in `PROCESSING` are
 * provisioned or polled (`CardIssuer.provision` / `status`), cards with an `issuerSync` have it sent
 * (`CardIssuer.update`); each answer applied in its own store transaction. Issuer calls happen between store
 * transactions. Returns the cards stepped and the steps that failed. Until slice A builds it: nothing is due.
 */
export const provisionDueCards = (
  _ports: CardPorts,
  _now: string
): Effect.Effect<{ readonly stepped: number; readonly errors: number }, StoreError> =>
  Effect.succeed({ stepped: 0, errors: 0 })
