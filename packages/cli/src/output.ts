/**
 * How results reach the user: `--json` prints one JSON document per result; otherwise lines for a person, coloured
 * only when stdout is a terminal (and NO_COLOR is unset).
 */
import { Effect } from "effect"
import { paycore } from "./root.ts"

const colourful = () => process.stdout.isTTY === true && process.env.NO_COLOR === undefined

const paint = (code: number) => (text: string) => (colourful() ? `\u001b[${code}m${text}\u001b[0m` : text)
export const bold = paint(1)
export const dim = paint(2)
export const green = paint(32)
export const red = paint(31)
export const yellow = paint(33)

/** Prints a result: `json` as one line of JSON with `--json`, else the lines `human` makes. */
export const emit = <A>(json: A, human: (value: A) => ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const root = yield* paycore
    const text = root.json ? JSON.stringify(json) : human(json).join("\n")
    yield* Effect.sync(() => process.stdout.write(`${text}\n`))
  })

/** A progress note when stdout is a terminal (written to stderr, so stdout holds only results); nothing otherwise. */
export const progress = (text: string) =>
  Effect.gen(function* () {
    const root = yield* paycore
    if (root.json || process.stdout.isTTY !== true) return
    yield* Effect.sync(() => process.stderr.write(`${dim(`… ${text}`)}\n`))
  })

/** Fixed-width columns for a table of strings. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): Array<string> => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd()
  return [bold(line(header)), ...rows.map(line)]
}
