// Claims and completions are batched: 200 tasks woken together are claimed and completed in a handful of statements.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, openStore, type Store } from "../../src/index.js";
import { createWorker, type Worker } from "../../src/worker/create-worker.js";
import { countingStore } from "../support/counting-store.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WORKER_DIALECTS, WorkerTestBed } from "./harness.js";

const tasks = defineTasks({ noop: { payload: z.object({ n: z.number() }), handler: async ({ n }) => n } });

describe.each(WORKER_DIALECTS)("batched claims and completions ($name)", (dialect) => {
  let bed: WorkerTestBed;
  let prisma: ReturnType<WorkerTestBed["prisma"]>;
  let pool: Store;
  let worker: Worker;
  const calls = new Map<string, number>();

  beforeAll(async () => {
    bed = await WorkerTestBed.create(dialect);
    prisma = bed.prisma(tasks);
    pool = openStore(bed.url, { max: 4 });
    worker = createWorker({ tasks, store: countingStore(pool, calls).store, amqpUrl: bed.amqpUrl, amqpPrefix: bed.prefix, concurrency: 200, logger: recordingLogger() });
    await worker.start();
  });

  afterAll(async () => {
    await worker?.stop();
    await pool?.close();
    await prisma?.$taskQueue.close();
    await prisma?.$disconnect();
    await bed?.close();
  });

  it("claims and completes 200 tasks woken by one message in a few statements each", async () => {
    calls.clear();
    const created = await prisma.task.enqueueMany(Array.from({ length: 200 }, (_, n) => ({ name: "noop" as const, payload: { n } })));
    const ids = created.map((task) => task.id);
    await waitUntil(async () => (await bed.countStatus("succeeded")) === 200, "all 200 tasks to succeed", 30_000);
    const byKind = calls;
    const claims = (byKind.get("claimByIds") ?? 0) + (byKind.get("claimDue") ?? 0);
    const completions = byKind.get("complete") ?? 0;
    expect(claims).toBeGreaterThan(0);
    expect(completions).toBeGreaterThan(0);
    console.info("statements for 200 tasks:", JSON.stringify([...byKind]));
    expect(claims, JSON.stringify([...byKind])).toBeLessThanOrEqual(5);
    expect(completions, JSON.stringify([...byKind])).toBeLessThanOrEqual(20);
    expect((await bed.row(ids[7]!)).result).toBe(7);
  });
});
