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
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import {
  ConsoleMessageId,
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

/** The entry points with types of every public package (not `private`) under packages/. */
const entryPoints = (): ReadonlyArray<EntryPoint> =>
  readdirSync(join(root, "packages"))
    .map((dir) => join(root, "packages", dir))
    .filter((folder) => existsSync(join(folder, "package.json")))
    .flatMap((folder) => {
      const pkg = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"))
      if (pkg.private === true) return []
      return Object.entries<unknown>(pkg.exports ?? {}).flatMap(([subpath, target]) => {
        const types = typeof target === "object" && target !== null ? (target as { types?: unknown }).types : undefined
        if (typeof types !== "string") return []
        const report = subpath === "." ? "index" : subpath.replace(/^\.\//, "").replaceAll("/", "-")
        return [{ packageName: pkg.name as string, packageFolder: folder, subpath, report, types }]
      })
    })

/**
 * What every report shares. TypeScript is the one api-extractor bundles (its own 5.x/6.x): it reads the `.d.ts` our
 * TypeScript 7 emits as they are (relative specifiers keep their `.ts` extension there, which it resolves to the
 * `.d.ts` beside them).
 */
const configOf = (entry: EntryPoint, tempFolder: string): IConfigFile => {
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
      reportFolder: join(entry.packageFolder, "api"),
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
        // A type the API uses but the entry point does not export: written into the report, where review sees it
        // (export it, or stop using it in the public signature).
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

const run = (entry: EntryPoint, tempFolder: string): boolean => {
  const label = `${entry.packageName}${entry.subpath === "." ? "" : entry.subpath.slice(1)}`
  if (!existsSync(join(entry.packageFolder, entry.types))) {
    console.error(`${label}: ${entry.types} is not built (npm run build)`)
    return false
  }
  mkdirSync(join(entry.packageFolder, "api"), { recursive: true })
  const config = ExtractorConfig.prepare({
    configObject: configOf(entry, tempFolder),
    configObjectFullPath: undefined,
    packageJsonFullPath: join(entry.packageFolder, "package.json")
  })
  const result = Extractor.invoke(config, {
    localBuild: update,
    // In a check, the lines that changed (api-extractor's diff of the report against the built surface).
    printApiReportDiff: !update,
    messageCallback: (message: ExtractorMessage) => {
      // api-extractor's own progress and advice lines ("up to date", "please copy the file..."): one line per
      // entry point below says it. Errors, warnings of the analysis and the diff pass through.
      if (
        message.category === ExtractorMessageCategory.Console &&
        message.messageId !== ConsoleMessageId.ApiReportDiff &&
        message.logLevel !== ExtractorLogLevel.Error
      )
        message.handled = true
    }
  })
  const relative = `packages/${entry.packageFolder.split("/").pop()}/api/${entry.report}.api.md`
  if (!result.succeeded && !(update && result.errorCount === 0)) {
    console.error(
      `${label}: ${result.apiReportChanged ? `the surface differs from ${relative}: run npm run api:update and commit it` : `${result.errorCount} errors, ${result.warningCount} warnings`}`
    )
    return false
  }
  console.log(`${label}: ${result.apiReportChanged ? `${relative} written` : "up to date"}`)
  return true
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

const all = entryPoints()
const selected = only.length === 0 ? all : all.filter((entry) => only.includes(entry.packageName))
const tempFolder = mkdtempSync(join(tmpdir(), "paycore-api-"))
let ok = true
try {
  for (const entry of selected) ok = run(entry, tempFolder) && ok
} finally {
  rmSync(tempFolder, { recursive: true, force: true })
}
if (only.length === 0) {
  for (const file of orphans(all)) {
    if (update) {
      rmSync(file)
      console.log(`${file.slice(root.length + 1)} removed: no entry point writes it`)
    } else {
      console.error(`${file.slice(root.length + 1)}: no entry point writes it (run npm run api:update)`)
      ok = false
    }
  }
}
process.exitCode = ok ? 0 : 1
