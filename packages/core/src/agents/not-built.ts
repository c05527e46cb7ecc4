import { Effect } from "effect"
import { Refused } from "../shared/errors.ts"

/** 501 `NOT_IMPLEMENTED` for an agent route whose use case is not built yet (never a 500). */
export const notBuilt = (what: string) =>
  Effect.fail(new Refused({ code: "NOT_IMPLEMENTED", message: `${what} is not available yet` }))
