// Import rules of @paycore/core. packages/core/test/import-rules.test.ts runs them in `npm test`; by hand:
// `npx depcruise packages/core/src`. CONTRIBUTING.md ("Layers") says why each one exists.

const SRC = "^packages/core/src/"

/**
 * The contexts of packages/core/src from the bottom up. A context imports shared/, ports/ and the contexts of the
 * layers below its own; contexts of one layer do not import each other. A new context takes a place here.
 */
const LAYERS = [
  ["ledger", "idempotency", "webhooks", "timelines"],
  ["platform"],
  ["accounts"],
  ["wallet-auth"],
  ["customers"],
  ["onboarding", "sca", "invitations"],
  ["quotes", "cards", "stablecoins"],
  ["transactions"],
  ["agents"]
]
const CONTEXTS = LAYERS.flat()
const anyOf = (names) => `(${names.join("|")})`
/** A context's definitions: its Schemas and types, state machines and error constructors. */
const DEFINITIONS = `${SRC}${anyOf(CONTEXTS)}/(model|machine|errors)\\.ts$`

/** One rule per context: nothing from its own layer or above. */
const layerRules = LAYERS.flatMap((layer, level) =>
  layer.flatMap((context) => {
    const notBelow = LAYERS.slice(level)
      .flat()
      .filter((other) => other !== context)
    if (notBelow.length === 0) return []
    const below = LAYERS.slice(0, level).flat()
    return [
      {
        name: `layers-${context}`,
        comment: `${context} imports shared/, ports/ and the layers below it only (${below.join(", ") || "none"})`,
        severity: "error",
        from: { path: `${SRC}${context}/` },
        to: { path: `${SRC}${anyOf(notBelow)}/` }
      }
    ]
  })
)

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-cycle",
      comment: "No module of the core reaches itself again through its imports",
      severity: "error",
      from: { path: SRC },
      to: { circular: true }
    },
    ...layerRules,
    {
      name: "context-not-in-layers",
      comment: "Every folder of packages/core/src is shared/, ports/ or a context placed in LAYERS",
      severity: "error",
      from: { path: SRC, pathNot: `${SRC}([^/]+\\.ts$|${anyOf(["shared", "ports", ...CONTEXTS])}/)` },
      to: {}
    },
    {
      name: "shared-is-the-floor",
      comment: "shared/ imports nothing of the core but shared/",
      severity: "error",
      from: { path: `${SRC}shared/` },
      to: { path: SRC, pathNot: `${SRC}shared/` }
    },
    {
      name: "ports-see-definitions-only",
      comment: "A port speaks in the contexts' definitions (model, machine, errors), never their services",
      severity: "error",
      from: { path: `${SRC}ports/` },
      to: { path: `${SRC}${anyOf(CONTEXTS)}/`, pathNot: DEFINITIONS }
    },
    {
      name: "ports-import-types-only",
      comment: "A port takes only types from the contexts (`import type`), so it adds no runtime edge",
      severity: "error",
      from: { path: `${SRC}ports/` },
      to: { path: `${SRC}${anyOf(CONTEXTS)}/`, dependencyTypesNot: ["type-only"] }
    },
    {
      name: "definitions-below-ports",
      comment: "Definitions import only shared/ and other contexts' definitions: the ports and services sit above",
      severity: "error",
      from: { path: DEFINITIONS },
      to: { path: SRC, pathNot: `${SRC}shared/|${DEFINITIONS}` }
    },
    {
      name: "core-not-into-adapters",
      comment:
        "The core imports no other workspace package (@paycore/store-*, @paycore/http, @paycore/sandbox, @paycore/testkit, examples)",
      severity: "error",
      from: { path: "^packages/core/src/" },
      to: { path: "^(packages/(?!core/)|examples/|bench/|node_modules/@paycore/)" }
    },
    {
      name: "core-not-into-node",
      comment: "The core runs anywhere: no node builtins (`node:*` or bare), I/O only through ports",
      severity: "error",
      from: { path: "^packages/core/src/" },
      to: { dependencyTypes: ["core"] }
    },
    {
      name: "core-resolves",
      comment: "An import the cruiser cannot resolve would slip past every rule above",
      severity: "error",
      from: { path: "^packages/core/src/" },
      to: { couldNotResolve: true }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // `import type` counts: a cycle of types is still a cycle between contexts.
    tsPreCompilationDeps: true,
    // swc parses TypeScript here: TypeScript 7 (the project's) has no JavaScript API for the cruiser to call.
    parser: "swc",
    // Packages are resolved through their `exports` maps, as node does (effect has no `main`); a @paycore package to
    // its TypeScript sources (the `@paycore/source` condition, as everywhere in the monorepo), not its built dist/.
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["@paycore/source", "import", "default"] }
  }
}
