import { layer as memoryStore } from "@paycore/store-memory"
import { Effect, Layer, type Redacted } from "effect"
import { Customers } from "../src/customers/service.ts"
import { PlatformConfigService } from "../src/platform/service.ts"
import { Directory } from "../src/ports/directory.ts"
import { Ids } from "../src/ports/ids.ts"
import { KycProvider } from "../src/ports/kyc.ts"
import { Notifier } from "../src/ports/notifier.ts"
import { Sca } from "../src/sca/service.ts"

export interface SentCode {
  readonly channel: string
  readonly to: string
  readonly code: Redacted.Redacted<string>
}

/**
 * `Sca` and `Customers` on the memory store, for tests on a TestClock: the codes the notifier sends are kept in
 * `sent`; `fixedCode` is the sandbox code the engine also accepts (`undefined`: only the sent codes). The KYC
 * provider asks for no contact verification, so the SMS factor is usable with the number on file.
 */
export const makeScaLayer = (fixedCode: string | undefined) => {
  const sent: Array<SentCode> = []
  const provider = Layer.succeed(
    KycProvider,
    KycProvider.of({
      createLink: () => Effect.die("not used"),
      review: () => Effect.die("not used"),
      screenDocument: () => Effect.succeed({ _tag: "Accepted" }),
      contactVerification: () => ({ email: false, phone: false })
    })
  )
  const notifier = Layer.succeed(
    Notifier,
    Notifier.of({
      send: (channel, to, code) => Effect.sync(() => void sent.push({ channel, to, code })),
      fixedCode,
      fixedWalletCode: undefined
    })
  )
  const directory = Layer.succeed(
    Directory,
    Directory.of({
      institutions: () => Effect.succeed([]),
      umaProviders: () => Effect.succeed([]),
      umaReceiver: () => Effect.succeed(undefined),
      vasps: () => Effect.succeed([])
    })
  )
  const ports = Layer.mergeAll(memoryStore, Ids.layerSeeded(14), notifier, directory, provider)
  const layer = Layer.mergeAll(Sca.layer, Customers.layer).pipe(
    Layer.provideMerge(PlatformConfigService.layer),
    Layer.provideMerge(ports)
  )
  return { sent, layer }
}
