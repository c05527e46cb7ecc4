import {
  RecordSecurityEventRequest,
  RecordSecurityEventResponse,
  ScaCustomerQuery,
  ScaFactorConfirmRequest,
  ScaFactorConfirmResponse,
  ScaFactorCredentialParams,
  ScaFactorEnrollRequest,
  ScaFactorEnrollStart,
  ScaFactorList,
  ScaFactorResetParams,
  ScaLoginComplete,
  ScaLoginCompleteRequest,
  ScaLoginStart,
  ScaLoginStartRequest,
  TwoFactorResetCompleteRequest,
  TwoFactorResetStart,
  TwoFactorResetStartRequest,
  TwoFactorResetStatus
} from "@paycore/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { CarriesSecret } from "../annotations.ts"
import { created } from "./shared.ts"

export const ScaGroup = HttpApiGroup.make("sca")
  .add(HttpApiEndpoint.get("listFactors", "/sca/factors", { query: ScaCustomerQuery, success: ScaFactorList }))
  .add(
    HttpApiEndpoint.post("startFactorEnrollment", "/sca/factors", {
      query: ScaCustomerQuery,
      payload: ScaFactorEnrollRequest,
      success: ScaFactorEnrollStart
    }).annotate(CarriesSecret, true)
  )
  .add(
    HttpApiEndpoint.post("confirmFactorEnrollment", "/sca/factors/confirm", {
      query: ScaCustomerQuery,
      payload: ScaFactorConfirmRequest,
      success: ScaFactorConfirmResponse
    })
  )
  .add(
    HttpApiEndpoint.delete("deleteFactor", "/sca/factors/:credentialId", {
      params: ScaFactorCredentialParams.fields,
      query: ScaCustomerQuery,
      success: HttpApiSchema.NoContent
    })
  )
  .add(
    HttpApiEndpoint.post("startLogin", "/sca/login/start", {
      query: ScaCustomerQuery,
      payload: ScaLoginStartRequest,
      success: ScaLoginStart
    })
  )
  .add(
    HttpApiEndpoint.post("completeLogin", "/sca/login/complete", {
      query: ScaCustomerQuery,
      payload: ScaLoginCompleteRequest,
      success: ScaLoginComplete
    })
  )
  .add(
    HttpApiEndpoint.post("recordSecurityEvent", "/sca/record-event", {
      query: ScaCustomerQuery,
      payload: RecordSecurityEventRequest,
      success: RecordSecurityEventResponse
    })
  )
  .add(
    HttpApiEndpoint.post("startFactorReset", "/sca/factors/reset", {
      query: ScaCustomerQuery,
      payload: TwoFactorResetStartRequest,
      success: TwoFactorResetStart.pipe(created)
    })
  )
  .add(
    HttpApiEndpoint.get("getFactorReset", "/sca/factors/reset/:resetId", {
      params: ScaFactorResetParams.fields,
      query: ScaCustomerQuery,
      success: TwoFactorResetStatus
    })
  )
  .add(
    HttpApiEndpoint.post("completeFactorReset", "/sca/factors/reset/:resetId/complete", {
      params: ScaFactorResetParams.fields,
      query: ScaCustomerQuery,
      payload: TwoFactorResetCompleteRequest,
      success: HttpApiSchema.NoContent
    })
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Strong Customer Authentication",
      description:
        "SCA for customers of the SCA regions (default the EEA): the factors (SMS, TOTP, passkeys), their resets " +
        "behind a liveness check, and the login that opens the 180-day session money movement requires"
    })
  )
