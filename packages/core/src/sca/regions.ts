import type { Customer } from "../customers/model.ts"
import type { EngineSettings } from "../shared/engine-config.ts"

/**
 * Whether a customer is subject to Strong Customer Authentication (S-01): its `region` is one of the engine's
 * `scaRegions` (default the EEA). No region is never subject. Read at each command, so a region change affects the
 * next command, not an open challenge.
 */
export const isScaSubject = (customer: Pick<Customer, "region">, settings: Pick<EngineSettings, "scaRegions">) =>
  customer.region !== undefined && settings.scaRegions.includes(customer.region)
