// The exposition on every dialect: a worker's /metrics (metricsPort) counts its runs, and the dashboard's /metrics
// reads the gauges from the database (an expired lease, a paused queue, the backlog); promtool accepts both; concurrent
// scrapes of the dashboard share one collection.

import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDashboard, type Dashboard } from "../../src/dashboard/index.js";
import { createWorker, openStore, silentLogger, taskQueue, type Store, type Worker } from "../../src/index.js";
import type { DialectHarness, QueueClient } from "../conformance/harness.js";
import { tasks } from "../fixtures/cli-metrics/task-runner.config.js";
import { formatExposition } from "../../src/metrics/exposition.js";
import { taskMetrics } from "../../src/metrics/task-metrics.js";
import { countingStore } from "../support/counting-store.js";
import { freePort } from "../support/free-port.js";
import { waitUntil } from "../support/wait.js";
import { TESTING_DIALECTS } from "../testing/dialects.js";

/** The value of one series line of an exposition, or undefined when it is absent. */
function seriesValue(text: string, series: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const TOKEN = "metrics-token-0123456789";

/** A scrape as Prometheus sends it to a dashboard that has a token: the bearer header. */
async function scrapeDashboard(dashboard: Dashboard): Promise<string> {
  const response = await dashboard.fetch(new Request("http://dashboard.test/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }));
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return response.text();
}

describe.each(TESTING_DIALECTS.map((harness) => [harness.name, harness] as const))("metrics on %s", (_name, harness: DialectHarness) => {
  let database: { url: string; drop(): Promise<void> };
  let store: Store;
  let worker: Worker | undefined;
  let dashboard: Dashboard | undefined;

  beforeAll(async () => {
    database = await harness.createDatabase();
    store = openStore(database.url, { max: 2 });
  });

  afterAll(async () => {
    await worker?.stop();
    await dashboard?.close();
    await store?.close();
    await database?.drop();
  });

  it("serves the worker's counters and the dashboard's gauges", async () => {
    const client = harness.prismaClient(database.url).$extends(taskQueue({ tasks, logger: silentLogger, wakeups: harness.wakeups })) as QueueClient;
    let parkedId: string;
    try {
      await client.task.enqueueMany([...[1, 2, 3].map((n) => ({ name: "ok", payload: { n } })), { name: "boom", payload: { n: 0 } }]);
      parkedId = (await client.task.enqueue("parked", { n: 0 })).id;
      await client.task.enqueue("parked", { n: 1 });
    } finally {
      await client.$taskQueue.close();
      await client.$disconnect();
    }
    // One "held" task runs under a lease that expires at once (its worker gone); the queue is then paused.
    await store.claimByIds([parkedId], { owner: "vanished", leaseMs: 1, names: ["parked"], queues: ["held"] });
    await store.pauseQueue("held");

    // The counters are the process's: earlier dialects' runs are in them too, so this one's are counted from here.
    const before = formatExposition(taskMetrics().families());
    const counted = (text: string, series: string) => (seriesValue(text, series) ?? 0) - (seriesValue(before, series) ?? 0);
    const port = await freePort();
    worker = createWorker({
      tasks,
      databaseUrl: database.url,
      amqpUrl: harness.amqpUrl,
      wakeups: harness.wakeups,
      queues: ["default", "reports"],
      pollIntervalMs: 100,
      metricsPort: port,
      metricsHost: "127.0.0.1",
      logger: silentLogger,
    });
    await worker.start();
    const labels = (task: string) => `{queue="default",task="${task}"}`;
    let text = "";
    await waitUntil(
      async () => {
        text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        return (
          counted(text, `prisma_task_queue_tasks_succeeded_total${labels("ok")}`) === 3 && counted(text, `prisma_task_queue_tasks_dead_total${labels("boom")}`) === 1
        );
      },
      "the worker's /metrics to count 3 successes and 1 death",
      20_000,
    );
    expect(counted(text, `prisma_task_queue_tasks_started_total${labels("ok")}`)).toBe(3);
    expect(seriesValue(text, 'prisma_task_queue_tasks_failed_total{queue="reports",task="flaky"}')).toBe(0);
    expect(counted(text, `prisma_task_queue_task_processing_seconds_count{queue="default",task="boom",outcome="dead"}`)).toBe(1);
    expect(execFileSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" })).toBe("");
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);

    dashboard = createDashboard({ databaseUrl: database.url, token: TOKEN, logger: silentLogger });
    let gauges = "";
    await waitUntil(
      async () => {
        gauges = await scrapeDashboard(dashboard!);
        return seriesValue(gauges, 'prisma_task_queue_expired_leases{queue="held"}') === 1;
      },
      "the dashboard to see the expired lease",
      10_000,
    );
    expect(seriesValue(gauges, 'prisma_task_queue_tasks{queue="default",status="succeeded"}')).toBe(3);
    expect(seriesValue(gauges, 'prisma_task_queue_tasks{queue="default",status="dead"}')).toBe(1);
    expect(seriesValue(gauges, 'prisma_task_queue_tasks{queue="held",status="running"}')).toBe(1);
    expect(seriesValue(gauges, 'prisma_task_queue_tasks_due{queue="held"}')).toBe(1);
    expect(seriesValue(gauges, 'prisma_task_queue_oldest_due_task_age_seconds{queue="held"}')).toBeGreaterThanOrEqual(0);
    expect(seriesValue(gauges, 'prisma_task_queue_queue_paused{queue="held"}')).toBe(1);
    expect(seriesValue(gauges, 'prisma_task_queue_queue_paused{queue="default"}')).toBe(0);
    expect(execFileSync("promtool", ["check", "metrics"], { input: gauges, encoding: "utf8" })).toBe("");
  });

  it("collects the dashboard's gauges once for scrapes that arrive together", async () => {
    const { store: counting, calls } = countingStore(store);
    const scraped = createDashboard({ store: counting, token: TOKEN, logger: silentLogger });
    try {
      const texts = await Promise.all(Array.from({ length: 5 }, () => scrapeDashboard(scraped)));
      expect(new Set(texts).size).toBe(1);
      expect(calls.get("countGroups")).toBe(1);
      expect(calls.get("stuckTasks")).toBe(1);
    } finally {
      await scraped.close();
    }
  });
});
