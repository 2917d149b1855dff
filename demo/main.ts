// `npm run demo`: the main job end to end on whatever this machine has: PostgreSQL (and RabbitMQ) when they answer,
// else the embedded default, a SQLite file. Runs two workers and the cleaner, enqueues a burst of app-like
// transactions (some rolled back, some failing, some delayed), shows live progress, and ends with a verdict that
// checks the guarantees on what just happened.

import { createCleaner, createWorker, openStore, silentLogger, taskQueue } from "../src/index.js";
import { createDemoDatabase } from "./database.js";
import { runLoad } from "./load.js";
import { chooseMode, describeMode } from "./mode.js";
import { live, render, snapshot } from "./progress.js";
import { demoTasks } from "./tasks.js";
import { verdict, type Run } from "./verdict.js";

const TRANSACTIONS = Number(process.env.DEMO_TRANSACTIONS ?? 400);
const prefix = "ptq_demo";

async function main(): Promise<number> {
  const mode = await chooseMode();
  say(`${describeMode(mode)}\n`);
  const database = await createDemoDatabase(mode);
  const base = database.prisma();
  const prisma = base.$extends(taskQueue({ tasks: demoTasks, amqpUrl: mode.amqpUrl, amqpPrefix: prefix, logger: silentLogger }));
  const store = openStore(database.url);
  const common = { tasks: demoTasks, store, amqpUrl: mode.amqpUrl, amqpPrefix: prefix, prisma, logger: silentLogger, pollIntervalMs: 250 };
  const workers = [1, 2].map((n) => createWorker({ ...common, concurrency: 10, workerId: `demo-worker-${n}` }));
  const cleaner = createCleaner({ ...common, intervalMs: 250, unpublishedGraceMs: 1000 });
  await Promise.all(workers.map((worker) => worker.start()));
  await cleaner.start();

  const runs = async (): Promise<Run[]> => {
    const rows = await base.$queryRaw<Array<{ task_id: string; outcome: string }>>`SELECT task_id, outcome FROM demo_runs`;
    return rows.map((row) => ({ taskId: row.task_id, outcome: row.outcome }));
  };
  const reader = { store, successfulRuns: async () => (await runs()).filter((run) => run.outcome === "succeeded").length };
  const startedAt = Date.now();
  let phase = "enqueueing";
  const stopLive = live(async () => render(await snapshot(reader, startedAt), phase));
  const load = await runLoad(prisma, TRANSACTIONS, 20);
  phase = "draining";
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const open = (await store.countTasks()).filter((row) => row.status === "pending" || row.status === "running");
    if (open.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  phase = "done";
  await stopLive();

  await Promise.all(workers.map((worker) => worker.stop()));
  await cleaner.stop();
  await prisma.$taskQueue.close();

  say(
    `\n${load.transactions} transactions (${load.rolledBackTransactions} rolled back on purpose), ` +
      `${load.committed.length} tasks committed, ${load.rolledBack.length} enqueued then rolled back, ` +
      `${load.duplicatesReturned} duplicate keys returned the existing task.\n\nVerdict:\n`,
  );
  const checks = await verdict(store, await runs(), load);
  await prisma.$disconnect();
  await base.$disconnect();
  await store.close();
  for (const check of checks) say(`  ${check.ok ? "PASS" : "FAIL"}  ${check.name.padEnd(26)} ${check.detail}\n`);
  const ok = checks.every((check) => check.ok);
  say(ok ? "\nAll guarantees held.\n" : "\nA guarantee was broken: see FAIL above.\n");
  return ok ? 0 : 1;
}

function say(text: string): void {
  process.stdout.write(text);
}

process.exitCode = await main();
