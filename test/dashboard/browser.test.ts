// The dashboard in a real browser (Debian's Chromium via playwright-core) against the real PostgreSQL and RabbitMQ:
// the overview's counts match the database, actions from the page change the rows and wake a real worker,
// and user data (payloads, errors, names) is shown as text. Screenshots go to .artifacts/dashboard/.

import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { z } from "zod";
import { seedTasks } from "../../bench/dashboard/seed.js";
import { startDashboardServer, type DashboardServer } from "../../src/dashboard/server.js";
import { createWorker, type Worker } from "../../src/worker/create-worker.js";
import { createCleaner } from "../../src/cleaner/create-cleaner.js";
import { defineTasks, silentLogger } from "../../src/index.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { uniquePrefix, WakeupCounter } from "../support/broker.js";
import { waitUntil } from "../support/wait.js";
import { ARTIFACTS, createBrowseIndex, insertTask, launchChromium, recordingLogger } from "./fixtures.js";

const DOCS_IMAGE = fileURLToPath(new URL("../../docs/images/dashboard-overview.png", import.meta.url));

let db: TestDatabase;
let sql: pg.Pool;
let server: DashboardServer;
let browser: Browser;
let page: Page;
let worker: Worker;
let counter: WakeupCounter;
const prefix = uniquePrefix();
const logger = recordingLogger();
const ran: string[] = [];
const dialogs: string[] = [];

const tasks = defineTasks({
  "dashboard-demo": {
    payload: z.object({ n: z.number() }),
    handler: async (_payload, ctx) => {
      ran.push(ctx.task.id);
      return { ok: true };
    },
  },
});

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  mkdirSync(new URL("../../docs/images/", import.meta.url), { recursive: true });
  db = await createTestDatabase();
  sql = new pg.Pool({ connectionString: db.url, max: 3 });
  await seedTasks(db.url, 20_000, { recentPerMinute: 30 });
  await createBrowseIndex(sql);
  counter = await WakeupCounter.start(prefix, ["batch"]);
  worker = createWorker({ tasks, databaseUrl: db.url, amqpUrl: inject("amqpUrl"), amqpPrefix: prefix, logger: silentLogger });
  await worker.start();
  server = await startDashboardServer({ databaseUrl: db.url, amqpUrl: inject("amqpUrl"), amqpPrefix: prefix, port: 0, logger });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.accept();
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await worker?.stop();
  await counter?.close();
  await sql?.end();
  await db?.drop();
});

function digits(text: string | null): number {
  return Number((text ?? "").replace(/[^0-9]/g, ""));
}

describe("overview", () => {
  it("shows per queue, name and status the counts the database holds", async () => {
    const expected = await sql.query<{ queue: string; name: string; status: string; count: number }>(
      "SELECT queue, name, status, count(*)::int AS count FROM tasks GROUP BY 1, 2, 3",
    );
    expect(expected.rows.length).toBeGreaterThan(20);
    await page.goto(server.url);
    await page.locator("#throughput-chart canvas").waitFor();
    for (const row of expected.rows) {
      const cell = page.locator(`td[data-queue="${row.queue}"][data-name="${row.name}"][data-status="${row.status}"]`);
      expect(digits(await cell.textContent()), `${row.queue}/${row.name}/${row.status}`).toBe(row.count);
    }
    const dead = await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM tasks WHERE status = 'dead'");
    expect(digits(await page.locator('[data-card="dead"] .value').textContent())).toBe(dead.rows[0]!.n);
    const expired = await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM tasks WHERE status = 'running' AND lease_expires_at < now()");
    expect(expired.rows[0]!.n).toBeGreaterThan(0);
    expect(digits(await page.locator('[data-card="expired"] .value').textContent())).toBe(expired.rows[0]!.n);
    await expect.poll(() => page.locator('[data-card="expired"]').getAttribute("class")).toContain("bad");
    await page.screenshot({ path: fileURLToPath(new URL("overview.png", ARTIFACTS)), fullPage: true });
  });
});

describe("cleaner leader", () => {
  it("names the real cleaner that holds the leader lock, and says so when none does", async () => {
    const cleaner = createCleaner({ tasks, databaseUrl: db.url, intervalMs: 60_000, logger: silentLogger });
    try {
      await cleaner.start();
      await waitUntil(() => cleaner.isLeader, "the cleaner to lead", 10_000);
      const holder = await sql.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'prisma-task-queue cleaner lock' AND datname = current_database()",
      );
      expect(holder.rows).toHaveLength(1);
      const expiredLeases = () => sql.query("SELECT 1 FROM tasks WHERE status = 'running' AND lease_expires_at < now()");
      await waitUntil(async () => (await expiredLeases()).rowCount === 0, "the cleaner's first sweep to recover the expired leases");
      await insertTask(sql, { name: "resize-image", queue: "images", status: "running", leaseOwner: "worker-3:1003:seed", leaseInSeconds: -240 });
      await page.goto(server.url);
      await page.locator("#throughput-chart canvas").waitFor();
      expect(await page.locator('[data-card="cleaner"] .value').textContent()).toBe(`pid ${holder.rows[0]!.pid}`);
      expect(digits(await page.locator('[data-card="expired"] .value').textContent())).toBe(1);
      // The docs image is tracked in git: refreshed when missing or on request, so a test run leaves the tree clean.
      if (!existsSync(DOCS_IMAGE) || process.env.PTQ_UPDATE_DOCS_IMAGES === "1") await page.screenshot({ path: DOCS_IMAGE, fullPage: false });
      await page.screenshot({ path: fileURLToPath(new URL("overview-with-cleaner.png", ARTIFACTS)), fullPage: true });
    } finally {
      await cleaner.stop();
    }
    await page.reload();
    expect(await page.locator('[data-card="cleaner"] .value').textContent()).toBe("none");
    expect(await page.locator('[data-card="cleaner"]').getAttribute("class")).toContain("bad");
  });
});

describe("actions from the page", () => {
  it("retrying a dead task makes it pending and a real worker runs it at once", async () => {
    const id = await insertTask(sql, {
      name: "dashboard-demo",
      status: "dead",
      payload: { n: 1 },
      attempts: 5,
      lastError: "Error: boom\n    at handler (demo.ts:1:1)",
    });
    await page.goto(`${server.url}tasks/${id}`);
    await expect.poll(() => page.getByTestId("status").textContent()).toBe("dead");
    await page.locator('button[data-action="retry"]').click();
    await page.waitForURL(/done=retry&n=1/);
    await waitUntil(() => ran.includes(id), "the worker to run the retried task", 20_000);
    await waitUntil(async () => (await sql.query<{ status: string }>("SELECT status FROM tasks WHERE id = $1", [id])).rows[0]?.status === "succeeded", "succeeded");
    const row = await sql.query<{ attempts: number; last_error: string | null }>("SELECT attempts, last_error FROM tasks WHERE id = $1", [id]);
    expect(row.rows[0]?.attempts, "attempts start again from 0, and the run made one").toBe(1);
    expect(ran.filter((ranId) => ranId === id)).toHaveLength(1);
    expect(logger.lines.find((line) => line.message === "dashboard action" && line.fields.taskId === id)?.fields).toMatchObject({
      action: "retry",
      changed: 1,
      woken: 1,
    });
    await page.reload();
    await expect.poll(() => page.getByTestId("status").textContent()).toBe("succeeded");
    await page.screenshot({ path: fileURLToPath(new URL("task-retried.png", ARTIFACTS)), fullPage: true });
  });

  it("retries every dead task of a name and publishes a wake-up for each", async () => {
    const ids = await Promise.all([1, 2, 3].map((n) => insertTask(sql, { name: "dashboard-batch", queue: "batch", status: "dead", payload: { n } })));
    const other = await insertTask(sql, { name: "dashboard-other", queue: "batch", status: "dead" });
    await page.goto(`${server.url}tasks?status=dead&name=dashboard-batch`);
    await expect.poll(() => page.locator("tr[data-task-id]").count()).toBe(3);
    dialogs.length = 0;
    await page.getByRole("button", { name: "Retry all dead dashboard-batch" }).click();
    await page.waitForURL(/done=retry-dead&n=3/);
    expect(dialogs[0]).toContain("Retry every dead dashboard-batch task?");
    await expect.poll(() => page.locator('.notice.ok[role="status"]').textContent()).toContain("Retried 3 dead tasks");
    const rows = await sql.query<{ id: string; status: string; attempts: number }>("SELECT id::text AS id, status, attempts FROM tasks WHERE id = ANY($1::uuid[])", [
      [...ids, other],
    ]);
    for (const row of rows.rows) expect(row.status, row.id).toBe(row.id === other ? "dead" : "pending");
    await counter.waitFor(() => ids.every((id) => counter.counts.get(id) === 1), "a wake-up per retried task", 10_000);
    expect(counter.counts.get(other)).toBeUndefined();
  });

  it("runs a delayed task now and cancels a pending one", async () => {
    const delayed = await insertTask(sql, { name: "dashboard-batch", queue: "batch", runInSeconds: 3600, published: false });
    await page.goto(`${server.url}tasks/${delayed}`);
    await page.locator('button[data-action="run-now"]').click();
    await page.waitForURL(/done=run-now&n=1/);
    const due = await sql.query<{ due: boolean; status: string }>("SELECT run_at <= now() AS due, status FROM tasks WHERE id = $1", [delayed]);
    expect(due.rows[0]).toEqual({ due: true, status: "pending" });
    await counter.waitFor(() => counter.counts.get(delayed) === 1, "the wake-up of the task run now", 10_000);

    dialogs.length = 0;
    await page.locator('button[data-action="cancel"]').click();
    await page.waitForURL(/done=cancel&n=1/);
    expect(dialogs).toEqual(["Cancel this task? It will not run."]);
    await expect.poll(() => page.getByTestId("status").textContent()).toBe("cancelled");
    expect((await sql.query<{ status: string }>("SELECT status FROM tasks WHERE id = $1", [delayed])).rows[0]!.status).toBe("cancelled");
  });
});

describe("user data is shown as text", () => {
  it("renders a payload, an error and a task name holding HTML as text, running none of it", async () => {
    const script = `<script>alert("payload")</script><img src=x onerror="alert('img')">`;
    const id = await insertTask(sql, {
      name: `<b onmouseover=alert(1)>evil-name</b>`,
      queue: "xss",
      status: "dead",
      payload: { note: script },
      lastError: `Error: <script>alert("error")</script>`,
    });
    dialogs.length = 0;
    await page.goto(`${server.url}tasks/${id}`);
    const payload = await page.getByTestId("payload").textContent();
    expect(payload).toContain(`"note": "<script>alert(\\"payload\\")</script><img src=x onerror=\\"alert('img')\\">"`);
    expect(await page.getByTestId("last-error").textContent()).toBe(`Error: <script>alert("error")</script>`);
    expect(await page.locator("h1").textContent()).toBe(`<b onmouseover=alert(1)>evil-name</b>`);
    expect(await page.locator("img").count()).toBe(0);
    expect(await page.locator("main b").count()).toBe(0);
    const scripts = await page.locator("script").evaluateAll((nodes: Array<{ textContent: string | null }>) => nodes.map((node) => node.textContent ?? ""));
    expect(scripts.some((text) => text.includes("alert"))).toBe(false);

    await page.goto(`${server.url}tasks?queue=xss`);
    expect(await page.locator("tr[data-task-id] td a").first().textContent()).toBe("<b onmouseover=alert(1)>evil-name</b>");
    await page.goto(server.url);
    expect(await page.locator('tr[data-group^="xss/"] td a').first().textContent()).toBe("<b onmouseover=alert(1)>evil-name</b>");
    await page.mouse.move(200, 200);
    expect(dialogs).toEqual([]);
    await page.goto(`${server.url}tasks/${id}`);
    await page.screenshot({ path: fileURLToPath(new URL("escaped-payload.png", ARTIFACTS)), fullPage: true });
  });
});

describe("pages", () => {
  it("filters and pages the task list without repeating or skipping a task", async () => {
    const expected = await sql.query<{ id: string }>("SELECT id::text AS id FROM tasks WHERE name = 'send-report' ORDER BY id DESC LIMIT 120");
    const seen: string[] = [];
    await page.goto(`${server.url}tasks?name=send-report`);
    while (seen.length < 120) {
      seen.push(
        ...(await page
          .locator("tr[data-task-id]")
          .evaluateAll((rows: Array<{ getAttribute(name: string): string | null }>) => rows.map((row) => row.getAttribute("data-task-id")!))),
      );
      await page.getByRole("link", { name: "Older →" }).click();
    }
    expect(seen.slice(0, 120)).toEqual(expected.rows.map((row) => row.id));
    await page.getByRole("link", { name: "← Newer" }).click();
    const back = await page
      .locator("tr[data-task-id]")
      .evaluateAll((rows: Array<{ getAttribute(name: string): string | null }>) => rows.map((row) => row.getAttribute("data-task-id")!));
    expect(back).toEqual(seen.slice(100, 150));
    await page.goto(`${server.url}tasks?status=expired`);
    await page.locator(".pill.expired").first().waitFor();
    await page.screenshot({ path: fileURLToPath(new URL("tasks-expired.png", ARTIFACTS)), fullPage: true });
  });
});
