import { hello } from "@paycore/core"
import { Effect } from "effect"
console.log(hello(1), Effect.runSync(Effect.succeed(2)))
