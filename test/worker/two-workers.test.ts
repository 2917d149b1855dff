// Two workers never run the same task concurrently, and each task runs once: in one process (two workers plus a
// polling one racing them, with every wake-up sent twice) and across two child processes.

import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createWorker, type Worker } from "../../src/worker/create-worker.js";
import { workerTasks } from "../fixtures/worker-tasks.js";
import { WorkerProcess } from "../support/worker-process.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WorkerTestBed } from "./harness.js";

let bed: WorkerTestBed;
let pool: pg.Pool;
let prisma: ReturnType<WorkerTestBed["prisma"]>;
const workers: Worker[] = [];
const children: WorkerProcess[] = [];

beforeAll(async () => {
  bed = await WorkerTestBed.create();
  pool = new pg.Pool({ connectionString: bed.url, max: 6 });
  prisma = bed.prisma(workerTasks(pool, "enqueuer"));
});

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
  await Promise.all(children.map((child) => child.kill()));
  await prisma?.$taskQueue.close();
  await prisma?.$disconnect();
  await pool?.end();
  await bed?.close();
});

/** Enqueues `count` record tasks in small separate transactions, so their wake-ups spread over many messages. */
async function enqueueMany(count: number, ms: number): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, count - start) }, () => prisma.$transaction(async (tx) => tx.task.enqueue("record", { ms }))),
    );
    ids.push(...batch.map((task) => task.id));
  }
  return ids;
}

/** Every task ran exactly once, and no two runs of one task overlapped in time. */
async function expectEachRanOnce(ids: string[]): Promise<Map<string, number>> {
  await waitUntil(
    async () => (await bed.sql.query("SELECT count(*)::int AS n FROM tasks WHERE id = ANY($1) AND status = 'succeeded'", [ids])).rows[0].n === ids.length,
    `all ${ids.length} tasks to succeed`,
    60_000,
  );
  const { rows } = await bed.sql.query<{ task_id: string; worker: string; started_at: Date; finished_at: Date | null }>(
    "SELECT task_id::text, worker, started_at, finished_at FROM task_runs WHERE task_id = ANY($1) ORDER BY task_id, started_at",
    [ids],
  );
  const overlaps = rows.filter((run, i) => {
    const previous = rows[i - 1];
    return previous?.task_id === run.task_id && (previous.finished_at === null || previous.finished_at > run.started_at);
  });
  expect(overlaps).toEqual([]);
  const runsPerTask = new Map<string, number>();
  for (const run of rows) runsPerTask.set(run.task_id, (runsPerTask.get(run.task_id) ?? 0) + 1);
  expect([...runsPerTask.values()].every((n) => n === 1)).toBe(true);
  expect(runsPerTask.size).toBe(ids.length);
  const byWorker = new Map<string, number>();
  for (const run of rows) byWorker.set(run.worker, (byWorker.get(run.worker) ?? 0) + 1);
  return byWorker;
}

it("two in-process workers and a polling one share 150 tasks, each run once, with every wake-up duplicated", async () => {
  const common = { databaseUrl: bed.url, amqpPrefix: bed.prefix, concurrency: 5, logger: recordingLogger() };
  for (const name of ["A", "B"]) {
    workers.push(createWorker({ ...common, tasks: workerTasks(pool, name), amqpUrl: bed.amqpUrl, workerId: `in-process-${name}` }));
  }
  workers.push(createWorker({ ...common, tasks: workerTasks(pool, "P"), workerId: "in-process-poller", pollIntervalMs: 20 }));
  await Promise.all(workers.map((worker) => worker.start()));
  const ids = await enqueueMany(150, 20);
  await bed.wake(ids);
  const byWorker = await expectEachRanOnce(ids);
  expect([...byWorker.values()].reduce((a, b) => a + b, 0)).toBe(150);
  await Promise.all(workers.splice(0).map((worker) => worker.stop()));
});

it("two worker processes share 100 tasks, each run once, with every wake-up duplicated", async () => {
  const env = { DATABASE_URL: bed.url, AMQP_URL: bed.amqpUrl, PTQ_PREFIX: bed.prefix, WORKER_CONCURRENCY: "4" };
  children.push(...(await Promise.all(["child-1", "child-2"].map((name) => WorkerProcess.start({ ...env, WORKER_NAME: name })))));
  const ids = await enqueueMany(100, 20);
  await bed.wake(ids);
  const byWorker = await expectEachRanOnce(ids);
  expect([...byWorker.keys()].sort()).toEqual(["child-1", "child-2"]);
  for (const child of children) child.signal("SIGTERM");
  expect(await Promise.all(children.map((child) => child.exited))).toEqual([0, 0]);
});
