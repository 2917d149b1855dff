// The scaling signal's successes are the worker's to count: on every dialect, a drain of many tasks (transactional
// ones included) reaches the tally rows within about a second of the last success, in a few writes rather than one
// per completion, and what is still counted when the worker stops is written by its stop. A write that fails (the
// tally table gone) fails no task, warns once, and keeps its counts for the write that succeeds again.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { defineTasks, openStore, type Store } from "../../src/index.js";
import { createWorker, type Worker } from "../../src/worker/create-worker.js";
import type { PrismaClient } from "../generated/client.js";
import { countingStore } from "../support/counting-store.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WORKER_DIALECTS, WorkerTestBed } from "./harness.js";

const tasks = defineTasks<PrismaClient>()({
  noop: { payload: z.object({ n: z.number() }), handler: async () => {} },
  "write-report": {
    payload: z.object({ reportId: z.string().uuid() }),
    transactional: true,
    handler: async ({ reportId }, ctx) => void (await ctx.tx.report.create({ data: { id: reportId, status: "done" } })),
  },
});

const WINDOWS = { rateSeconds: 60, processingSeconds: 300 };

describe.each(WORKER_DIALECTS)("the worker's success tallies ($name)", (dialect) => {
  let bed: WorkerTestBed;
  let pool: Store;
  let worker: Worker | undefined;
  const calls = new Map<string, number>();

  beforeAll(async () => {
    bed = await WorkerTestBed.create(dialect);
    pool = openStore(bed.url, { max: 4 });
  });

  afterAll(async () => {
    await worker?.stop();
    await pool?.close();
    await bed?.closeAll();
  });

  const succeeded = async () => (await bed.store.queueActivity(WINDOWS)).find((row) => row.queue === "default")?.succeeded ?? 0;

  it("reach the tally rows within about a second, in a few writes, and the rest at stop", async () => {
    const prisma = bed.prisma(tasks);
    worker = createWorker({
      tasks,
      store: countingStore(pool, calls).store,
      prisma,
      amqpUrl: bed.amqpUrl,
      amqpPrefix: bed.prefix,
      concurrency: 20,
      logger: recordingLogger(),
    });
    await worker.start();
    await prisma.task.enqueueMany(Array.from({ length: 100 }, (_, n) => ({ name: "noop" as const, payload: { n } })));
    for (let i = 0; i < 5; i++) await prisma.task.enqueue("write-report", { reportId: randomUUID() });
    await waitUntil(async () => (await bed.countStatus("succeeded")) === 105, "all 105 tasks to succeed", 60_000);
    // The timer writes them, no stop needed.
    await waitUntil(async () => (await succeeded()) === 105, "the 105 successes in the tallies", 10_000);
    const writes = calls.get("addSuccessTallies") ?? 0;
    expect(writes, JSON.stringify([...calls])).toBeGreaterThan(0);
    expect(writes, JSON.stringify([...calls])).toBeLessThan(105 / 5);
    const [row] = await bed.store.queueActivity(WINDOWS);
    expect(row).toMatchObject({ queue: "default", arrived: 105, succeeded: 105, timed: 105 });

    // Counted just before the stop: written by the stop itself, well before the timer's second.
    await prisma.task.enqueue("noop", { n: 1000 });
    await waitUntil(async () => (await bed.countStatus("succeeded")) === 106, "the 106th task to succeed", 30_000);
    await worker.stop();
    worker = undefined;
    expect(await succeeded()).toBe(106);
  });

  it("a tally write that fails fails no task, warns once, and keeps its counts for the next write that succeeds", async () => {
    const prisma = bed.prisma(tasks);
    const logger = recordingLogger();
    const before = await succeeded();
    worker = createWorker({ tasks, store: pool, prisma, amqpUrl: bed.amqpUrl, amqpPrefix: bed.prefix, concurrency: 5, logger });
    await worker.start();
    await bed.exec("ALTER TABLE tasks_tallies RENAME TO tasks_tallies_away");
    try {
      const done = await bed.countStatus("succeeded");
      for (let round = 0; round < 3; round++) {
        await prisma.task.enqueueMany(Array.from({ length: 10 }, (_, n) => ({ name: "noop" as const, payload: { n } })));
        await waitUntil(async () => (await bed.countStatus("succeeded")) === done + 10 * (round + 1), `round ${round + 1}'s tasks to succeed`, 30_000);
        // Each round's successes reach a write (the timer's, about a second after the first of them), which fails.
        await waitUntil(() => logger.find("scaling tallies not written; kept for the next write").length > 0, "the failed write's warning", 10_000);
      }
    } finally {
      await bed.exec("ALTER TABLE tasks_tallies_away RENAME TO tasks_tallies");
    }
    expect(logger.find("scaling tallies not written; kept for the next write"), "said once until a write succeeds").toHaveLength(1);
    // The stop writes what was kept: all 30 successes, none lost to the failed writes.
    await worker.stop();
    worker = undefined;
    expect(await succeeded()).toBe(before + 30);
  });
});
