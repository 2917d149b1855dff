// The dashboard on a quorum deployment: its retry and run-now wake tasks through the same quorum queue the workers
// declared. Before the one wake-up sender, the dashboard ignored quorumQueues, redeclared the queue as classic on its
// first action, and RabbitMQ refused it (PRECONDITION_FAILED): nothing was woken.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import amqp from "amqplib";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { inject } from "vitest";
import { createDashboard, type Dashboard } from "../../src/dashboard/create-dashboard.js";
import { decodeWakeup } from "../../src/wakeups/rabbitmq/wakeup-message.js";
import { declareExchanges, declareQueue, topology } from "../../src/wakeups/rabbitmq/topology.js";
import { uniquePrefix } from "../support/broker.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { waitUntil } from "../support/wait.js";
import { insertTask, recordingLogger } from "./fixtures.js";

const prefix = uniquePrefix();
const names = topology(prefix, true);
let db: TestDatabase;
let sql: pg.Pool;
let model: amqp.ChannelModel;
let dashboard: Dashboard;
let server: Server;
let base: string;
const logger = recordingLogger();
const received: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
  // The workers of a quorum deployment declared the queue first, as a quorum queue; this consumer stands for them.
  model = await amqp.connect(inject("amqpUrl"));
  const channel = await model.createChannel();
  await declareExchanges(channel, names);
  const queue = await declareQueue(channel, names, "default");
  await channel.consume(queue, (message) => {
    if (!message) return;
    const decoded = decodeWakeup(message.content);
    if ("ids" in decoded) received.push(...decoded.ids);
    channel.ack(message);
  });
  dashboard = createDashboard({ databaseUrl: db.url, amqpUrl: inject("amqpUrl"), amqpPrefix: prefix, quorumQueues: true, logger });
  server = createServer(dashboard);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  await dashboard?.close();
  if (model) {
    const channel = await model.createChannel();
    await channel.deleteQueue(names.queueName("default"));
    await channel.deleteQueue(names.deadLetterQueue);
    await channel.deleteExchange(names.exchange);
    await channel.deleteExchange(names.deadLetterExchange);
    await model.close();
  }
  await sql?.end();
  await db?.drop();
});

/** Posts an action the way the page's form does (CSRF cookie and token from the task's page). */
async function act(id: string, action: "retry" | "run-now"): Promise<void> {
  const page = await fetch(`${base}/tasks/${id}`);
  const html = await page.text();
  const cookie = page.headers
    .getSetCookie()
    .find((c) => c.startsWith("ptq_dashboard_csrf="))!
    .split(";")[0]!;
  const token = /name="csrf" value="([0-9a-f]{64})"/.exec(html)![1]!;
  const response = await fetch(`${base}/tasks/${id}/${action}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: `csrf=${token}`,
  });
  expect(response.status).toBe(303);
}

it("wakes a retried and a run-now task through the workers' quorum queue", async () => {
  const dead = await insertTask(sql, { name: "quorum-demo", status: "dead", lastError: "Error: boom" });
  const delayed = await insertTask(sql, { name: "quorum-demo", runInSeconds: 3600, published: false });
  await act(dead, "retry");
  await act(delayed, "run-now");
  const actions = logger.lines.filter((line) => line.message === "dashboard action").map((line) => line.fields);
  expect(actions).toMatchObject([
    { action: "retry", taskId: dead, changed: 1, woken: 1 },
    { action: "run-now", taskId: delayed, changed: 1, woken: 1 },
  ]);
  await waitUntil(() => received.includes(dead) && received.includes(delayed), "both wake-ups to arrive on the quorum queue");
  expect(logger.lines.filter((line) => line.level === "warn")).toEqual([]);
  const { rows } = await sql.query("SELECT id::text AS id FROM tasks WHERE published_at IS NOT NULL AND id = ANY($1)", [[dead, delayed]]);
  expect(rows).toHaveLength(2);
});
