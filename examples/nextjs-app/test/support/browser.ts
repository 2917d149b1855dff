// Debian's Chromium driven by playwright-core: never a browser that a tool downloads. The flags keep it off the
// network (this machine has none) and out of the sandbox (tests run as root).

import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}. Install Debian's: apt-get update && apt-get install -y chromium (or set CHROMIUM_PATH).`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}

/** A page of `browser` at `url`, the size the screenshots use, with a 30 s default timeout. */
export async function openPage(browser: Browser, url: string, height = 760): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1100, height } });
  page.setDefaultTimeout(30_000);
  await page.goto(url);
  return page;
}

/** Clicks `button` and returns the id of the report it requested (not the one the page showed before the click). */
export async function requestReport(page: Page, button: "request-report" | "request-later" | "request-slow"): Promise<string> {
  const outcome = page.locator('[data-testid="outcome"]');
  const before = (await outcome.count()) > 0 ? await outcome.getAttribute("data-report-id") : null;
  await page.getByTestId(button).click();
  const fresh = page.locator(`[data-testid="outcome"][data-kind="requested"]${before ? `:not([data-report-id="${before}"])` : ""}`);
  await fresh.waitFor();
  const reportId = await fresh.getAttribute("data-report-id");
  if (!reportId) throw new Error("the page did not name the requested report");
  return reportId;
}

/** Waits until the page shows a digest of a schedule slot at or after `since` (Unix ms). */
export async function digestSince(page: Page, since: number, timeoutMs = 40_000): Promise<void> {
  await page.waitForFunction(
    (after) => {
      const slot = document.querySelector('[data-testid="digest"]')?.getAttribute("data-slot");
      return typeof slot === "string" && Date.parse(slot) >= after;
    },
    since,
    { timeout: timeoutMs },
  );
}
