import {
  BulkImportAccepted,
  BulkImportJob,
  CreateCustomerRequest,
  CustomerId,
  CustomerView,
  EndUserTerms,
  JobId,
  ListCustomersQuery,
  PageOf,
  SignedRetryChallenge,
  SignedRetryHeaders,
  UpdateCustomerRequest
} from "@paycore/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { accepted, created, FilePart } from "./shared.ts"

/** `POST /customers/bulk/csv`: the CSV file (the spec's columns). */
export const CustomersCsvForm = Schema.Struct({ file: FilePart }).pipe(HttpApiSchema.asMultipartStream())

export const CustomersGroup = HttpApiGroup.make("customers")
  .add(
    HttpApiEndpoint.post("create", "/customers", {
      payload: CreateCustomerRequest,
      success: CustomerView.pipe(created)
    })
  )
  .add(HttpApiEndpoint.get("list", "/customers", { query: ListCustomersQuery, success: PageOf(CustomerView) }))
  .add(HttpApiEndpoint.get("endUserTerms", "/customers/end-user-terms", { success: EndUserTerms }))
  .add(
    HttpApiEndpoint.post("bulkImportCsv", "/customers/bulk/csv", {
      payload: CustomersCsvForm,
      success: BulkImportAccepted.pipe(accepted)
    })
  )
  .add(
    HttpApiEndpoint.get("getBulkImportJob", "/customers/bulk/jobs/:jobId", {
      params: { jobId: JobId },
      success: BulkImportJob
    })
  )
  .add(
    HttpApiEndpoint.get("get", "/customers/:customerId", { params: { customerId: CustomerId }, success: CustomerView })
  )
  .add(
    HttpApiEndpoint.patch("update", "/customers/:customerId", {
      params: { customerId: CustomerId },
      payload: UpdateCustomerRequest,
      // CU-14 … CU-18: a change of the email (phone) tied embedded-wallet OTP credentials send codes to is a
      // signed retry: 202 first, then the same body with Service-Wallet-Signature and Request-Id. Never PROCESSING.
      headers: SignedRetryHeaders,
      success: [CustomerView, SignedRetryChallenge.pipe(accepted)]
    })
  )
  .add(
    HttpApiEndpoint.delete("delete", "/customers/:customerId", {
      params: { customerId: CustomerId },
      success: CustomerView
    })
  )
  .annotateMerge(OpenApi.annotations({ title: "Customers", description: "Individuals and businesses" }))
