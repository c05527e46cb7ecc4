import { Schema } from "effect"
import { HttpApiSchema } from "effect/http-api"

/** What the groups' endpoints share: success statuses, a `{ data: [...] }` list, a multipart file part. */

export const created = HttpApiSchema.status(201)
export const accepted = HttpApiSchema.status(202)
export const Data = <S extends Schema.Top>(item: S) => Schema.Struct({ data: Schema.Array(item) })

/** The file part of a multipart form (its bytes; its Content-Type and file name come from the part's headers). */
export const FilePart = Schema.String.annotate({ format: "binary" })
