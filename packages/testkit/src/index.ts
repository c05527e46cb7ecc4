export * from "./ledger-invariants.ts"
export * from "./store-snapshot.ts"
export * as walletClient from "./wallet-client/index.ts"
export * from "./webhook-recorder.ts"
