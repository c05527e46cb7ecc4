/**
 * Customers: paged, searched by name, email and platform id (and the API's own filters), create one; and a
 * customer's page (KYC, documents, owners, accounts), which follows the event stream.
 */
import { useRef, useState } from "preact/hooks"
import { type Client, run } from "../client.ts"
import { pageOf } from "../names.ts"
import {
  ActionForm,
  Amount,
  Badge,
  Choice,
  Field,
  Link,
  mentions,
  Pager,
  RawJson,
  Show,
  scanPages,
  useFollow,
  useLoad,
  usePaged,
  useSession,
  When
} from "../ui.tsx"

type Filters = Record<string, string>

/** The sandbox's sample KYC packet (docs/cards.md's walk-through): complete, so a review decides on the name. */
const samplePacket = {
  birthDate: "1990-12-10",
  nationality: "US",
  address: { line1: "1 Market St", city: "San Francisco", state: "CA", postalCode: "94105", country: "US" },
  idType: "SSN",
  identifier: "123-45-6789",
  endUserTermsConsent: {
    acceptedAt: "2026-01-01T00:00:00Z",
    ipAddress: "203.0.113.7",
    termsVersion: "2025-10-13",
    acceptanceMethod: "CHECKBOX"
  }
} as const

const nonEmpty = (values: Filters): Filters =>
  Object.fromEntries(Object.entries(values).filter(([, value]) => value.trim() !== ""))

const PAGE = 50

const listPage = (client: Client, filters: Filters, cursor: string | undefined, limit: number) =>
  run(client.customers.list({ query: { ...filters, limit, ...(cursor === undefined ? {} : { cursor }) } as any }))

/** Whether a customer's name, email or platform id holds `text` (any case). */
const matches = (customer: any, text: string): boolean =>
  [nameOf(customer), customer.email, customer.platformCustomerId].some(
    (field) => typeof field === "string" && field.toLowerCase().includes(text)
  )

export const CustomersScreen = () => {
  const { client } = useSession()
  const [filters, setFilters] = useState<{ api: Filters; text: string }>({ api: {}, text: "" })
  // The API filters by exact platform id but not by name or email: a search reads every page the other filters
  // select, once, and matches here.
  const scanned = useRef<{ key: string; rows: Promise<ReadonlyArray<any>> } | undefined>(undefined)
  const customers = usePaged(
    async (cursor) => {
      if (filters.text === "") return listPage(client, filters.api, cursor, PAGE)
      const key = JSON.stringify(filters)
      if (scanned.current?.key !== key) {
        const text = filters.text.toLowerCase()
        const rows = scanPages((next) => listPage(client, filters.api, next, 100)).then(({ rows }) =>
          rows.filter((customer) => matches(customer, text))
        )
        scanned.current = { key, rows }
      }
      return pageOf(await scanned.current.rows, cursor, PAGE)
    },
    [filters]
  )
  const search = (event: SubmitEvent) => {
    event.preventDefault()
    const values: Filters = {}
    for (const [key, value] of new FormData(event.currentTarget as HTMLFormElement)) values[key] = String(value)
    const { search: text = "", ...api } = nonEmpty(values)
    scanned.current = undefined
    setFilters({ api, text: text.trim() })
  }
  return (
    <>
      <h1>Customers</h1>
      <form class="filters" aria-label="Search customers" onSubmit={search}>
        <Field label="Name, email or platform id" name="search" />
        <Field label="UMA address" name="umaAddress" />
        <Choice
          label="Type"
          name="customerType"
          options={[
            ["", "any"],
            ["INDIVIDUAL", "individual"],
            ["BUSINESS", "business"]
          ]}
        />
        <Field label="Currency" name="currency" />
        <button type="submit">Search</button>
      </form>
      {filters.text === "" ? null : (
        <p class="hint">
          The API filters customers by exact platform id only: a search reads every customer page by page and matches
          the name, email and platform id here, in any case.
        </p>
      )}
      <Show loaded={customers}>
        {(page) => (
          <>
            <div class="table-scroll">
              <table>
                <caption>
                  {page.totalCount} customer{page.totalCount === 1 ? "" : "s"}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Type</th>
                    <th scope="col">KYC</th>
                    <th scope="col">Email</th>
                    <th scope="col">Platform id</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((customer: any) => (
                    <tr key={customer.id}>
                      <th scope="row">
                        <Link to={`customers/${customer.id}`}>{nameOf(customer)}</Link>
                      </th>
                      <td>{customer.customerType}</td>
                      <td>
                        <Badge status={customer.kycStatus} />
                      </td>
                      <td>{customer.email ?? "—"}</td>
                      <td>{customer.platformCustomerId}</td>
                      <td>
                        <When at={customer.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager paged={customers} label="customers" />
          </>
        )}
      </Show>
      <ActionForm
        title="Create a customer"
        submit="Create customer"
        action={(values) =>
          run(
            client.customers.create({
              payload: {
                customerType: "INDIVIDUAL",
                fullName: values.fullName ?? "",
                currencies: [values.currency || "USD"],
                ...(values.email ? { email: values.email } : {}),
                ...(values.samplePacket === "on" ? samplePacket : {})
              } as any
            })
          )
        }
        done={(created: any) => {
          location.hash = `#/customers/${created.id}`
        }}
      >
        <Field label="Full name (suffix 001 review, 002 rejected, 003 errors)" name="fullName" required />
        <Field label="Email" name="email" type="email" />
        <Field label="Currency" name="currency" value="USD" />
        <label class="check">
          <input type="checkbox" name="samplePacket" checked />
          <span>Fill the KYC packet with the sandbox's sample data</span>
        </label>
      </ActionForm>
    </>
  )
}

const nameOf = (customer: any): string =>
  customer.customerType === "BUSINESS"
    ? (customer.businessInfo?.legalName ?? customer.id)
    : (customer.fullName ?? customer.id)

export const CustomerScreen = ({ id }: { readonly id: string }) => {
  const { client } = useSession()
  const customerId = id as any
  const customer = useLoad(() => run(client.customers.get({ params: { customerId } })), [id])
  const accounts = useLoad(
    () => run(client.accounts.listCustomerInternal({ query: { customerId, limit: 100 } as any })),
    [id]
  )
  const external = useLoad(() => run(client.accounts.listExternal({ query: { customerId, limit: 100 } as any })), [id])
  const documents = useLoad(
    () => run(client.onboarding.listDocuments({ query: { documentHolder: customerId, limit: 100 } as any })),
    [id]
  )
  const verifications = useLoad(
    () => run(client.onboarding.listVerifications({ query: { customerId, limit: 10 } as any })),
    [id]
  )
  const reload = () => {
    for (const loaded of [customer, accounts, external, documents, verifications]) loaded.reload()
  }
  // KYC decisions, reviews and balances arrive as events naming the customer or its accounts.
  useFollow(
    reload,
    mentions(id, ...(accounts.data?.data.map((account) => account.id) ?? [])),
    customer.data?.kycStatus === "PENDING" ||
      (verifications.data?.data.some((v: any) => /PENDING|IN_PROGRESS/.test(v.verificationStatus)) ?? false)
  )
  return (
    <Show loaded={customer}>
      {(c) => (
        <>
          <p>
            <Link to="customers">Customers</Link> / {c.id}
          </p>
          <h1>{nameOf(c)}</h1>
          <button type="button" class="secondary" onClick={reload}>
            Refresh
          </button>
          <dl class="facts">
            <dt>Type</dt>
            <dd>{c.customerType}</dd>
            <dt>{c.customerType === "BUSINESS" ? "KYB" : "KYC"} status</dt>
            <dd>
              <Badge status={c.kycStatus} />
            </dd>
            <dt>Email</dt>
            <dd>{c.email ?? "—"}</dd>
            <dt>UMA address</dt>
            <dd>{c.umaAddress}</dd>
            <dt>Platform id</dt>
            <dd>{c.platformCustomerId}</dd>
          </dl>
          <h2>Internal accounts</h2>
          <Show loaded={accounts}>
            {(page) => (
              <div class="table-scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Account</th>
                      <th scope="col">Type</th>
                      <th scope="col" class="num">
                        Available
                      </th>
                      <th scope="col" class="num">
                        Total (with held)
                      </th>
                      <th scope="col">Sandbox</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((account) => (
                      <tr key={account.id}>
                        <th scope="row">
                          <Link to={`ledger/${account.id}`}>{account.id}</Link>
                        </th>
                        <td>{account.type}</td>
                        <td class="num">
                          <Amount value={account.balance} />
                        </td>
                        <td class="num">
                          <Amount value={account.totalBalance} />
                        </td>
                        <td>
                          <Link to={`sandbox?account=${account.id}&customer=${c.id}`}>Fund, pay or review KYC</Link>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </Show>
          <h2>External accounts</h2>
          <Show loaded={external}>
            {(page) =>
              page.data.length === 0 ? (
                <p>None.</p>
              ) : (
                <div class="table-scroll">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Account</th>
                        <th scope="col">Currency</th>
                        <th scope="col">Status</th>
                      </tr>
                    </thead>
                    <tbody>
                      {page.data.map((account: any) => (
                        <tr key={account.id}>
                          <th scope="row">{account.id}</th>
                          <td>{account.currency}</td>
                          <td>
                            <Badge status={account.status} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )
            }
          </Show>
          <h2>KYC reviews</h2>
          <Show loaded={verifications}>
            {(page) =>
              page.data.length === 0 ? (
                <p>No review yet (the sandbox actions can ask for one).</p>
              ) : (
                <ul>
                  {page.data.map((verification: any) => (
                    <li key={verification.id}>
                      <When at={verification.createdAt} /> <Badge status={verification.verificationStatus} />
                    </li>
                  ))}
                </ul>
              )
            }
          </Show>
          <h2>Documents</h2>
          <Show loaded={documents}>
            {(page) =>
              page.data.length === 0 ? (
                <p>None.</p>
              ) : (
                <ul>
                  {page.data.map((document: any) => (
                    <li key={document.id}>
                      {document.documentType} {document.fileName ?? ""} <Badge status={document.status} />
                    </li>
                  ))}
                </ul>
              )
            }
          </Show>
          {c.customerType === "BUSINESS" ? <Owners customerId={c.id} /> : null}
          <RawJson value={c} />
        </>
      )}
    </Show>
  )
}

const Owners = ({ customerId }: { readonly customerId: string }) => {
  const { client } = useSession()
  const owners = useLoad(
    () => run(client.onboarding.listBeneficialOwners({ query: { customerId: customerId as any, limit: 100 } as any })),
    [customerId]
  )
  return (
    <>
      <h2>Beneficial owners</h2>
      <Show loaded={owners}>
        {(page) =>
          page.data.length === 0 ? (
            <p>None.</p>
          ) : (
            <ul>
              {page.data.map((owner: any) => (
                <li key={owner.id}>
                  {owner.personalInfo?.firstName} {owner.personalInfo?.lastName} <Badge status={owner.kycStatus} />
                </li>
              ))}
            </ul>
          )
        }
      </Show>
    </>
  )
}
