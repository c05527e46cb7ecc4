import type { AccountInfo, PayeeTypeName } from "@paycore/core"

/** A payee account the sandbox accepts: its currency and `accountInfo`. */
export interface SandboxPayee {
  readonly currency: string
  readonly accountInfo: AccountInfo
}

const person = { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace" } as const
/** A wallet of `accountType` holding `currency`, at `address`. */
const wallet = (
  accountType:
    | "SOLANA_WALLET"
    | "ETHEREUM_WALLET"
    | "BASE_WALLET"
    | "POLYGON_WALLET"
    | "TRON_WALLET"
    | "PLASMA_WALLET"
    | "SPARK_WALLET",
  currency: string,
  address: string
): SandboxPayee => ({ currency, accountInfo: { accountType, address } })
/** A mobile-money account of `accountType` holding `currency`: a phone number at a provider. */
const mobileMoney = (
  accountType:
    | "KES_ACCOUNT"
    | "TZS_ACCOUNT"
    | "RWF_ACCOUNT"
    | "ZMW_ACCOUNT"
    | "MWK_ACCOUNT"
    | "UGX_ACCOUNT"
    | "BWP_ACCOUNT",
  currency: string,
  phoneNumber: string,
  provider: string
): SandboxPayee => ({ currency, accountInfo: { accountType, phoneNumber, provider, beneficiary: person } })
const address = { line1: "1 Sample Street", city: "Sample City", postalCode: "10001", country: "US" } as const

/**
 * One payee account of every payee type, valid in the sandbox: check digits right, banks from `SANDBOX_INSTITUTIONS`,
 * every route given (so the account is paid on every rail of its type), and no primary identifier ending in a magic
 * suffix (each settles). docs/payees.md shows them; the corridor test pays each one.
 */
export const SANDBOX_PAYEES: Readonly<Record<PayeeTypeName, SandboxPayee>> = {
  USD_ACCOUNT: {
    currency: "USD",
    accountInfo: {
      accountType: "USD_ACCOUNT",
      accountNumber: "123456789",
      routingNumber: "021000021",
      beneficiary: person
    }
  },
  MXN_ACCOUNT: {
    currency: "MXN",
    accountInfo: { accountType: "MXN_ACCOUNT", clabeNumber: "002010077777777771", beneficiary: person }
  },
  EUR_ACCOUNT: {
    currency: "EUR",
    accountInfo: {
      accountType: "EUR_ACCOUNT",
      iban: "DE89370400440532013000",
      swiftCode: "COBADEFFXXX",
      beneficiary: { ...person, countryOfResidence: "DE" }
    }
  },
  BRL_ACCOUNT: {
    currency: "BRL",
    accountInfo: {
      accountType: "BRL_ACCOUNT",
      pixKey: "ada@example.com",
      pixKeyType: "EMAIL",
      taxId: "12345678909",
      bankName: "Nu Pagamentos S.A.",
      beneficiary: person
    }
  },
  GBP_ACCOUNT: {
    currency: "GBP",
    accountInfo: { accountType: "GBP_ACCOUNT", sortCode: "200000", accountNumber: "55779911", beneficiary: person }
  },
  CAD_ACCOUNT: {
    currency: "CAD",
    accountInfo: {
      accountType: "CAD_ACCOUNT",
      bankCode: "001",
      branchCode: "00011",
      accountNumber: "1234567",
      beneficiary: person
    }
  },
  INR_ACCOUNT: {
    currency: "INR",
    accountInfo: {
      accountType: "INR_ACCOUNT",
      vpa: "ada@okaxis",
      accountNumber: "000111222333",
      ifsc: "HDFC0001234",
      bankName: "HDFC Bank Limited",
      beneficiary: person
    }
  },
  NGN_ACCOUNT: {
    currency: "NGN",
    accountInfo: {
      accountType: "NGN_ACCOUNT",
      accountNumber: "0123456789",
      bankName: "Access Bank Plc",
      beneficiary: person
    }
  },
  PHP_ACCOUNT: {
    currency: "PHP",
    accountInfo: {
      accountType: "PHP_ACCOUNT",
      bankName: "BDO Unibank, Inc.",
      accountNumber: "001234567890",
      beneficiary: person
    }
  },
  ZAR_ACCOUNT: {
    currency: "ZAR",
    accountInfo: {
      accountType: "ZAR_ACCOUNT",
      accountNumber: "62001234567",
      bankName: "FirstRand Bank Limited",
      beneficiary: person
    }
  },
  DKK_ACCOUNT: {
    currency: "DKK",
    accountInfo: { accountType: "DKK_ACCOUNT", iban: "DK5000400440116243", beneficiary: person }
  },
  AED_ACCOUNT: {
    currency: "AED",
    accountInfo: {
      accountType: "AED_ACCOUNT",
      iban: "AE070331234567890123456",
      beneficiary: { ...person, address: { ...address, country: "AE" } }
    }
  },
  EGP_ACCOUNT: {
    currency: "EGP",
    accountInfo: {
      accountType: "EGP_ACCOUNT",
      iban: "EG550019000500000000263180181",
      bankName: "National Bank of Egypt",
      phoneNumber: "+201001234567",
      beneficiary: person
    }
  },
  PKR_ACCOUNT: {
    currency: "PKR",
    accountInfo: {
      accountType: "PKR_ACCOUNT",
      bankName: "Habib Bank Limited",
      accountNumber: "01234567891",
      iban: "PK36SCBL0000001123456702",
      phoneNumber: "+923001234567",
      beneficiary: person
    }
  },
  COP_ACCOUNT: {
    currency: "COP",
    accountInfo: {
      accountType: "COP_ACCOUNT",
      accountNumber: "1234567890",
      bankAccountType: "SAVINGS",
      bankName: "Bancolombia S.A.",
      phoneNumber: "+573001234567",
      beneficiary: { ...person, documentType: "CC", documentNumber: "1234567890" }
    }
  },
  BDT_ACCOUNT: {
    currency: "BDT",
    accountInfo: {
      accountType: "BDT_ACCOUNT",
      accountNumber: "1234567890123",
      bankName: "BRAC Bank PLC",
      phoneNumber: "+8801712345678",
      beneficiary: person
    }
  },
  CNY_ACCOUNT: {
    currency: "CNY",
    accountInfo: {
      accountType: "CNY_ACCOUNT",
      accountNumber: "6222021234567890123",
      bankName: "Bank of China Limited",
      phoneNumber: "+8613812345678",
      beneficiary: person
    }
  },
  GHS_ACCOUNT: {
    currency: "GHS",
    accountInfo: {
      accountType: "GHS_ACCOUNT",
      accountNumber: "1234567890123",
      bankName: "GCB Bank PLC",
      phoneNumber: "+233241234567",
      beneficiary: person
    }
  },
  GTQ_ACCOUNT: {
    currency: "GTQ",
    accountInfo: {
      accountType: "GTQ_ACCOUNT",
      accountNumber: "1234567891",
      bankAccountType: "CHECKING",
      bankName: "Banco Industrial, S.A.",
      beneficiary: { ...person, countryOfResidence: "GT", phoneNumber: "+50222123456" }
    }
  },
  JMD_ACCOUNT: {
    currency: "JMD",
    accountInfo: {
      accountType: "JMD_ACCOUNT",
      accountNumber: "123456781",
      branchCode: "10001",
      bankAccountType: "SAVINGS",
      bankName: "National Commercial Bank Jamaica Limited",
      beneficiary: { ...person, address: { ...address, country: "JM" }, phoneNumber: "+18765551234" }
    }
  },
  HKD_ACCOUNT: {
    currency: "HKD",
    accountInfo: {
      accountType: "HKD_ACCOUNT",
      bankName: "The Hongkong and Shanghai Banking Corporation Limited",
      accountNumber: "012345678901",
      swiftCode: "HSBCHKHHHKH",
      beneficiary: person
    }
  },
  MYR_ACCOUNT: {
    currency: "MYR",
    accountInfo: {
      accountType: "MYR_ACCOUNT",
      bankName: "Malayan Banking Berhad",
      accountNumber: "514012345671",
      swiftCode: "MBBEMYKL",
      beneficiary: person
    }
  },
  THB_ACCOUNT: {
    currency: "THB",
    accountInfo: {
      accountType: "THB_ACCOUNT",
      bankName: "Bangkok Bank Public Company Limited",
      accountNumber: "1234567891",
      swiftCode: "BKKBTHBK",
      beneficiary: person
    }
  },
  VND_ACCOUNT: {
    currency: "VND",
    accountInfo: {
      accountType: "VND_ACCOUNT",
      bankName: "Joint Stock Commercial Bank for Foreign Trade of Vietnam",
      accountNumber: "0071001234561",
      swiftCode: "BFTVVNVX",
      beneficiary: person
    }
  },
  IDR_ACCOUNT: {
    currency: "IDR",
    accountInfo: {
      accountType: "IDR_ACCOUNT",
      bankName: "PT Bank Central Asia Tbk",
      accountNumber: "1234567891",
      swiftCode: "CENAIDJA",
      phoneNumber: "+6281234567891",
      beneficiary: person
    }
  },
  SGD_ACCOUNT: {
    currency: "SGD",
    accountInfo: {
      accountType: "SGD_ACCOUNT",
      bankName: "DBS Bank Ltd.",
      accountNumber: "0123456781",
      swiftCode: "DBSSSGSG",
      beneficiary: person
    }
  },
  SLV_ACCOUNT: {
    currency: "USD",
    accountInfo: {
      accountType: "SLV_ACCOUNT",
      bankName: "Banco Cuscatlán de El Salvador, S.A.",
      accountNumber: "0123456781",
      bankAccountType: "CHECKING",
      phoneNumber: "+50371234561",
      beneficiary: person
    }
  },
  KES_ACCOUNT: mobileMoney("KES_ACCOUNT", "KES", "+254712345671", "M-Pesa"),
  TZS_ACCOUNT: mobileMoney("TZS_ACCOUNT", "TZS", "+255712345671", "M-Pesa"),
  RWF_ACCOUNT: mobileMoney("RWF_ACCOUNT", "RWF", "+250781234561", "MTN MoMo"),
  ZMW_ACCOUNT: mobileMoney("ZMW_ACCOUNT", "ZMW", "+260971234561", "MTN MoMo"),
  MWK_ACCOUNT: mobileMoney("MWK_ACCOUNT", "MWK", "+265991234561", "Airtel Money"),
  UGX_ACCOUNT: mobileMoney("UGX_ACCOUNT", "UGX", "+256771234561", "MTN MoMo"),
  BWP_ACCOUNT: mobileMoney("BWP_ACCOUNT", "BWP", "+26771234561", "Orange Money"),
  HTG_ACCOUNT: {
    currency: "HTG",
    accountInfo: { accountType: "HTG_ACCOUNT", phoneNumber: "+50937123451", beneficiary: person }
  },
  XOF_ACCOUNT: {
    currency: "XOF",
    accountInfo: {
      accountType: "XOF_ACCOUNT",
      phoneNumber: "+221771234561",
      provider: "Orange Money",
      region: "SN",
      beneficiary: person
    }
  },
  XAF_ACCOUNT: {
    currency: "XAF",
    accountInfo: {
      accountType: "XAF_ACCOUNT",
      phoneNumber: "+237671234561",
      provider: "MTN MoMo",
      region: "CM",
      beneficiary: person
    }
  },
  SWIFT_ACCOUNT: {
    currency: "JPY",
    accountInfo: {
      accountType: "SWIFT_ACCOUNT",
      country: "JP",
      swiftCode: "MHCBJPJT",
      bankName: "Mizuho Bank, Ltd.",
      accountNumber: "1234561",
      beneficiary: person
    }
  },
  SOLANA_WALLET: wallet("SOLANA_WALLET", "USDC", "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLxyz"),
  ETHEREUM_WALLET: wallet("ETHEREUM_WALLET", "USDC", "0x742d35Cc6634C0532925a3b844Bc454e4438f44e"),
  BASE_WALLET: wallet("BASE_WALLET", "USDC", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"),
  POLYGON_WALLET: wallet("POLYGON_WALLET", "USDC", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"),
  TRON_WALLET: wallet("TRON_WALLET", "USDT", "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf"),
  PLASMA_WALLET: wallet("PLASMA_WALLET", "USDT", "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB"),
  SPARK_WALLET: wallet("SPARK_WALLET", "BTC", "spark1pgssyh9a7pjxuhd5a23e3um97t485r3agxdhuqesuwwwj27aah9vf7dur2386h"),
  LIGHTNING: {
    currency: "BTC",
    accountInfo: { accountType: "LIGHTNING", lightningAddress: "ada@wallet.example" }
  }
}
