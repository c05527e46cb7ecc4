/**
 * Sandbox actions: fund an account, make a payment whose outcome the sandbox rail's account-number suffix decides,
 * and ask for a KYC review (decided by the name's suffix).
 */

import { useEffect, useState } from "preact/hooks"
import { run } from "../client.ts"
import { ActionForm, Choice, Field, money, useSession } from "../ui.tsx"

/** The sandbox rail's payout suffixes: the last three digits of the payee's account number (packages/sandbox/README.md). */
const SUFFIXES = ["000", "002", "003", "004", "005", "006", "007", "008", "009"] as const
const RAILS = ["ACH", "WIRE", "RTP", "FEDNOW"] as const

/** `/dashboard/sandbox.json` (@paycore/sandbox's `paymentTiming`): the server's rails and suffixes in words. */
interface PaymentTiming {
  readonly defaultRail: string
  readonly rails: ReadonlyArray<{ readonly rail: string; readonly label: string }>
  readonly outcomes: Readonly<Record<string, ReadonlyArray<{ readonly suffix: string; readonly label: string }>>>
}

/**
 * The rails and the suffixes with their delays, as the sandbox server computes them from its timing table and its
 * speed-up; the bare names until it answers, or where no sandbox serves the file.
 */
const useTiming = (): PaymentTiming | undefined => {
  const [timing, setTiming] = useState<PaymentTiming | undefined>(undefined)
  useEffect(() => {
    fetch("/dashboard/sandbox.json")
      .then((response) => (response.ok ? (response.json() as Promise<PaymentTiming>) : undefined))
      .then(setTiming)
      .catch(() => undefined)
  }, [])
  return timing
}

export const SandboxScreen = () => {
  const { client } = useSession()
  const timing = useTiming()
  // The suffixes are labelled for the rail chosen (the sandbox's own choice when none is).
  const [rail, setRail] = useState("")
  const outcomes: ReadonlyArray<readonly [string, string]> =
    timing?.outcomes[rail || timing.defaultRail]?.map(({ suffix, label }) => [suffix, label]) ??
    SUFFIXES.map((suffix) => [suffix, suffix])
  const rails: ReadonlyArray<readonly [string, string]> = [
    ["", timing === undefined ? "the sandbox's choice" : `the sandbox's choice: its fastest, ${timing.defaultRail}`],
    ...(timing?.rails.map(({ rail, label }) => [rail, label] as const) ?? RAILS.map((rail) => [rail, rail] as const))
  ]
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
        <Choice label="Rail" name="rail" options={rails} value={rail} onChange={setRail} />
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
