import { launchChromium, missingBrowser, screenshotPath } from "@paycore/testkit/browser"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { useTestServer } from "./harness.ts"

if (missingBrowser !== undefined) console.warn(missingBrowser)

// C-01: the API reference renders the OpenAPI document in a real browser, fetches nothing from outside, and its
// try-it console calls the sandbox with the reader's credentials.
describe.skipIf(missingBrowser !== undefined)("GET /docs in Chromium (C-01)", () => {
  const server = useTestServer()
  let browser: Browser
  let page: Page
  const outside: Array<string> = []
  /** What Chromium refused under the page's Content-Security-Policy (issue 32 item 7). */
  const refusedByPolicy: Array<string> = []

  beforeAll(async () => {
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.on("request", (request) => {
      if (new URL(request.url()).hostname !== "127.0.0.1") outside.push(request.url())
    })
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text())
    })
    await page.goto(`${server.baseUrl}/docs`)
  }, 60_000)
  afterAll(() => browser?.close())

  it("lists the groups and operations of the document", async () => {
    // The renderer is a large script: on a loaded 2-core machine its first paint takes seconds.
    await page.getByText("Strong Customer Authentication").first().waitFor({ timeout: 60_000 })
    // Each operation has its section (schemas, examples, a try-it button), GET /config among them.
    const section = page.locator('[id$="tag/platform/GET/config"]')
    await section.scrollIntoViewIfNeeded()
    await section.getByRole("button", { name: /Test Request/ }).waitFor()
    await page.screenshot({ path: screenshotPath("api-reference") })
  }, 90_000)

  it("sends a try-it request to the sandbox with Basic credentials and shows the answer", async () => {
    await page
      .locator('[id$="tag/platform/GET/config"]')
      .getByRole("button", { name: /Test Request/ })
      .click()
    // In the client's Authentication box: the username is an editor (a combobox), the password an input.
    const auth = page.getByRole("region", { name: "Authentication Required" })
    await auth.getByRole("combobox").click()
    await page.keyboard.type(server.admin.clientId)
    await auth.getByPlaceholder("********").fill(server.admin.clientSecret)
    await page.getByRole("button", { name: /^Send Request/ }).click()
    await expect.poll(() => page.getByText("supportedCurrencies").count(), { timeout: 10_000 }).toBeGreaterThan(0)
    await page.screenshot({ path: screenshotPath("api-reference-try-it") })
  }, 60_000)

  it("fetches nothing from outside the sandbox", () => {
    expect(outside).toEqual([])
  })

  it("runs under its Content-Security-Policy: nothing refused (issue 32 item 7)", () => {
    expect(refusedByPolicy).toEqual([])
  })
})
