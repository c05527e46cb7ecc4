import { Notifier } from "@paycore/core"
import { Effect, Layer } from "effect"

/** The one-time code the sandbox accepts for contact verification and trust (spec: `123456`). */
export const SANDBOX_FIXED_CODE = "123456"

/** The embedded-wallet OTP the sandbox accepts (SB-11: `000000`; the HPKE around it stays real). */
export const SANDBOX_WALLET_CODE = "000000"

/** Sends nothing and logs nothing (the code stays redacted); the engine accepts `fixedCode` instead. */
export const SandboxNotifier: Layer.Layer<Notifier> = Layer.succeed(
  Notifier,
  Notifier.of({
    send: () => Effect.void,
    fixedCode: SANDBOX_FIXED_CODE,
    fixedWalletCode: SANDBOX_WALLET_CODE
  })
)
