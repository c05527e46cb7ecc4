import type { BeneficialOwner, Customer, CustomerView } from "./model.ts"

// Records → resources (pure): what the customer routes answer.

/** A customer as answered (CU-06): a business with its beneficial owners (`owners`: its own, oldest first). */
export const customerView = (customer: Customer, owners: ReadonlyArray<BeneficialOwner>): CustomerView =>
  customer.customerType === "BUSINESS" ? { ...customer, beneficialOwners: owners } : customer
