/**
 * A transaction's timeline drawn as its path through its state machine: the machine the engine runs and
 * docs/state-machines.md renders (`outgoingPaymentMachine`, … from @paycore/core, the same tables `toMermaid` reads),
 * every state a box laid out by its distance from the initial one, the moves the transaction made drawn over it.
 */
import {
  cardTransactionMachine,
  incomingPaymentMachine,
  type Machine,
  outgoingPaymentMachine,
  type TimelineEntry
} from "@paycore/core"

type AnyMachine = Machine<string, string, string>

/** The machine whose states a transaction's timeline names. */
export const machineOf = (type: string): AnyMachine =>
  (type === "CARD"
    ? cardTransactionMachine
    : type === "INCOMING"
      ? incomingPaymentMachine
      : outgoingPaymentMachine) as AnyMachine

const BOX = { width: 176, height: 30, column: 214, row: 46, margin: 12 }

/** Columns by the fewest moves from the initial state; states no move reaches go last. */
const layout = (machine: AnyMachine): Map<string, { x: number; y: number }> => {
  const depth = new Map<string, number>([[machine.initial, 0]])
  const queue = [machine.initial]
  while (queue.length > 0) {
    const from = queue.shift()!
    for (const move of Object.values(machine.transitions[from] ?? {})) {
      if (move !== undefined && !depth.has(move.to)) {
        depth.set(move.to, depth.get(from)! + 1)
        queue.push(move.to)
      }
    }
  }
  const last = Math.max(...depth.values()) + 1
  const rows = new Map<number, number>()
  const at = new Map<string, { x: number; y: number }>()
  for (const state of machine.states) {
    const column = depth.get(state) ?? last
    const row = rows.get(column) ?? 0
    rows.set(column, row + 1)
    at.set(state, { x: BOX.margin + column * BOX.column, y: BOX.margin + row * BOX.row })
  }
  return at
}

const edgePath = (from: { x: number; y: number }, to: { x: number; y: number }): string => {
  if (from.x === to.x && from.y === to.y) {
    // A move that stays (RESIZE, NEXT_CHALLENGE): a loop above the box.
    const x = from.x + BOX.width - 30
    return `M${x} ${from.y} c 8 -16, 24 -16, 20 0`
  }
  const forward = to.x > from.x
  const x1 = forward ? from.x + BOX.width : from.x
  const x2 = forward ? to.x : to.x + BOX.width
  const y1 = from.y + BOX.height / 2
  const y2 = to.y + BOX.height / 2
  if (from.x === to.x) {
    const side = from.x + BOX.width
    return `M${side} ${y1} C ${side + 30} ${y1}, ${side + 30} ${y2}, ${side} ${y2}`
  }
  const bend = (x2 - x1) / 2
  return `M${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`
}

/**
 * The machine with the path of `entries` (the timeline, oldest first) highlighted: each state reached, each move
 * made, the current state outlined. `statusOf` gives a state's public status (`REFUND_PENDING` reads `FAILED`).
 */
export const MachinePath = ({
  machine,
  entries,
  statusOf
}: {
  readonly machine: AnyMachine
  readonly entries: ReadonlyArray<TimelineEntry>
  readonly statusOf: (state: string) => string | undefined
}) => {
  const at = layout(machine)
  const reached = new Set(entries.map((e) => e.state))
  const moved = new Set(entries.flatMap((e) => (e.from === undefined ? [] : [`${e.from}>${e.state}`])))
  const current = entries[entries.length - 1]?.state
  const positions = [...at.values()]
  const width = Math.max(...positions.map((p) => p.x)) + BOX.width + BOX.margin + 30
  const height = Math.max(...positions.map((p) => p.y)) + BOX.height + BOX.margin
  // One line per pair of states (FAIL and CANCEL both lead PROCESSING to REFUND_PENDING), its events in its title.
  const edges = new Map<string, { from: string; to: string; events: Array<string>; taken: boolean }>()
  for (const from of machine.states) {
    for (const [event, move] of Object.entries(machine.transitions[from] ?? {})) {
      if (move === undefined) continue
      const key = `${from}>${move.to}`
      const edge = edges.get(key) ?? { from, to: move.to, events: [], taken: moved.has(key) }
      edge.events.push(event)
      edges.set(key, edge)
    }
  }
  return (
    <figure class="machine">
      <div class="machine-scroll">
        <svg
          viewBox={`0 0 ${width} ${height}`}
          width={width}
          height={height}
          role="img"
          aria-label={`The ${machine.name} machine; this transaction went ${[...new Set(entries.map((e) => e.state))].join(" → ")}`}
        >
          <defs>
            <marker
              id="arrow"
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerUnits="userSpaceOnUse"
              markerWidth="10"
              markerHeight="10"
              orient="auto"
            >
              <path d="M0 0 L10 5 L0 10 z" class="arrow-head" />
            </marker>
          </defs>
          {/* Moves not taken first, the path over them. */}
          {[...edges.values()]
            .sort((a, b) => Number(a.taken) - Number(b.taken))
            .map((edge) => (
              <path
                key={`${edge.from}>${edge.to}`}
                d={edgePath(at.get(edge.from)!, at.get(edge.to)!)}
                class={edge.taken ? "edge taken" : "edge"}
                marker-end={edge.taken ? "url(#arrow)" : undefined}
              >
                <title>
                  {edge.from} → {edge.to}: {edge.events.join(", ")}
                </title>
              </path>
            ))}
          {machine.states.map((state) => {
            const p = at.get(state)!
            const status = statusOf(state)
            const tone = reached.has(state) ? (state === current ? "state current" : "state reached") : "state"
            return (
              <g key={state} class={tone} data-state={state}>
                <rect x={p.x} y={p.y} width={BOX.width} height={BOX.height} rx="6" />
                <text x={p.x + BOX.width / 2} y={p.y + BOX.height / 2 + 4} text-anchor="middle">
                  {state}
                </text>
                <title>
                  {state}
                  {status !== undefined && status !== state ? ` (reads ${status})` : ""}
                </title>
              </g>
            )
          })}
        </svg>
      </div>
      <figcaption>
        The {machine.name} machine (as in the docs' state machines); the path this transaction took is drawn bold, its
        state now outlined.
      </figcaption>
    </figure>
  )
}
