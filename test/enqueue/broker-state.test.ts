// prisma.$taskQueue.broker: the app's client tells whether its broker is connected, refused (with the fix) or absent,
// against the real RabbitMQ; a refused broker does not fail an enqueue, and is logged once as an error.

import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { taskQueue } from "../../src/task-queue.js";
import { type TestDatabase } from "../support/database.js";
import { uniquePrefix } from "../support/broker.js";
import { testPrisma } from "../support/prisma.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger } from "../worker/harness.js";
import { setupDatabase, tasks } from "./fixtures.js";

let db: TestDatabase;
const clients: Array<{ $taskQueue: { close(): Promise<void> }; $disconnect(): Promise<void> }> = [];

beforeAll(async () => {
  db = await setupDatabase();
});

afterAll(async () => {
  for (const client of clients) {
    await client.$taskQueue.close();
    await client.$disconnect();
  }
  await db?.drop();
});

function client(amqpUrl: string | undefined, logger = recordingLogger(), wakeups?: "polling") {
  const prisma = testPrisma(db.url).$extends(taskQueue({ tasks, amqpUrl, amqpPrefix: uniquePrefix(), logger, wakeups }));
  clients.push(prisma);
  return prisma;
}

it("reads connected once the broker accepted the connection", async () => {
  const prisma = client(inject("amqpUrl"));
  expect(prisma.$taskQueue.broker.state).toBe("connecting");
  await waitUntil(() => prisma.$taskQueue.broker.state === "connected", "the connected state", 5000);
  expect(prisma.$taskQueue.broker).toMatchObject({ transport: "rabbitmq", url: "amqp://guest:***@127.0.0.1:5672" });
});

it("reads refused with the fix for a wrong password; enqueue still commits and the error is logged once", async () => {
  const logger = recordingLogger();
  const url = new URL(inject("amqpUrl"));
  url.password = "wrong";
  const prisma = client(url.toString(), logger);
  const first = await prisma.task.enqueue("send-report", { reportId: "r1" });
  await prisma.$taskQueue.flush();
  const second = await prisma.task.enqueue("send-report", { reportId: "r2" });
  await prisma.$taskQueue.flush();
  const broker = prisma.$taskQueue.broker;
  expect(broker).toMatchObject({ transport: "rabbitmq", state: "refused" });
  expect(broker.fix).toMatch(
    /^RabbitMQ at amqp:\/\/guest:\*\*\*@127\.0\.0\.1:5672 refused the user name or password \(ACCESS_REFUSED\): check the credentials in amqpUrl/,
  );
  expect(broker.error).toContain("ACCESS_REFUSED");
  for (const id of [first.id, second.id]) expect((await prisma.task.findUniqueOrThrow({ where: { id } })).status).toBe("pending");
  expect(logger.lines.filter((line) => line.level === "error")).toHaveLength(1);
  expect(logger.lines.filter((line) => line.level === "error")[0]!.message).toMatch(/^broker connection failed and retrying will not fix it: /);
});

it("reads none without amqpUrl: PostgreSQL NOTIFY by default, or polling when asked", () => {
  expect(client(undefined).$taskQueue.broker).toEqual({ transport: "notify", state: "none" });
  expect(client(undefined, recordingLogger(), "polling").$taskQueue.broker).toEqual({ transport: "polling", state: "none" });
});
