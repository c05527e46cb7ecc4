/**
 * Fault-injecting adapters for simulations and property tests (`@paycore/testkit`): a Store whose statements fail,
 * time out or crash the process, a rail that times out and reports late or out of order, a KYC provider and a webhook
 * receiver that are slow, answer 5xx or close the connection, and an at-least-once network that duplicates, delays
 * and reorders. Each decides from a seeded `SimRandom`, so a run replays from its seed.
 */
export * from "./log.ts"
export * from "./ports.ts"
export * from "./random.ts"
export * from "./store.ts"
