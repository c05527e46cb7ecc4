/**
 * Names beside ids: a payee's (an external account's beneficiary), read once per account and kept for the tab.
 * And a list the API cannot filter as asked, read whole and paged here.
 */
import { type Client, run } from "./client.ts"

const payees = new Map<string, Promise<string | undefined>>()

const beneficiaryName = (account: any): string | undefined => {
  const beneficiary = account?.accountInfo?.beneficiary
  return beneficiary?.fullName ?? beneficiary?.legalName ?? account?.accountInfo?.umaAddress ?? undefined
}

/** The payee's name of an external account id (`undefined` for another kind of id, or one that is gone). */
export const payeeName = (client: Client, accountId: string | undefined): Promise<string | undefined> => {
  if (accountId === undefined || !accountId.startsWith("ExternalAccount:")) return Promise.resolve(undefined)
  let name = payees.get(accountId)
  if (name === undefined) {
    name = run(client.accounts.getExternal({ params: { externalAccountId: accountId as any } })).then(
      beneficiaryName,
      () => undefined
    )
    payees.set(accountId, name)
  }
  return name
}

/** The payee names of `accountIds`, by id. */
export const payeeNames = async (
  client: Client,
  accountIds: ReadonlyArray<string | undefined>
): Promise<ReadonlyMap<string, string>> => {
  const ids = [...new Set(accountIds.filter((id) => id !== undefined))]
  const names = await Promise.all(ids.map((id) => payeeName(client, id)))
  return new Map(ids.flatMap((id, i) => (names[i] === undefined ? [] : [[id, names[i]] as const])))
}

/** One page of `rows` as the API would answer it: the cursor is the offset. */
export const pageOf = <A>(rows: ReadonlyArray<A>, cursor: string | undefined, size: number) => {
  const from = cursor === undefined ? 0 : Number(cursor)
  const to = from + size
  return {
    data: rows.slice(from, to),
    hasMore: to < rows.length,
    totalCount: rows.length,
    ...(to < rows.length ? { nextCursor: String(to) } : {})
  }
}
