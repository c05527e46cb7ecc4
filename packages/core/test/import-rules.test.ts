/**
 * The import rules of @paycore/core (`.dependency-cruiser.cjs` at the root), run through dependency-cruiser's
 * `cruise`: the contexts' layers, no cycle, the ports' direction, no node builtins, no adapter package. A second
 * cruise, over a copy of the sources with one breaking import per rule, shows each rule failing.
 */
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { cruise, type ICruiseResult, type IViolation } from "dependency-cruiser"
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options"
import { afterAll, describe, expect, it } from "vitest"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const CONFIG = join(ROOT, ".dependency-cruiser.cjs")

const violationsIn = async (baseDir: string): Promise<Array<IViolation>> => {
  const options = await extractDepcruiseOptions(CONFIG)
  const result = await cruise(["packages/core/src"], { ...options, baseDir, validate: true })
  return [...(result.output as ICruiseResult).summary.violations]
}

const show = (violations: ReadonlyArray<IViolation>): string =>
  violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).join("\n")

describe("import rules of @paycore/core", () => {
  it("hold on the sources: layered contexts, no cycle, ports below the services, no node builtins or adapters", async () => {
    expect(show(await violationsIn(ROOT))).toBe("")
  })

  describe("fail on a copy of the sources with one breaking import per rule", () => {
    const copy = mkdtempSync(join(tmpdir(), "paycore-import-rules-"))
    afterAll(() => rmSync(copy, { recursive: true, force: true }))
    const src = join(copy, "packages/core/src")
    cpSync(join(ROOT, "packages/core/src"), src, { recursive: true })
    symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"))
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(copy, path)), { recursive: true })
      writeFileSync(join(copy, path), text)
    }
    // A new cycle between two contexts: platform (below) imports customers (above), which imports platform.
    appendFileSync(join(src, "platform/service.ts"), 'import "../customers/service.ts"\n')
    // A model that reaches up to a port.
    appendFileSync(
      join(src, "customers/model.ts"),
      'import type { Store } from "../ports/store.ts"\nexport type S = Store\n'
    )
    write(
      "packages/core/src/ports/probe.ts",
      'import { Customers } from "../customers/service.ts"\nexport { Customers }\n'
    )
    write("packages/core/src/shared/probe.ts", 'import "../accounts/model.ts"\n')
    write(
      "packages/core/src/onboarding/probe-node.ts",
      'import { readFileSync } from "node:fs"\nexport { readFileSync }\n'
    )
    write("packages/store-memory/src/index.ts", "export const layer = 1\n")
    write("packages/core/src/onboarding/probe-adapter.ts", 'import "../../../store-memory/src/index.ts"\n')
    write("packages/core/src/onboarding/probe-unresolved.ts", 'import "./nowhere.ts"\n')
    write("packages/core/src/payments/service.ts", 'import "../shared/time.ts"\n')
    const violations = violationsIn(copy)

    it.each([
      ["no-cycle", "packages/core/src/platform/service.ts"],
      ["layers-platform", "packages/core/src/platform/service.ts"],
      ["definitions-below-ports", "packages/core/src/customers/model.ts"],
      ["ports-see-definitions-only", "packages/core/src/ports/probe.ts"],
      ["ports-import-types-only", "packages/core/src/ports/probe.ts"],
      ["shared-is-the-floor", "packages/core/src/shared/probe.ts"],
      ["core-not-into-node", "packages/core/src/onboarding/probe-node.ts"],
      ["core-not-into-adapters", "packages/core/src/onboarding/probe-adapter.ts"],
      ["core-resolves", "packages/core/src/onboarding/probe-unresolved.ts"],
      ["context-not-in-layers", "packages/core/src/payments/service.ts"]
    ])("%s catches %s", async (rule, module) => {
      // A cycle is reported once, from whichever of its modules the cruiser met first.
      const names = (v: IViolation) => v.from === module || (v.cycle ?? []).some((step) => step.name === module)
      expect(show((await violations).filter((v) => v.rule.name === rule && names(v)))).not.toBe("")
    })
  })
})
