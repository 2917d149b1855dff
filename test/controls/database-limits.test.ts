// A queue's limits are a fact of the database: a worker whose config declares none keeps to the limit written into the
// queue's row (by `task-runner limit` or another worker), also when it was written after this worker started and read
// the limits: its claims leave the queue's tasks alone until it has read the new limit, then count them.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks } from "../../src/index.js";
import { createWorker, type Worker } from "../../src/worker/create-worker.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WORKER_DIALECTS, WorkerTestBed } from "../worker/harness.js";

const running = { now: 0, most: 0 };
const tasks = defineTasks({
  report: {
    queue: "reports",
    payload: z.object({}),
    handler: async () => {
      running.now += 1;
      running.most = Math.max(running.most, running.now);
      await new Promise((resolve) => setTimeout(resolve, 30));
      running.now -= 1;
    },
  },
});

describe.each(WORKER_DIALECTS)("limits written into the database hold for a worker that declares none ($name)", (dialect) => {
  let bed: WorkerTestBed;
  let worker: Worker;
  const logger = recordingLogger();

  beforeAll(async () => {
    bed = await WorkerTestBed.create(dialect);
    worker = createWorker({ tasks, databaseUrl: bed.url, amqpUrl: bed.amqpUrl, amqpPrefix: bed.prefix, logger, concurrency: 8, pollIntervalMs: 100 });
    await worker.start();
  });
  afterAll(async () => {
    await worker?.stop();
    await bed?.close(["reports"]);
  });

  it("runs at most the database's concurrency at once, the limit written after the worker read the limits", { timeout: 60_000 }, async () => {
    running.most = 0;
    await bed.store.syncQueues([{ queue: "reports", concurrency: 2, rateLimit: null }]);
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) ids.push(await bed.insertTask("report", {}, { queue: "reports", publishedNow: true }));
    await bed.wake(ids, "reports");
    await waitUntil(async () => (await bed.countStatus("succeeded", "report")) === ids.length, "every task to run", 30_000);
    expect(running.most).toBeLessThanOrEqual(2);
    expect(running.most, "the queue's slots were used").toBe(2);
    expect(logger.find("queue limits changed in the database", { queue: "reports", concurrency: 2 })).toHaveLength(1);
  });
});
