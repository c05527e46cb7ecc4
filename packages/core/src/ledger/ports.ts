import type { Store } from "../ports/store.ts"

/** The store the plain-generator ledger steps write to (a command resolves it once). */
export type LedgerPorts = Pick<Store["Service"], "ledger">
