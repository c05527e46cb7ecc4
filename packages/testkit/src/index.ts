export * from "./ledger-invariants.ts"
export * from "./webhook-recorder.ts"
