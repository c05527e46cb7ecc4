import { Context, type Effect } from "effect"
import type {
  CardRecord,
  CardTransactionRecord,
  ScriptedEvent,
  SimulationBodies,
  SimulationKind
} from "../cards/model.ts"

/** A simulation turned into what a card network would send: its token, then the events, in order. */
export interface NetworkScript {
  /** The issuer's token of the (new or parent) transaction: what the 202 answers (CD-45). */
  readonly issuerTransactionToken: string
  /** An authorization to decide now, and network events to deliver `afterSeconds` from now (`005`: 30 s). */
  readonly events: ReadonlyArray<ScriptedEvent>
}

/**
 * The sandbox's card network (CD-45 … CD-51): turns a `/sandbox/cards/{id}/simulate/*` request into network events by
 * the sandbox's suffix tables (the merchant descriptor's last three characters). `parent` is the transaction a
 * clearing, return, advice or reversal is about (already checked to be one of `card`'s).
 */
export interface CardNetworkSimulatorService {
  readonly script: <K extends SimulationKind>(
    kind: K,
    card: CardRecord,
    parent: CardTransactionRecord | undefined,
    body: SimulationBodies[K]
  ) => Effect.Effect<NetworkScript>
}

/**
 * The configured simulator, or `undefined`: a production deployment, where every `/sandbox/cards/*` route is 404
 * (CD-52). The sandbox provides `SandboxCardNetwork` (@paycore/sandbox).
 */
export const CardNetworkSimulator = Context.Reference<CardNetworkSimulatorService | undefined>(
  "paycore/ports/CardNetworkSimulator",
  { defaultValue: () => undefined }
)
