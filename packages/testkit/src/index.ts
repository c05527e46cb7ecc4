export * from "./webhook-recorder.ts"
