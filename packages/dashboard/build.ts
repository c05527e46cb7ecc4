/**
 * Builds the dashboard into dist/: the app bundled by esbuild (Preact, effect's typed client over @paycore/http's
 * API definition), its page and its style sheet. Run at install by the root `prepare` script; `npm start` never
 * builds (a missing dist/ is answered by a 503 page, src/index.ts).
 */
import { copyFileSync, mkdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { build } from "esbuild"

const app = join(import.meta.dirname, "app")
const dist = join(import.meta.dirname, "dist")

rmSync(dist, { recursive: true, force: true })
mkdirSync(dist)
await build({
  entryPoints: [join(app, "main.tsx")],
  outfile: join(dist, "app.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "none",
  logLevel: "warning"
})
for (const file of ["index.html", "app.css"]) copyFileSync(join(app, file), join(dist, file))
