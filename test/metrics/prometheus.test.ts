// A real Prometheus scrapes `task-runner start --metrics-port` (worker + cleaner, without @opentelemetry/api) and
// `task-runner dashboard` on PostgreSQL with NOTIFY; after a known workload every documented series answers PromQL with
// the values it must have, and every expression of docs/grafana-dashboard.json and docs/keda-scaledobject.yaml runs.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, silentLogger, taskQueue, type Store } from "../../src/index.js";
import { fixtureDir, root, startCli, type CliRun } from "../cli/cli-process.js";
import { tasks } from "../fixtures/cli-metrics/task-runner.config.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { freePort } from "../support/free-port.js";
import { Prometheus } from "../support/prometheus.js";
import { testPrisma } from "../support/prisma.js";
import { waitUntil } from "../support/wait.js";
import { dashboardExpressions, kedaExpressions } from "./doc-expressions.js";

const hide = pathToFileURL(join(root, "test/support/hide-packages.mjs")).href;
const app = fixtureDir("cli-metrics");
const OK = 5;
const BOOM = 3;
const FLAKY = 2;

let db: TestDatabase;
let sql: pg.Pool;
let store: Store;
let prometheus: Prometheus | undefined;
const runs: CliRun[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Pool({ connectionString: db.url, max: 1 });
  sql.on("error", () => {});
  store = openStore(db.url, { max: 1 });
});

afterAll(async () => {
  for (const run of runs) if (run.process.exitCode === null && run.process.signalCode === null) run.process.kill("SIGKILL");
  await Promise.all(runs.map((run) => run.exited));
  await prometheus?.stop();
  await store?.close();
  await sql?.end();
  await db?.drop();
});

/** The workload: every task enqueued before the runner starts, one of them left running under an expired lease. */
async function enqueueWorkload(): Promise<void> {
  await store.pauseQueue("held");
  const prisma = testPrisma(db.url).$extends(taskQueue({ tasks, logger: silentLogger }));
  try {
    const items = [
      ...Array.from({ length: OK }, (_, n) => ({ name: "ok" as const, payload: { n } })),
      ...Array.from({ length: BOOM }, (_, n) => ({ name: "boom" as const, payload: { n } })),
      ...Array.from({ length: FLAKY }, (_, n) => ({ name: "flaky" as const, payload: { n } })),
      { name: "parked" as const, payload: { n: 0 } },
    ];
    await prisma.task.enqueueMany(items);
    // A task whose worker vanished: running, its lease expired a minute ago. The cleaner recovers it; it then succeeds.
    const orphan = await prisma.task.enqueue("ok", { n: 99 });
    await sql.query("UPDATE tasks SET status = 'running', attempts = 1, lease_owner = 'vanished', lease_expires_at = now() - interval '1 minute' WHERE id = $1", [
      orphan.id,
    ]);
  } finally {
    await prisma.$taskQueue.close();
    await prisma.$disconnect();
  }
}

describe("Prometheus scraping a worker and the dashboard", () => {
  it("answers every documented series with the workload's values, and runs the Grafana and KEDA queries", async () => {
    await enqueueWorkload();
    const [workerPort, dashboardPort] = [await freePort(), await freePort()];
    const env = { DATABASE_URL: db.url, NODE_OPTIONS: `--import ${hide}`, HIDE_PACKAGES: "@opentelemetry/api" };
    const runner = startCli(["start", "--metrics-port", String(workerPort), "--metrics-host", "127.0.0.1"], { cwd: app, env });
    const dashboard = startCli(["dashboard", "--port", String(dashboardPort)], { cwd: app, env: { DATABASE_URL: db.url } });
    runs.push(runner, dashboard);
    prometheus = await Prometheus.start([
      { job: "worker", address: `127.0.0.1:${workerPort}` },
      { job: "dashboard", address: `127.0.0.1:${dashboardPort}` },
    ]);
    const value = (expression: string, expected: number | ((value: number) => boolean)) => prometheus!.waitForValue(expression, expected);
    await prometheus.waitForTarget("worker");
    await prometheus.waitForTarget("dashboard");

    // The worker's counters: each run counts once, in the counter of its outcome.
    const runsTotal = OK + 1 + BOOM + 2 * FLAKY;
    await value("sum(prisma_task_queue_tasks_succeeded_total)", OK + 1 + FLAKY);
    await value('sum(prisma_task_queue_tasks_succeeded_total{queue="reports",task="flaky"})', FLAKY);
    await value("sum(prisma_task_queue_tasks_failed_total)", FLAKY);
    await value('sum(prisma_task_queue_tasks_dead_total{task="boom"})', BOOM);
    await value("sum(prisma_task_queue_tasks_started_total)", runsTotal);
    await value("sum(prisma_task_queue_tasks_lost_total)", 0);
    await value('sum(prisma_task_queue_tasks_released_total{queue="held",task="parked"})', 0);
    await value("sum(prisma_task_queue_task_processing_seconds_count)", runsTotal);
    await value('sum(prisma_task_queue_task_processing_seconds_count{outcome="dead"})', BOOM);
    await value('sum(prisma_task_queue_task_processing_seconds_bucket{le="+Inf"})', runsTotal);
    await value("sum(prisma_task_queue_task_wait_seconds_count)", runsTotal);
    await value("sum(prisma_task_queue_task_wait_seconds_sum)", (seconds) => seconds > 0);
    // The cleaner's, from the same process: the orphan's recovery, and whatever wake-ups it re-sent.
    await value('sum(prisma_task_queue_lease_recoveries_total{outcome="retry"})', 1);
    await value('sum(prisma_task_queue_lease_recoveries_total{outcome="dead"})', 0);
    await value("sum(prisma_task_queue_wakeups_republished_total)", (count) => count >= 0);

    // The dashboard's gauges, read from the database.
    await value('sum(prisma_task_queue_tasks{status="succeeded"})', OK + 1 + FLAKY);
    await value('sum(prisma_task_queue_tasks{status="dead"})', BOOM);
    await value('sum(prisma_task_queue_tasks{status="running"})', 0);
    await value('prisma_task_queue_tasks{queue="held",status="pending"}', 1);
    await value('prisma_task_queue_tasks_due{queue="held"}', 1);
    await value('prisma_task_queue_oldest_due_task_age_seconds{queue="held"}', (seconds) => seconds > 0);
    await value('prisma_task_queue_oldest_due_task_age_seconds{queue="default"}', 0);
    await value("sum(prisma_task_queue_expired_leases)", 0);
    await value('prisma_task_queue_queue_paused{queue="held"}', 1);
    await value('prisma_task_queue_queue_paused{queue="default"}', 0);
    // The scaling signal, from the dashboard too: the held queue's backlog, rates of what ran, and a recommendation
    // where the run time is known (a queue with no timed success has none, rather than a wrong number).
    await value('prisma_task_queue_queue_backlog{queue="held"}', 1);
    await value('prisma_task_queue_queue_arrival_rate{queue="held"}', (rate) => rate > 0);
    await value("sum(prisma_task_queue_queue_completion_rate)", (rate) => rate > 0);
    await value('prisma_task_queue_queue_mean_processing_seconds{queue="default"}', (seconds) => seconds > 0);
    await value('prisma_task_queue_queue_recommended_workers{queue="default"}', (workers) => workers >= 1);
    await value('count(prisma_task_queue_queue_recommended_workers{queue="held"}) or vector(0)', 0);
    // Exported once: only the dashboard has the gauges, only the worker the counters.
    await value('count(prisma_task_queue_tasks{job="worker"}) or vector(0)', 0);
    await value('count(prisma_task_queue_tasks_started_total{job="dashboard"}) or vector(0)', 0);

    // Rates come from the counters: a rate over the last minute sees the runs.
    await value("sum(increase(prisma_task_queue_tasks_started_total[1m]))", (increase) => increase >= 0);

    const expressions = [...dashboardExpressions(), ...kedaExpressions()];
    expect(expressions.length).toBeGreaterThanOrEqual(10);
    for (const expression of expressions) {
      await waitUntil(async () => (await prometheus!.query(expression)).length > 0, `a result for ${expression}`, 10_000);
    }

    runner.process.kill("SIGTERM");
    dashboard.process.kill("SIGTERM");
    expect(await runner.exited).toBe(0);
    expect(await dashboard.exited).toBe(0);
    const started = runner.logs().find((line) => line.message === "worker started");
    expect(started).toMatchObject({ metrics: `http://127.0.0.1:${workerPort}/metrics`, wakeups: "woken by PostgreSQL NOTIFY" });
  }, 60_000);
});

describe("the docs' queries", () => {
  it("are found in the Grafana dashboard and the KEDA ScaledObject", () => {
    const grafana = JSON.parse(readFileSync(join(root, "docs/grafana-dashboard.json"), "utf8")) as { panels: unknown[] };
    expect(grafana.panels.length).toBeGreaterThan(0);
    expect(dashboardExpressions().length).toBeGreaterThanOrEqual(8);
    expect(kedaExpressions()).toHaveLength(1);
  });
});
