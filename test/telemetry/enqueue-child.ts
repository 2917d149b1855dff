// A separate app process for the cross-process link: registers its own OpenTelemetry SDK, enqueues one task inside a
// span, and prints the task's id and its send span's ids as one JSON line. Run with `node --import tsx`.
// Env: CHILD_DATABASE_URL, CHILD_DIALECT ("postgresql", "sqlite" or "mysql"), CHILD_AMQP_URL, CHILD_PREFIX.

import { trace } from "@opentelemetry/api";
import { z } from "zod";
import { defineTasks, silentLogger, taskQueue } from "../../src/index.js";
import { testMysqlPrisma } from "../support/mysql-prisma.js";
import { testPrisma } from "../support/prisma.js";
import { sqlitePrisma } from "../support/sqlite.js";
import { OtelHarness } from "./otel-harness.js";

const otel = new OtelHarness().install();
const url = process.env.CHILD_DATABASE_URL!;
const dialect = process.env.CHILD_DIALECT!;
const base = dialect === "sqlite" ? sqlitePrisma(url) : dialect === "mysql" ? testMysqlPrisma(url) : testPrisma(url);
const tasks = defineTasks({ ok: { payload: z.object({}), handler: () => {} } });
const prisma = (base as { $extends(extension: unknown): unknown }).$extends(
  taskQueue({ tasks, amqpUrl: process.env.CHILD_AMQP_URL || undefined, amqpPrefix: process.env.CHILD_PREFIX, logger: silentLogger }),
) as { task: { enqueue(name: string, payload: unknown): Promise<{ id: string }> }; $taskQueue: { close(): Promise<void> }; $disconnect(): Promise<void> };

const task = await trace.getTracer("child-app").startActiveSpan("child request", async (span) => {
  try {
    return await prisma.task.enqueue("ok", {});
  } finally {
    span.end();
  }
});
const send = otel.named("send default")[0]!;
process.stdout.write(`${JSON.stringify({ taskId: task.id, traceId: send.spanContext().traceId, spanId: send.spanContext().spanId })}\n`);
await prisma.$taskQueue.close();
await prisma.$disconnect();
await otel.uninstall();
