// A three-step workflow, ours beside DBOS Transact, on the same PostgreSQL server in the same run. Each workflow is
// started from an app transaction that writes a business row (an order); each of its three steps writes one row in a
// transaction of the app's database together with the record that the step ran (ours: `ctx.step.transaction`; DBOS: a
// transaction of its Prisma data source). Measured for each side:
// - latency: `--workflows` workflows started one by one at `--rate` per second; start (the app's transaction begins)
//   → finish (the workflow's last step returned), p50 / p99;
// - throughput: `--workflows` more started by 10 concurrent callers as fast as they go; workflows per second from the
//   first start to the last finish;
// - commits and rows written per workflow, from pg_stat_database over the side's databases (read after the side's
//   connections closed, so every backend has reported its counts).
// Ours: one worker in this process (concurrency 10, woken by NOTIFY, no broker), the client extended with taskQueue().
// DBOS: DBOS.startWorkflow() right after the app's commit (its own start cannot join a Prisma transaction), the
// workflow run in this process, its system database on the same server.
// Run: npx tsx bench/workflows-dbos.ts [--workflows=2000] [--rate=100]

import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { PrismaDataSource } from "@dbos-inc/prisma-datasource";
import pg from "pg";
import { z } from "zod";
import { createWorker, defineTasks, silentLogger, taskQueue } from "../src/index.js";
import type { PrismaClient } from "../test/generated/client.js";
import { databaseUrlFor, dropDatabase } from "../test/support/database.js";
import { testPrisma } from "../test/support/prisma.js";
import { dialectDatabase } from "./dialect-database.js";
import { percentile, round } from "./stats.js";

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const WORKFLOWS = Number(arg("workflows") ?? 2000);
const RATE = Number(arg("rate") ?? 100);
const CALLERS = 10;
const WARM_UP = 100;
const serverUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

/** When each workflow finished (performance.now()), by order id; `finished` resolves the waiter of that order. */
const finishedAt = new Map<string, number>();
const waiters = new Map<string, () => void>();
function finished(orderId: string): void {
  finishedAt.set(orderId, performance.now());
  waiters.get(orderId)?.();
  waiters.delete(orderId);
}
function untilFinished(orderId: string): Promise<void> {
  if (finishedAt.has(orderId)) return Promise.resolve();
  return new Promise((resolve) => waiters.set(orderId, resolve));
}

interface Side {
  name: string;
  /** The side's databases on the server, for pg_stat_database. */
  databases: string[];
  /** Starts one workflow from an app transaction that writes the order's row. */
  start(orderId: string): Promise<void>;
  /** Closes every connection of the side (a backend reports its counts as it exits). */
  disconnect(): Promise<void>;
  /** Drops the side's databases. */
  drop(): Promise<void>;
}

// Ours: the workflow is a task whose handler runs three transactional steps.
const tasks = defineTasks<PrismaClient>()({
  order: {
    payload: z.object({ orderId: z.string() }),
    handler: async ({ orderId }, ctx) => {
      for (let i = 1; i <= 3; i++) {
        await ctx.step.transaction(`step ${i}`, (tx) => tx.report.create({ data: { id: randomUUID(), status: `${orderId} step ${i}` } }));
      }
      finished(orderId);
    },
  },
});

async function oursSide(): Promise<Side> {
  const db = await dialectDatabase("postgresql", "ptq_wf_ours");
  const prisma = testPrisma(db.url).$extends(taskQueue({ tasks, logger: silentLogger }));
  const worker = createWorker({ tasks, databaseUrl: db.url, prisma, concurrency: 10, logger: silentLogger });
  await worker.start();
  return {
    name: "prisma-task-queue",
    databases: [new URL(db.url).pathname.slice(1)],
    async start(orderId) {
      await prisma.$transaction(async (tx) => {
        await tx.report.create({ data: { id: orderId, status: "ordered" } });
        await tx.task.enqueue("order", { orderId });
      });
    },
    async disconnect() {
      await worker.stop();
      await prisma.$taskQueue.close();
      await prisma.$disconnect();
    },
    drop: async () => void (await db.drop()),
  };
}

async function dbosSide(): Promise<Side> {
  const db = await dialectDatabase("postgresql", "ptq_wf_dbos_app");
  const systemName = `ptq_wf_dbos_sys_${randomBytes(4).toString("hex")}`;
  const prisma = testPrisma(db.url);
  await PrismaDataSource.initializeDBOSSchema(prisma);
  const data = new PrismaDataSource<typeof prisma>("app", prisma);
  const write = data.registerTransaction(
    async (orderId: string, i: number) => {
      await data.client.report.create({ data: { id: randomUUID(), status: `${orderId} step ${i}` } });
    },
    { name: "write" },
  );
  const order = DBOS.registerWorkflow(
    async (orderId: string) => {
      for (let i = 1; i <= 3; i++) await write(orderId, i);
      finished(orderId);
    },
    { name: "order" },
  );
  DBOS.setConfig({ name: "ptq-bench", systemDatabaseUrl: databaseUrlFor(serverUrl, systemName), logLevel: "error" });
  await DBOS.launch();
  return {
    name: "DBOS Transact 5.1.10",
    databases: [new URL(db.url).pathname.slice(1), systemName],
    async start(orderId) {
      await prisma.$transaction(async (tx) => {
        await tx.report.create({ data: { id: orderId, status: "ordered" } });
      });
      await DBOS.startWorkflow(order)(orderId);
    },
    async disconnect() {
      await DBOS.shutdown();
      await prisma.$disconnect();
    },
    async drop() {
      await db.drop();
      await dropDatabase(serverUrl, systemName);
    },
  };
}

async function counters(databases: readonly string[]): Promise<{ commits: number; rows: number }> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ commits: string; rows: string }>(
      `SELECT sum(xact_commit)::text AS commits, sum(tup_inserted + tup_updated + tup_deleted)::text AS rows FROM pg_stat_database WHERE datname = ANY($1)`,
      [databases],
    );
    return { commits: Number(rows[0]!.commits), rows: Number(rows[0]!.rows) };
  } finally {
    await client.end();
  }
}

/** One workflow started and awaited to its end; its start → finish time in ms. */
async function timed(side: Side): Promise<number> {
  const orderId = randomUUID();
  const startedAt = performance.now();
  await side.start(orderId);
  await untilFinished(orderId);
  return finishedAt.get(orderId)! - startedAt;
}

async function measure(make: () => Promise<Side>): Promise<string> {
  const side = await make();
  try {
    await Promise.all(Array.from({ length: WARM_UP }, () => timed(side)));
    const before = await counters(side.databases);
    // Latency: one start every 1/RATE s, each awaited on its own.
    const pending: Array<Promise<number>> = [];
    const from = performance.now();
    for (let i = 0; i < WORKFLOWS; i++) {
      const wait = from + (i * 1000) / RATE - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      pending.push(timed(side));
    }
    const latencies = (await Promise.all(pending)).sort((a, b) => a - b);
    // Throughput: CALLERS callers, each starting its next workflow as soon as its last one started.
    const ids: string[] = [];
    const first = performance.now();
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (ids.length < WORKFLOWS) {
          const orderId = randomUUID();
          ids.push(orderId);
          await side.start(orderId);
        }
      }),
    );
    await Promise.all(ids.map((id) => untilFinished(id)));
    const perSecond = (ids.length / (Math.max(...ids.map((id) => finishedAt.get(id)!)) - first)) * 1000;
    // The counts of the measured workflows, once every connection of the side has closed and reported them.
    await side.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await counters(side.databases);
    const total = WORKFLOWS + ids.length;
    const per = (a: number, b: number) => round((a - b) / total, 1);
    return `| ${side.name} | ${round(perSecond, 0)} | ${round(percentile(latencies, 50), 2)} | ${round(percentile(latencies, 99), 2)} | ${per(after.commits, before.commits)} | ${per(after.rows, before.rows)} |`;
  } finally {
    await side.disconnect().catch(() => {});
    await side.drop();
  }
}

const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
console.log(`three-step workflows, ${WORKFLOWS} at ${RATE}/s and ${WORKFLOWS} by ${CALLERS} callers, commit ${commit}, ${new Date().toISOString()}`);
console.log("| side | workflows/s (10 callers) | start → finish p50 (ms) | p99 (ms) | commits per workflow | rows written per workflow |");
console.log("| --- | --: | --: | --: | --: | --: |");
for (const make of [oursSide, dbosSide]) console.log(await measure(make));
