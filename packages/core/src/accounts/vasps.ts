/**
 * VASPs (Virtual Asset Service Providers: exchanges, custodians) a wallet account may declare it is held at
 * (`accountInfo.vaspName`; AC-06, FEATURES' upstream list). The names are the `Directory`'s, as `GET /vasps` pages
 * them (platform/service.ts); an unknown name is a 400 naming the known ones.
 */
import type { FieldError } from "../shared/errors.ts"
import type { AccountInfo } from "./model.ts"

/** The VASP a wallet variant names, if any (bank and Lightning variants have none). */
export const vaspNameOf = (info: AccountInfo): string | undefined => ("vaspName" in info ? info.vaspName : undefined)

/** 400 on `accountInfo.vaspName`: not one of `GET /vasps`. */
export const unknownVasp = (known: ReadonlyArray<string>): FieldError => ({
  field: "accountInfo.vaspName",
  constraint: { enum: known },
  message: "Expected a vaspName returned by GET /vasps"
})
