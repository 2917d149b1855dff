// Two workers never run the same task concurrently, and each task runs once: in one process (two workers plus a
// polling one racing them, with every wake-up sent twice) and across two child processes.

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks } from "../../src/index.js";
import { createWorker, type Worker } from "../../src/worker/create-worker.js";
import { sleep, workerTasks } from "../fixtures/worker-tasks.js";
import { WorkerProcess } from "../support/worker-process.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WORKER_DIALECTS, WorkerTestBed } from "./harness.js";

/** One run of a task: which worker, when it started and ended (in this process's clock; undefined while running). */
interface Run {
  taskId: string;
  worker: string;
  startedAt: number;
  finishedAt?: number;
}

/** Runs of the in-process workers, as their handlers record them. */
const inProcessRuns: Run[] = [];

/** The registry of one in-process worker: "record" notes its run in inProcessRuns. */
function recordingTasks(worker: string) {
  return defineTasks({
    record: {
      payload: z.object({ ms: z.number().int().min(0) }),
      handler: async ({ ms }, ctx) => {
        const run: Run = { taskId: ctx.task.id, worker, startedAt: performance.now() };
        inProcessRuns.push(run);
        if (ms > 0) await sleep(ms);
        run.finishedAt = performance.now();
        return { worker };
      },
    },
  });
}

/** Enqueues `count` record tasks in small separate transactions, so their wake-ups spread over many messages. */
async function enqueueSpread(prisma: ReturnType<WorkerTestBed["prisma"]>, count: number, ms: number): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 10) {
    const batch = await Promise.all(Array.from({ length: Math.min(10, count - start) }, () => prisma.$transaction(async (tx) => tx.task.enqueue("record", { ms }))));
    ids.push(...batch.map((task) => task.id));
  }
  return ids;
}

/** Each of `ids` ran exactly once and no two runs of one task overlapped; returns the runs per worker. */
function expectEachRanOnce(ids: string[], all: readonly Run[]): Map<string, number> {
  const wanted = new Set(ids);
  const runs = all.filter((run) => wanted.has(run.taskId)).sort((a, b) => a.taskId.localeCompare(b.taskId) || a.startedAt - b.startedAt);
  const overlaps = runs.filter((run, i) => {
    const previous = runs[i - 1];
    return previous?.taskId === run.taskId && (previous.finishedAt === undefined || previous.finishedAt > run.startedAt);
  });
  expect(overlaps).toEqual([]);
  const runsPerTask = new Map<string, number>();
  for (const run of runs) runsPerTask.set(run.taskId, (runsPerTask.get(run.taskId) ?? 0) + 1);
  expect([...runsPerTask.values()].every((n) => n === 1)).toBe(true);
  expect(runsPerTask.size).toBe(ids.length);
  const byWorker = new Map<string, number>();
  for (const run of runs) byWorker.set(run.worker, (byWorker.get(run.worker) ?? 0) + 1);
  return byWorker;
}

describe.each(WORKER_DIALECTS)("two workers in one process ($name)", (dialect) => {
  let bed: WorkerTestBed;
  let prisma: ReturnType<WorkerTestBed["prisma"]>;
  const workers: Worker[] = [];

  beforeAll(async () => {
    bed = await WorkerTestBed.create(dialect);
    prisma = bed.prisma(recordingTasks("enqueuer"));
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await bed?.closeAll();
  });

  it("two in-process workers and a polling one share 150 tasks, each run once, with every wake-up duplicated", async () => {
    const common = { databaseUrl: bed.url, amqpPrefix: bed.prefix, concurrency: 5, logger: recordingLogger() };
    for (const name of ["A", "B"]) {
      workers.push(createWorker({ ...common, tasks: recordingTasks(name), amqpUrl: bed.amqpUrl, workerId: `in-process-${name}` }));
    }
    workers.push(createWorker({ ...common, tasks: recordingTasks("P"), wakeups: "polling", workerId: "in-process-poller", pollIntervalMs: 20 }));
    await Promise.all(workers.map((worker) => worker.start()));
    const ids = await enqueueSpread(prisma, 150, 20);
    await bed.wake(ids);
    const wanted = new Set(ids);
    await waitUntil(() => inProcessRuns.filter((run) => wanted.has(run.taskId) && run.finishedAt !== undefined).length >= 150, "all 150 runs to end", 60_000);
    await waitUntil(async () => (await bed.countStatus("succeeded")) === 150, "all 150 tasks to succeed", 60_000);
    const byWorker = expectEachRanOnce(ids, inProcessRuns);
    expect([...byWorker.values()].reduce((a, b) => a + b, 0)).toBe(150);
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
  });
});

// PostgreSQL only: the child processes (test/fixtures/worker-main.ts) record their runs in a PostgreSQL table; the
// in-process case above covers the race on every dialect without spawning a process per dialect.
describe("two worker processes (postgresql)", () => {
  let bed: WorkerTestBed;
  let pool: pg.Pool;
  let prisma: ReturnType<WorkerTestBed["prisma"]>;
  const children: WorkerProcess[] = [];

  beforeAll(async () => {
    bed = await WorkerTestBed.create();
    pool = new pg.Pool({ connectionString: bed.url, max: 6 });
    prisma = bed.prisma(workerTasks(pool, "enqueuer"));
  });

  afterAll(async () => {
    await Promise.all(children.map((child) => child.kill()));
    await prisma?.$taskQueue.close();
    await prisma?.$disconnect();
    await pool?.end();
    await bed?.close();
  });

  it("two worker processes share 100 tasks, each run once, with every wake-up duplicated", async () => {
    const env = { DATABASE_URL: bed.url, AMQP_URL: bed.amqpUrl, PTQ_PREFIX: bed.prefix, WORKER_CONCURRENCY: "4" };
    children.push(...(await Promise.all(["child-1", "child-2"].map((name) => WorkerProcess.start({ ...env, WORKER_NAME: name })))));
    const ids = await enqueueSpread(prisma, 100, 20);
    await bed.wake(ids);
    await waitUntil(
      async () =>
        (await bed.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM tasks WHERE id = ANY($1) AND status = 'succeeded'", [ids])).rows[0]!.n === ids.length,
      `all ${ids.length} tasks to succeed`,
      60_000,
    );
    const { rows } = await bed.sql.query<{ task_id: string; worker: string; started_at: Date; finished_at: Date | null }>(
      "SELECT task_id::text, worker, started_at, finished_at FROM task_runs WHERE task_id = ANY($1)",
      [ids],
    );
    const runs = rows.map((row) => ({ taskId: row.task_id, worker: row.worker, startedAt: row.started_at.getTime(), finishedAt: row.finished_at?.getTime() }));
    const byWorker = expectEachRanOnce(ids, runs);
    expect([...byWorker.keys()].sort()).toEqual(["child-1", "child-2"]);
    for (const child of children) child.signal("SIGTERM");
    expect(await Promise.all(children.map((child) => child.exited))).toEqual([0, 0]);
  });
});
