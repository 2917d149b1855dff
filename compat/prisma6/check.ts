// Prisma 6.19 compat check: the packed prisma-task-queue, a Prisma 6 client on the pg adapter, real PostgreSQL and
// RabbitMQ. Committed, batch and autocommit enqueues run once; a rolled-back one never runs. Exits 1 on any miss.

import { PrismaPg } from "@prisma/adapter-pg";
import amqp from "amqplib";
import pg from "pg";
import { createWorker, defineTasks, silentLogger, taskQueue } from "prisma-task-queue";
import { z } from "zod";
import { PrismaClient } from "./generated/client.js";

const url = process.env.DATABASE_URL!;
const amqpUrl = process.env.AMQP_URL ?? "amqp://guest:guest@127.0.0.1:5672";
const amqpPrefix = `compat6_${process.pid}`;
const ran: string[] = [];
const tasks = defineTasks({
  hello: { payload: z.object({ n: z.number() }), handler: async (_payload, ctx) => void ran.push(ctx.task.id) },
});
const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) }).$extends(
  taskQueue({ tasks, amqpUrl, amqpPrefix, logger: silentLogger }),
);
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

const deadline = Date.now() + 10_000;
while (ran.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
await new Promise((resolve) => setTimeout(resolve, 300));
const sql = new pg.Client({ connectionString: url });
await sql.connect();
const { rows } = await sql.query("SELECT id::text AS id, status FROM tasks");
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
  ["every row succeeded", rows.length === 3 && rows.every((row) => row.status === "succeeded")],
];
for (const [name, ok] of checks) console.log(`${ok ? "PASS" : "FAIL"}  Prisma 6.19: ${name}`);
const failed = checks.filter(([, ok]) => !ok).length;
console.log(`Prisma 6.19 compat: ${checks.length - failed} of ${checks.length} checks passed`);
process.exit(failed === 0 ? 0 : 1);
