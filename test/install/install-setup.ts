/**
 * Vitest global setup of the install tests: the folder the host project is installed into, given to both files
 * (install.test.ts and install-types.test.ts run on two workers and share one install: host-project.ts). Nothing is
 * installed here: the first of the two files to need the host installs it, so a run without them costs nothing.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    /** The install tests' temp folder: tarballs/ and host/, and the marks of the shared install. */
    readonly paycoreInstallWork: string
  }
}

export default function setup(project: TestProject) {
  const work = realpathSync(mkdtempSync(join(tmpdir(), "paycore-install-")))
  project.provide("paycoreInstallWork", work)
  return () => {
    if (process.env.PAYCORE_KEEP_INSTALL_TEST === "1")
      console.log(`test/install: the host project is kept at ${work}/host`)
    else rmSync(work, { recursive: true, force: true })
  }
}
