import { existsSync } from "node:fs"
import { join } from "node:path"
import { type Browser, chromium } from "playwright-core"

/**
 * Browser tests drive a real Chromium through playwright-core: Debian's `chromium` package (`.ci/run` installs it)
 * or the binary `PAYCORE_CHROMIUM` names. Nothing downloads a browser; where none is found the tests are skipped
 * with `missingBrowser` saying why.
 */
export const chromiumPath: string | undefined = [process.env.PAYCORE_CHROMIUM, "/usr/bin/chromium"].find(
  (path): path is string => path !== undefined && path !== "" && existsSync(path)
)

export const missingBrowser =
  chromiumPath === undefined
    ? "browser tests skipped: no Chromium at /usr/bin/chromium (apt-get install chromium) and PAYCORE_CHROMIUM unset"
    : undefined

export const launchChromium = (): Promise<Browser> => {
  if (chromiumPath === undefined) throw new Error(missingBrowser)
  return chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] })
}

/** Where the tests save the screenshots the docs show. */
export const screenshotPath = (name: string): string => join(import.meta.dirname, "../../../docs/images", `${name}.png`)
