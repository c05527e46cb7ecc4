import { Schema } from "effect"

/** Every resource type that has an id of the form `<Type>:<uuid v7>`. */
export const idTypes = [
  "Customer",
  "InternalAccount",
  "ExternalAccount",
  "Quote",
  "Transaction",
  "BeneficialOwner",
  "Webhook",
  "WebhookSecret",
  "Token",
  "Document",
  "Verification",
  "Job",
  "Lookup",
  "PlatformConfig",
  "Request",
  "Journal",
  "AuthMethod",
  "Session",
  "DelegatedKey",
  "ScaChallenge",
  "ScaSession",
  "ScaFactor",
  "ScaFactorReset",
  "Card",
  "CardTransaction",
  "CardFundingSource",
  "CardNetworkEvent",
  "CardReveal",
  "Agent",
  "AgentAction",
  "AgentDeviceCode",
  "Invitation",
  "Stablecoin",
  "StablecoinOperation",
  "StablecoinProviderAccount",
  "Transition"
] as const
export type IdType = (typeof idTypes)[number]

/** A UUID as ids carry it (lowercase hex), as a regular expression source. */
export const uuidPattern = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"

/** A branded id schema: `Customer:<uuid>`; the brand keeps a quote id from being passed as a customer id. */
export const makeId = <T extends IdType>(type: T) =>
  Schema.String.pipe(
    Schema.check(
      Schema.isPattern(new RegExp(`^${type}:${uuidPattern}$`), {
        expected: `a ${type} id (${type}:<uuid>)`
      })
    ),
    Schema.brand<T>(type as any)
  )

export const CustomerId = makeId("Customer")
export type CustomerId = typeof CustomerId.Type
export const InternalAccountId = makeId("InternalAccount")
export type InternalAccountId = typeof InternalAccountId.Type
export const ExternalAccountId = makeId("ExternalAccount")
export type ExternalAccountId = typeof ExternalAccountId.Type
export const QuoteId = makeId("Quote")
export type QuoteId = typeof QuoteId.Type
export const TransactionId = makeId("Transaction")
export type TransactionId = typeof TransactionId.Type
export const WebhookId = makeId("Webhook")
export type WebhookId = typeof WebhookId.Type
export const WebhookSecretId = makeId("WebhookSecret")
export type WebhookSecretId = typeof WebhookSecretId.Type
export const TokenId = makeId("Token")
export type TokenId = typeof TokenId.Type
export const LookupId = makeId("Lookup")
export type LookupId = typeof LookupId.Type
export const BeneficialOwnerId = makeId("BeneficialOwner")
export type BeneficialOwnerId = typeof BeneficialOwnerId.Type
export const VerificationId = makeId("Verification")
export type VerificationId = typeof VerificationId.Type
export const DocumentId = makeId("Document")
export type DocumentId = typeof DocumentId.Type
export const JobId = makeId("Job")
export type JobId = typeof JobId.Type
export const AuthMethodId = makeId("AuthMethod")
export type AuthMethodId = typeof AuthMethodId.Type
export const SessionId = makeId("Session")
export type SessionId = typeof SessionId.Type
export const RequestId = makeId("Request")
export type RequestId = typeof RequestId.Type
export const DelegatedKeyId = makeId("DelegatedKey")
export type DelegatedKeyId = typeof DelegatedKeyId.Type
export const ScaChallengeId = makeId("ScaChallenge")
export type ScaChallengeId = typeof ScaChallengeId.Type
export const ScaSessionId = makeId("ScaSession")
export type ScaSessionId = typeof ScaSessionId.Type
export const ScaFactorId = makeId("ScaFactor")
export type ScaFactorId = typeof ScaFactorId.Type
export const ScaFactorResetId = makeId("ScaFactorReset")
export type ScaFactorResetId = typeof ScaFactorResetId.Type
export const CardId = makeId("Card")
export type CardId = typeof CardId.Type
export const CardTransactionId = makeId("CardTransaction")
export type CardTransactionId = typeof CardTransactionId.Type
export const CardFundingSourceId = makeId("CardFundingSource")
export type CardFundingSourceId = typeof CardFundingSourceId.Type
export const CardNetworkEventId = makeId("CardNetworkEvent")
export type CardNetworkEventId = typeof CardNetworkEventId.Type
export const CardRevealId = makeId("CardReveal")
export type CardRevealId = typeof CardRevealId.Type
export const AgentId = makeId("Agent")
export type AgentId = typeof AgentId.Type
export const AgentActionId = makeId("AgentAction")
export type AgentActionId = typeof AgentActionId.Type
export const AgentDeviceCodeId = makeId("AgentDeviceCode")
export type AgentDeviceCodeId = typeof AgentDeviceCodeId.Type
export const InvitationId = makeId("Invitation")
export type InvitationId = typeof InvitationId.Type
export const StablecoinId = makeId("Stablecoin")
export type StablecoinId = typeof StablecoinId.Type
export const StablecoinOperationId = makeId("StablecoinOperation")
export type StablecoinOperationId = typeof StablecoinOperationId.Type
export const StablecoinProviderAccountId = makeId("StablecoinProviderAccount")
export type StablecoinProviderAccountId = typeof StablecoinProviderAccountId.Type
export const TransitionId = makeId("Transition")
export type TransitionId = typeof TransitionId.Type

/** Ids by type, as the `Ids` port hands them out. */
export interface IdOf {
  Customer: CustomerId
  InternalAccount: InternalAccountId
  ExternalAccount: ExternalAccountId
  Quote: QuoteId
  Transaction: TransactionId
  Webhook: WebhookId
  WebhookSecret: WebhookSecretId
  Token: TokenId
  Lookup: LookupId
  BeneficialOwner: BeneficialOwnerId
  Verification: VerificationId
  Document: DocumentId
  Job: JobId
  AuthMethod: AuthMethodId
  Session: SessionId
  Request: RequestId
  DelegatedKey: DelegatedKeyId
  ScaChallenge: ScaChallengeId
  ScaSession: ScaSessionId
  ScaFactor: ScaFactorId
  ScaFactorReset: ScaFactorResetId
  Card: CardId
  CardTransaction: CardTransactionId
  CardFundingSource: CardFundingSourceId
  CardNetworkEvent: CardNetworkEventId
  CardReveal: CardRevealId
  Agent: AgentId
  AgentAction: AgentActionId
  AgentDeviceCode: AgentDeviceCodeId
  Invitation: InvitationId
  Stablecoin: StablecoinId
  StablecoinOperation: StablecoinOperationId
  StablecoinProviderAccount: StablecoinProviderAccountId
  Transition: TransitionId
}

const HEX2 = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"))
const HEX1 = "0123456789abcdef"
/** 32 bits as 8 hex digits. */
const hex8 = (n: number): string =>
  HEX2[(n >>> 24) & 0xff]! + HEX2[(n >>> 16) & 0xff]! + HEX2[(n >>> 8) & 0xff]! + HEX2[n & 0xff]!
/** 16 bits as 4 hex digits. */
const hex4 = (n: number): string => HEX2[(n >>> 8) & 0xff]! + HEX2[n & 0xff]!

/**
 * A monotonic UUID v7 generator: 48-bit millisecond time, then a 74-bit counter seeded
 * randomly per millisecond, so ids made by one process sort in creation order
 * (paging by id relies on it) even within one millisecond.
 */
export const makeUuidV7 = (random: () => number) => {
  let lastMs = -1
  let counterHi = 0 // 12 bits (rand_a)
  let counterLo = 0 // 30 bits of rand_b kept as a counter, the rest random
  let prefixMs = Number.NaN
  let prefix = "" // `tttttttt-tttt-7` of `prefixMs`
  return (nowMs: number): string => {
    if (nowMs > lastMs) {
      lastMs = nowMs
      counterHi = Math.floor(random() * 0x800)
      counterLo = Math.floor(random() * 0x20000000)
    } else {
      counterLo++
      if (counterLo >= 0x40000000) {
        counterLo = 0
        counterHi++
        if (counterHi >= 0x1000) {
          // Counter exhausted within one millisecond: borrow the next millisecond.
          lastMs++
          counterHi = 0
        }
      }
    }
    const ms = lastMs
    if (ms !== prefixMs) {
      prefixMs = ms
      prefix = `${hex8(Math.floor(ms / 0x10000))}-${hex4(ms % 0x10000)}-7`
    }
    const variantHi = 0x8000 | (counterLo >>> 16) // 10xx + top 14 bits of the counter
    const tail = hex4(counterLo & 0xffff) + hex8(Math.floor(random() * 0x100000000))
    return `${prefix}${HEX2[counterHi >>> 4]}${HEX1[counterHi & 0xf]}-${hex4(variantHi)}-${tail}`
  }
}
