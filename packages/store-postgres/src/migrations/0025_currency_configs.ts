import type { Migration } from "kysely/migration"
import { statements } from "./ddl.ts"

/**
 * Issue 30, L-19: the platform's currencies become `PlatformCurrencyConfig` objects (amount range, enabled ways,
 * fields asked of senders). Each stored code takes the settings a code alone is given (platform/currencies.ts).
 * An incoming payment keeps what its sender's institution told (`counterpartyInformation`).
 */
export const currencyConfigs: Migration = {
  up: statements(
    `ALTER TABLE platform_config ADD COLUMN currency_configs jsonb`,
    `UPDATE platform_config SET currency_configs = (
      SELECT coalesce(jsonb_agg(jsonb_build_object(
        'currencyCode', u.code,
        'minAmount', 1,
        'maxAmount', 9000000000000000,
        'requiredCounterpartyFields', '[]'::jsonb,
        'enabledTransactionTypes', '["OUTGOING", "INCOMING"]'::jsonb
      ) ORDER BY u.position), '[]'::jsonb)
      FROM unnest(supported_currencies) WITH ORDINALITY AS u(code, position)
    )`,
    `ALTER TABLE platform_config DROP COLUMN supported_currencies`,
    `ALTER TABLE platform_config RENAME COLUMN currency_configs TO supported_currencies`,
    `ALTER TABLE platform_config ALTER COLUMN supported_currencies SET NOT NULL`,
    `ALTER TABLE transactions ADD COLUMN counterparty_information jsonb`
  )
}
