import { type Conflict, InvalidInput, NotFound, type StoreError } from "../shared/errors.ts"

/** 404 `TOKEN_NOT_FOUND`: no such API token, or it was deleted. */
export const tokenNotFound = (id: string): NotFound =>
  new NotFound({ code: "TOKEN_NOT_FOUND", message: `API token ${id} was not found` })

/** 400 on `cursor`: a cursor this engine did not issue (or one from another list). */
export const invalidCursor = (): InvalidInput =>
  InvalidInput.one("cursor", { format: "cursor" }, "Expected a cursor returned as nextCursor by the previous page")

export type TokenError = InvalidInput | NotFound | StoreError
export type ConfigError = InvalidInput | StoreError
export type PlatformError = InvalidInput | NotFound | Conflict | StoreError
