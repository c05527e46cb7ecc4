/**
 * The shape every context of @paycore/core shares (CONTRIBUTING.md, "A context"), checked on the sources so a new
 * context or service cannot drift from it: the ports bundle is `ports.ts`; every service class lives in its
 * context's `service.ts`; every operation of a service is bound as a span of its own name; and
 * docs/architecture.md names every context folder, package and example (its layout is the map newcomers read).
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const ROOT = join(import.meta.dirname, "../../..")
const SRC = join(ROOT, "packages/core/src")
/** The folders of the core that are not contexts. */
const NOT_CONTEXTS = new Set(["shared", "ports"])

/**
 * Operations bound without a span, each for a reason CONTRIBUTING.md ("One idiom per kind of step") measures:
 * the per-request credential checks run on every request, and a span costs more than their work (as the idempotency
 * wrapper, `Idempotency.run`, which is a plain object's function, not a service). `WebhookDispatcher.run` is a loop that never ends (each pass, `dispatchDue`, has its span).
 */
const UNTRACED: ReadonlySet<string> = new Set(["Tokens.authenticate", "Agents.authenticate", "WebhookDispatcher.run"])

const contexts = readdirSync(SRC, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !NOT_CONTEXTS.has(entry.name))
  .map((entry) => entry.name)
  .sort()

const filesOf = (context: string): ReadonlyArray<string> =>
  readdirSync(join(SRC, context)).filter((file) => file.endsWith(".ts"))

const read = (path: string): string => readFileSync(path, "utf8")

/** A context's service.ts, or nothing when it has no service (`timelines` is steps that others call). */
const serviceSourceOf = (context: string): string =>
  filesOf(context).includes("service.ts") ? read(join(SRC, context, "service.ts")) : ""

interface ServiceClass {
  readonly name: string
  /** The members of its interface that are functions: its operations (a member that is data is not one). */
  readonly operations: ReadonlyArray<string>
  readonly hasLayer: boolean
}

/**
 * The `readonly` members at the top level of an object type's body (the text between its braces) whose type is a
 * function returning an Effect: its operations (a member that is data, or a plain function like a signer's
 * `sign`, is not one).
 */
const operationsOf = (body: string): ReadonlyArray<string> => {
  const starts: Array<{ readonly name: string; readonly at: number }> = []
  let level = 0
  for (let i = 0; i < body.length; i++) {
    const char = body[i]
    if (char === "{" || char === "(") level++
    else if (char === "}" || char === ")") level--
    else if (level === 0 && body.startsWith("readonly ", i) && /\s/.test(body[i - 1] ?? " ")) {
      const name = /^readonly (\w+)/.exec(body.slice(i))?.[1]
      if (name !== undefined) starts.push({ name, at: i })
    }
  }
  return starts
    .filter(({ at }, index) => {
      const member = body.slice(at, starts[index + 1]?.at ?? body.length)
      return /^readonly \w+\??:\s*[(<]/.test(member) && /=>\s*Effect\.Effect</.test(member)
    })
    .map(({ name }) => name)
}

/** The text between the braces that open at `start` (just after the `{`). */
const bracedFrom = (source: string, start: number): string => {
  let depth = 1
  let end = start
  while (depth > 0 && end < source.length) {
    const char = source[end++]
    if (char === "{") depth++
    else if (char === "}") depth--
  }
  return source.slice(start, end - 1)
}

/**
 * The `Context.Service` classes of a module, with the operations of their interface (written inline, or an
 * interface named there and declared in `siblings`, the context's sources) and whether they carry a `layer` (a
 * port of the context has none).
 */
const serviceClassesOf = (source: string, siblings: string): ReadonlyArray<ServiceClass> =>
  [...source.matchAll(/export class (\w+) extends Context\.Service<\s*\w+,\s*(\{|\w+)/g)].map((match) => {
    const inline = match[2] === "{"
    const declared = inline ? undefined : new RegExp(`interface ${match[2]} \\{`).exec(siblings)
    const body = inline
      ? bracedFrom(source, match.index + match[0].length)
      : declared === null || declared === undefined
        ? ""
        : bracedFrom(siblings, declared.index + declared[0].length)
    const rest = source.slice(match.index)
    const classBody = rest.slice(0, rest.indexOf("\n}\n") + 1 || undefined)
    return { name: match[1]!, operations: operationsOf(body), hasLayer: /static readonly layer\w*\b/.test(classBody) }
  })

const sourcesOf = (context: string): string =>
  filesOf(context)
    .map((file) => read(join(SRC, context, file)))
    .join("\n")

describe("the shape of every context (CONTRIBUTING.md, A context)", () => {
  it("finds the contexts", () => {
    expect(contexts).toContain("cards")
    expect(contexts.length).toBeGreaterThan(10)
  })

  it.each(contexts)("%s: its ports bundle (if any) is ports.ts", (context) => {
    expect(filesOf(context).filter((file) => file.endsWith("-ports.ts"))).toEqual([])
  })

  it.each(contexts)("%s: every service class is in service.ts; a class elsewhere is a port, in ports.ts", (context) => {
    const misplaced = filesOf(context).flatMap((file) =>
      serviceClassesOf(read(join(SRC, context, file)), sourcesOf(context))
        .filter((cls) => (cls.hasLayer ? file !== "service.ts" : file !== "ports.ts"))
        .map((cls) => `${cls.name} in ${context}/${file}${cls.hasLayer ? "" : " (a port: ports.ts)"}`)
    )
    expect(misplaced).toEqual([])
  })

  it.each(contexts)("%s: every operation of its services runs in a span of its name", (context) => {
    const source = serviceSourceOf(context)
    const unbound = serviceClassesOf(source, sourcesOf(context))
      .filter((cls) => cls.hasLayer)
      .flatMap((cls) => cls.operations.map((op) => `${cls.name}.${op}`))
      .filter((op) => !UNTRACED.has(op))
      .filter((op) => !new RegExp(`(operation|command)\\(\\s*"${op.replace(".", "\\.")}"`).test(source))
    expect(unbound).toEqual([])
  })

  it("the untraced operations still exist (a renamed one must leave the list)", () => {
    const all = contexts.flatMap((context) =>
      serviceClassesOf(serviceSourceOf(context), sourcesOf(context)).flatMap((cls) =>
        cls.operations.map((op) => `${cls.name}.${op}`)
      )
    )
    expect([...UNTRACED].filter((op) => !all.includes(op))).toEqual([])
  })
})

describe("docs/architecture.md names every folder it maps", () => {
  const doc = read(join(ROOT, "docs/architecture.md"))
  const layout = /## Layout\n+```\n([\s\S]*?)\n```/.exec(doc)?.[1] ?? ""

  it.each(contexts)("context %s is in the layout", (context) => {
    expect(layout).toContain(`src/${context}/`)
  })

  const workspaceFolders = ["packages", "examples"].flatMap((parent) =>
    readdirSync(join(ROOT, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${parent}/${entry.name}`)
  )
  it.each(workspaceFolders)("%s is in the layout", (folder) => {
    expect(layout).toMatch(new RegExp(`^ {2}${folder.split("/")[1]}/`, "m"))
  })
})

describe("no source file over 800 lines (CONTRIBUTING.md, size rules)", () => {
  const MAX_LINES = 800
  const sources = ["packages", "examples"].flatMap((parent) =>
    readdirSync(join(ROOT, parent)).flatMap((name) => {
      const src = join(ROOT, parent, name, "src")
      try {
        return readdirSync(src, { recursive: true, encoding: "utf8" })
          .filter((file) => /\.tsx?$/.test(file))
          .map((file) => join(parent, name, "src", file))
      } catch {
        return []
      }
    })
  )
  it("finds the sources", () => expect(sources.length).toBeGreaterThan(100))
  it("every one is at most 800 lines", () => {
    const over = sources
      .map((file) => ({ file, lines: read(join(ROOT, file)).split("\n").length }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines}`)
    expect(over).toEqual([])
  })
})
