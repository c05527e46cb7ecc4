import { Schema } from "effect"
import { HttpApiSchema } from "effect/http-api"

/** What the groups' endpoints share: success statuses, a `{ data: [...] }` list, a multipart file part. */

export const created = HttpApiSchema.status(201)
export const accepted = HttpApiSchema.status(202)
export const Data = <S extends Schema.Top>(item: S) => Schema.Struct({ data: Schema.Array(item) })

/** The file part of a multipart form (its bytes; its Content-Type and file name come from the part's headers). */
export const FilePart = Schema.String.annotate({ format: "binary" })

/**
 * A code a person types into a path (an agent's device code, an invitation code): any text up to 64 characters.
 * The service normalizes it; an unknown one is 404, never a 400 of the path.
 */
export const TypedCodeParam = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(64))
