import {
  type ProviderFunding,
  type ProviderOperation,
  type ProviderOperationStatus,
  type ProviderToken,
  StablecoinProvider,
  type StablecoinProviderCredentials,
  type StablecoinProviderError,
  type StablecoinProviderService
} from "@paycore/core"
import { Clock, Effect, Layer } from "effect"
import { settlementSeconds } from "./rail.ts"

// The sandbox stablecoin provider (issue 17 slice B; docs/stablecoins.md): tokens by identifier, outcomes by suffix,
// timings on the sandbox clock divided by `speedUp`, as the sandbox rail's. It keeps nothing but a map from client
// references to the operations they opened (its idempotency), and the operation id carries what `status` needs.

const MINUTE = 60
const HOUR = 60 * MINUTE

/** The tokens the sandbox provider issues (`providerTokenIdentifier` → token). */
export const SANDBOX_STABLECOIN_TOKENS: Readonly<Record<string, ProviderToken>> = {
  /** An engine currency: registered `ENABLED`, mintable to internal accounts. */
  usdb: { name: "USDB", symbol: "USDB", baseCurrency: "USD", decimals: 6, issuanceStatus: "PROVISIONED" },
  /** Not an engine currency: registered `NOT_ENABLED`, minted to external wallets only. */
  "acme-usd": { name: "Acme USD", symbol: "ACMEUSD", baseCurrency: "USD", decimals: 6, issuanceStatus: "PROVISIONED" }
}

/** `apiClientId` suffixes: `002` refused at link; `006` linked, then revoked on the next call. */
export const REFUSED_CLIENT_SUFFIX = "002"
export const REVOKED_CLIENT_SUFFIX = "006"

/**
 * Operation outcomes by the last 3 digits of the base-currency amount: `002` fails; `003` is never funded (a wire or a
 * wallet deposit: `Expired` after the funding window; an ACH debit: returned, `Failed`, after the ACH time).
 */
export const FAILED_OPERATION_SUFFIX = "002"
export const UNFUNDED_OPERATION_SUFFIX = "003"

/** How long the provider waits for funds the platform sends (a wire, a wallet's deposit); a wire arrives in time. */
export const FUNDING_WINDOW_SECONDS = 24 * HOUR
/** After the funds: `Processing` this much later, `Completed` at `COMPLETION_SECONDS`. */
export const PROCESSING_SECONDS = 5
export const COMPLETION_SECONDS = 30
/** A token sent from a Spark wallet for a burn arrives after this long. */
export const SPARK_DEPOSIT_SECONDS = MINUTE

const PREFIX = "sbxsc"

interface Decoded {
  readonly createdMs: number
  readonly outcome: string
  readonly speedUp: number
  readonly funding: ProviderFunding["kind"]
}

const encode = (d: Decoded, reference: string): string =>
  `${PREFIX}:${d.createdMs}:${d.outcome}:${d.speedUp}:${d.funding}:${reference.slice(0, 16)}`

const decode = (id: string): Decoded | undefined => {
  const [prefix, created, outcome, speedUp, funding] = id.split(":")
  if (prefix !== PREFIX || created === undefined || outcome === undefined || funding === undefined) return undefined
  return { createdMs: Number(created), outcome, speedUp: Number(speedUp), funding: funding as ProviderFunding["kind"] }
}

const scaledMs = (seconds: number, speedUp: number): number => Math.max(0, Math.round((seconds * 1000) / speedUp))

/** Seconds until outside funds arrive, by funding kind; `0` for service-held funds. */
const fundingSeconds = (kind: ProviderFunding["kind"]): number => {
  switch (kind) {
    case "WIRE":
      return settlementSeconds("WIRE")
    case "ACH_DEBIT":
    case "SAME_DAY_ACH_DEBIT":
      return settlementSeconds("ACH")
    case "EXTERNAL_WALLET":
      return SPARK_DEPOSIT_SECONDS
    default:
      return 0
  }
}

const awaitsFunds = (kind: ProviderFunding["kind"]): boolean => fundingSeconds(kind) > 0

/** The provider pulls these itself: no deadline for the platform (no `expiresAt`). */
const isDebit = (kind: ProviderFunding["kind"]): boolean => kind === "ACH_DEBIT" || kind === "SAME_DAY_ACH_DEBIT"

const hex = (text: string): string => {
  let h = 0x811c9dc5
  const out: Array<string> = []
  for (let round = 0; round < 8; round++) {
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
    h = Math.imul(h ^ round, 0x01000193) >>> 0
    out.push(h.toString(16).padStart(8, "0"))
  }
  return out.join("")
}

/** The provider's answer about an operation at `nowMs`: a pure function of the operation and the clock. */
const sandboxOperationStatus = (d: Decoded, nowMs: number): ProviderOperationStatus => {
  // An ACH debit is pulled by the provider: `003` is a debit returned by the bank (after the ACH time), not a wait.
  if (isDebit(d.funding) && d.outcome === UNFUNDED_OPERATION_SUFFIX) {
    const returnedMs = d.createdMs + scaledMs(fundingSeconds(d.funding), d.speedUp)
    return nowMs < returnedMs ? { _tag: "AwaitingFunds" } : { _tag: "Failed", reason: "ACH_DEBIT_RETURNED" }
  }
  if (awaitsFunds(d.funding) && d.outcome === UNFUNDED_OPERATION_SUFFIX) {
    return nowMs >= d.createdMs + scaledMs(FUNDING_WINDOW_SECONDS, d.speedUp)
      ? { _tag: "Expired" }
      : { _tag: "AwaitingFunds" }
  }
  const fundedMs = d.createdMs + scaledMs(fundingSeconds(d.funding), d.speedUp)
  if (nowMs < fundedMs) return { _tag: "AwaitingFunds" }
  if (d.outcome === FAILED_OPERATION_SUFFIX) return { _tag: "Failed", reason: "PROVIDER_FAILED" }
  if (nowMs < fundedMs + scaledMs(PROCESSING_SECONDS, d.speedUp)) return { _tag: "FundsReceived" }
  if (nowMs < fundedMs + scaledMs(COMPLETION_SECONDS, d.speedUp)) return { _tag: "Processing" }
  return { _tag: "Completed", transactionHash: hex(`${d.createdMs}:${d.outcome}:${d.funding}`) }
}

const last3 = (text: string): string => text.slice(-3)

const refusedCredentials = (c: StablecoinProviderCredentials): StablecoinProviderError | undefined =>
  last3(c.apiClientId) === REFUSED_CLIENT_SUFFIX
    ? { _tag: "Unauthorized", message: "the sandbox provider refuses API clients ending 002" }
    : last3(c.apiClientId) === REVOKED_CLIENT_SUFFIX
      ? { _tag: "Revoked", message: "the sandbox provider revoked API clients ending 006" }
      : undefined

const unknownOperation = (id: string): StablecoinProviderError => ({
  _tag: "Rejected",
  message: `the sandbox provider has no operation ${id}`
})

export interface SandboxStablecoinProviderOptions {
  /** Divides every delay (the sandbox rail's `speedUp`). */
  readonly speedUp?: number | undefined
}

/**
 * The sandbox stablecoin provider: `verify` accepts any API client but those ending `002`; operations are funded,
 * processed and completed on the sandbox clock (the tables above). Operations are idempotent by client reference.
 */
export const sandboxStablecoinProvider = (
  options: SandboxStablecoinProviderOptions = {}
): StablecoinProviderService => {
  const speedUp = options.speedUp ?? 1
  const opened = new Map<string, ProviderOperation>()
  const checked = <A>(c: StablecoinProviderCredentials, then: Effect.Effect<A, StablecoinProviderError>) => {
    const refused = refusedCredentials(c)
    return refused === undefined ? then : Effect.fail(refused)
  }
  return {
    provider: "BRALE",
    verify: (c) =>
      last3(c.apiClientId) === REFUSED_CLIENT_SUFFIX
        ? Effect.fail({ _tag: "Unauthorized", message: "the sandbox provider refuses API clients ending 002" })
        : Effect.succeed({ providerAccountId: c.providerAccountId ?? `sbx-account-${c.apiClientId}` }),
    token: (c, request) =>
      checked(
        c,
        Effect.succeed(
          Object.hasOwn(SANDBOX_STABLECOIN_TOKENS, request.providerTokenIdentifier)
            ? SANDBOX_STABLECOIN_TOKENS[request.providerTokenIdentifier]
            : undefined
        )
      ),
    tokenIdentifiers: (c) => checked(c, Effect.succeed(Object.keys(SANDBOX_STABLECOIN_TOKENS))),
    create: (c, request) =>
      checked(
        c,
        Effect.map(Clock.currentTimeMillis, (nowMs) => {
          const known = opened.get(request.clientReference)
          if (known !== undefined) return known
          const d: Decoded = {
            createdMs: nowMs,
            outcome: String(request.baseAmount).padStart(3, "0").slice(-3),
            speedUp,
            funding: request.funding.kind
          }
          const providerOperationId = encode(d, request.clientReference)
          const waiting = awaitsFunds(d.funding)
          const instructions =
            d.funding === "WIRE"
              ? {
                  rail: "WIRE",
                  bankName: "Sandbox Trust Bank",
                  accountNumber: "000123456789",
                  routingNumber: "021000021",
                  reference: providerOperationId.slice(-16)
                }
              : d.funding === "EXTERNAL_WALLET"
                ? {
                    rail: "SPARK",
                    network: "SPARK",
                    address: `spark1sandbox${hex(request.clientReference).slice(0, 32)}`,
                    valueType: request.providerTokenIdentifier
                  }
                : undefined
          const operation: ProviderOperation = {
            providerOperationId,
            awaitingFunds: waiting,
            ...(instructions === undefined ? {} : { fundingInstructions: instructions }),
            ...(waiting && !isDebit(d.funding)
              ? { expiresAt: new Date(nowMs + scaledMs(FUNDING_WINDOW_SECONDS, speedUp)).toISOString() }
              : {})
          }
          if (opened.size > 10_000) opened.clear()
          opened.set(request.clientReference, operation)
          return operation
        })
      ),
    fund: (c, id) => checked(c, decode(id) === undefined ? Effect.fail(unknownOperation(id)) : Effect.void),
    status: (c, id) => {
      const d = decode(id)
      if (d === undefined) return Effect.fail(unknownOperation(id))
      return checked(
        c,
        Effect.map(Clock.currentTimeMillis, (nowMs) => sandboxOperationStatus(d, nowMs))
      )
    },
    cancel: (c, id) => checked(c, decode(id) === undefined ? Effect.fail(unknownOperation(id)) : Effect.void)
  }
}

/** The sandbox provider as the `StablecoinProvider` reference. */
export const SandboxStablecoinProvider = (options: SandboxStablecoinProviderOptions = {}) =>
  Layer.succeed(StablecoinProvider, sandboxStablecoinProvider(options))
