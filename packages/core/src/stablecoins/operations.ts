import { Effect } from "effect"
import { recordSteps } from "../accounts/balance-updates.ts"
import { accountNotFound } from "../accounts/errors.ts"
import type { IdempotentResponse } from "../idempotency/model.ts"
import { clientReferenceOf, type IdempotentRequest, runPrepared } from "../idempotency/run.ts"
import type { Environment } from "../platform/model.ts"
import type { ProviderDestination, ProviderFunding, ProviderOperation } from "../ports/stablecoin-provider.ts"
import { Store } from "../ports/store.ts"
import { currency, isKnownCurrency } from "../shared/currency.ts"
import type { Refused } from "../shared/errors.ts"
import { nowIso } from "../shared/time.ts"
import { parseStablecoinAmount } from "./amounts.ts"
import {
  accountUnusable,
  amountOutOfRange,
  providerAccountInvalid,
  providerAccountNotFound,
  requestInFlight,
  stablecoinNotProvisioned
} from "./errors.ts"
import { holdLegs } from "./legs.ts"
import type {
  BurnRail,
  BurnRequest,
  MintRequest,
  OperationDestination,
  OperationSource,
  ProviderAccountRecord,
  StablecoinOperationRecord,
  StablecoinOperationType,
  StablecoinRecord
} from "./model.ts"
import type { StablecoinPorts, StablecoinsError } from "./ports.ts"
import { usableLink, withLink } from "./provider-accounts.ts"
import { stablecoinRecord } from "./reads.ts"
import { toStablecoinOperation } from "./views.ts"

// Mints and burns (P-13 … P-15, C-05, L-20; design section 3 "Mint / burn"): every check that needs no lock first;
// prepare = `provider.create` with the request's client reference, outside any transaction (unreachable → 503, nothing
// stored); commit = the operation and the hold of legs.ts in one transaction (`INSUFFICIENT_FUNDS` rolls it back and
// the orphaned provider operation is cancelled, best effort).

/** The bank rail an external account must offer for a burn's payout rail. */
const accountRailOf: Readonly<Record<BurnRail, string>> = {
  WIRE: "WIRE",
  ACH_CREDIT: "ACH",
  SAME_DAY_ACH_CREDIT: "ACH",
  RTP_CREDIT: "RTP"
}

const ESTIMATED_TIMING: Readonly<Record<BurnRail, string>> = {
  WIRE: "same business day",
  ACH_CREDIT: "1-3 business days",
  SAME_DAY_ACH_CREDIT: "same business day",
  RTP_CREDIT: "seconds"
}

/** What a mint or burn is, once checked: the operation's fields and what the provider is told. */
interface Checked {
  readonly coin: StablecoinRecord
  readonly link: ProviderAccountRecord
  readonly type: StablecoinOperationType
  readonly amount: string
  readonly minor: number
  readonly base: number
  readonly source: OperationSource
  readonly destination: OperationDestination
  readonly funding: ProviderFunding
  readonly providerDestination: ProviderDestination
  readonly description?: string | undefined
}

/** The coin, its link and the amount, checked in the order of the design's row 11. */
const checkCoin = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  stablecoinId: string,
  amount: string,
  environment: Environment
) {
  const coin = yield* stablecoinRecord(ports, stablecoinId)
  const link = yield* ports.store.stablecoinProviderAccounts.get(coin.providerAccountLinkId)
  if (link === undefined) return yield* providerAccountNotFound(coin.providerAccountLinkId)
  yield* usableLink(link)
  // Q9: a token of one environment cannot move coins registered under the other.
  if (link.environment !== environment) {
    return yield* providerAccountInvalid(`it is a ${link.environment} link and this token is ${environment}`)
  }
  if (coin.issuanceStatus !== "PROVISIONED") return yield* stablecoinNotProvisioned(coin.issuanceStatus)
  const baseDecimals = isKnownCurrency(coin.baseCurrency) ? currency(coin.baseCurrency).decimals : 2
  const parsed = parseStablecoinAmount(amount, coin.decimals, baseDecimals)
  switch (parsed._tag) {
    case "OutOfRange":
      return yield* amountOutOfRange("amount must be between 1 and 9000000000000000", {
        minimum: 1,
        maximum: 9_000_000_000_000_000
      })
    case "NotWholeBaseUnits":
      return yield* amountOutOfRange(
        `amount must be a whole number of ${coin.baseCurrency} smallest units: a multiple of ${parsed.multipleOf}`,
        { multipleOf: parsed.multipleOf }
      )
  }
  return { coin, link, minor: parsed.minor, base: parsed.base }
})

/** An internal account that pays (`field` names it): exists (404), `ACTIVE`, in `currency`, not an embedded wallet. */
const payingInternalAccount = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  id: string,
  field: string,
  ccy: string
) {
  const account = id.startsWith("InternalAccount:") ? yield* ports.store.internalAccounts.get(id) : undefined
  if (account === undefined) return yield* accountNotFound(id)
  // An embedded wallet's money moves only on its customer's signature: never a debit source here.
  if (account.type === "EMBEDDED_WALLET") return yield* accountUnusable(field, "an embedded wallet is not a source")
  if (account.status !== "ACTIVE") return yield* accountUnusable(field, `the account is ${account.status}`)
  if (account.currency !== ccy)
    return yield* accountUnusable(field, `the account holds ${account.currency}, not ${ccy}`)
  return account
})

/** An `ACTIVE` external account (`field` names it), else 404 / 400. */
const activeExternalAccount = Effect.fnUntraced(function* (ports: StablecoinPorts, id: string, field: string) {
  const account = id.startsWith("ExternalAccount:") ? yield* ports.store.externalAccounts.get(id) : undefined
  if (account === undefined) return yield* accountNotFound(id)
  if (account.status !== "ACTIVE") return yield* accountUnusable(field, `the account is ${account.status}`)
  return account
})

/** A bank account in the coin's base currency that offers `rail`. */
const bankAccount = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  id: string,
  field: string,
  coin: StablecoinRecord,
  rail: string
) {
  const account = yield* activeExternalAccount(ports, id, field)
  if (account.currency !== coin.baseCurrency) {
    return yield* accountUnusable(field, `the account is in ${account.currency}, not ${coin.baseCurrency}`)
  }
  if (!account.paymentRails.includes(rail as never))
    return yield* accountUnusable(field, `the account has no ${rail} rail`)
  return account
})

/** P-13: every check of a mint that needs no lock. */
const checkMint = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  stablecoinId: string,
  request: MintRequest,
  environment: Environment
): Effect.fn.Return<Checked, StablecoinsError> {
  const { coin, link, minor, base } = yield* checkCoin(ports, stablecoinId, request.amount, environment)
  const to = request.destination.accountId
  let providerDestination: ProviderDestination
  if (to.startsWith("InternalAccount:")) {
    const account = yield* ports.store.internalAccounts.get(to)
    if (account === undefined) return yield* accountNotFound(to)
    if (coin.currency === undefined) {
      return yield* accountUnusable(
        "destination.accountId",
        `${coin.symbol} is NOT_ENABLED here: mint it to an external wallet only`
      )
    }
    if (account.status !== "ACTIVE")
      return yield* accountUnusable("destination.accountId", `the account is ${account.status}`)
    if (account.currency !== coin.currency) {
      return yield* accountUnusable(
        "destination.accountId",
        `the account holds ${account.currency}, not ${coin.currency}`
      )
    }
    providerDestination = { kind: "SERVICE" }
  } else {
    const account = yield* activeExternalAccount(ports, to, "destination.accountId")
    if (account.accountInfo.accountType !== "SPARK_WALLET") {
      return yield* accountUnusable("destination.accountId", "a mint goes to a Spark wallet")
    }
    providerDestination = { kind: "WALLET", address: (account.accountInfo as { readonly address: string }).address }
  }
  const fundingSource = request.fundingSource
  let funding: ProviderFunding
  let source: OperationSource
  switch (fundingSource.type) {
    case "WIRE":
      funding = { kind: "WIRE" }
      source = { type: "WIRE" }
      break
    case "ACH_DEBIT":
    case "SAME_DAY_ACH_DEBIT":
      yield* bankAccount(ports, fundingSource.externalAccountId, "fundingSource.externalAccountId", coin, "ACH")
      funding = { kind: fundingSource.type, accountId: fundingSource.externalAccountId }
      source = { type: fundingSource.type, externalAccountId: fundingSource.externalAccountId }
      break
    case "SERVICE_INTERNAL_ACCOUNT":
      yield* payingInternalAccount(ports, fundingSource.accountId, "fundingSource.accountId", coin.baseCurrency)
      funding = { kind: "SERVICE" }
      source = { type: "SERVICE_INTERNAL_ACCOUNT", accountId: fundingSource.accountId }
      break
    case "PROVIDER_INTERNAL_BALANCE":
      funding = { kind: "PROVIDER_BALANCE", sourceTokenIdentifier: fundingSource.sourceTokenIdentifier }
      source = {
        type: "PROVIDER_INTERNAL_BALANCE",
        sourceTokenIdentifier: fundingSource.sourceTokenIdentifier,
        cryptoNetwork: fundingSource.cryptoNetwork
      }
      break
  }
  return {
    coin,
    link,
    type: "MINT",
    amount: request.amount,
    minor,
    base,
    source,
    destination: { accountId: to },
    funding,
    providerDestination,
    description: request.description
  }
})

/** P-14: every check of a burn that needs no lock. */
const checkBurn = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  stablecoinId: string,
  request: BurnRequest,
  environment: Environment
): Effect.fn.Return<Checked, StablecoinsError> {
  const { coin, link, minor, base } = yield* checkCoin(ports, stablecoinId, request.amount, environment)
  let funding: ProviderFunding
  let source: OperationSource
  switch (request.source.type) {
    case "EXTERNAL_ACCOUNT":
      funding = { kind: "EXTERNAL_WALLET" }
      source = { type: "EXTERNAL_ACCOUNT" }
      break
    case "SERVICE_INTERNAL_ACCOUNT":
      if (coin.currency === undefined) {
        return yield* accountUnusable("source.accountId", `${coin.symbol} is NOT_ENABLED here: no account holds it`)
      }
      yield* payingInternalAccount(ports, request.source.accountId, "source.accountId", coin.currency)
      funding = { kind: "SERVICE" }
      source = { type: "SERVICE_INTERNAL_ACCOUNT", accountId: request.source.accountId }
      break
    case "PROVIDER_INTERNAL_BALANCE":
      funding = { kind: "PROVIDER_BALANCE" }
      source = { type: "PROVIDER_INTERNAL_BALANCE" }
      break
  }
  const { externalAccountId, rail } = request.destination
  yield* bankAccount(ports, externalAccountId, "destination.externalAccountId", coin, accountRailOf[rail])
  return {
    coin,
    link,
    type: "BURN",
    amount: request.amount,
    minor,
    base,
    source,
    destination: { accountId: externalAccountId, rail },
    funding,
    providerDestination: { kind: "BANK", accountId: externalAccountId, rail },
    description: request.description
  }
})

/** The operation as committed: `PENDING_FUNDING` when the funds come from outside, else `CREATED`; due at once. */
const operationRecord = (
  checked: Checked,
  created: ProviderOperation,
  id: StablecoinOperationRecord["id"],
  clientReference: string,
  now: string
): StablecoinOperationRecord => {
  const { coin } = checked
  const rail = checked.destination.rail
  return {
    id,
    stablecoinId: coin.id,
    operationType: checked.type,
    state: created.awaitingFunds ? "PENDING_FUNDING" : "CREATED",
    amount: checked.amount,
    minorAmount: checked.minor,
    baseAmount: checked.base,
    baseCurrency: coin.baseCurrency,
    ledgerCurrency: coin.ledgerCurrency,
    provider: coin.provider,
    environment: coin.environment,
    providerAccountLinkId: checked.link.id,
    source: checked.source,
    destination: checked.destination,
    ...(created.fundingInstructions === undefined ? {} : { fundingInstructions: created.fundingInstructions }),
    ...(rail === undefined
      ? {}
      : {
          estimatedDelivery: {
            rail,
            amount: String(checked.base),
            currency: coin.baseCurrency,
            timing: created.estimatedDelivery?.timing ?? ESTIMATED_TIMING[rail]
          }
        }),
    ...(created.expiresAt === undefined ? {} : { expiresAt: created.expiresAt }),
    ...(checked.description === undefined ? {} : { description: checked.description }),
    clientReference,
    providerOperationId: created.providerOperationId,
    ...(checked.source.type === "SERVICE_INTERNAL_ACCOUNT" ? { heldAccountId: checked.source.accountId } : {}),
    dueAt: now,
    createdAt: now,
    updatedAt: now
  }
}

const isInsufficientFunds = (e: unknown): e is Refused =>
  typeof e === "object" && e !== null && (e as { code?: unknown }).code === "INSUFFICIENT_FUNDS"

/**
 * Prepare (the checks, then the provider's create) and commit (the operation and its hold) of a mint or burn. A
 * stored answer for the key is replayed before any check (a retry of a created operation answers it even when the
 * account has been spent since).
 */
const openOperation = Effect.fnUntraced(function* (
  ports: StablecoinPorts,
  check: Effect.Effect<Checked, StablecoinsError>,
  idempotency: IdempotentRequest
): Effect.fn.Return<IdempotentResponse, StablecoinsError> {
  const { store, provider } = ports
  const clientReference = clientReferenceOf(idempotency)
  let orphan: { readonly checked: Checked; readonly created: ProviderOperation } | undefined
  const prepare = Effect.gen(function* () {
    const checked = yield* check
    const created = yield* withLink(ports, checked.link, (credentials) =>
      provider.create(credentials, {
        clientReference,
        type: checked.type,
        providerTokenIdentifier: checked.coin.providerTokenIdentifier,
        amount: BigInt(checked.amount),
        baseAmount: checked.base,
        funding: checked.funding,
        destination: checked.providerDestination
      })
    )
    orphan = { checked, created }
    return { checked, created }
  })
  const commit = ({ checked, created }: { readonly checked: Checked; readonly created: ProviderOperation }) =>
    store.transaction(
      Effect.gen(function* () {
        const now = yield* nowIso
        const id = yield* ports.ids.make("StablecoinOperation")
        const record = operationRecord(checked, created, id, clientReference, now)
        // A racing twin (same key, so the same client reference) committed first: its stored answer is replayed.
        yield* store.stablecoinOperations
          .insert(record)
          .pipe(Effect.catchTag("UniqueViolation", () => Effect.fail(requestInFlight())))
        const hold = holdLegs(record)
        if (hold.length > 0) yield* recordSteps(ports, record.id, hold, "PENDING", now, 0)
        return toStablecoinOperation(record)
      })
    )
  return yield* runPrepared(idempotency, prepare, commit, (op) => ({ status: 201, body: op })).pipe(
    Effect.provideService(Store, store),
    Effect.tapError((e) => {
      const left = orphan
      if (left === undefined || !isInsufficientFunds(e)) return Effect.void
      // Nothing was committed: the provider's intent is cancelled, else it expires there unfunded.
      return withLink(ports, left.checked.link, (credentials) =>
        provider.cancel(credentials, left.created.providerOperationId)
      ).pipe(Effect.ignore)
    })
  )
})

/** `POST /stablecoins/{id}/mints` (P-13). */
export const createMint = (
  ports: StablecoinPorts,
  stablecoinId: string,
  request: MintRequest,
  environment: Environment,
  idempotency: IdempotentRequest
): Effect.Effect<IdempotentResponse, StablecoinsError> =>
  openOperation(ports, checkMint(ports, stablecoinId, request, environment), idempotency)

/** `POST /stablecoins/{id}/burns` (P-14). */
export const createBurn = (
  ports: StablecoinPorts,
  stablecoinId: string,
  request: BurnRequest,
  environment: Environment,
  idempotency: IdempotentRequest
): Effect.Effect<IdempotentResponse, StablecoinsError> =>
  openOperation(ports, checkBurn(ports, stablecoinId, request, environment), idempotency)
