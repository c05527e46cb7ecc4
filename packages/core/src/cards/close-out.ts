import { resolveSteps } from "../accounts/balance-updates.ts"
import type { StoreError } from "../shared/errors.ts"
import { allows, statesAllowing } from "../shared/machine.ts"
import type { Steps } from "../shared/tracing.ts"
import { cardTransactionMachine } from "./machine.ts"
import type { CardRecord } from "./model.ts"
import type { CardPorts } from "./ports.ts"
import { moveCardTransactionSteps } from "./reconcile.ts"

/** The states a card's close expires: those the machine lets `EXPIRE` (the open authorizations). */
const OPEN_STATES: ReadonlyArray<string> = statesAllowing(cardTransactionMachine, "EXPIRE")

/**
 * What closing a card does to its open transactions (CD-24; design section 3, "Update and close", step 4): each
 * `AUTHORIZED` / `PARTIALLY_SETTLED` transaction of `card` `EXPIRE`s (its hold voided, `CARD_TRANSACTION.SETTLED`
 * emitted; public `SETTLED` with what cleared, design Q5). Steps inside the caller's store transaction, which has
 * moved the card to `CLOSED` (`Cards.update` and `Cards.closeByService` call it) with the card's row locked: no new
 * authorization of the card can commit in between. Each transaction is re-read under its lock (a clearing may have
 * settled it meanwhile). Later clearings post late (`CLEAR_LATE`), returns still credit the account.
 */
export function* closeOutSteps(ports: CardPorts, card: CardRecord, now: string): Steps<void, StoreError> {
  const { store } = ports
  let after: string | undefined
  for (;;) {
    const page = yield* store.cardTransactions.list(
      { cardId: card.id, states: OPEN_STATES },
      { limit: 100, after, sortOrder: "asc" }
    )
    for (const listed of page.data) {
      const tx = yield* store.cardTransactions.getForUpdate(listed.id)
      if (tx === undefined || !allows(cardTransactionMachine, tx.state, "EXPIRE")) continue
      yield* resolveSteps(ports, tx.id, "VOIDED", now)
      yield* moveCardTransactionSteps(ports, tx, "EXPIRE", { heldAmount: 0 }, now)
    }
    const last = page.data[page.data.length - 1]
    if (!page.hasMore || last === undefined) break
    after = last.id
  }
}
