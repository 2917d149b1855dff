// Delays on time: a task enqueued with a delay (or a runAt), and a retry after its backoff, start within a few tens of
// ms of their run_at with no cleaner running and polling a minute apart, on every dialect with each of its transports;
// never before run_at (database clock); a rolled-back delayed enqueue sends nothing; a stopped worker keeps no timer.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createWorker, defineTasks, openStore, type Store, type TaskRecord, type Worker } from "../../src/index.js";
import { postgresStoreDialect, sqliteStoreDialect, type StoreDialect } from "../conformance/store/dialects.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WORKER_DIALECTS, WorkerTestBed } from "./harness.js";

const LEASE_MS = 30_000;
/** Generous: the old way (the cleaner's sweep) never comes here, and a loaded machine is not a benchmark. */
const LATE_BOUND_MS = 250;

/** Per task, each run's claim time, database clock: the claim wrote lease_expires_at = now() + leaseMs. */
const claims = new Map<string, Array<{ claimedAt: number; runAt: number }>>();

function note(task: TaskRecord): void {
  const claimedAt = task.leaseExpiresAt!.getTime() - LEASE_MS;
  claims.set(task.id, [...(claims.get(task.id) ?? []), { claimedAt, runAt: task.runAt.getTime() }]);
}

const tasks = defineTasks({
  later: { payload: z.object({}), handler: async (_payload, ctx) => note(ctx.task) },
  "fails-once": {
    payload: z.object({}),
    maxAttempts: 2,
    backoff: { baseMs: 300, jitter: 0 },
    handler: async (_payload, ctx) => {
      note(ctx.task);
      if (ctx.attempt === 1) throw new Error("the first attempt fails");
    },
  },
});

/** `inner`, noting every id its claims by id were asked for. */
function notingClaims(inner: Store, asked: Set<string>): Store {
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "claimByIds") {
        return (...args: Parameters<Store["claimByIds"]>) => {
          for (const id of args[0]) asked.add(id);
          return target.claimByIds(...args);
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function timeouts(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
}

class Rollback extends Error {}

interface Setup {
  name: string;
  dialect: StoreDialect;
  /** Woken through RabbitMQ; else the dialect's own way without a broker (NOTIFY, in-process). */
  broker: boolean;
}

const SETUPS: Setup[] = [
  ...WORKER_DIALECTS.map((dialect) => ({ name: `${dialect.name} + RabbitMQ`, dialect, broker: true })),
  { name: "postgresql + NOTIFY", dialect: postgresStoreDialect, broker: false },
  { name: "sqlite + in-process", dialect: sqliteStoreDialect, broker: false },
];

describe.each(SETUPS)("delays on time ($name)", ({ dialect, broker }) => {
  let bed: WorkerTestBed;
  let prisma: ReturnType<WorkerTestBed["prisma"]>;
  let store: Store;
  let worker: Worker;
  const logger = recordingLogger();
  const asked = new Set<string>();

  function startWorker(options: { store?: Store; logger?: typeof logger } = {}): Worker {
    return createWorker({
      tasks,
      ...(options.store ? { store: options.store } : { databaseUrl: bed.url }),
      amqpUrl: broker ? bed.amqpUrl : undefined,
      amqpPrefix: bed.prefix,
      logger: options.logger ?? logger,
      leaseMs: LEASE_MS,
      // Only the timers can start these tasks on time: no cleaner runs, and polls are a minute apart.
      pollIntervalMs: 60_000,
    });
  }

  function expectOnTime(id: string, run: number): void {
    const { claimedAt, runAt } = claims.get(id)![run]!;
    expect(claimedAt, "claimed before its run_at").toBeGreaterThanOrEqual(runAt);
    expect(claimedAt - runAt, "ms late").toBeLessThan(LATE_BOUND_MS);
  }

  beforeAll(async () => {
    bed = await WorkerTestBed.create(dialect);
    // "" and not undefined: undefined would take the bed's broker.
    prisma = bed.prisma(tasks, broker ? bed.amqpUrl : "");
    store = openStore(bed.url, { max: 6 });
    worker = startWorker({ store: notingClaims(store, asked) });
    await worker.start();
    // start() stops waiting for the broker after a while on a busy machine; a wake-up that waits in its queue until the
    // worker consumes is counted from when it arrives, and these tests measure the timers, not that wait.
    if (broker) await waitUntil(() => logger.find("consuming wake-ups").length > 0, "the worker to consume its queue");
    // One due task first: the app's client, its broker connection and the worker's claim path do their first-use work
    // (connecting, loading, preparing) here, not inside the window the first test measures.
    const warm = await prisma.task.enqueue("later", {});
    await waitUntil(async () => (await bed.status(warm.id)) === "succeeded", "a due task to run");
  });

  afterAll(async () => {
    await worker?.stop();
    await store?.close();
    await bed?.closeAll();
  });

  it("starts a task delayed 500 ms, or given a runAt 1 s ahead, near its run_at and never before", async () => {
    // Both committed well before either is due, even on a busy machine: a task due by its commit is an ordinary one.
    const delayed = await prisma.$transaction(async (tx) => tx.task.enqueue("later", {}, { delayMs: 500 }));
    const timed = await prisma.task.enqueue("later", {}, { runAt: new Date(Date.now() + 1000) });
    for (const task of [delayed, timed]) {
      await waitUntil(async () => (await bed.status(task.id)) === "succeeded", "the delayed task to run", 10_000);
      expectOnTime(task.id, 0);
      expect(logger.find("task claimed", { taskId: task.id, via: "timer" })).toHaveLength(1);
    }
  });

  it("starts a retry near the end of its backoff, on the worker that recorded the failure", async () => {
    const task = await prisma.task.enqueue("fails-once", {});
    await waitUntil(async () => (await bed.status(task.id)) === "succeeded", "the retry to run", 10_000);
    const [first, second] = claims.get(task.id)!;
    expect(second!.runAt - first!.claimedAt).toBeGreaterThanOrEqual(300);
    expectOnTime(task.id, 1);
    expect(logger.find("task claimed", { taskId: task.id, via: "timer" })).toHaveLength(1);
  });

  it("sends nothing for a delayed enqueue whose transaction rolled back", async () => {
    let rolledBack = "";
    await expect(
      prisma.$transaction(async (tx) => {
        rolledBack = (await tx.task.enqueue("later", {}, { delayMs: 50 })).id;
        throw new Rollback("rolled back");
      }),
    ).rejects.toThrow(Rollback);
    // Wake-ups leave in commit order and timers fire in due order: had the rolled-back one been sent, its claim would
    // come before this later task's.
    const later = await prisma.$transaction(async (tx) => tx.task.enqueue("later", {}, { delayMs: 100 }));
    await waitUntil(async () => (await bed.status(later.id)) === "succeeded", "the committed task to run", 10_000);
    expect(asked.has(later.id)).toBe(true);
    expect(asked.has(rolledBack)).toBe(false);
    expect(rolledBack).not.toBe("");
  });

  it("keeps no timer once stopped while holding tasks due later", async () => {
    await worker.stop();
    const before = timeouts();
    const ownLogger = recordingLogger();
    const holder = startWorker({ logger: ownLogger });
    await holder.start();
    try {
      if (broker) await waitUntil(() => ownLogger.find("consuming wake-ups").length > 0, "the worker to consume its queue");
      await prisma.$transaction(async (tx) => tx.task.enqueue("later", {}, { delayMs: 60_000 }));
      await waitUntil(() => ownLogger.find("tasks due later kept for their time").length > 0, "the worker to keep the task for its time");
    } finally {
      await holder.stop();
    }
    await waitUntil(() => timeouts() <= before, `the stopped worker's timers to be cleared (${timeouts()} against ${before})`, 3000);
  });
});
