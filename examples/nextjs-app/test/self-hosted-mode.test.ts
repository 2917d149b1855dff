// The self-hosted mode end to end: `next start` with TASK_MODE=self-hosted runs the worker and the cleaner in its own
// process (instrumentation.ts), with no task-runner process. Chromium requests a report and sees it done after the
// flaky service's retries and the digest's slots run; SIGTERM drains the server's worker and the process exits.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { FLAKY_FAILURES, startExampleApp, type ExampleApp } from "./support/app";
import { digestSince, launchChromium, openPage, requestReport } from "./support/browser";
import { artifactsDir, whileRunning } from "./support/processes";
import { queryRows, startServices, type TestServices } from "./support/services";

let services: TestServices | undefined;
let example: ExampleApp | undefined;
let browser: Browser | undefined;
let page: Page;

before(async () => {
  services = await startServices();
  // Next.js leaves SIGTERM to the app's own handler only with NEXT_MANUAL_SIG_HANDLE; the worker's drain needs it.
  example = await startExampleApp("self-hosted", "self-hosted", services, { NEXT_MANUAL_SIG_HANDLE: "true" });
  browser = await launchChromium();
  page = await openPage(browser, example.url);
});

after(async () => {
  await browser?.close();
  await example?.stop();
  await services?.cleanUp();
});

test("the server's own worker runs a report to done after the flaky service's retries, and the digest's slots", async () => {
  assert.equal(await page.getByTestId("task-mode").getAttribute("data-mode"), "self-hosted");
  const since = Date.now();
  const reportId = await requestReport(page, "request-report");
  try {
    await whileRunning([example!.server], page.locator(`tr[data-report-id="${reportId}"][data-status="done"]`).waitFor({ timeout: 60_000 }));
    await whileRunning([example!.server], digestSince(page, since));
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- app (${example!.server.logFile}) ---\n${example!.server.tail()}`);
  }
  const [task] = await queryRows<{ status: string; attempts: number; finished_by: string }>(
    services!.databaseUrl,
    "SELECT status, attempts, finished_by FROM tasks WHERE key = $1",
    [`report:${reportId}`],
  );
  assert.deepEqual({ status: task?.status, attempts: task?.attempts }, { status: "succeeded", attempts: FLAKY_FAILURES + 1 });
  // The run that finished it was the worker the server started and logged (the only one there is).
  const started = /worker started.*?"workerId":"([^"]+)"/.exec(readFileSync(example!.server.logFile, "utf8"));
  assert.ok(started, "the server logged its worker's start");
  assert.equal(task!.finished_by, started[1]);
  await page.screenshot({ path: join(artifactsDir, "self-hosted-done.png"), fullPage: true });
});

test("SIGTERM stops the server's worker with its drain, and the process exits", async () => {
  const server = example!.server;
  const exited = new Promise<number | null>((resolve) => server.child.once("exit", (code) => resolve(code)));
  process.kill(server.child.pid!, "SIGTERM");
  assert.equal(await exited, 0);
  const log = readFileSync(server.logFile, "utf8");
  assert.match(log, /worker stopped/);
});
