// How much a worker claims beyond what it runs: fast tasks are claimed in large batches, slow ones are not hoarded
// (a worker holds at most about 100 ms of work beyond its run slots, and hands a wake-up's other ids back to the queue
// for an idle worker), by wake-ups and by polling alike, and payload schemas with async refinements are still
// validated before the handler runs.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, openStore, type Store } from "../../src/index.js";
import { createWorker } from "../../src/worker/create-worker.js";
import { sleep } from "../fixtures/worker-tasks.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WORKER_DIALECTS, WorkerTestBed } from "./harness.js";

const tasks = defineTasks({
  noop: { payload: z.object({ n: z.number() }), handler: async () => {} },
  polled: { payload: z.object({ n: z.number() }), queue: "polled", handler: async () => {} },
  polledSlow: { payload: z.object({ n: z.number() }), queue: "polled-slow", handler: async () => sleep(100) },
  slow: { payload: z.object({ n: z.number() }), queue: "slow", handler: async () => sleep(100) },
  shared: {
    payload: z.object({ n: z.number() }),
    queue: "shared",
    handler: async (_payload, ctx) => {
      ranBy.push(ctx.task.leaseOwner!);
      await sleep(400);
    },
  },
  checked: {
    payload: z.object({ n: z.number() }).refine(async (value) => value.n >= 0, "n must not be negative"),
    queue: "checked",
    handler: async ({ n }) => n * 2,
  },
});

/** The worker that ran each "shared" task, in start order. */
const ranBy: string[] = [];

describe.each(WORKER_DIALECTS)("claiming ahead ($name)", (dialect) => {
  let bed: WorkerTestBed;
  let prisma: ReturnType<WorkerTestBed["prisma"]>;
  let pool: Store;
  /** Rows returned by each claim statement the counting worker sent. */
  const claims: number[] = [];

  beforeAll(async () => {
    bed = await WorkerTestBed.create(dialect);
    prisma = bed.prisma(tasks);
    pool = openStore(bed.url, { max: 4 });
  });

  afterAll(async () => {
    await pool?.close();
    await bed?.closeAll(["default", "slow", "checked", "shared", "polled", "polled-slow"]);
  });

  /** The store, noting in `into` how many tasks each claim took. */
  function countingClaims(into: number[]): Store {
    return new Proxy(pool, {
      get(target, property) {
        if (property === "claimByIds") {
          return async (...args: Parameters<Store["claimByIds"]>) => {
            const results = await target.claimByIds(...args);
            into.push(results.filter((result) => result.claimed).length);
            return results;
          };
        }
        if (property === "claimDue") {
          return async (...args: Parameters<Store["claimDue"]>) => {
            const claimed = await target.claimDue(...args);
            into.push(claimed.length);
            return claimed;
          };
        }
        const value = Reflect.get(target, property) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  it("claims a burst of fast tasks in large batches", async () => {
    const counting = countingClaims(claims);
    const worker = createWorker({ tasks, store: counting, amqpUrl: bed.amqpUrl, amqpPrefix: bed.prefix, queues: ["default"], concurrency: 5, logger: recordingLogger() });
    await worker.start();
    try {
      await prisma.task.enqueueMany(Array.from({ length: 3000 }, (_, n) => ({ name: "noop" as const, payload: { n } })));
      await waitUntil(async () => (await bed.countStatus("succeeded", "noop")) === 3000, "3,000 tasks to succeed", 60_000);
    } finally {
      await worker.stop();
    }
    const claimed = claims.reduce((sum, rows) => sum + rows, 0);
    expect(claimed).toBe(3000);
    // Without claiming ahead it would take at least 3000 / 5 = 600 claims.
    expect(claims.length).toBeLessThan(150);
    expect(Math.max(...claims)).toBeGreaterThan(5);
  });

  it("does not hoard slow tasks: it holds about its run slots' worth, the rest stays pending for other workers", async () => {
    await bed.startWorker({ tasks, queues: ["slow"], concurrency: 2, logger: recordingLogger() });
    await prisma.task.enqueueMany(Array.from({ length: 20 }, (_, n) => ({ name: "slow" as const, payload: { n } })));
    let mostRunning = 0;
    let succeeded = 0;
    while (succeeded < 20) {
      mostRunning = Math.max(mostRunning, await bed.countStatus("running", "slow"));
      succeeded = await bed.countStatus("succeeded", "slow");
      await sleep(10);
    }
    // Two slots of 100 ms tasks start about 2 tasks per 100 ms, so the budget allows about 2 ahead, a few more when a
    // measuring window catches the starts of two rounds; claimAhead's default alone would let it claim all 20.
    expect(mostRunning).toBeGreaterThanOrEqual(2);
    expect(mostRunning).toBeLessThanOrEqual(8);
  });

  it("claims a backlog of fast tasks in large batches when it polls (no broker)", async () => {
    await prisma.task.enqueueMany(Array.from({ length: 3000 }, (_, n) => ({ name: "polled" as const, payload: { n } })));
    const polls: number[] = [];
    const worker = createWorker({ tasks, store: countingClaims(polls), wakeups: "polling", queues: ["polled"], concurrency: 5, logger: recordingLogger() });
    await worker.start();
    try {
      await waitUntil(async () => (await bed.countStatus("succeeded", "polled")) === 3000, "3,000 polled tasks to succeed", 60_000);
    } finally {
      await worker.stop();
    }
    expect(polls.reduce((sum, rows) => sum + rows, 0)).toBe(3000);
    // Claiming only the free slots, it would take at least 3000 / 5 = 600 claims.
    expect(polls.length).toBeLessThan(150);
    expect(Math.max(...polls)).toBeGreaterThan(5);
  });

  it("does not hoard slow tasks when it polls: about its run slots' worth is running, the rest stays pending", async () => {
    await prisma.task.enqueueMany(Array.from({ length: 20 }, (_, n) => ({ name: "polledSlow" as const, payload: { n } })));
    const worker = createWorker({ tasks, store: pool, wakeups: "polling", queues: ["polled-slow"], concurrency: 2, pollIntervalMs: 50, logger: recordingLogger() });
    await worker.start();
    let mostRunning = 0;
    try {
      for (let succeeded = 0; succeeded < 20; await sleep(10)) {
        mostRunning = Math.max(mostRunning, await bed.countStatus("running", "polledSlow"));
        succeeded = await bed.countStatus("succeeded", "polledSlow");
      }
    } finally {
      await worker.stop();
    }
    // As with wake-ups: about 2 ahead of 2 slots; claiming ahead without the budget would take all 20 at once.
    expect(mostRunning).toBeGreaterThanOrEqual(2);
    expect(mostRunning).toBeLessThanOrEqual(8);
  });

  it("hands a wake-up's ids it cannot start soon back to the queue, so an idle worker runs them", async () => {
    ranBy.length = 0;
    const busy = await bed.startWorker({ tasks, queues: ["shared"], concurrency: 1, logger: recordingLogger() });
    const idle = await bed.startWorker({ tasks, queues: ["shared"], concurrency: 1, logger: recordingLogger() });
    // One transaction, one wake-up message with all four ids: whichever worker receives it starts one task and, finding
    // no slot for the others within 200 ms, hands them back; the other worker takes them from the queue.
    const created = await prisma.task.enqueueMany([1, 2, 3, 4].map((n) => ({ name: "shared" as const, payload: { n } })));
    await waitUntil(async () => {
      for (const task of created) if ((await bed.status(task.id)) !== "succeeded") return false;
      return true;
    }, "the four tasks to succeed");
    expect(ranBy).toHaveLength(4);
    expect(new Set(ranBy)).toEqual(new Set([busy.id, idle.id]));
  });

  it("validates a payload whose schema has an async refinement, and dead-letters a row that fails it", async () => {
    await bed.startWorker({ tasks, queues: ["checked"], logger: recordingLogger() });
    const good = await bed.insertTask("checked", { n: 21 }, { queue: "checked", publishedNow: true });
    const bad = await bed.insertTask("checked", { n: -1 }, { queue: "checked", publishedNow: true });
    await bed.wake([good, bad], "checked");
    await waitUntil(async () => (await bed.status(good)) === "succeeded" && (await bed.status(bad)) === "dead", "both tasks to finish");
    expect((await bed.row(good)).result).toBe(42);
    const dead = await bed.row(bad);
    expect(dead.attempts).toBe(1);
    expect(dead.last_error).toContain("n must not be negative");
  });
});
