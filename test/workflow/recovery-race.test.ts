// Two recoverers at once, on every dialect: a workflow whose worker vanished after recording its first step is found
// by two cleaners that both lead (two deployments sharing a database, each with its own lock key) in the same instant,
// and claimed by two polling workers. It is requeued once, run once to the end (its recorded step replayed, its
// transactional write once), and, finished, is never run again whatever the cleaners and workers do next.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createCleaner, createWorker, defineTasks, silentLogger, taskQueue, type Cleaner, type Store, type Worker } from "../../src/index.js";
import { openStore } from "../../src/open-store.js";
import { prepared, sendInsert } from "../conformance/store/bed.js";
import { STORE_DIALECTS, type StoreDialect } from "../conformance/store/dialects.js";
import type { PrismaClient } from "../generated/client.js";
import type { testPrisma } from "../support/prisma.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger } from "../worker/harness.js";

/** What the handler did in this process, per task id. */
const runs = new Map<string, { started: number; first: number }>();

const tasks = defineTasks<PrismaClient>()({
  "recovered-flow": {
    payload: z.object({}),
    handler: async (_payload, ctx) => {
      const seen = runs.get(ctx.task.id) ?? { started: 0, first: 0 };
      runs.set(ctx.task.id, { ...seen, started: seen.started + 1 });
      const first = await ctx.step.run("first", () => {
        runs.get(ctx.task.id)!.first += 1;
        return "ran here";
      });
      await ctx.step.transaction("write", (tx) => tx.report.create({ data: { id: crypto.randomUUID(), status: `flow:${ctx.task.id}` } }));
      return first;
    },
  },
});

type Client = ReturnType<typeof testPrisma>;

describe.each(STORE_DIALECTS)("two recoverers at once ($name)", (dialect: StoreDialect) => {
  let database: { url: string; drop(): Promise<void> };
  let store: Store;
  let prisma: ReturnType<typeof extend>;
  const loggers = [recordingLogger(), recordingLogger()];
  const workers: Worker[] = [];
  const cleaners: Cleaner[] = [];
  const extend = (base: Client) => base.$extends(taskQueue({ tasks, logger: silentLogger, wakeups: "polling" }));

  beforeAll(async () => {
    database = await dialect.createDatabase();
    store = openStore(database.url, { max: 2 });
    prisma = extend(dialect.prismaClient(database.url) as unknown as Client);
    for (const [index, logger] of loggers.entries()) {
      workers.push(createWorker({ tasks, databaseUrl: database.url, prisma, logger, wakeups: "polling", pollIntervalMs: 50, workerId: `recoverer-${index}` }));
      cleaners.push(createCleaner({ tasks, databaseUrl: database.url, logger: silentLogger, wakeups: "polling", lockKey: 7100 + index }));
    }
  });

  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    for (const cleaner of cleaners) await cleaner.stop();
    await prisma?.$taskQueue.close();
    await prisma?.$disconnect();
    await store?.close();
    await database?.drop();
  });

  it("requeues it once, runs it once to the end, and never again once finished", async () => {
    const row = prepared({ name: "recovered-flow", payload: {} });
    await sendInsert(store, [row]);
    // The vanished worker: it claimed the task with a short lease, recorded the first step, and was never heard of again.
    const [held] = await store.claimByIds([row.id], { owner: "vanished", leaseMs: 300, names: ["recovered-flow"], queues: ["default"] });
    const attempt = held!.claimed!.attempts;
    await store.recordStep("vanished", { taskId: row.id, attempt, seq: 1, name: "first", kind: "run", resultJson: '"ran before"' });
    await waitUntil(async () => (await store.now()).getTime() > held!.claimed!.leaseExpiresAt!.getTime(), "the lease to expire");

    const passes = await Promise.all(cleaners.map((cleaner) => cleaner.runOnce()));
    expect(passes.map((pass) => pass.leader)).toEqual([true, true]);
    expect(
      passes.reduce((sum, pass) => sum + pass.retried, 0),
      "requeued by one of the two",
    ).toBe(1);

    await Promise.all(workers.map((worker) => worker.start()));
    await waitUntil(async () => (await store.findTask(row.id))?.status === "succeeded", "the workflow to finish", 20_000);
    const finished = await store.findTask(row.id);
    expect(finished).toMatchObject({ status: "succeeded", result: "ran before", attempts: attempt + 1 });
    expect(runs.get(row.id), "one run, its first step replayed").toEqual({ started: 1, first: 0 });
    expect(await prisma.report.count({ where: { status: `flow:${row.id}` } })).toBe(1);
    const succeeded = loggers.flatMap((logger) => logger.find("task succeeded", { taskId: row.id }));
    expect(succeeded).toHaveLength(1);

    // Finished: the cleaners find nothing to recover, nothing can requeue or claim it, and the polling workers leave it.
    const after = await Promise.all(cleaners.map((cleaner) => cleaner.runOnce()));
    expect(after.map((pass) => [pass.retried, pass.dead])).toEqual([
      [0, 0],
      [0, 0],
    ]);
    expect(await store.requeueExpired([row.id])).toEqual([]);
    expect(await store.claimByIds([row.id], { owner: "late", leaseMs: 30_000, names: ["recovered-flow"], queues: ["default"] })).toMatchObject([
      { id: row.id, claimed: null, reason: "not-pending" },
    ]);
    // A task enqueued after it runs, so both workers have polled past the finished workflow since.
    const later = await prisma.task.enqueue("recovered-flow", {});
    await waitUntil(async () => (await store.findTask(later.id))?.status === "succeeded", "a later task to run");
    expect(runs.get(row.id)).toEqual({ started: 1, first: 0 });
    expect(await store.loadSteps(row.id)).toHaveLength(2);
  });
});
