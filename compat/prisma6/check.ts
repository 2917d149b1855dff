// Prisma 6.19 compat check: the packed prisma-task-queue, a Prisma 6 client on the pg adapter, real PostgreSQL and
// RabbitMQ. Committed, batch and autocommit enqueues run once; a rolled-back one never runs; a transactional handler
// writes through ctx.tx, typed by the Prisma 6 client (tsc checks this file first, see run.sh). Exits 1 on any miss.

import { PrismaPg } from "@prisma/adapter-pg";
import amqp from "amqplib";
import pg from "pg";
import { createWorker, defineTasks, silentLogger, taskQueue } from "prisma-task-queue";
import { z } from "zod";
import { PrismaClient, type Prisma } from "./generated/client.js";

/** true when A and B are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const url = process.env.DATABASE_URL!;
const amqpUrl = process.env.AMQP_URL ?? "amqp://guest:guest@127.0.0.1:5672";
const amqpPrefix = `compat6_${process.pid}`;
const ran: string[] = [];
let followUp = "";
const tasks = defineTasks<PrismaClient>()({
  hello: { payload: z.object({ n: z.number() }), handler: async (_payload, ctx) => void ran.push(ctx.task.id) },
  stamp: {
    payload: z.object({ reportId: z.string() }),
    transactional: true,
    handler: async ({ reportId }, ctx) => {
      const sameTx: Same<Omit<typeof ctx.tx, "task">, Omit<Prisma.TransactionClient, "task">> = true;
      void sameTx;
      // @ts-expect-error misspelt model: ctx.tx is Prisma 6's transaction client, not any
      void ctx.tx.reprot;
      await ctx.tx.report.update({ where: { id: reportId }, data: { status: "stamped" } });
      followUp = (await ctx.tx.task.enqueue("hello", { n: 5 })).id;
    },
  },
});
const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) }).$extends(taskQueue({ tasks, amqpUrl, amqpPrefix, logger: silentLogger }));
const worker = createWorker({ tasks, databaseUrl: url, amqpUrl, amqpPrefix, prisma, logger: silentLogger });
await worker.start();

const interactive = await prisma.$transaction(async (tx) => {
  await tx.report.create({ data: {} });
  return tx.task.enqueue("hello", { n: 1 });
});
let rolledBack = "";
await prisma
  .$transaction(async (tx) => {
    rolledBack = (await tx.task.enqueue("hello", { n: 2 })).id;
    throw new Error("planned rollback");
  })
  .catch(() => {});
const [batch] = await prisma.$transaction([prisma.task.enqueue("hello", { n: 3 })]);
const autocommit = await prisma.task.enqueue("hello", { n: 4 });
const stampedReport = await prisma.$transaction(async (tx) => {
  const report = await tx.report.create({ data: {} });
  await tx.task.enqueue("stamp", { reportId: report.id });
  return report.id;
});

const deadline = Date.now() + 10_000;
while (ran.length < 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
await new Promise((resolve) => setTimeout(resolve, 300));
const sql = new pg.Client({ connectionString: url });
await sql.connect();
const { rows } = await sql.query("SELECT id::text AS id, status FROM tasks");
const report = await sql.query("SELECT status FROM reports WHERE id = $1", [stampedReport]);
await sql.end();
await worker.stop();
await prisma.$taskQueue.close();
await prisma.$disconnect();
const broker = await amqp.connect(amqpUrl);
const channel = await broker.createChannel();
for (const queue of [`${amqpPrefix}.q.default`, `${amqpPrefix}.dead`]) await channel.deleteQueue(queue);
for (const exchange of [amqpPrefix, `${amqpPrefix}.dead`]) await channel.deleteExchange(exchange);
await broker.close();

const checks: Array<[string, boolean]> = [
  ["interactive transaction task ran once", ran.filter((id) => id === interactive.id).length === 1],
  ["batch transaction task ran once", ran.filter((id) => id === batch.id).length === 1],
  ["autocommit task ran once", ran.filter((id) => id === autocommit.id).length === 1],
  ["rolled-back task never ran and has no row", !ran.includes(rolledBack) && !rows.some((row) => row.id === rolledBack)],
  ["transactional task wrote through the typed ctx.tx", report.rows[0]?.status === "stamped"],
  ["its follow-up, enqueued through ctx.tx, ran once", followUp !== "" && ran.filter((id) => id === followUp).length === 1],
  ["every row succeeded", rows.length === 5 && rows.every((row) => row.status === "succeeded")],
];
for (const [name, ok] of checks) console.log(`${ok ? "PASS" : "FAIL"}  Prisma 6.19: ${name}`);
const failed = checks.filter(([, ok]) => !ok).length;
console.log(`Prisma 6.19 compat: ${checks.length - failed} of ${checks.length} checks passed`);
process.exit(failed === 0 ? 0 : 1);
