/**
 * Sandbox actions: fund an account, make a payment whose outcome the sandbox rail's account-number suffix decides,
 * and ask for a KYC review (decided by the name's suffix).
 */
import { run } from "../client.ts"
import { ActionForm, Choice, Field, money, useSession } from "../ui.tsx"

/** The sandbox rail's payout outcomes by the last three digits of the account number (packages/sandbox/README.md). */
const outcomes = [
  ["000", "000: succeeds"],
  ["002", "002: fails (QUOTE_EXECUTION_FAILED), refunded"],
  ["003", "003: long payment, settles after 6 minutes"],
  ["004", "004: fails (ACCOUNT_CANNOT_RECEIVE), refunded"],
  ["005", "005: settles, then returned"],
  ["006", "006: fails (ACCOUNT_INVALID), refunded"],
  ["007", "007: fails and its refund fails"],
  ["008", "008: fails (LIMIT_EXCEEDED), refunded"],
  ["009", "009: fails (COMPLIANCE_REJECTED), refunded"]
] as const

export const SandboxScreen = () => {
  const { client } = useSession()
  const fromHash = new URLSearchParams(location.hash.split("?")[1] ?? "")
  return (
    <>
      <h1>Sandbox actions</h1>
      <ActionForm
        title="Fund an internal account"
        submit="Fund account"
        action={(values) =>
          run(
            client.sandbox.fund({
              params: { accountId: values.accountId as any },
              payload: { amount: Number(values.amount) }
            })
          )
        }
        report={(account) =>
          `Done: ${account.id} now has ${money(account.balance)} available (${money(account.totalBalance)} in total)`
        }
      >
        <Field label="Internal account id" name="accountId" value={fromHash.get("account") ?? undefined} required />
        <Field label="Amount (minor units)" name="amount" type="number" value="100000" required />
      </ActionForm>
      <ActionForm
        title="Make a payment with a chosen outcome"
        submit="Pay"
        action={async (values) => {
          const account = await run(client.accounts.listCustomerInternal({ query: { limit: 100 } as any })).then(
            (page) => page.data.find((candidate) => candidate.id === values.accountId)
          )
          if (account?.customerId === undefined) throw new Error(`No customer account ${values.accountId}`)
          const payee = await run(
            client.accounts.createExternal({
              payload: {
                customerId: account.customerId,
                currency: account.balance.currency.code,
                accountInfo: {
                  accountType: "US_ACCOUNT",
                  accountNumber: `${String(Date.now()).slice(-6)}${values.outcome}`,
                  routingNumber: "021000021",
                  beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Sandbox Payee" }
                }
              } as any
            })
          )
          return run(
            client.payments.createQuote({
              payload: {
                source: { sourceType: "ACCOUNT", accountId: account.id },
                destination: {
                  destinationType: "ACCOUNT",
                  accountId: payee.id,
                  ...(values.rail ? { paymentRail: values.rail } : {})
                },
                lockedCurrencySide: "SENDING",
                lockedCurrencyAmount: Number(values.amount),
                immediatelyExecute: true
              } as any
            })
          )
        }}
        done={(quote: any) => {
          if (quote?.transactionId !== undefined) location.hash = `#/payments/${quote.transactionId}`
        }}
      >
        <Field
          label="From internal account id (USD)"
          name="accountId"
          value={fromHash.get("account") ?? undefined}
          required
        />
        <Field label="Amount (minor units)" name="amount" type="number" value="2500" required />
        <Choice label="Outcome (the payee's account number suffix)" name="outcome" options={outcomes} />
        <Choice
          label="Rail"
          name="rail"
          options={[
            ["", "the sandbox's choice"],
            ["ACH", "ACH (days, sped up)"],
            ["RTP", "RTP (instant)"],
            ["WIRE", "WIRE (same day, sped up)"]
          ]}
        />
      </ActionForm>
      <ActionForm
        title="Ask for a KYC decision"
        submit="Request KYC review"
        action={(values) =>
          run(client.onboarding.createVerification({ payload: { customerId: values.customerId as any } }))
        }
        done={(verification: any) => {
          if (verification?.customerId !== undefined) location.hash = `#/customers/${verification.customerId}`
        }}
      >
        <Field
          label="Customer id (name suffix 001 manual review, 002 rejected, 003 errors)"
          name="customerId"
          value={fromHash.get("customer") ?? undefined}
          required
        />
      </ActionForm>
    </>
  )
}
