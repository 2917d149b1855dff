// Without RabbitMQ the worker still runs tasks, by polling: with the broker's port closed from the start, and when
// a proxy in front of the broker is cut mid-run; once the proxy is back, wake-ups flow again and polling stops.

import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks } from "../../src/index.js";
import { createWorker, type Worker } from "../../src/worker/create-worker.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WORKER_DIALECTS, WorkerTestBed } from "./harness.js";
import { TcpProxy } from "../support/tcp-proxy.js";

/** How many times each task ran, in this process. */
const runs = new Map<string, number>();
const tasks = defineTasks({
  record: { payload: z.object({ ms: z.number().int().min(0) }), handler: async (_p, ctx) => void runs.set(ctx.task.id, (runs.get(ctx.task.id) ?? 0) + 1) },
});

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.each(WORKER_DIALECTS)("without the broker ($name)", (dialect) => {
  let bed: WorkerTestBed;
  let proxy: TcpProxy;
  let prisma: ReturnType<WorkerTestBed["prisma"]>;
  let offline: ReturnType<WorkerTestBed["prisma"]>;
  const workers: Worker[] = [];

  beforeAll(async () => {
    bed = await WorkerTestBed.create(dialect);
    const broker = new URL(bed.amqpUrl);
    proxy = await new TcpProxy(broker.hostname, Number(broker.port || 5672)).start();
    prisma = bed.prisma(tasks);
    offline = bed.prisma(tasks, undefined);
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await proxy?.stop();
    for (const client of [prisma, offline]) {
      await client?.$taskQueue.close();
      await client?.$disconnect();
    }
    await bed?.close();
  });

  async function succeeded(id: string): Promise<boolean> {
    return (await bed.status(id)) === "succeeded";
  }

  it("runs tasks by polling when the broker's port is closed", async () => {
    const logger = recordingLogger();
    const worker = createWorker({
      tasks,
      databaseUrl: bed.url,
      amqpUrl: `amqp://guest:guest@127.0.0.1:${await closedPort()}`,
      amqpPrefix: bed.prefix,
      pollIntervalMs: 100,
      logger,
    });
    workers.push(worker);
    await worker.start();
    const enqueued = await Promise.all([1, 2, 3].map(() => offline.task.enqueue("record", { ms: 0 })));
    for (const task of enqueued) await waitUntil(() => succeeded(task.id), "the task to run by polling");
    for (const task of enqueued) expect(logger.find("task claimed", { taskId: task.id, via: "poll" })).toHaveLength(1);
    expect(logger.find("broker unreachable, retrying").length).toBeGreaterThan(0);
    await worker.stop();
    workers.splice(workers.indexOf(worker), 1);
  });

  it("falls back to polling when the broker connection is cut, and back to wake-ups when it returns", async () => {
    const logger = recordingLogger();
    const worker = createWorker({
      tasks,
      databaseUrl: bed.url,
      amqpUrl: proxy.route(bed.amqpUrl),
      amqpPrefix: bed.prefix,
      pollIntervalMs: 1000,
      logger,
    });
    workers.push(worker);
    await worker.start();
    const before = await prisma.task.enqueue("record", { ms: 0 });
    await waitUntil(() => succeeded(before.id), "the first task to run");
    expect(logger.find("task claimed", { taskId: before.id, via: "wakeup" })).toHaveLength(1);

    proxy.refuse();
    await waitUntil(() => logger.find("broker connection lost").length === 1, "the worker to notice the cut");
    const during = await prisma.task.enqueue("record", { ms: 0 }); // its wake-up waits in the queue the worker cannot reach
    await waitUntil(() => succeeded(during.id), "the task to run by polling");
    expect(logger.find("task claimed", { taskId: during.id, via: "poll" })).toHaveLength(1);

    proxy.restore();
    await waitUntil(() => logger.find("consuming wake-ups").length === 2, "the worker to consume again", 30_000);
    const after = await prisma.task.enqueue("record", { ms: 0 });
    await waitUntil(() => succeeded(after.id), "the task after the reconnect to run");
    expect(logger.find("task claimed", { taskId: after.id, via: "wakeup" })).toHaveLength(1);
    // The wake-up of the task run by polling arrives late and is dropped, not run again.
    await waitUntil(() => logger.find("wake-up dropped", { taskId: during.id }).length === 1, "the stale wake-up to be dropped");
    expect([before.id, during.id, after.id].map((id) => runs.get(id))).toEqual([1, 1, 1]);
  });
});
