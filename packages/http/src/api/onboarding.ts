import {
  BeneficialOwner,
  BeneficialOwnerId,
  ContactVerificationConfirmRequest,
  CreateBeneficialOwnerRequest,
  CreateVerificationRequest,
  Customer,
  CustomerId,
  Document,
  DocumentId,
  IdempotencyKeyHeader,
  KycLink,
  KycLinkRequest,
  ListBeneficialOwnersQuery,
  ListDocumentsQuery,
  ListVerificationsQuery,
  PageOf,
  ReplaceDocumentFields,
  UpdateBeneficialOwnerRequest,
  UploadDocumentFields,
  Verification,
  VerificationId
} from "@paycore/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { created, FilePart } from "./shared.ts"

/** `POST /documents`: the file (PDF, JPEG or PNG by the part's Content-Type, at most 10 MB) and its metadata. */
export const DocumentUploadForm = Schema.Struct({ file: FilePart, ...UploadDocumentFields.fields }).pipe(
  HttpApiSchema.asMultipartStream()
)
/** `PUT /documents/{documentId}`: a new file, metadata to change, or both. */
export const DocumentReplaceForm = Schema.Struct({
  file: Schema.optionalKey(FilePart),
  ...ReplaceDocumentFields.fields
}).pipe(HttpApiSchema.asMultipartStream())

export const OnboardingGroup = HttpApiGroup.make("onboarding")
  .add(
    HttpApiEndpoint.post("createKycLink", "/customers/:customerId/kyc-link", {
      params: { customerId: CustomerId },
      headers: { "idempotency-key": IdempotencyKeyHeader },
      payload: KycLinkRequest,
      success: KycLink.pipe(created)
    })
  )
  .add(
    HttpApiEndpoint.post("sendEmailCode", "/customers/:customerId/verify-email", {
      params: { customerId: CustomerId },
      success: HttpApiSchema.NoContent
    })
  )
  .add(
    HttpApiEndpoint.post("confirmEmailCode", "/customers/:customerId/verify-email/confirm", {
      params: { customerId: CustomerId },
      payload: ContactVerificationConfirmRequest,
      success: Customer
    })
  )
  .add(
    HttpApiEndpoint.post("sendPhoneCode", "/customers/:customerId/verify-phone", {
      params: { customerId: CustomerId },
      success: HttpApiSchema.NoContent
    })
  )
  .add(
    HttpApiEndpoint.post("confirmPhoneCode", "/customers/:customerId/verify-phone/confirm", {
      params: { customerId: CustomerId },
      payload: ContactVerificationConfirmRequest,
      success: Customer
    })
  )
  .add(
    HttpApiEndpoint.post("createVerification", "/verifications", {
      payload: CreateVerificationRequest,
      success: Verification
    })
  )
  .add(
    HttpApiEndpoint.get("listVerifications", "/verifications", {
      query: ListVerificationsQuery,
      success: PageOf(Verification)
    })
  )
  .add(
    HttpApiEndpoint.get("getVerification", "/verifications/:verificationId", {
      params: { verificationId: VerificationId },
      success: Verification
    })
  )
  .add(
    HttpApiEndpoint.post("createBeneficialOwner", "/beneficial-owners", {
      payload: CreateBeneficialOwnerRequest,
      success: BeneficialOwner.pipe(created)
    })
  )
  .add(
    HttpApiEndpoint.get("listBeneficialOwners", "/beneficial-owners", {
      query: ListBeneficialOwnersQuery,
      success: PageOf(BeneficialOwner)
    })
  )
  .add(
    HttpApiEndpoint.get("getBeneficialOwner", "/beneficial-owners/:beneficialOwnerId", {
      params: { beneficialOwnerId: BeneficialOwnerId },
      success: BeneficialOwner
    })
  )
  .add(
    HttpApiEndpoint.patch("updateBeneficialOwner", "/beneficial-owners/:beneficialOwnerId", {
      params: { beneficialOwnerId: BeneficialOwnerId },
      payload: UpdateBeneficialOwnerRequest,
      success: BeneficialOwner
    })
  )
  .add(
    HttpApiEndpoint.post("uploadDocument", "/documents", {
      payload: DocumentUploadForm,
      success: Document.pipe(created)
    })
  )
  .add(HttpApiEndpoint.get("listDocuments", "/documents", { query: ListDocumentsQuery, success: PageOf(Document) }))
  .add(
    HttpApiEndpoint.get("getDocument", "/documents/:documentId", {
      params: { documentId: DocumentId },
      success: Document
    })
  )
  .add(
    HttpApiEndpoint.put("replaceDocument", "/documents/:documentId", {
      params: { documentId: DocumentId },
      payload: DocumentReplaceForm,
      success: Document
    })
  )
  .add(
    HttpApiEndpoint.delete("deleteDocument", "/documents/:documentId", {
      params: { documentId: DocumentId },
      success: HttpApiSchema.NoContent
    })
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Onboarding",
      description: "KYC/KYB: hosted links, verifications, beneficial owners, documents, contact verification"
    })
  )
