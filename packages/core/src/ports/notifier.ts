import { Context, type Effect, type Redacted } from "effect"

/** Delivers one-time codes by email or SMS (contact verification, wallet OTP). */
export class Notifier extends Context.Service<
  Notifier,
  {
    /**
     * `context`: the non-secret text a per-transaction SCA code is linked to ("EUR 12.50 to …9f3a"), shown with the
     * code so the customer sees what it authorizes (PSD2 dynamic linking).
     */
    readonly send: (
      channel: "EMAIL" | "SMS",
      to: string,
      code: Redacted.Redacted<string>,
      context?: string
    ) => Effect.Effect<void>
    /** The code the sandbox accepts without sending anything (`undefined` in production). */
    readonly fixedCode: string | undefined
    /** The embedded-wallet OTP the sandbox accepts (SB-11: `000000`; `undefined` in production). */
    readonly fixedWalletCode: string | undefined
  }
>()("paycore/ports/Notifier") {}
