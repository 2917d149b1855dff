// Takes the screenshot of Prometheus graphing the scaling signal under load (docs/images/scaling-signal.png by
// default): a fresh PostgreSQL database, the dashboard's /metrics scraped every second by a Prometheus of this script's
// own, tasks arriving faster than one worker completes them, then as many workers as the signal recommends (at most
// four), and Chromium's headless screenshot of Prometheus's graph page over the whole run.
// Usage: npx tsx scripts/signal-screenshot.ts [--out=docs/images/scaling-signal.png] [--behind-seconds=60] [--after-seconds=90]
// Needs PostgreSQL (DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres), Debian's prometheus and chromium.

import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { z } from "zod";
import { createWorker, defineTasks, openStore, queueSignals, silentLogger, taskQueue, type QueueSignal, type Worker } from "../src/index.js";
import { startDashboardServer } from "../src/dashboard/index.js";
import { Prometheus } from "../test/support/prometheus.js";
import { testPrisma } from "../test/support/prisma.js";
import { applySchema } from "../test/support/schema.js";

const { values } = parseArgs({
  options: {
    out: { type: "string", default: "docs/images/scaling-signal.png" },
    "behind-seconds": { type: "string", default: "60" },
    "after-seconds": { type: "string", default: "90" },
  },
});
const out = resolve(values.out);
const behindMs = Number(values["behind-seconds"]) * 1000;
const afterMs = Number(values["after-seconds"]) * 1000;

/** Each handler runs 50 ms; a worker of 2 completes 40 tasks a second while 60 arrive (3 every 50 ms). */
const RUN_MS = 50;
const CONCURRENCY = 2;
const PER_TICK = 3;
const TICK_MS = 50;
const SIGNAL = { windowSeconds: 10, processingWindowSeconds: 30, drainSeconds: 30, concurrency: CONCURRENCY } as const;
const QUEUE = 'queue="default"';
const PANELS = [
  `{__name__=~"prisma_task_queue_queue_(arrival|completion)_rate",${QUEUE}}`,
  `prisma_task_queue_queue_backlog{${QUEUE}}`,
  `prisma_task_queue_queue_recommended_workers{${QUEUE}}`,
];

const tasks = defineTasks({
  work: {
    payload: z.object({ n: z.number() }),
    handler: () => new Promise<void>((done) => setTimeout(done, RUN_MS)),
  },
});

const log = (line: string) => process.stderr.write(`[signal-screenshot] ${new Date().toISOString()} ${line}\n`);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const brief = (signal: QueueSignal) =>
  `arrivals ${signal.arrivalRate?.toFixed(1)}/s, completions ${signal.completionRate?.toFixed(1)}/s, backlog ${signal.backlog}, recommends ${signal.recommendedWorkers}`;

async function main(): Promise<void> {
  const serverUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
  const name = `ptq_signal_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();
  await applySchema(url);
  const workers: Worker[] = [];
  let load: NodeJS.Timeout | undefined;
  let enqueuing: Promise<unknown> = Promise.resolve();
  const prisma = testPrisma(url).$extends(taskQueue({ tasks, logger: silentLogger }));
  const dashboard = await startDashboardServer({ databaseUrl: url, port: 0, logger: silentLogger, scalingSignal: SIGNAL });
  const store = openStore(url, { max: 1 });
  let prometheus: Prometheus | undefined;
  try {
    prometheus = await Prometheus.start([{ job: "dashboard", address: `127.0.0.1:${dashboard.port}` }]);
    await prometheus.waitForTarget("dashboard");
    const startWorker = async () => {
      const worker = createWorker({ databaseUrl: url, tasks, concurrency: CONCURRENCY, deleteOnSuccess: true, logger: silentLogger });
      await worker.start();
      workers.push(worker);
    };
    const signal = async () => (await queueSignals(store, SIGNAL)).find((row) => row.queue === "default");
    const startedAt = Date.now();
    await startWorker();
    let n = 0;
    load = setInterval(() => {
      const items = Array.from({ length: PER_TICK }, () => ({ name: "work" as const, payload: { n: n++ } }));
      enqueuing = Promise.all([enqueuing, prisma.task.enqueueMany(items)]);
    }, TICK_MS);
    log(`one worker of ${CONCURRENCY}, ${(PER_TICK * 1000) / TICK_MS} tasks/s arriving, for ${behindMs / 1000} s`);
    await sleep(behindMs);
    const behind = await signal();
    if (!behind?.recommendedWorkers) throw new Error(`no recommendation after ${behindMs / 1000} s: ${JSON.stringify(behind)}`);
    log(`behind: ${brief(behind)}`);
    while (workers.length < Math.min(4, behind.recommendedWorkers)) await startWorker();
    log(`${workers.length} workers now, for ${afterMs / 1000} s`);
    await sleep(afterMs);
    const settled = await signal();
    log(`settled: ${settled ? brief(settled) : "no signal"}`);
    clearInterval(load);
    await enqueuing;
    // The last scrape in, then the page over the run.
    await sleep(2000);
    const rangeSeconds = Math.ceil((Date.now() - startedAt) / 1000) + 10;
    const params = new URLSearchParams();
    PANELS.forEach((expression, i) => {
      params.set(`g${i}.expr`, expression);
      params.set(`g${i}.tab`, "0");
      params.set(`g${i}.range_input`, `${rangeSeconds}s`);
      params.set(`g${i}.stacked`, "0");
      params.set(`g${i}.show_exemplars`, "0");
    });
    const page = `${prometheus.url}/graph?${params.toString()}`;
    mkdirSync(dirname(out), { recursive: true });
    execFileSync(
      "chromium",
      ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1400,2450", "--virtual-time-budget=15000", `--screenshot=${out}`, page],
      { stdio: ["ignore", "ignore", "pipe"], timeout: 120_000 },
    );
    log(`wrote ${out} from ${page}`);
  } finally {
    clearInterval(load);
    await enqueuing.catch(() => {});
    for (const worker of workers) await worker.stop();
    await prisma.$taskQueue.close();
    await prisma.$disconnect();
    await dashboard.close();
    await store.close();
    await prometheus?.stop();
    await admin.query(`DROP DATABASE "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`[signal-screenshot] failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
