import { Data, Result } from "effect"

/** One legal move of a state machine: the next state and the domain events it emits, in order. */
export interface Move<S extends string, V extends string> {
  readonly to: S
  readonly emits: ReadonlyArray<V>
}

/**
 * A state machine as data: `transitions[state][event]` is the move, absent means illegal.
 * Tables are checked exhaustively by tests and rendered into docs/state-machines.md.
 */
export interface Machine<S extends string, E extends string, V extends string> {
  readonly name: string
  readonly states: ReadonlyArray<S>
  readonly events: ReadonlyArray<E>
  readonly initial: S
  readonly terminal: ReadonlyArray<S>
  readonly transitions: { readonly [K in S]: { readonly [P in E]?: Move<S, V> } }
}

export const defineMachine = <const S extends string, const E extends string, const V extends string>(
  machine: Machine<S, E, V>
): Machine<S, E, V> => machine

/** An event that the machine does not allow in the current state. */
export class IllegalTransition extends Data.TaggedError("IllegalTransition")<{
  readonly machine: string
  readonly from: string
  readonly event: string
}> {
  override get message(): string {
    return `${this.machine}: ${this.event} is not allowed in state ${this.from}`
  }
}

export const transition = <S extends string, E extends string, V extends string>(
  machine: Machine<S, E, V>,
  from: S,
  event: E
): Result.Result<Move<S, V>, IllegalTransition> => {
  const move = machine.transitions[from][event]
  return move === undefined
    ? Result.fail(new IllegalTransition({ machine: machine.name, from, event }))
    : Result.succeed(move)
}

/** Mermaid `stateDiagram-v2` of a machine; docs embed it and a test keeps them equal. */
export const toMermaid = <S extends string, E extends string, V extends string>(machine: Machine<S, E, V>): string => {
  const lines = ["stateDiagram-v2", `  [*] --> ${machine.initial}`]
  for (const from of machine.states) {
    for (const event of machine.events) {
      const move = machine.transitions[from][event]
      if (move !== undefined) lines.push(`  ${from} --> ${move.to}: ${event}`)
    }
  }
  for (const s of machine.terminal) lines.push(`  ${s} --> [*]`)
  return lines.join("\n")
}

/**
 * Whether `machine` allows `event` in `state`. Either may be any string (a stored record's state, an event of
 * another machine): what the machine does not have allows nothing.
 */
export const allows = <S extends string, E extends string, V extends string>(
  machine: Machine<S, E, V>,
  state: string,
  event: string
): boolean => Object.hasOwn(machine.transitions, state) && Object.hasOwn(machine.transitions[state as S], event)

/**
 * The states in which `machine` allows any of `events`, in the machine's order. A rule such as "the states a
 * quote can expire from" is read off the table with this instead of being spelled out as a list.
 */
export const statesAllowing = <S extends string, E extends string, V extends string>(
  machine: Machine<S, E, V>,
  ...events: ReadonlyArray<E>
): ReadonlyArray<S> =>
  machine.states.filter((state) => events.some((event) => machine.transitions[state][event] !== undefined))
