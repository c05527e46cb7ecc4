/**
 * The European Economic Area: the EU-27 with Iceland, Liechtenstein and Norway (ISO 3166-1 alpha-2). PSD2 and its
 * SCA rules (RTS 2018/389) and the transfer-of-funds rules for self-hosted wallets (Regulation (EU) 2023/1113) apply
 * EEA-wide, so one table answers three questions: whose contact details the sandbox KYC provider asks to verify
 * before KYC, which customers are subject to Strong Customer Authentication by default (`EngineSettings.scaRegions`)
 * and where the Travel Rule's ownership verification applies by default (`EngineSettings.travelRule.regions`).
 */
export const EEA_REGIONS: ReadonlyArray<string> = [
  "AT",
  "BE",
  "BG",
  "CY",
  "CZ",
  "DE",
  "DK",
  "EE",
  "ES",
  "FI",
  "FR",
  "GR",
  "HR",
  "HU",
  "IE",
  "IS",
  "IT",
  "LI",
  "LT",
  "LU",
  "LV",
  "MT",
  "NL",
  "NO",
  "PL",
  "PT",
  "RO",
  "SE",
  "SI",
  "SK"
]
