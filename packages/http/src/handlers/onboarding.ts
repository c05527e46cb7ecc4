import { Documents, decodeAll, Onboarding, ReplaceDocumentFields, UploadDocumentFields } from "@paycore/core"
import { Effect } from "effect"
import { readUploadForm } from "../uploads.ts"
import type { GroupHandlers } from "./shared.ts"

const decodeUploadFields = decodeAll(UploadDocumentFields)
const decodeReplaceFields = decodeAll(ReplaceDocumentFields)

/** The `onboarding` group: KYC links, contact codes, verifications, beneficial owners and documents. */
export const onboardingHandlers = Effect.fnUntraced(function* () {
  const onboarding = yield* Onboarding
  const documents = yield* Documents
  const handlers: GroupHandlers<"onboarding"> = {
    createKycLink: ({ params, payload }) => onboarding.createKycLink(params.customerId, payload),
    sendEmailCode: ({ params }) => onboarding.sendContactCode(params.customerId, "EMAIL"),
    confirmEmailCode: ({ params, payload }) => onboarding.confirmContactCode(params.customerId, "EMAIL", payload.code),
    sendPhoneCode: ({ params }) => onboarding.sendContactCode(params.customerId, "PHONE"),
    confirmPhoneCode: ({ params, payload }) => onboarding.confirmContactCode(params.customerId, "PHONE", payload.code),
    createVerification: ({ payload }) => onboarding.submitVerification(payload),
    listVerifications: ({ query }) => onboarding.listVerifications(query),
    getVerification: ({ params }) => onboarding.getVerification(params.verificationId),
    createBeneficialOwner: ({ payload }) => onboarding.createBeneficialOwner(payload),
    listBeneficialOwners: ({ query }) => onboarding.listBeneficialOwners(query),
    getBeneficialOwner: ({ params }) => onboarding.getBeneficialOwner(params.beneficialOwnerId),
    updateBeneficialOwner: ({ params, payload }) => onboarding.updateBeneficialOwner(params.beneficialOwnerId, payload),
    uploadDocument: ({ payload }) =>
      Effect.flatMap(readUploadForm(payload, documents, decodeUploadFields, "required"), ({ fields, file }) =>
        documents.upload(fields, file)
      ),
    listDocuments: ({ query }) => documents.list(query),
    getDocument: ({ params }) => documents.get(params.documentId),
    replaceDocument: ({ params, payload }) =>
      Effect.flatMap(readUploadForm(payload, documents, decodeReplaceFields, "optional"), ({ fields, file }) =>
        documents.replace(params.documentId, fields, file)
      ),
    deleteDocument: ({ params }) => documents.delete(params.documentId)
  }
  return handlers
})
