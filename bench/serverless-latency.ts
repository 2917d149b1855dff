// The latency of the serverless entry points, on one dialect:
// - after(): a transaction enqueues one task and commits; the client hands `after` the run (here a stand-in that runs it
//   on the next turn of the event loop, as Next.js does once the response is sent). Measured: the commit's return to
//   the handler's start.
// - the cron pass: one task is due; runDueTasks() is called. Measured: the call to the handler's start; and the whole
//   call when nothing is due (what an idle ping costs).
// Sequential, one task at a time, after 20 warm-up rounds. Next.js's own delay before it runs `after` callbacks, and a
// platform's cold start, are not in these figures.
// Run: npx tsx bench/serverless-latency.ts [--dialect=postgresql|sqlite|mysql] [--rounds=200]

import { execFileSync } from "node:child_process";
import { z } from "zod";
import { defineTasks, openStore, runDueTasks, silentLogger, taskQueue } from "../src/index.js";
import { testMysqlPrisma } from "../test/support/mysql-prisma.js";
import { testPrisma } from "../test/support/prisma.js";
import { sqlitePrisma } from "../test/support/sqlite.js";
import { dialectDatabase } from "./dialect-database.js";
import { percentile, round } from "./stats.js";

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const dialect = arg("dialect") ?? "postgresql";
const rounds = Number(arg("rounds") ?? 200);
const WARMUP = 20;

let started: (() => void) | undefined;
const tasks = defineTasks({
  ping: { payload: z.object({}), timeoutMs: 5_000, handler: async () => started?.() },
});
const startOf = () => new Promise<number>((resolve) => (started = () => resolve(performance.now())));

/** The dialect's generated test client (the same models on every dialect), typed as PostgreSQL's. */
function client(url: string): ReturnType<typeof testPrisma> {
  if (dialect === "sqlite") return sqlitePrisma(url) as unknown as ReturnType<typeof testPrisma>;
  if (dialect === "mysql") return testMysqlPrisma(url) as unknown as ReturnType<typeof testPrisma>;
  return testPrisma(url);
}

const db = await dialectDatabase(dialect, "ptq_slsbench");
const prisma = client(db.url).$extends(taskQueue({ tasks, logger: silentLogger, after: (run) => void setImmediate(() => void run()), afterBudgetMs: 10_000 }));
const store = openStore(db.url);
try {
  const afterMs: number[] = [];
  for (let i = 0; i < WARMUP + rounds; i++) {
    const start = startOf();
    await prisma.$transaction(async (tx) => tx.task.enqueue("ping", {}));
    const committed = performance.now();
    const at = await start;
    if (i >= WARMUP) afterMs.push(at - committed);
  }
  // Let every after() run settle its outcome before the cron rounds count what is due.
  for (let settled = 0; settled < 100 && (await store.listTasks({ status: "running" }, { limit: 1 }, undefined)).rows.length > 0; settled++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  const cronMs: number[] = [];
  const idleMs: number[] = [];
  const base = client(db.url).$extends(taskQueue({ tasks, logger: silentLogger }));
  for (let i = 0; i < WARMUP + rounds; i++) {
    await base.task.enqueue("ping", {});
    const start = startOf();
    const calledAt = performance.now();
    const call = runDueTasks({ tasks, store, budgetMs: 10_000, sweep: false });
    const at = await start;
    await call;
    const idleFrom = performance.now();
    await runDueTasks({ tasks, store, budgetMs: 10_000, sweep: false });
    if (i >= WARMUP) {
      cronMs.push(at - calledAt);
      idleMs.push(performance.now() - idleFrom);
    }
  }
  await base.$taskQueue.close();
  await base.$disconnect();

  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  const row = (label: string, values: number[]) =>
    `| ${label} | ${round(percentile(values, 50), 2)} | ${round(percentile(values, 99), 2)} | ${round(Math.max(...values), 2)} |`;
  console.log(`serverless latency on ${dialect}, commit ${commit}, ${new Date().toISOString()}, ${rounds} rounds each (after ${WARMUP} warm-up)`);
  console.log("| what | p50 ms | p99 ms | max ms |\n| --- | --- | --- | --- |");
  console.log(row("after(): commit returned → handler started", afterMs));
  console.log(row("cron pass, one task due: call → handler started", cronMs));
  console.log(row("cron pass, nothing due: the whole call", idleMs));
} finally {
  await prisma.$taskQueue.close();
  await prisma.$disconnect();
  await store.close();
  await db.drop();
}
