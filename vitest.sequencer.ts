import { relative } from "node:path"
import { BaseSequencer, type TestSpecification } from "vitest/node"

/**
 * The files that take longest, with their seconds in a full run on the 2-core CI machine (2026-11-29, after the
 * install test's split): started first, so that none of them starts near the end and runs on alone. Without
 * durations from an earlier run (a fresh clone: CI) vitest starts the largest files first, and some of the longest
 * are small (the simulator's two files started after 950 s of a 1,090 s run). The other files follow in vitest's
 * order. A hint only: a file missing here, or a number out of date, costs time, never a test.
 */
const SLOW_FILES: Record<string, number> = {
  "test/docs/walkthroughs.test.ts": 300,
  "test/install/install.test.ts": 270,
  "test/install/install-types.test.ts": 200,
  "examples/server/test/shutdown.test.ts": 160,
  "packages/testkit/test/simulator.test.ts": 123,
  "packages/http/test/auth-matrix.http.test.ts": 101,
  "packages/testkit/test/simulator-more.test.ts": 96,
  "packages/cli/test/cli.test.ts": 89,
  "examples/server/test/front-doors.test.ts": 61,
  "packages/store-postgres/test/payments.property.test.ts": 56,
  "examples/server/test/instances.test.ts": 55,
  "packages/store-postgres/test/document-store.test.ts": 53,
  "packages/cli/test/trigger-listen.test.ts": 50,
  "packages/cli/test/errors.test.ts": 47,
  "examples/server/test/crash.test.ts": 45,
  "packages/http/test/fuzz.http.test.ts": 42
}

export default class SlowFilesFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const ordered = await super.sort(files)
    const seconds = (spec: TestSpecification) => SLOW_FILES[relative(spec.project.config.root, spec.moduleId)] ?? 0
    // Array.prototype.sort is stable: the files not listed keep vitest's order.
    return ordered.sort((a, b) => seconds(b) - seconds(a))
  }
}
