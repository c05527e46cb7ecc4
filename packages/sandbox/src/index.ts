import type { Directory, FxRates, Notifier, Rail } from "@paycore/core"
import { Layer } from "effect"
import { SandboxDirectory } from "./directory.ts"
import { SandboxFxRates } from "./fx.ts"
import { SandboxNotifier } from "./notifier.ts"
import { SandboxRail, type SandboxRailOptions } from "./rail.ts"

export * from "./directory.ts"
export * from "./fx.ts"
export * from "./notifier.ts"
export * from "./rail.ts"

export interface SandboxOptions extends SandboxRailOptions {}

/** Every sandbox port: `Rail`, `FxRates`, `Directory` and `Notifier`. */
export const layer = (options: SandboxOptions = {}): Layer.Layer<Rail | FxRates | Directory | Notifier> =>
  Layer.mergeAll(SandboxRail(options), SandboxFxRates, SandboxDirectory, SandboxNotifier)
