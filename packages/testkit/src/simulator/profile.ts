import type { DeliveryFaultRates, KycFaultRates, RailFaultRates, WebhookFaultRates } from "../faults/ports.ts"
import type { SimRandom } from "../faults/random.ts"
import type { StoreFaultRates } from "../faults/store.ts"

/** The fault rates of one sequence, per adapter. */
export interface FaultProfile {
  readonly name: string
  readonly store: StoreFaultRates
  readonly rail: RailFaultRates
  readonly kyc: KycFaultRates
  readonly webhook: WebhookFaultRates
  readonly network: DeliveryFaultRates
}

export const NO_FAULTS: FaultProfile = { name: "none", store: {}, rail: {}, kyc: {}, webhook: {}, network: {} }

/** `rate` or 0, each kind switched on with probability one half (swarm testing: some sequences lack a fault kind). */
const some = <K extends string>(random: SimRandom, scale: number, rates: Record<K, number>): Record<K, number> => {
  const out = {} as Record<K, number>
  for (const [kind, rate] of Object.entries(rates) as Array<[K, number]>) {
    out[kind] = random.chance(0.5) ? rate * scale : 0
  }
  return out
}

/**
 * A sequence's faults, drawn from its random source: one in eight sequences has none; the others have a random
 * intensity and a random subset of the fault kinds of each adapter (swarm testing, as VOPR does). `heavy`: every
 * sequence has faults, at the higher intensities.
 */
export const drawProfile = (random: SimRandom, options?: { readonly heavy?: boolean | undefined }): FaultProfile => {
  // Heavy: faults in every sequence, at the higher intensities (for runs of few sequences, on a database).
  if (options?.heavy !== true && random.chance(1 / 8)) return NO_FAULTS
  const scale = random.pick(options?.heavy === true ? [1, 2] : [0.25, 0.5, 1, 2])
  return {
    name: `swarm x${scale}`,
    store: some(random, scale, {
      fail: 0.004,
      timeout: 0.004,
      crash: 0.003,
      commitTimeout: 0.02,
      crashAfterCommit: 0.015
    }),
    rail: some(random, scale, {
      submitTimeout: 0.15,
      submitLostAnswer: 0.15,
      statusTimeout: 0.15,
      lateReport: 0.2,
      staleReport: 0.3
    }),
    kyc: some(random, scale, { unavailable: 0.2, slow: 0.15 }),
    webhook: some(random, scale, { closed: 0.15, serverError: 0.15, slow: 0.1 }),
    network: some(random, scale, { duplicated: 0.2, delayed: 0.15, reordered: 0.3 })
  }
}
