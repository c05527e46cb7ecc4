/** Small helpers the benches share to read their flags and report their figures (no dependencies: HTTP workers load it). */
import { readFileSync } from "node:fs"

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length === 0
    ? Number.NaN
    : sorted.length % 2 === 1
      ? sorted[middle]!
      : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** A whole number with thousands separators (`12,345`). */
export const fmt = (n: number): string => Math.round(n).toLocaleString("en-US")

/** The number after `--<name>` on the command line; `undefined` when the flag is not given. */
export const numberFlag = (name: string): number | undefined => {
  const index = process.argv.indexOf(`--${name}`)
  return index < 0 ? undefined : Number(process.argv[index + 1])
}

/**
 * The node flag that runs the workspace's TypeScript sources (each @paycore package exports `src/` under the
 * `@paycore/source` condition; without it node would look for the built dist/): `npm run bench` passes it, and so
 * does every child process and worker thread a bench starts.
 */
export const SOURCE_CONDITION = "--conditions=@paycore/source"

/**
 * `npm start`'s command line (package.json) as node arguments: its Node flags, so a bench's server runs as the
 * production server does (among them `SOURCE_CONDITION`, which a bench's child needs whatever the script says), and
 * its script.
 */
export const npmStart = (): { readonly flags: Array<string>; readonly script: string } => {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
  const args = (manifest.scripts.start as string).split(/\s+/).slice(1)
  const flags = args.filter((arg) => arg.startsWith("--"))
  return {
    flags: flags.includes(SOURCE_CONDITION) ? flags : [SOURCE_CONDITION, ...flags],
    script: args.find((arg) => !arg.startsWith("--"))!
  }
}
