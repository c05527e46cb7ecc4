import { relative } from "node:path"
import { BaseSequencer, type TestSpecification } from "vitest/node"

/**
 * The files that take longest, with their seconds in a full run on the 2-core CI machine (2026-11-29, with this
 * sequencer): started first, so that none of them starts near the end and runs on alone. Without
 * durations from an earlier run (a fresh clone: CI) vitest starts the largest files first, and some of the longest
 * are small (the simulator's two files started after 950 s of a 1,090 s run). The other files follow in vitest's
 * order. A hint only: a file missing here, or a number out of date, costs time, never a test.
 */
const SLOW_FILES: Record<string, number> = {
  "test/install/install.test.ts": 246,
  "test/docs/walkthroughs.test.ts": 221,
  "test/install/install-types.test.ts": 185,
  "packages/testkit/test/simulator-more.test.ts": 115,
  "packages/testkit/test/simulator.test.ts": 112,
  "packages/http/test/auth-matrix.http.test.ts": 104,
  "packages/store-postgres/test/payments.property.test.ts": 72,
  "examples/server/test/shutdown.test.ts": 70,
  "packages/store-postgres/test/document-store.test.ts": 69,
  "packages/cli/test/cli.test.ts": 65,
  "examples/server/test/crash.test.ts": 60,
  "packages/http/test/fuzz.http.test.ts": 48,
  "examples/server/test/front-doors.test.ts": 46,
  "examples/server/test/instances.test.ts": 46,
  "packages/testkit/test/arbitraries.test.ts": 39,
  "packages/http/test/corridors.http.test.ts": 38
}

export default class SlowFilesFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const ordered = await super.sort(files)
    const seconds = (spec: TestSpecification) => SLOW_FILES[relative(spec.project.config.root, spec.moduleId)] ?? 0
    // Array.prototype.sort is stable: the files not listed keep vitest's order.
    return ordered.sort((a, b) => seconds(b) - seconds(a))
  }
}
