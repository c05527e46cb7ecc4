import { Context, type Effect, type Redacted } from "effect"

/** Delivers one-time codes by email or SMS (contact verification, wallet OTP). */
export class Notifier extends Context.Service<
  Notifier,
  {
    readonly send: (channel: "EMAIL" | "SMS", to: string, code: Redacted.Redacted<string>) => Effect.Effect<void>
    /** The code the sandbox accepts without sending anything (`undefined` in production). */
    readonly fixedCode: string | undefined
    /** The embedded-wallet OTP the sandbox accepts (SB-11: `000000`; `undefined` in production). */
    readonly fixedWalletCode: string | undefined
  }
>()("paycore/ports/Notifier") {}
