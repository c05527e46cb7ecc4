/**
 * An exact in-process cache of `customers.get`, for a database that only this process writes: embedded PGlite, whose
 * data folder one process opens (the server's data-dir lock), and which runs on the event loop's thread, so a read
 * costs a query's whole time in WebAssembly (`GET /customers/{id}` of `npm start`: one query, 0.03x of a bare server).
 * Not for a PostgreSQL server, which other instances write.
 *
 * Why it stays exact: every write to the customers table in this process goes through this store's `customers`
 * (insert, update, insertMany), and each one moves a generation counter, before it starts and again when it is
 * committed or rolled back (the end of its transaction). An entry is served only while the generation it was read
 * in is current, and kept only when no write started or ended while it was read, so it is what the database
 * holds. Reads inside a transaction (which may see its own uncommitted writes) neither use nor fill it.
 */
import type { Customer, Store, StoreError } from "@paycore/core"
import { Context, Effect } from "effect"

/** Set inside a transaction of the cached store: whether it wrote a customer. */
const InTransaction = Context.Reference<{ wrote: boolean } | undefined>("@paycore/store-postgres/ReadCacheTx", {
  defaultValue: () => undefined
})

/** Entries at most: past it the cache starts again empty (an id scan must not grow it without bound). */
const MAX_ENTRIES = 10_000

export const withCustomerReadCache = (store: Store["Service"]): Store["Service"] => {
  const entries = new Map<string, { readonly generation: number; readonly customer: Customer | undefined }>()
  let generation = 0

  const written = <A, E, R>(write: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiber((fiber) => {
      generation++
      const tx = fiber.getRef(InTransaction)
      if (tx !== undefined) {
        // The transaction's end moves it again (committed or not).
        tx.wrote = true
        return write
      }
      return Effect.ensuring(
        write,
        Effect.sync(() => {
          generation++
        })
      )
    })

  const customers = store.customers
  const getCustomer = (id: string): Effect.Effect<Customer | undefined, StoreError> =>
    Effect.withFiber((fiber) => {
      if (fiber.getRef(InTransaction) !== undefined) return customers.get(id)
      const entry = entries.get(id)
      if (entry !== undefined && entry.generation === generation) return Effect.succeed(entry.customer)
      const readIn = generation
      return Effect.map(customers.get(id), (customer) => {
        if (generation === readIn) {
          if (entries.size >= MAX_ENTRIES) entries.clear()
          entries.set(id, { generation: readIn, customer })
        }
        return customer
      })
    })
  const internalAccounts = store.internalAccounts
  return {
    ...store,
    // The account's customer from the cache: here a second query costs more than the round trip it saves.
    internalAccounts: {
      ...internalAccounts,
      getWithCustomer: (id) =>
        Effect.flatMap(internalAccounts.get(id), (account) =>
          account === undefined
            ? Effect.undefined
            : Effect.map(
                account.customerId === undefined ? Effect.undefined : getCustomer(account.customerId),
                (customer) => ({
                  account,
                  customer
                })
              )
        )
    },
    customers: {
      ...customers,
      get: getCustomer,
      insert: (row) => written(customers.insert(row)),
      insertMany: (rows) => written(customers.insertMany(rows)),
      update: (row) => written(customers.update(row))
    },
    transaction: (effect) =>
      Effect.withFiber((fiber) => {
        // A nested call joins the outer transaction, whose end counts.
        if (fiber.getRef(InTransaction) !== undefined) return store.transaction(effect)
        const tx = { wrote: false }
        return Effect.ensuring(
          store.transaction(Effect.provideService(effect, InTransaction, tx)),
          Effect.sync(() => {
            if (tx.wrote) generation++
          })
        )
      })
  }
}
