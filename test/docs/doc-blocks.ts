/**
 * The code blocks of README.md and docs/*.md, read one way for every test that checks them (`fencedBlocks`):
 *
 *   ```ts examples/embedded/src/main.ts    quoted from that file, found there verbatim (quoted-code.test.ts)
 *
 * and their shell blocks (issue 32 item 3): every fenced block of README.md and docs/*.md whose language is
 * `sh`, `bash`, `shell` or `console`, with the words after the language on the fence line:
 *
 *   ```sh                          run by test/docs/walkthroughs.test.ts, in the document's order
 *   ```sh no-run: <reason>         shown, not run; the reason says why (it starts a server, installs packages…)
 *   ```sh after=README.md          run after that document's blocks, in the same shell (it goes on from there)
 *
 * In a run block a comment `# → 409 …` announces that the next answer that is not 2xx has that status, and
 * `# → 201 or 409 …` an answer that may be either (a second run meets what the first made): the non-2xx answers of a
 * block, in order, must be exactly the ones it announces (`answersMatch`). In a `console` block the lines
 * starting `$ ` are the commands; the others are what they print.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

export const ROOT = join(import.meta.dirname, "..", "..")

export interface ShellBlock {
  /** `README.md`, `docs/cards.md` */
  readonly file: string
  /** The line of the opening fence (1-based). */
  readonly line: number
  readonly language: "sh" | "bash" | "shell" | "console"
  /** What a shell runs: the block itself, or a console block's `$ ` commands. */
  readonly script: string
  /** Why it is not run (`no-run: <reason>`); `undefined` for a block that runs. */
  readonly noRun: string | undefined
  /** `after=<file>`: the document whose blocks run first, in the same shell. */
  readonly after: string | undefined
  /** The statuses its `# → NNN` (or `# → NNN or MMM`) comments announce, in order; those of 2xx only left out. */
  readonly announced: ReadonlyArray<ReadonlyArray<number>>
}

const FENCE = /^```(sh|bash|shell|console)(?:[ \t]+(.*))?$/

/** Every fenced block of a markdown text: the words on its fence (`ts examples/…`), its text, its fence's line. */
export const fencedBlocks = (
  markdown: string
): ReadonlyArray<{ readonly info: string; readonly body: string; readonly line: number }> => {
  const lines = markdown.split("\n")
  const blocks: Array<{ info: string; body: string; line: number }> = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(.*)$/.exec(lines[i]!)
    if (open === null) continue
    const end = lines.findIndex((l, j) => j > i && l.startsWith(open[1]!) && l.trim() === open[1])
    const close = end < 0 ? lines.length : end
    blocks.push({ info: open[2]!.trim(), body: lines.slice(i + 1, close).join("\n"), line: i + 1 })
    i = close
  }
  return blocks
}

const isSuccess = (status: number) => status >= 200 && status <= 299

/** `# → 409`, `# → 201 or 409`: each announcement's statuses, those of 2xx only left out. */
const announcedStatuses = (script: string): ReadonlyArray<ReadonlyArray<number>> =>
  [...script.matchAll(/#[^\n]*?→\s*([1-5]\d\d(?:\s+or\s+[1-5]\d\d)*)\b/g)]
    .map((m) => m[1]!.split(/\s+or\s+/).map(Number))
    .filter((statuses) => !statuses.every(isSuccess))

/**
 * Whether a block's non-2xx answers, in order, are the ones it announces: each announcement is met by the next
 * answer; one that allows a 2xx (`# → 201 or 409`) may also be met by a 2xx, which is not in the list.
 */
export const answersMatch = (
  answers: ReadonlyArray<number>,
  announced: ReadonlyArray<ReadonlyArray<number>>
): boolean => {
  const match = (a: number, n: number): boolean => {
    if (n === announced.length) return a === answers.length
    const options = announced[n]!
    return (
      (a < answers.length && options.includes(answers[a]!) && match(a + 1, n + 1)) ||
      (options.some(isSuccess) && match(a, n + 1))
    )
  }
  return match(0, 0)
}

export const shellBlocks = (file: string): ReadonlyArray<ShellBlock> =>
  fencedBlocks(readFileSync(join(ROOT, file), "utf8")).flatMap(({ info, body, line }) => {
    const fence = FENCE.exec(`\`\`\`${info}`)
    if (fence === null) return []
    const language = fence[1] as ShellBlock["language"]
    const words = fence[2] ?? ""
    const noRun = /\bno-run(?::\s*(.*))?$/.exec(words)
    const script =
      language === "console"
        ? body
            .split("\n")
            .filter((l) => l.startsWith("$ "))
            .map((l) => l.slice(2))
            .join("\n")
        : body
    return [
      {
        file,
        line,
        language,
        script,
        noRun: noRun === null ? undefined : (noRun[1] ?? "").trim(),
        after: /\bafter=(\S+)/.exec(words)?.[1],
        announced: announcedStatuses(script)
      }
    ]
  })

/** README.md and every docs/*.md, in that order. */
export const documents = (): ReadonlyArray<string> => [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`)
]
