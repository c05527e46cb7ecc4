import type { PlatformConfig, PlatformCurrencyConfig } from "@paycore/core"
import { NOW } from "./ids.ts"

// The platform configuration records of the conformance suites: the smallest and the fullest.

/** One currency of a config record (L-19). */
const currencySettings = (
  currencyCode: string,
  minAmount: number,
  maxAmount: number,
  enabledTransactionTypes: PlatformCurrencyConfig["enabledTransactionTypes"],
  requiredCounterpartyFields: PlatformCurrencyConfig["requiredCounterpartyFields"] = []
): PlatformCurrencyConfig => ({
  currencyCode,
  minAmount,
  maxAmount,
  requiredCounterpartyFields,
  enabledTransactionTypes
})

export const configMinimal = (): PlatformConfig => ({
  id: "PlatformConfig:0190a5b2-0000-7000-8000-000000000001",
  umaDomain: "conformance.example",
  supportedCurrencies: [currencySettings("USD", 1, 9_000_000_000_000_000, ["OUTGOING", "INCOMING"])],
  isRegulatedFinancialInstitution: false,
  skipVerificationPaperwork: false,
  feeConfigs: [],
  transactionLimits: [],
  createdAt: NOW,
  updatedAt: NOW
})

export const configFull = (): PlatformConfig => ({
  ...configMinimal(),
  webhookEndpoint: "https://platform.example.com/hooks",
  supportedCurrencies: [
    ...configMinimal().supportedCurrencies,
    currencySettings(
      "EUR",
      100,
      5_000_000,
      ["OUTGOING"],
      [
        { name: "FULL_NAME", mandatory: true },
        { name: "BIRTH_DATE", mandatory: false }
      ]
    ),
    currencySettings("MXN", 0, 0, [])
  ],
  isRegulatedFinancialInstitution: true,
  skipVerificationPaperwork: true,
  feeConfigs: [
    {
      feeType: "CROSS_CURRENCY_TRANSACTION",
      sourceCurrency: "USD",
      variableFeeBps: 25,
      fixedFee: { amount: 30, currency: "USD" }
    },
    { feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "EUR" }
  ],
  cardConfigs: { maxSpendPerTransaction: 500_000, maxSpendPerDay: null },
  cardTokenization2faConfig: {
    displayName: "Conformance",
    logoUrl: "https://platform.example.com/logo.png",
    email: { fromAddress: "noreply@example.com", subject: "Your code ✓" },
    sms: { bodyText: "Code: {{code}}" }
  },
  transactionLimits: [
    { currency: "USD", maxTransactionAmount: 1_000_000, maxDailyVolume: 9_000_000_000_000_000 },
    { currency: "EUR" }
  ],
  updatedAt: "2026-03-02T12:30:00.000Z"
})
