/**
 * Builds the dashboard's page into dist/: the app bundled by esbuild (Preact, effect's typed client over @paycore/http's
 * API definition, from the workspace's sources: the `@paycore/source` condition), its page and its style sheet, beside
 * the package's compiled src/ (`tsc -b` writes dist/index.js first; this replaces only its own three files). Run by the
 * root `npm run build` (the `prepare` script, at install); `npm start` never builds (a missing page is answered by a
 * 503 page, src/index.ts).
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { build } from "esbuild"

const app = join(import.meta.dirname, "app")
const dist = join(import.meta.dirname, "dist")

mkdirSync(dist, { recursive: true })
await build({
  entryPoints: [join(app, "main.tsx")],
  outfile: join(dist, "app.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  // The workspace's sources, not its dist/; "module" too, which esbuild adds by itself only when no conditions are set.
  conditions: ["@paycore/source", "module"],
  target: "es2022",
  minify: true,
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "none",
  logLevel: "warning"
})
copyFileSync(join(app, "index.html"), join(dist, "index.html"))
// One style sheet: the charts' own (uPlot's layout of its canvas, legend and cursor), then the dashboard's.
const uPlotCss = createRequire(import.meta.url).resolve("uplot/dist/uPlot.min.css")
writeFileSync(join(dist, "app.css"), `${readFileSync(uPlotCss, "utf8")}\n${readFileSync(join(app, "app.css"), "utf8")}`)
