import {
  CounterpartyFailure,
  type CounterpartyFieldDefinition,
  currency,
  Directory,
  type Institution,
  type UmaProvider,
  type UmaReceiver,
  type UmaReceiverStep,
  type Vasp
} from "@paycore/core"
import { Effect, Layer } from "effect"
import { SANDBOX_UMA_DOMAIN } from "./rail.ts"

const bank = (country: string, currency: string, bankName: string, displayName: string): Institution => ({
  bankName,
  displayName,
  country,
  currency
})

/** Payment institutions per corridor (country, currency). */
export const SANDBOX_INSTITUTIONS: ReadonlyArray<Institution> = [
  bank("US", "USD", "JPMorgan Chase Bank, N.A.", "Chase"),
  bank("US", "USD", "Bank of America, N.A.", "Bank of America"),
  bank("US", "USD", "Wells Fargo Bank, N.A.", "Wells Fargo"),
  bank("US", "USD", "Citibank, N.A.", "Citi"),
  bank("MX", "MXN", "BBVA México, S.A.", "BBVA México"),
  bank("MX", "MXN", "Banco Santander México, S.A.", "Santander México"),
  bank("MX", "MXN", "Banco Mercantil del Norte, S.A.", "Banorte"),
  bank("BR", "BRL", "Itaú Unibanco S.A.", "Itaú"),
  bank("BR", "BRL", "Banco do Brasil S.A.", "Banco do Brasil"),
  bank("BR", "BRL", "Nu Pagamentos S.A.", "Nubank"),
  bank("DE", "EUR", "Deutsche Bank AG", "Deutsche Bank"),
  bank("DE", "EUR", "Commerzbank AG", "Commerzbank"),
  bank("FR", "EUR", "BNP Paribas S.A.", "BNP Paribas"),
  bank("FR", "EUR", "Société Générale S.A.", "Société Générale"),
  bank("ES", "EUR", "Banco Santander, S.A.", "Santander"),
  bank("ES", "EUR", "CaixaBank, S.A.", "CaixaBank"),
  bank("NL", "EUR", "ING Bank N.V.", "ING"),
  bank("NL", "EUR", "ABN AMRO Bank N.V.", "ABN AMRO"),
  bank("GB", "GBP", "Barclays Bank UK PLC", "Barclays"),
  bank("GB", "GBP", "HSBC UK Bank plc", "HSBC UK"),
  bank("GB", "GBP", "Lloyds Bank plc", "Lloyds"),
  bank("IN", "INR", "State Bank of India", "SBI"),
  bank("IN", "INR", "HDFC Bank Limited", "HDFC Bank"),
  bank("IN", "INR", "ICICI Bank Limited", "ICICI Bank"),
  bank("PH", "PHP", "BDO Unibank, Inc.", "BDO"),
  bank("PH", "PHP", "Bank of the Philippine Islands", "BPI"),
  bank("PH", "PHP", "Metropolitan Bank and Trust Company", "Metrobank"),
  bank("NG", "NGN", "Access Bank Plc", "Access Bank"),
  bank("NG", "NGN", "Guaranty Trust Bank Limited", "GTBank"),
  bank("NG", "NGN", "Zenith Bank Plc", "Zenith Bank"),
  bank("CA", "CAD", "Royal Bank of Canada", "RBC"),
  bank("CA", "CAD", "The Toronto-Dominion Bank", "TD"),
  bank("CA", "CAD", "Bank of Nova Scotia", "Scotiabank"),
  bank("ZA", "ZAR", "Standard Bank of South Africa Limited", "Standard Bank"),
  bank("ZA", "ZAR", "FirstRand Bank Limited", "FNB"),
  bank("CO", "COP", "Bancolombia S.A.", "Bancolombia"),
  bank("CO", "COP", "Banco de Bogotá S.A.", "Banco de Bogotá"),
  bank("CO", "COP", "Nequi", "Nequi"),
  bank("SV", "USD", "Banco Cuscatlán de El Salvador, S.A.", "Banco Cuscatlán"),
  bank("SV", "USD", "Banco Agrícola, S.A.", "Banco Agrícola"),
  bank("GT", "GTQ", "Banco Industrial, S.A.", "Banco Industrial"),
  bank("GT", "GTQ", "Banco de Desarrollo Rural, S.A.", "Banrural"),
  bank("JM", "JMD", "National Commercial Bank Jamaica Limited", "NCB"),
  bank("JM", "JMD", "Scotiabank Jamaica Limited", "Scotiabank Jamaica"),
  bank("BD", "BDT", "Dutch-Bangla Bank PLC", "Dutch-Bangla Bank"),
  bank("BD", "BDT", "BRAC Bank PLC", "BRAC Bank"),
  bank("CN", "CNY", "Industrial and Commercial Bank of China Limited", "ICBC"),
  bank("CN", "CNY", "Bank of China Limited", "Bank of China"),
  bank("EG", "EGP", "National Bank of Egypt", "NBE"),
  bank("EG", "EGP", "Commercial International Bank (Egypt) S.A.E.", "CIB"),
  bank("GH", "GHS", "GCB Bank PLC", "GCB Bank"),
  bank("GH", "GHS", "Ecobank Ghana PLC", "Ecobank Ghana"),
  bank("PK", "PKR", "Habib Bank Limited", "HBL"),
  bank("PK", "PKR", "United Bank Limited", "UBL"),
  bank("HK", "HKD", "The Hongkong and Shanghai Banking Corporation Limited", "HSBC Hong Kong"),
  bank("HK", "HKD", "Bank of China (Hong Kong) Limited", "BOCHK"),
  bank("ID", "IDR", "PT Bank Central Asia Tbk", "BCA"),
  bank("ID", "IDR", "PT Bank Mandiri (Persero) Tbk", "Mandiri"),
  bank("MY", "MYR", "Malayan Banking Berhad", "Maybank"),
  bank("MY", "MYR", "CIMB Bank Berhad", "CIMB"),
  bank("SG", "SGD", "DBS Bank Ltd.", "DBS"),
  bank("SG", "SGD", "Oversea-Chinese Banking Corporation Limited", "OCBC"),
  bank("TH", "THB", "Bangkok Bank Public Company Limited", "Bangkok Bank"),
  bank("TH", "THB", "Kasikornbank Public Company Limited", "KBank"),
  bank("VN", "VND", "Joint Stock Commercial Bank for Foreign Trade of Vietnam", "Vietcombank"),
  bank("VN", "VND", "Vietnam Technological and Commercial Joint Stock Bank", "Techcombank")
]

const provider = (
  id: string,
  name: string,
  domain: string,
  supportedRegions: ReadonlyArray<string>,
  currencyCodes: ReadonlyArray<string>,
  allowListStatus: UmaProvider["allowListStatus"]
): UmaProvider => ({
  id,
  name,
  domain,
  umaAddress: `$payments@${domain}`,
  supportedRegions,
  supportedCurrencies: currencyCodes.map(currency),
  allowListStatus
})

/** UMA counterparties: the sandbox one plus fictitious providers on reserved `.example` domains. */
export const SANDBOX_UMA_PROVIDERS: ReadonlyArray<UmaProvider> = [
  provider(
    "uma-sandbox",
    "UMA Sandbox",
    SANDBOX_UMA_DOMAIN,
    ["US", "MX", "DE", "FR", "ES", "NL"],
    ["USD", "EUR", "MXN"],
    true
  ),
  provider("uma-aurora", "Aurora Pay", "aurorapay.example", ["BR", "MX"], ["BRL", "MXN", "USD"], true),
  provider("uma-kestrel", "Kestrel Wallet", "kestrel.example", ["NG", "KE"], ["NGN", "KES", "USD"], true),
  provider("uma-thames", "Thames Money", "thames.example", ["GB"], ["GBP", "EUR"], true),
  provider("uma-maple", "Maple Transfer", "maple.example", ["CA"], ["CAD", "USD"], true),
  provider("uma-lotus", "Lotus Remit", "lotus.example", ["IN"], ["INR"], true),
  provider("uma-sampaguita", "Sampaguita Cash", "sampaguita.example", ["PH"], ["PHP", "USD"], false),
  provider("uma-shadow", "Shadow Exchange", "shadow.example", ["US"], ["USD", "USDC"], false)
]

/** Receivers' amount bounds, in the receiving currency's smallest unit. */
export const UMA_RECEIVER_MIN_AMOUNT = 1
export const UMA_RECEIVER_MAX_AMOUNT = 100_000_000

/** The named receivers at the sandbox UMA domain (user part without `$`) and the currency each accepts. */
export const SANDBOX_UMA_RECEIVERS: Readonly<Record<string, string>> = {
  "success.usd": "USD",
  "success.eur": "EUR",
  "success.mxn": "MXN",
  "pending.long.usd": "USD",
  "fail.compliance.usd": "USD"
}

/**
 * What a provider's receivers ask of the payer, by domain: a quote to one of them carries each mandatory field
 * in `senderCustomerInfo`. The sandbox's own receivers (`sandbox.uma.money`) and the other providers ask nothing.
 */
export const SANDBOX_PAYER_DATA_FIELDS: Readonly<Record<string, ReadonlyArray<CounterpartyFieldDefinition>>> = {
  "aurorapay.example": [
    { name: "FULL_NAME", mandatory: true },
    { name: "NATIONALITY", mandatory: false }
  ],
  "thames.example": [
    { name: "FULL_NAME", mandatory: true },
    { name: "BIRTH_DATE", mandatory: true }
  ]
}

/**
 * Counterparties that cannot be dealt with (C-50, Q-47), by user at `sandbox.uma.money`: the step that fails and its
 * code. The `payreq` ones look up as a USD receiver and fail when quoted.
 */
export const SANDBOX_UMA_COUNTERPARTY_FAILURES: Readonly<
  Record<string, { readonly step: UmaReceiverStep; readonly code: CounterpartyFailure["code"] }>
> = {
  "unsupported.version": { step: "lookup", code: "UNSUPPORTED_UMA_VERSION" },
  "no.compatible.version": { step: "lookup", code: "NO_COMPATIBLE_UMA_VERSION" },
  "lnurlp.fail": { step: "lookup", code: "LNURLP_REQUEST_FAILED" },
  "pubkey.fail": { step: "lookup", code: "COUNTERPARTY_PUBKEY_FETCH_ERROR" },
  "payreq.fail.usd": { step: "quote", code: "PAYREQ_REQUEST_FAILED" }
}

const FAILURE_MESSAGES: Readonly<Record<CounterpartyFailure["code"], string>> = {
  UNSUPPORTED_UMA_VERSION: "speaks only UMA versions this service does not support",
  NO_COMPATIBLE_UMA_VERSION: "shares no UMA version with this service",
  LNURLP_REQUEST_FAILED: "did not answer its LNURLP lookup",
  COUNTERPARTY_PUBKEY_FETCH_ERROR: "did not serve its public keys",
  PAYREQ_REQUEST_FAILED: "refused the pay request"
}

/** `$user@domain` → `{ user, domain }` (lower case, `$` optional), or `undefined` when malformed. */
const parseUmaAddress = (address: string): { readonly user: string; readonly domain: string } | undefined => {
  const m = /^\$?([^\s@$]+)@([^\s@]+)$/.exec(address.trim().toLowerCase())
  return m?.[1] === undefined || m[2] === undefined ? undefined : { user: m[1], domain: m[2] }
}

/**
 * The receiver behind an UMA address, or `undefined` (UMA_NOT_FOUND); `CounterpartyFailure` for the addresses of
 * `SANDBOX_UMA_COUNTERPARTY_FAILURES` at their step (a `quote` failure fails only quotes). A receiver at a provider
 * off the allow list is answered `allowed: false`.
 */
export const sandboxUmaReceiver = (
  umaAddress: string,
  step: UmaReceiverStep = "lookup"
): Effect.Effect<UmaReceiver | undefined, CounterpartyFailure> => {
  const parsed = parseUmaAddress(umaAddress)
  if (parsed === undefined) return Effect.succeed(undefined)
  const fields = SANDBOX_PAYER_DATA_FIELDS[parsed.domain]
  const receiver = (currencies: ReadonlyArray<string>, allowed = true): UmaReceiver => ({
    umaAddress,
    currencies,
    minAmount: UMA_RECEIVER_MIN_AMOUNT,
    maxAmount: UMA_RECEIVER_MAX_AMOUNT,
    ...(allowed ? {} : { allowed }),
    ...(fields === undefined ? {} : { requiredPayerDataFields: fields })
  })
  if (parsed.domain === SANDBOX_UMA_DOMAIN) {
    const failure = SANDBOX_UMA_COUNTERPARTY_FAILURES[parsed.user]
    if (failure !== undefined && (failure.step === step || failure.step === "lookup")) {
      const message = `The counterparty of ${umaAddress} ${FAILURE_MESSAGES[failure.code]}`
      return Effect.fail(new CounterpartyFailure({ code: failure.code, message }))
    }
    if (failure !== undefined) return Effect.succeed(receiver(["USD"]))
    const code = SANDBOX_UMA_RECEIVERS[parsed.user]
    return Effect.succeed(code === undefined ? undefined : receiver([code]))
  }
  const known = SANDBOX_UMA_PROVIDERS.find((p) => p.domain === parsed.domain)
  return Effect.succeed(
    known === undefined
      ? undefined
      : receiver(
          known.supportedCurrencies.map((c) => c.code),
          known.allowListStatus
        )
  )
}

/** Exchanges and custodians a wallet's counterparty may be declared at (`vaspName`, `GET /vasps`). */
export const SANDBOX_VASPS: ReadonlyArray<Vasp> = [
  { vaspName: "Binance", url: "https://www.binance.com" },
  { vaspName: "Bitso", url: "https://bitso.com" },
  { vaspName: "Coinbase", url: "https://www.coinbase.com" },
  { vaspName: "Gemini", url: "https://www.gemini.com" },
  { vaspName: "Kraken", url: "https://www.kraken.com" },
  { vaspName: "OKX", url: "https://www.okx.com" },
  { vaspName: "Sandbox Custody" }
]

/** Fixed-list `Directory`: the core filters by country, currency and paging. */
export const SandboxDirectory: Layer.Layer<Directory> = Layer.succeed(
  Directory,
  Directory.of({
    institutions: () => Effect.succeed(SANDBOX_INSTITUTIONS),
    umaProviders: () => Effect.succeed(SANDBOX_UMA_PROVIDERS),
    umaReceiver: (umaAddress, step) => Effect.suspend(() => sandboxUmaReceiver(umaAddress, step)),
    vasps: () => Effect.succeed(SANDBOX_VASPS)
  })
)
