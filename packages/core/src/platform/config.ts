import { Effect } from "effect"
import { Ids } from "../ports/ids.ts"
import { Store } from "../ports/store.ts"
import { EngineConfig } from "../shared/engine-config.ts"
import type { FieldError, StoreError } from "../shared/errors.ts"
import { nowIso } from "../shared/time.ts"
import { invalidInput } from "../shared/validation.ts"
import { emit } from "../webhooks/emit.ts"
import {
  currencySettingErrors,
  DEFAULT_SUPPORTED_CURRENCIES,
  defaultCurrencyConfig,
  resolveCurrencySettings
} from "./currencies.ts"
import type { EndUserTerms, PlatformConfig, UpdateConfigRequest } from "./model.ts"
import type { PlatformPorts } from "./ports.ts"

// The platform configuration (`PlatformConfigService`): one record, created with defaults on first use.

export const DEFAULT_UMA_DOMAIN = "sandbox.paycore.dev"

/** Platform fees are only charged on USD-sourced transactions (spec: "requires USD source currency"). */
const FEE_CURRENCY = "USD"

/** Every broken rule of a config update, all at once. */
export const configUpdateErrors = (req: UpdateConfigRequest): Array<FieldError> => {
  const errors: Array<FieldError> = []
  const seenFees = new Set<string>()
  req.feeConfigs?.forEach((fee, i) => {
    if (fee.sourceCurrency !== FEE_CURRENCY) {
      errors.push({
        field: `feeConfigs.${i}.sourceCurrency`,
        constraint: { enum: [FEE_CURRENCY] },
        message: "Platform fees apply to USD source currency only"
      })
    }
    if (fee.variableFeeBps === undefined && fee.fixedFee === undefined) {
      errors.push({
        field: `feeConfigs.${i}`,
        constraint: { anyOf: ["variableFeeBps", "fixedFee"] },
        message: "A fee config needs variableFeeBps, fixedFee or both"
      })
    }
    if (fee.fixedFee !== undefined && fee.fixedFee.currency !== FEE_CURRENCY) {
      errors.push({
        field: `feeConfigs.${i}.fixedFee.currency`,
        constraint: { enum: [FEE_CURRENCY] },
        message: "The fixed fee is charged in the USD source currency"
      })
    }
    const key = `${fee.feeType}/${fee.sourceCurrency}`
    if (seenFees.has(key)) {
      errors.push({
        field: `feeConfigs.${i}`,
        constraint: { unique: ["feeType", "sourceCurrency"] },
        message: "At most one fee config per fee type and source currency"
      })
    }
    seenFees.add(key)
  })
  const seenLimits = new Set<string>()
  req.transactionLimits?.forEach((limit, i) => {
    if (seenLimits.has(limit.currency)) {
      errors.push({
        field: `transactionLimits.${i}.currency`,
        constraint: { unique: true },
        message: "At most one limit entry per currency"
      })
    }
    seenLimits.add(limit.currency)
  })
  return errors
}

const uuidFromHex = (hex: string): string =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((Number.parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`

/** `GET /config`: the configuration, created with defaults on first use. */
export const loadOrCreateConfig = Effect.fnUntraced(function* (
  ports: PlatformPorts
): Effect.fn.Return<PlatformConfig, StoreError> {
  const { store, ids } = ports
  const existing = yield* store.config.get()
  if (existing !== undefined) return existing
  return yield* store.transaction(
    Effect.gen(function* () {
      const again = yield* store.config.get()
      if (again !== undefined) return again
      const now = yield* nowIso
      const config: PlatformConfig = {
        id: `PlatformConfig:${uuidFromHex(yield* ids.randomHex(16))}`,
        umaDomain: DEFAULT_UMA_DOMAIN,
        supportedCurrencies: DEFAULT_SUPPORTED_CURRENCIES.map(defaultCurrencyConfig),
        isRegulatedFinancialInstitution: false,
        skipVerificationPaperwork: false,
        feeConfigs: [],
        transactionLimits: [],
        createdAt: now,
        updatedAt: now
      }
      yield* store.config.put(config)
      return config
    })
  )
})

/** `PATCH /config`: omitted fields keep their values; a new `webhookEndpoint` sends a `TEST` event. */
export const updateConfig = Effect.fnUntraced(function* (ports: PlatformPorts, req: UpdateConfigRequest) {
  const { store, ids } = ports
  const errors = configUpdateErrors(req)
  if (errors.length > 0) return yield* invalidInput(errors)
  return yield* store.transaction(
    Effect.gen(function* () {
      const current = yield* loadOrCreateConfig(ports)
      const currencies =
        req.supportedCurrencies === undefined
          ? undefined
          : resolveCurrencySettings(current.supportedCurrencies, req.supportedCurrencies)
      if (req.supportedCurrencies !== undefined && currencies !== undefined) {
        const refused = currencySettingErrors(req.supportedCurrencies, currencies)
        if (refused.length > 0) return yield* invalidInput(refused)
      }
      const now = yield* nowIso
      const next: PlatformConfig = {
        ...current,
        ...(req.umaDomain === undefined ? {} : { umaDomain: req.umaDomain }),
        ...(req.webhookEndpoint === undefined ? {} : { webhookEndpoint: req.webhookEndpoint }),
        ...(currencies === undefined ? {} : { supportedCurrencies: currencies }),
        ...(req.feeConfigs === undefined ? {} : { feeConfigs: req.feeConfigs }),
        // Card caps merge key by key (null clears one cap); the 2FA branding is replaced whole.
        ...(req.cardConfigs === undefined ? {} : { cardConfigs: { ...current.cardConfigs, ...req.cardConfigs } }),
        ...(req.cardTokenization2faConfig === undefined
          ? {}
          : { cardTokenization2faConfig: req.cardTokenization2faConfig }),
        // Fields left out are left unchanged (upstream EmbeddedWalletConfig).
        ...(req.embeddedWalletConfig === undefined
          ? {}
          : { embeddedWalletConfig: { ...current.embeddedWalletConfig, ...req.embeddedWalletConfig } }),
        ...(req.transactionLimits === undefined ? {} : { transactionLimits: req.transactionLimits }),
        ...(req.skipVerificationPaperwork === undefined
          ? {}
          : { skipVerificationPaperwork: req.skipVerificationPaperwork }),
        updatedAt: now
      }
      yield* store.config.put(next)
      if (req.webhookEndpoint !== undefined && req.webhookEndpoint !== current.webhookEndpoint) {
        yield* emit("TEST", "webhook-endpoint", {}).pipe(
          Effect.provideService(Store, store),
          Effect.provideService(Ids, ids)
        )
      }
      return next
    })
  )
})

/** `GET /customers/end-user-terms`: the current terms version and URL (EngineConfig). */
export const endUserTerms = Effect.fnUntraced(function* () {
  const settings = yield* Effect.service(EngineConfig)
  const terms: EndUserTerms = { version: settings.endUserTerms.version, url: settings.endUserTerms.url }
  return terms
})
