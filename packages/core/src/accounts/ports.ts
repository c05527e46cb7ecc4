import type { BeneficiaryVerificationService } from "../ports/beneficiary-verification.ts"
import type { Directory } from "../ports/directory.ts"
import type { Ids } from "../ports/ids.ts"
import type { Store } from "../ports/store.ts"
import type { Conflict, InvalidInput, NotFound, Refused, StoreError } from "../shared/errors.ts"

/**
 * What the accounts' use cases run on, resolved once when a service's layer is built (as `CardPorts`). The directory
 * checks a new external account's bank and VASP names, `beneficiaryVerification` its beneficiary name; ownership
 * verification runs on `store` and `ids` only.
 */
export interface AccountsPorts {
  readonly store: Store["Service"]
  readonly ids: Ids["Service"]
  readonly directory: Directory["Service"]
  readonly beneficiaryVerification: BeneficiaryVerificationService
}

/** What ownership verification runs on (`OwnershipVerification`'s layer needs no directory). */
export type OwnershipPorts = Pick<AccountsPorts, "store" | "ids">

/** Every refusal an accounts operation can answer (their HTTP statuses are in packages/http/src/errors.ts). */
export type AccountsError = InvalidInput | NotFound | Refused | Conflict | StoreError
