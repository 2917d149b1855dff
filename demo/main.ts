// `npm run demo`: the main job end to end on real services. Creates a fresh database, runs two workers and the
// cleaner, enqueues a burst of app-like transactions (some rolled back, some failing, some delayed), shows live
// progress, and ends with a verdict that checks the guarantees on what just happened.

import pg from "pg";
import { createCleaner } from "../src/cleaner/create-cleaner.js";
import { createWorker } from "../src/worker/create-worker.js";
import { silentLogger, taskQueue } from "../src/index.js";
import { databaseUrlFor } from "../test/support/database.js";
import { applySchema } from "../test/support/schema.js";
import { resolveServices } from "../test/support/services.js";
import { testPrisma } from "../test/support/prisma.js";
import { runLoad } from "./load.js";
import { live, render, snapshot } from "./progress.js";
import { demoTasks } from "./tasks.js";
import { verdict } from "./verdict.js";
import { readFileSync } from "node:fs";

const TRANSACTIONS = Number(process.env.DEMO_TRANSACTIONS ?? 400);
const database = "ptq_demo";
const prefix = "ptq_demo";

async function main(): Promise<number> {
  const services = await resolveServices().catch((error: Error) => {
    process.stderr.write(`demo: ${error.message}\n`);
    return undefined;
  });
  if (!services) return 2;
  const server = new pg.Client({ connectionString: services.databaseUrl });
  await server.connect();
  await server.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await server.query(`CREATE DATABASE "${database}"`);
  await server.end();
  const databaseUrl = databaseUrlFor(services.databaseUrl, database);
  await applySchema(databaseUrl);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  await pool.query(readFileSync(new URL("./schema.sql", import.meta.url), "utf8"));
  say(`PostgreSQL ${redact(services.databaseUrl)} (database ${database}), RabbitMQ ${redact(services.amqpUrl)}\n`);

  const prisma = testPrisma(databaseUrl).$extends(taskQueue({ tasks: demoTasks, amqpUrl: services.amqpUrl, amqpPrefix: prefix, logger: silentLogger }));
  const common = { tasks: demoTasks, databaseUrl, amqpUrl: services.amqpUrl, amqpPrefix: prefix, prisma, logger: silentLogger };
  const workers = [1, 2].map((n) => createWorker({ ...common, concurrency: 10, workerId: `demo-worker-${n}` }));
  const cleaner = createCleaner({ ...common, intervalMs: 250, unpublishedGraceMs: 1000 });
  await Promise.all(workers.map((worker) => worker.start()));
  await cleaner.start();

  const startedAt = Date.now();
  let phase = "enqueueing";
  const stopLive = live(async () => render(await snapshot(pool, startedAt), phase));
  const load = await runLoad(prisma, TRANSACTIONS, 20);
  phase = "draining";
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM tasks WHERE status IN ('pending', 'running')");
    if (rows[0].n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  phase = "done";
  await stopLive();

  await Promise.all(workers.map((worker) => worker.stop()));
  await cleaner.stop();
  await prisma.$taskQueue.close();
  await prisma.$disconnect();

  say(
    `\n${load.transactions} transactions (${load.rolledBackTransactions} rolled back on purpose), ` +
      `${load.committed.length} tasks committed, ${load.rolledBack.length} enqueued then rolled back, ` +
      `${load.duplicatesReturned} duplicate keys returned the existing task.\n\nVerdict:\n`,
  );
  const checks = await verdict(pool, load);
  await pool.end();
  await services.stop();
  for (const check of checks) say(`  ${check.ok ? "PASS" : "FAIL"}  ${check.name.padEnd(26)} ${check.detail}\n`);
  const ok = checks.every((check) => check.ok);
  say(ok ? "\nAll guarantees held.\n" : "\nA guarantee was broken: see FAIL above.\n");
  return ok ? 0 : 1;
}

function say(text: string): void {
  process.stdout.write(text);
}

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return `${parsed.protocol}//${parsed.host}`;
}

process.exitCode = await main();
