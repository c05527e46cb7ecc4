/** `paycore tokens create|list`: the platform's API tokens (`POST /tokens`, `GET /tokens`). */
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { apiClient, CliFailure } from "../client.ts"
import { bold, emit, table, yellow } from "../output.ts"

const PERMISSIONS = ["VIEW", "TRANSACT", "MANAGE"] as const
type Permission = (typeof PERMISSIONS)[number]

const isPermission = (p: string): p is Permission => (PERMISSIONS as ReadonlyArray<string>).includes(p)

/** `VIEW,TRANSACT` → the permissions; anything else is the user's mistake, said before any request. */
const parsePermissions = (list: string) => {
  const given = list.split(",").map((p) => p.trim().toUpperCase())
  const [first, ...rest] = given.filter(isPermission)
  return first === undefined || rest.length + 1 !== given.length
    ? Effect.fail(new CliFailure({ message: `--permissions: a comma-separated list of ${PERMISSIONS.join(", ")}` }))
    : Effect.succeed([first, ...rest] as const)
}

const create = Command.make(
  "create",
  {
    name: Flag.String("name").pipe(Flag.withDescription("What the token is for")),
    permissions: Flag.String("permissions").pipe(
      Flag.withDescription("Comma-separated: VIEW, TRANSACT, MANAGE"),
      Flag.withDefault("VIEW")
    )
  },
  Effect.fnUntraced(function* ({ name, permissions }) {
    const parsed = yield* parsePermissions(permissions)
    const client = yield* apiClient
    const token = yield* client.platform.createToken({ payload: { name, permissions: parsed } })
    // The only time the secret exists outside the server: the user asked for it and it is never readable again.
    yield* emit(token, (t) => [
      `${bold("token")}          ${t.id} (${t.name}, ${t.environment}, ${t.permissions.join(",")})`,
      `${bold("client id")}      ${t.clientId}`,
      `${bold("client secret")}  ${t.clientSecret}`,
      yellow("The secret is shown once: keep it now.")
    ])
  })
).pipe(Command.withDescription("Create an API token; prints its secret once"))

const list = Command.make(
  "list",
  {},
  Effect.fnUntraced(function* () {
    const client = yield* apiClient
    const page = yield* client.platform.listTokens({ query: { limit: 100 } })
    yield* emit(page, (p) =>
      p.data.length === 0
        ? ["no tokens"]
        : table(
            ["ID", "NAME", "ENVIRONMENT", "PERMISSIONS", "CLIENT ID", "CREATED"],
            p.data.map((t) => [t.id, t.name, t.environment, t.permissions.join(","), t.clientId, t.createdAt])
          )
    )
  })
).pipe(Command.withDescription("List the API tokens (never their secrets)"))

export const tokens = Command.make("tokens").pipe(
  Command.withDescription("API tokens"),
  Command.withSubcommands([create, list])
)
