// The serverless mode end to end: `next start` with TASK_MODE=serverless and no task-runner process anywhere. A
// request's task runs in the same server after its response (Next.js after()); a scripted scheduler calling
// GET /api/tasks/cron every 2 s picks up what that leaves: the retries of a failed run, a delayed task, a run cut short
// by a killed server, and the digest's schedule slots. Chromium drives the page; the database says who ran what.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { FLAKY_FAILURES, startExampleApp, type ExampleApp } from "./support/app";
import { digestSince, launchChromium, openPage, requestReport } from "./support/browser";
import { CronPinger } from "./support/cron-pinger";
import { artifactsDir } from "./support/processes";
import { queryRows, startServices, waitForRows, type TestServices } from "./support/services";

const SECRET = randomBytes(16).toString("hex");

let services: TestServices | undefined;
let example: ExampleApp | undefined;
let pinger: CronPinger | undefined;
let browser: Browser | undefined;
let page: Page;

before(async () => {
  services = await startServices();
  example = await startExampleApp("serverless", "serverless", services, { CRON_SECRET: SECRET });
  pinger = new CronPinger(example.url, SECRET, 2_000);
  browser = await launchChromium();
  page = await openPage(browser, example.url);
});

after(async () => {
  await pinger?.stop();
  await browser?.close();
  await example?.stop();
  await services?.cleanUp();
});

/** Fails with what the server logged and what the cron calls answered, so a red run says why. */
async function explained<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const calls = pinger?.calls
      .slice(-5)
      .map((call) => JSON.stringify(call))
      .join("\n");
    throw new Error(`${message}\n--- last cron calls ---\n${calls}\n--- app (${example?.server.logFile}) ---\n${example?.server.tail()}`);
  }
}

interface TaskRow {
  status: string;
  attempts: number;
  created_ms: number;
  errors: Array<{ attempt: number; error: string }> | null;
}

const TASK_OF_REPORT = "SELECT status, attempts, errors, (extract(epoch FROM created_at) * 1000)::float8 AS created_ms FROM tasks WHERE key = $1";

async function reportDone(reportId: string, timeoutMs = 60_000): Promise<void> {
  await explained(page.locator(`tr[data-report-id="${reportId}"][data-status="done"]`).waitFor({ timeout: timeoutMs }));
}

test("the page says no worker runs, and the cron route refuses a call without the secret", async () => {
  assert.equal(await page.getByTestId("task-mode").getAttribute("data-mode"), "serverless");
  assert.equal((await fetch(`${example!.url}/api/tasks/cron`)).status, 401);
  assert.equal((await fetch(`${example!.url}/api/tasks/cron`, { headers: { authorization: "Bearer not-the-secret" } })).status, 401);
  const answer = await fetch(`${example!.url}/api/tasks/cron`, { headers: { authorization: `Bearer ${SECRET}` } });
  assert.equal(answer.status, 200);
  const summary = (await answer.json()) as { ran: number; ended: string };
  assert.equal(summary.ended, "idle");
});

test("a report's first attempt runs after the response with no cron call; the cron calls run its retries to done", async () => {
  const reportId = await requestReport(page, "request-report");
  // No scheduler yet: the first attempt can only have run through after(), in the server that answered the click.
  const [first] = await explained(
    waitForRows<TaskRow>(
      services!.databaseUrl,
      TASK_OF_REPORT,
      [`report:${reportId}`],
      (rows) => rows[0]?.attempts === 1 && rows[0].status === "pending",
      "the first attempt, run after the response",
    ),
  );
  assert.match(first!.errors?.[0]?.error ?? "", /third-party service answered 503 on attempt 1/);
  await page.locator(`tr[data-report-id="${reportId}"][data-status="retrying"]`).waitFor();
  assert.equal(pinger!.calls.length, 0, "no cron call was made yet");

  pinger!.start();
  await reportDone(reportId);
  const [task] = await queryRows<TaskRow>(services!.databaseUrl, TASK_OF_REPORT, [`report:${reportId}`]);
  assert.deepEqual({ status: task?.status, attempts: task?.attempts }, { status: "succeeded", attempts: FLAKY_FAILURES + 1 });
  assert.ok(pinger!.ran() >= FLAKY_FAILURES, `the cron calls ran the retries (ran ${pinger!.ran()})`);
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: join(artifactsDir, "serverless-done.png"), fullPage: true });
});

test("a report requested for in 5 s waits for its time, then a cron call runs it", async () => {
  const reportId = await requestReport(page, "request-later");
  await reportDone(reportId);
  const [task] = await queryRows<TaskRow>(services!.databaseUrl, TASK_OF_REPORT, [`report:${reportId}`]);
  assert.equal(task?.status, "succeeded");
  // Its first attempt (the first entry of its errors: the service fails the first calls) came at its time, not before.
  const [firstError] = await queryRows<{ at_ms: number }>(
    services!.databaseUrl,
    "SELECT (extract(epoch FROM (errors->0->>'at')::timestamptz) * 1000)::float8 AS at_ms FROM tasks WHERE key = $1",
    [`report:${reportId}`],
  );
  assert.ok(firstError!.at_ms - task!.created_ms >= 5_000, `the first attempt came ${firstError!.at_ms - task!.created_ms} ms after the request, not before 5 s`);
});

test("a run cut short by a killed server is recovered by a cron call once its lease expires, and the report is stored once", async () => {
  await pinger!.stop(); // after() takes the slow report, not a cron call
  const reportId = await requestReport(page, "request-slow");
  await explained(
    waitForRows<TaskRow>(services!.databaseUrl, TASK_OF_REPORT, [`report:${reportId}`], (rows) => rows[0]?.status === "running", "the slow report's run to start"),
  );
  // The invocation is cut off mid-run: the whole server is killed, as a platform ends a function.
  const killed = example!.server;
  process.kill(-killed.child.pid!, "SIGKILL");
  await killed.stop();
  const [cut] = await queryRows<TaskRow>(services!.databaseUrl, TASK_OF_REPORT, [`report:${reportId}`]);
  assert.deepEqual({ status: cut?.status, attempts: cut?.attempts }, { status: "running", attempts: 1 });

  await example!.restart();
  pinger!.start();
  await page.reload();
  // The lease of a run after the response is its budget plus 30 s (36 s here); then a cron call recovers and reruns it.
  await reportDone(reportId, 120_000);
  const [task] = await queryRows<TaskRow>(services!.databaseUrl, TASK_OF_REPORT, [`report:${reportId}`]);
  assert.equal(task?.status, "succeeded");
  assert.ok(task!.attempts >= 2, `the cut run counts as an attempt, then the rerun (attempts ${task!.attempts})`);
  const [report] = await queryRows<{ status: string }>(services!.databaseUrl, "SELECT status FROM reports WHERE id = $1", [reportId]);
  assert.equal(report?.status, "done");
});

test("the digest's schedule slots are fired by the cron calls' sweeps, once each", async () => {
  pinger!.start(); // running already, unless an earlier test stopped it and failed
  const since = Date.now();
  await explained(digestSince(page, since));
  assert.ok(pinger!.fired() >= 1, `the cron calls fired slots (fired ${pinger!.fired()})`);
  const slots = await queryRows<{ slots: number; tasks: number; succeeded: number }>(
    services!.databaseUrl,
    `SELECT count(*)::int AS slots, count(DISTINCT task_id)::int AS tasks,
       (SELECT count(*)::int FROM tasks WHERE name = 'report-digest' AND status = 'succeeded') AS succeeded
     FROM tasks_schedule_slots`,
    [],
  );
  assert.equal(slots[0]!.tasks, slots[0]!.slots, "one task per slot");
  assert.ok(slots[0]!.succeeded >= 1);
  await page.screenshot({ path: join(artifactsDir, "serverless-digest.png"), fullPage: true });
});
