/**
 * The API reports of the public packages: one per entry point of each package's `exports` map, written by
 * api-extractor from the built `.d.ts` (what users compile against) to `packages/<name>/api/<entry>.api.md`.
 *
 *   node scripts/api-report.ts           check: fails when a report differs from the built `.d.ts`, when an entry
 *                                        point has no report, or when a report has no entry point (`npm run api:check`)
 *   node scripts/api-report.ts --update  rewrites the reports and removes those of entry points that are gone
 *                                        (`npm run api:update`)
 *
 * Both need the built `dist/` (`npm run build`; `npm install` runs it). The entry points come from the `exports`
 * maps (their `types` condition), so a new subpath gets its report without a line here. The report of `"."` is
 * `index.api.md`, of `"./wallet-client"` `wallet-client.api.md`.
 *
 * api-extractor writes each report into a temporary folder; this script compares it with the checked-in one, after
 * taking the line and column out of the source locations a few warnings carry (`// src/describe.ts:344:3 - ...`), so
 * a line added above a declaration does not change a report.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import {
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
  ExtractorMessageCategory,
  type IConfigFile
} from "@microsoft/api-extractor"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const update = process.argv.includes("--update")
const only = process.argv.slice(2).filter((arg) => !arg.startsWith("--"))

interface EntryPoint {
  readonly packageName: string
  readonly packageFolder: string
  readonly subpath: string
  readonly report: string
  readonly types: string
}

/**
 * The entry points of every public package (not `private`) under packages/: each subpath of its `exports` map but
 * `./package.json`. One whose target has no `types` condition is a problem of its own (users get no types).
 */
const entryPoints = (): { readonly entries: ReadonlyArray<EntryPoint>; readonly untyped: ReadonlyArray<string> } => {
  const entries: Array<EntryPoint> = []
  const untyped: Array<string> = []
  for (const dir of readdirSync(join(root, "packages"))) {
    const packageFolder = join(root, "packages", dir)
    if (!existsSync(join(packageFolder, "package.json"))) continue
    const pkg = JSON.parse(readFileSync(join(packageFolder, "package.json"), "utf8"))
    if (pkg.private === true) continue
    for (const [subpath, target] of Object.entries<unknown>(pkg.exports ?? {})) {
      if (subpath.endsWith(".json")) continue
      const types = typeof target === "object" && target !== null ? (target as { types?: unknown }).types : undefined
      if (typeof types !== "string") {
        untyped.push(`${pkg.name}${subpath.slice(1)}`)
        continue
      }
      const report = subpath === "." ? "index" : subpath.replace(/^\.\//, "").replaceAll("/", "-")
      entries.push({ packageName: pkg.name, packageFolder, subpath, report, types })
    }
  }
  return { entries, untyped }
}

/**
 * What every report shares. TypeScript is the one api-extractor bundles (its own 5.x/6.x): it reads the `.d.ts` our
 * TypeScript 7 emits as they are (relative specifiers keep their `.ts` extension there, which it resolves to the
 * `.d.ts` beside them).
 */
const configOf = (entry: EntryPoint, reportFolder: string, tempFolder: string): IConfigFile => {
  const entryFile = join(entry.packageFolder, entry.types)
  return {
    projectFolder: entry.packageFolder,
    mainEntryPointFilePath: entryFile,
    newlineKind: "lf",
    compiler: {
      // The program is the entry point and what it imports, not the package's sources or tests.
      overrideTsconfig: {
        compilerOptions: {
          target: "ES2023",
          lib: ["ES2023", "ES2024.String"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          types: ["node"],
          strict: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: true
        },
        files: [entryFile]
      }
    },
    apiReport: {
      enabled: true,
      reportFolder,
      reportTempFolder: tempFolder,
      reportFileName: entry.report,
      // A type the API uses but does not export is written out in the report too (after its ae-forgotten-export
      // warning), so a change to it changes the report.
      includeForgottenExports: true
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    messages: {
      compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
      extractorMessageReporting: {
        default: { logLevel: ExtractorLogLevel.Warning },
        // A type the API uses but the entry point does not export: a warning in the report, above the type itself
        // (includeForgottenExports), where review sees it: export it, or keep it private on purpose.
        "ae-forgotten-export": { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
        // We do not tag every export `@public`; untagged is public, and the report says so.
        "ae-missing-release-tag": { logLevel: ExtractorLogLevel.None },
        // Our exports are documented where it helps, not each one.
        "ae-undocumented": { logLevel: ExtractorLogLevel.None },
        // Our comments are JSDoc prose, not TSDoc: `{@link}` targets and the like are not checked.
        "ae-unresolved-link": { logLevel: ExtractorLogLevel.None }
      },
      // TSDoc syntax of our existing comments (`@param x -`, `@returns`, unknown tags, HTML in prose): noise here.
      tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } }
    }
  }
}

/** A report without the line and column of the source locations in it. */
const normalized = (report: string): string => report.replace(/^(\s*\/\/ [^\s:]+\.tsx?):\d+:\d+ - /gm, "$1 - ")

const run = (entry: EntryPoint, tempFolder: string): boolean => {
  const label = `${entry.packageName}${entry.subpath === "." ? "" : entry.subpath.slice(1)}`
  if (!existsSync(join(entry.packageFolder, entry.types))) {
    console.error(`${label}: ${entry.types} is not built (npm run build)`)
    return false
  }
  const relative = `packages/${basename(entry.packageFolder)}/api/${entry.report}.api.md`
  const target = join(root, relative)
  if (!update && !existsSync(target)) {
    console.error(`${label}: an entry point without a report (${relative}): run npm run api:update and commit it`)
    return false
  }
  const fresh = join(tempFolder, "reports", basename(entry.packageFolder))
  mkdirSync(fresh, { recursive: true })
  const config = ExtractorConfig.prepare({
    configObject: configOf(entry, fresh, join(tempFolder, "work")),
    configObjectFullPath: undefined,
    packageJsonFullPath: join(entry.packageFolder, "package.json")
  })
  const result = Extractor.invoke(config, {
    // "Local": api-extractor writes the report (to `fresh`) rather than comparing; the comparison is below.
    localBuild: true,
    messageCallback: (message: ExtractorMessage) => {
      // api-extractor's own progress lines ("the report was missing, so a new file was created"): ours say it.
      if (message.category === ExtractorMessageCategory.Console && message.logLevel !== ExtractorLogLevel.Error)
        message.handled = true
    }
  })
  if (result.errorCount > 0) {
    console.error(`${label}: api-extractor reported ${result.errorCount} errors`)
    return false
  }
  const report = normalized(readFileSync(join(fresh, `${entry.report}.api.md`), "utf8"))
  if (existsSync(target) && readFileSync(target, "utf8") === report) {
    console.log(`${label}: up to date`)
    return true
  }
  if (update) {
    mkdirSync(dirname(target), { recursive: true })
    writeFileSync(target, report)
    console.log(`${label}: ${relative} written`)
    return true
  }
  const built = join(tempFolder, `${entry.report}.api.md`)
  writeFileSync(built, report)
  const diff = spawnSync("diff", ["-u", "--label", relative, "--label", "built", target, built], { encoding: "utf8" })
  console.error(
    `${diff.stdout ?? ""}${label}: the surface differs from ${relative}: run npm run api:update and commit it`
  )
  return false
}

/** Reports under packages/<name>/api/ that no entry point writes (a subpath removed, a package made private). */
const orphans = (entries: ReadonlyArray<EntryPoint>): ReadonlyArray<string> => {
  const expected = new Set(entries.map((entry) => join(entry.packageFolder, "api", `${entry.report}.api.md`)))
  return readdirSync(join(root, "packages")).flatMap((dir) => {
    const folder = join(root, "packages", dir, "api")
    if (!existsSync(folder)) return []
    return readdirSync(folder)
      .filter((file) => file.endsWith(".api.md"))
      .map((file) => join(folder, file))
      .filter((file) => !expected.has(file))
  })
}

const { entries: all, untyped } = entryPoints()
const selected = only.length === 0 ? all : all.filter((entry) => only.includes(entry.packageName))
let ok = true
for (const entry of untyped) {
  console.error(`${entry}: an entry point without a types condition in its package's exports`)
  ok = false
}
const tempFolder = mkdtempSync(join(tmpdir(), "paycore-api-"))
try {
  for (const entry of selected) ok = run(entry, tempFolder) && ok
} finally {
  rmSync(tempFolder, { recursive: true, force: true })
}
if (only.length === 0) {
  for (const file of orphans(all)) {
    const relative = file.slice(root.length + 1)
    if (update) {
      rmSync(file)
      console.log(`${relative} removed: no entry point writes it`)
    } else {
      console.error(`${relative}: a report of no entry point (run npm run api:update and commit the removal)`)
      ok = false
    }
  }
}
process.exitCode = ok ? 0 : 1
