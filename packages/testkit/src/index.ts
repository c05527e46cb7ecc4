export * from "./ledger-invariants.ts"
export * from "./store-snapshot.ts"
export * from "./webhook-recorder.ts"
