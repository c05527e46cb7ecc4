/**
 * On-chain legs of a payment (issue 17 plan, section 3 "Crypto", V-03), pure: a payout that settled on
 * a chain to an external wallet carries the transfer as `destination.onChainTransaction`; a deposit in a stablecoin
 * or on Bitcoin L1 that funded a quote carries it as `source.onChainTransaction`; an UMA payout carries the hash of
 * its inter-VASP settlement leg as `reconciliationInstructions.transactionHash` (never a wallet transfer: that field
 * is deprecated for them). Lightning has no transaction hash; nothing is set before its leg settled.
 */
import { sha256, sha512 } from "@noble/hashes/sha2.js"
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js"
import { base58 } from "@scure/base"
import type { PayoutStatus } from "../ports/rail.ts"
import type { QuoteRecord } from "../quotes/model.ts"
import {
  type OnChainNetwork as Network,
  OnChainNetwork,
  type OnChainTransaction,
  type Transaction,
  type TransactionRecord
} from "./model.ts"

const ON_CHAIN: ReadonlySet<string> = new Set(OnChainNetwork.literals)

/** Whether a rail or network is a chain whose transfers have a hash (every crypto network but Lightning). */
export const isOnChainNetwork = (network: string | undefined): network is Network =>
  network !== undefined && ON_CHAIN.has(network)

const EVM: ReadonlySet<string> = new Set(["ETHEREUM", "BASE", "POLYGON", "PLASMA"])

/**
 * A well-formed transaction hash on `network` derived from `seed` (the sandbox's: a transaction id): `0x` and 64
 * hex digits on EVM chains, a base58 signature (64 bytes) on Solana, 64 hex digits otherwise (Bitcoin, Tron, Spark,
 * a Lightning payment hash).
 */
export const sandboxTransactionHash = (network: string, seed: string): string => {
  if (network === "SOLANA") return base58.encode(sha512(utf8ToBytes(seed)))
  const hex = bytesToHex(sha256(utf8ToBytes(seed)))
  return EVM.has(network) ? `0x${hex}` : hex
}

/**
 * What a payout's settlement adds (`Settled` from its rail): the rail's `onChain` on a destination account paid
 * on a chain; the rail's `settlementHash` in the reconciliation instructions of an UMA payout. Nothing for an
 * incoming payment or anything else.
 */
export const settledFields = (record: TransactionRecord, status: PayoutStatus): Partial<Transaction> => {
  if (status._tag !== "Settled") return {}
  const transaction = record.transaction
  if (transaction.type !== "OUTGOING") return {}
  const destination = transaction.destination
  if (
    destination.destinationType === "ACCOUNT" &&
    status.onChain !== undefined &&
    isOnChainNetwork(destination.paymentRail) &&
    status.onChain.network === destination.paymentRail
  ) {
    return { destination: { ...destination, onChainTransaction: status.onChain } }
  }
  const reconciliation = transaction.reconciliationInstructions
  if (destination.destinationType === "UMA_ADDRESS" && status.settlementHash !== undefined && reconciliation) {
    return { reconciliationInstructions: { ...reconciliation, transactionHash: status.settlementHash } }
  }
  return {}
}

/** The on-chain transfer of the deposit that funded `quote`, when it came on a chain (sandbox: derived hash). */
const depositTransfer = (quote: QuoteRecord, transactionId: string): OnChainTransaction | undefined => {
  const source = quote.quote.source
  if (source.sourceType !== "REALTIME_FUNDING" || !isOnChainNetwork(source.cryptoNetwork)) return undefined
  const network = source.cryptoNetwork
  return { transactionHash: sandboxTransactionHash(network, `${transactionId}:deposit`), network }
}

/**
 * A quote's payment once its deposit arrived (`/sandbox/send`): a stablecoin or Bitcoin L1 deposit puts its
 * transfer on `source.onChainTransaction`; a deposit on a bank rail or Lightning leaves the payment as it is.
 */
export const depositedRecord = (record: TransactionRecord, quote: QuoteRecord): TransactionRecord => {
  const onChainTransaction = depositTransfer(quote, record.id)
  if (onChainTransaction === undefined) return record
  const transaction = record.transaction
  return { ...record, transaction: { ...transaction, source: { ...transaction.source, onChainTransaction } } }
}
