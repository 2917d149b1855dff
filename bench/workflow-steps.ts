// What a workflow step costs, and whether it grows with the steps recorded before it, on one dialect:
// - recorded: a workflow of N steps (`ctx.step.run`, each returning a small object) in one run; measured: the time per
//   step over the whole run, and over its last 100 steps alone (a step late in a long workflow, after 900 recorded);
// - replayed: the same workflow's second run (the first failed after its last step), which replays every step;
// - transactional: N `ctx.step.transaction` steps, each inserting one row of the business table with its record.
// Workflows of 3 and of 1,000 steps, each run by runDueTasks in this process (no broker, no other load), after one
// warm-up workflow. Run: npx tsx bench/workflow-steps.ts [--dialect=postgresql|sqlite|mysql]

import { execFileSync } from "node:child_process";
import { z } from "zod";
import { defineTasks, openStore, runDueTasks, silentLogger, taskQueue } from "../src/index.js";
import type { PrismaClient } from "../test/generated/client.js";
import { testMysqlPrisma } from "../test/support/mysql-prisma.js";
import { testPrisma } from "../test/support/prisma.js";
import { sqlitePrisma } from "../test/support/sqlite.js";
import { dialectDatabase } from "./dialect-database.js";
import { round } from "./stats.js";

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const dialect = arg("dialect") ?? "postgresql";

/** When each step of the current run ended (performance.now()), by seq. */
let marks: number[] = [];
let startedAt = 0;

const tasks = defineTasks<PrismaClient>()({
  steps: {
    payload: z.object({ n: z.number(), failOnce: z.boolean() }),
    maxAttempts: 3,
    // The replay is a second pass, half a second later (not the same pass).
    backoff: { baseMs: 500, maxMs: 500, jitter: 0 },
    timeoutMs: 120_000,
    handler: async ({ n, failOnce }, ctx) => {
      startedAt = performance.now();
      marks = [];
      for (let i = 1; i <= n; i++) {
        await ctx.step.run(`step ${i}`, () => ({ i, note: "a small result" }));
        marks.push(performance.now());
      }
      if (failOnce && ctx.attempt === 1) throw new Error("fail once, to replay");
    },
  },
  writes: {
    payload: z.object({ n: z.number() }),
    timeoutMs: 120_000,
    handler: async ({ n }, ctx) => {
      startedAt = performance.now();
      marks = [];
      for (let i = 1; i <= n; i++) {
        await ctx.step.transaction(`write ${i}`, (tx) => tx.report.create({ data: { id: crypto.randomUUID(), status: "written" } }));
        marks.push(performance.now());
      }
    },
  },
});

function client(url: string): ReturnType<typeof testPrisma> {
  if (dialect === "sqlite") return sqlitePrisma(url) as unknown as ReturnType<typeof testPrisma>;
  if (dialect === "mysql") return testMysqlPrisma(url) as unknown as ReturnType<typeof testPrisma>;
  return testPrisma(url);
}

const db = await dialectDatabase(dialect, "ptq_stepbench");
const prisma = client(db.url).$extends(taskQueue({ tasks, logger: silentLogger }));
const store = openStore(db.url);
const pass = () => runDueTasks({ tasks, store, prisma, budgetMs: 290_000, sweep: false, logger: silentLogger });

/** Per-step milliseconds of the last run: over all its steps, and over its last `tail` steps. */
function perStep(tail: number): { all: number; last: number } {
  const n = marks.length;
  const all = (marks[n - 1]! - startedAt) / n;
  const from = n > tail ? marks[n - tail - 1]! : startedAt;
  return { all, last: (marks[n - 1]! - from) / Math.min(tail, n) };
}

try {
  const rows: string[] = [];
  await prisma.task.enqueue("steps", { n: 50, failOnce: false });
  await pass(); // warm-up
  for (const n of [3, 1000]) {
    await prisma.task.enqueue("steps", { n, failOnce: true });
    await pass();
    const recorded = perStep(100);
    await new Promise((resolve) => setTimeout(resolve, 600));
    await pass();
    const replayed = perStep(100);
    await prisma.task.enqueue("writes", { n });
    await pass();
    const written = perStep(100);
    rows.push(`| ${n} | ${round(recorded.all, 3)} | ${round(recorded.last, 3)} | ${round(replayed.all, 4)} | ${round(written.all, 3)} | ${round(written.last, 3)} |`);
  }
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  console.log(`workflow steps on ${dialect}, commit ${commit}, ${new Date().toISOString()}`);
  console.log("| steps | run: ms/step | run: ms/step, last 100 | replay: ms/step | transaction: ms/step | transaction: ms/step, last 100 |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const row of rows) console.log(row);
} finally {
  await prisma.$taskQueue.close();
  await prisma.$disconnect();
  await store.close();
  await db.drop();
}
