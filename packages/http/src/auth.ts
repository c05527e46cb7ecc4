import { Forbidden, type Permission, type Principal } from "@paycore/core"
import { Effect } from "effect"

/** Fails with 403 FORBIDDEN unless the token holds one of `permissions`. */
export const requirePermission = (principal: Principal, ...permissions: ReadonlyArray<Permission>) =>
  permissions.some((p) => principal.permissions.includes(p))
    ? Effect.void
    : Effect.fail(
        new Forbidden({
          code: "FORBIDDEN",
          message: `This token lacks the ${permissions.join(" or ")} permission needed for this request`
        })
      )

/** Sandbox helpers refuse production tokens with 403. */
export const requireSandbox = (principal: Principal) =>
  principal.environment === "SANDBOX"
    ? Effect.void
    : Effect.fail(new Forbidden({ code: "FORBIDDEN", message: "Sandbox endpoints refuse a production platform token" }))
