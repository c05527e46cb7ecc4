import {
  type AuthorizationKind,
  type AuthorizationRequest,
  type CardMerchant,
  CardNetworkSimulator,
  type CardNetworkSimulatorService,
  type CardRecord,
  type CardTransactionRecord,
  type DeclineReason,
  type NetworkEvent,
  type NetworkScript,
  type ScriptedEvent,
  type SimulationBodies,
  type SimulationKind
} from "@paycore/core"
import { Effect, Layer } from "effect"

// The sandbox's card network (CD-45 … CD-51; docs/design/cards.md, section 2 "Numbers"): each
// `/sandbox/cards/{id}/simulate/*` request becomes what an issuer processor would send, an authorization to decide
// now (`Authorize`) and network events to deliver (`Deliver`), by the last three characters of the merchant
// descriptor. The core decides and books them (`CardNetwork`); nothing here touches money.

/** `005`: the funding pull of an approved authorization is confirmed this long after it (`pendingCount` 1 until). */
export const DELAYED_PULL_SECONDS = 30

/** What the network does with an authorization, by the merchant descriptor's last three characters (CD-46). */
export type DescriptorOutcome =
  /** Any other suffix: the service decides (approved when the card and its funding allow it). */
  | { readonly _tag: "Decide" }
  /** `002` `INSUFFICIENT_FUNDS`, `003` `CARD_PAUSED`: declined by the network side, nothing reserved. */
  | { readonly _tag: "Decline"; readonly reason: DeclineReason }
  /** `005` the pull is confirmed `DELAYED_PULL_SECONDS` later; `006` the pull's confirmation reports `FAILED` at once. */
  | { readonly _tag: "PullResult"; readonly outcome: "CONFIRMED" | "FAILED"; readonly afterSeconds: number }

/** The last three characters of a descriptor (of an account id, a platform card id): the sandbox's magic value. */
export const suffixOf = (value: string): string => value.slice(-3)

/** CD-46, CD-47: the descriptor suffix table. */
export const descriptorOutcome = (descriptor: string): DescriptorOutcome => {
  switch (suffixOf(descriptor)) {
    case "002":
      return { _tag: "Decline", reason: "INSUFFICIENT_FUNDS" }
    case "003":
      return { _tag: "Decline", reason: "CARD_PAUSED" }
    case "005":
      return { _tag: "PullResult", outcome: "CONFIRMED", afterSeconds: DELAYED_PULL_SECONDS }
    case "006":
      return { _tag: "PullResult", outcome: "FAILED", afterSeconds: 0 }
    default:
      return { _tag: "Decide" }
  }
}

/**
 * What each authorization-family simulation is on the network: the stored kind (design section 2) and whether it
 * pulls from the funding source. Only a debit pulls, so the pull suffixes (`005`, `006`) touch debits only; a
 * credit, a credit advice and a balance inquiry are approved plainly under them (design section 5, Q14 and
 * docs/cards.md, "The three suffix tables").
 */
export const authorizationKinds = {
  AUTHORIZATION: { kind: "AUTHORIZATION", pulls: true },
  FINANCIAL_AUTHORIZATION: { kind: "FINANCIAL", pulls: true },
  CREDIT_AUTHORIZATION: { kind: "CREDIT", pulls: false },
  FINANCIAL_CREDIT_AUTHORIZATION: { kind: "FINANCIAL_CREDIT", pulls: false },
  CREDIT_AUTHORIZATION_ADVICE: { kind: "CREDIT_ADVICE", pulls: false },
  BALANCE_INQUIRY: { kind: "BALANCE_INQUIRY", pulls: false }
} as const satisfies Partial<Record<SimulationKind, { kind: AuthorizationKind; pulls: boolean }>>
export type AuthorizationSimulation = keyof typeof authorizationKinds

/** The simulations about an earlier transaction (the body names it by `cardTransactionId`). */
export type FollowUpSimulation = Exclude<SimulationKind, AuthorizationSimulation>

export const isAuthorizationSimulation = (kind: SimulationKind): kind is AuthorizationSimulation =>
  kind in authorizationKinds

/** Fresh identifiers of the simulated network: a transaction's token and an event's id. */
export interface NetworkIdentifiers {
  readonly transactionToken: () => string
  readonly eventId: () => string
}

/**
 * The script of an authorization-family simulation (pure): the `Authorize` step, and for a debit under `005` or
 * `006` the `PullResult` event that follows it. A balance inquiry is a zero-amount authorization in the card's
 * currency (CD-47).
 */
export const authorizationScript = (
  kind: AuthorizationSimulation,
  card: CardRecord,
  body: { readonly amount?: number; readonly currency?: { readonly code: string }; readonly merchant: CardMerchant },
  ids: NetworkIdentifiers
): NetworkScript => {
  const { kind: stored, pulls } = authorizationKinds[kind]
  const outcome = descriptorOutcome(body.merchant.descriptor)
  const token = ids.transactionToken()
  const awaitsPull = pulls && outcome._tag === "PullResult"
  const request: AuthorizationRequest = {
    cardId: card.id,
    issuerTransactionToken: token,
    kind: stored,
    amount: body.amount ?? 0,
    currency: body.currency?.code ?? card.currency,
    merchant: body.merchant,
    ...(outcome._tag === "Decline" ? { forcedDecline: outcome.reason } : {}),
    ...(awaitsPull ? { awaitPullResult: true } : {})
  }
  const events: Array<ScriptedEvent> = [{ _tag: "Authorize", request }]
  if (awaitsPull) {
    events.push({
      _tag: "Deliver",
      afterSeconds: outcome.afterSeconds,
      event: {
        _tag: "PullResult",
        issuerEventId: ids.eventId(),
        cardId: card.id,
        issuerTransactionToken: token,
        outcome: outcome.outcome
      }
    })
  }
  return { issuerTransactionToken: token, events }
}

/**
 * The script of a simulation about an earlier transaction (pure): one network event about the parent, delivered now,
 * under the parent's token. A clearing's post-hoc pull is refused when the parent's descriptor ends `002` (design
 * Q15); the core decides the rest by the real balance.
 */
export const followUpScript = <K extends FollowUpSimulation>(
  kind: K,
  card: CardRecord,
  parent: CardTransactionRecord,
  body: SimulationBodies[K],
  ids: NetworkIdentifiers
): NetworkScript => {
  const base = { issuerEventId: ids.eventId(), cardId: card.id, issuerTransactionToken: parent.issuerTransactionToken }
  const amountOf = (b: SimulationBody) => ("amount" in b ? b.amount : 0)
  const event: NetworkEvent =
    kind === "CLEARING"
      ? {
          ...base,
          _tag: "Clearing",
          amount: amountOf(body),
          ...(suffixOf(parent.merchant.descriptor) === "002" ? { pullRefused: true } : {})
        }
      : kind === "RETURN"
        ? { ...base, _tag: "Return", amount: amountOf(body) }
        : kind === "AUTHORIZATION_ADVICE"
          ? { ...base, _tag: "Advice", amount: amountOf(body) }
          : { ...base, _tag: "ReturnReversal" }
  return {
    issuerTransactionToken: parent.issuerTransactionToken,
    events: [{ _tag: "Deliver", afterSeconds: 0, event }]
  }
}

type SimulationBody = SimulationBodies[SimulationKind]

/** Random tokens as a processor hands them out (`itt_…` for a transaction, `evt_…` for an event). */
export const randomNetworkIdentifiers: NetworkIdentifiers = {
  transactionToken: () => `itt_${crypto.randomUUID()}`,
  eventId: () => `evt_${crypto.randomUUID()}`
}

/** The sandbox network as the `CardNetworkSimulator` port (`ids`: how tokens are made; random by default). */
export const sandboxCardNetwork = (
  ids: NetworkIdentifiers = randomNetworkIdentifiers
): CardNetworkSimulatorService => ({
  script: (kind, card, parent, body) =>
    Effect.sync(() => {
      if (isAuthorizationSimulation(kind)) {
        return authorizationScript(kind, card, body as SimulationBodies[AuthorizationSimulation], ids)
      }
      // CardSimulations looks the parent up (404 otherwise) before it asks for a script.
      if (parent === undefined) throw new Error(`a ${kind} simulation needs its parent transaction`)
      return followUpScript(kind, card, parent, body as SimulationBodies[FollowUpSimulation], ids)
    })
})

/** The `CardNetworkSimulator` of the sandbox: `/sandbox/cards/*` routes answer (without it they are 404, CD-52). */
export const SandboxCardNetwork: Layer.Layer<never> = Layer.succeed(CardNetworkSimulator, sandboxCardNetwork())
