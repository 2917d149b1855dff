// Graceful shutdown: stop() (or SIGTERM of a real worker process) lets a task finish within the grace period; past the
// grace period (or on a second stop or signal) the task goes back to pending without using an attempt; SIGKILL leaves
// it running with a lease that expires (the cleaner's test recovers such a task).

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks } from "../../src/index.js";
import { createWorker, type Worker } from "../../src/worker/create-worker.js";
import { sleep } from "../fixtures/worker-tasks.js";
import { WorkerProcess } from "../support/worker-process.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WORKER_DIALECTS, WorkerTestBed } from "./harness.js";

/** Tasks whose handler has started, in this process. */
const startedHere = new Set<string>();
/** Ends every handler that ignores its signal (at the end of each test). */
let letGo!: () => void;
let deafUntil = new Promise<void>((resolve) => (letGo = resolve));

const tasks = defineTasks({
  sleep: {
    payload: z.object({ ms: z.number().int().min(0), honourSignal: z.boolean() }),
    handler: async ({ ms, honourSignal }, ctx) => {
      startedHere.add(ctx.task.id);
      if (honourSignal) await sleep(ms, ctx.signal);
      else await deafUntil;
      return { slept: ms };
    },
  },
});

describe.each(WORKER_DIALECTS)("stop() in one process ($name)", (dialect) => {
  let bed: WorkerTestBed;
  let worker: Worker | undefined;
  let logger: ReturnType<typeof recordingLogger>;

  beforeAll(async () => {
    bed = await WorkerTestBed.create(dialect);
  });

  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    letGo();
    deafUntil = new Promise<void>((resolve) => (letGo = resolve));
    // Leftovers (a released task and its wake-up) must not be picked up by the next test's worker.
    await bed.exec("UPDATE tasks SET status = 'cancelled' WHERE status IN ('pending', 'running')");
  });

  afterAll(async () => {
    await bed?.close();
  });

  async function startWorker(shutdownGraceMs: number): Promise<Worker> {
    logger = recordingLogger();
    worker = createWorker({ tasks, databaseUrl: bed.url, amqpUrl: bed.amqpUrl, amqpPrefix: bed.prefix, shutdownGraceMs, logger });
    await worker.start();
    return worker;
  }

  async function startSleeper(ms: number, honourSignal: boolean): Promise<string> {
    const id = await bed.insertTask("sleep", { ms, honourSignal }, { publishedNow: true });
    await bed.wake([id]);
    await waitUntil(() => startedHere.has(id), "the handler to run", 20_000);
    return id;
  }

  it("waits for a task that finishes within the grace period", async () => {
    const running = await startWorker(20_000);
    const id = await startSleeper(1500, true);
    await running.stop();
    expect(await bed.row(id)).toMatchObject({ status: "succeeded", attempts: 1, result: { slept: 1500 } });
  });

  it("after the grace period, gives a still-running task back to pending without using an attempt", async () => {
    const running = await startWorker(500);
    const id = await startSleeper(60_000, false);
    await running.stop();
    expect(await bed.row(id)).toMatchObject({ status: "pending", attempts: 0, lease_owner: null, lease_expires_at: null, last_error: null });
    expect(logger.find("task released", { taskId: id })).toHaveLength(1);
  });

  it("a second stop() skips the rest of the grace period", async () => {
    const running = await startWorker(120_000);
    const id = await startSleeper(60_000, true);
    const first = running.stop();
    await waitUntil(() => logger.find("worker stopping").length === 1, "the worker to begin stopping");
    await running.stop();
    await first;
    expect(await bed.row(id)).toMatchObject({ status: "pending", attempts: 0, lease_owner: null });
  });
});

// PostgreSQL only: these signal and kill a real worker process (test/fixtures/worker-main.ts, whose handlers write a
// PostgreSQL table); what stop() does on each dialect is tested in one process above.
describe("a worker process (postgresql)", () => {
  let bed: WorkerTestBed;
  let child: WorkerProcess | undefined;

  beforeAll(async () => {
    bed = await WorkerTestBed.create();
  });

  afterEach(async () => {
    await child?.kill();
    child = undefined;
    // Leftovers must not be picked up by the next test's worker.
    await bed.sql.query("UPDATE tasks SET status = 'cancelled' WHERE status IN ('pending', 'running')");
  });

  afterAll(async () => {
    await child?.kill();
    await bed?.close();
  });

  async function startWorker(name: string, graceMs: number): Promise<WorkerProcess> {
    child = await WorkerProcess.start({
      DATABASE_URL: bed.url,
      AMQP_URL: bed.amqpUrl,
      PTQ_PREFIX: bed.prefix,
      WORKER_NAME: name,
      WORKER_GRACE_MS: String(graceMs),
    });
    return child;
  }

  async function startSleeper(ms: number, honourSignal: boolean): Promise<string> {
    const id = await bed.insertTask("sleep", { ms, honourSignal }, { publishedNow: true });
    await bed.wake([id]);
    await waitUntil(async () => (await bed.status(id)) === "running", "the task to start", 20_000);
    await waitUntil(async () => (await bed.sql.query("SELECT 1 FROM task_runs WHERE task_id = $1", [id])).rowCount === 1, "the handler to run");
    return id;
  }

  it("SIGTERM waits for a task that finishes within the grace period, then exits 0", async () => {
    const worker = await startWorker("drainer", 20_000);
    const id = await startSleeper(1500, true);
    worker.signal("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect(await bed.row(id)).toMatchObject({ status: "succeeded", attempts: 1, result: { slept: 1500 } });
  });

  it("after the grace period, gives a still-running task back to pending without using an attempt", async () => {
    const worker = await startWorker("impatient", 500);
    const id = await startSleeper(60_000, false);
    worker.signal("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect(await bed.row(id)).toMatchObject({ status: "pending", attempts: 0, lease_owner: null, lease_expires_at: null, last_error: null });
    expect(worker.lines.some((line) => line.message === "task released" && line.taskId === id)).toBe(true);
  });

  it("a second signal skips the rest of the grace period", async () => {
    const worker = await startWorker("twice-signalled", 120_000);
    const id = await startSleeper(60_000, true);
    worker.signal("SIGTERM");
    await worker.waitForLog((line) => line.message === "worker stopping", "the worker to begin stopping");
    worker.signal("SIGINT");
    expect(await worker.exited).toBe(0);
    expect(await bed.row(id)).toMatchObject({ status: "pending", attempts: 0, lease_owner: null });
  });

  it("SIGKILL mid-task leaves the task running under the dead worker's lease, which then expires", async () => {
    const worker = await startWorker("killed", 10_000);
    const id = await startSleeper(60_000, true);
    await worker.kill();
    const row = await bed.row(id);
    expect(row).toMatchObject({ status: "running", attempts: 1, lease_owner: "killed" });
    const { rows } = await bed.sql.query<{ left_s: number }>("SELECT extract(epoch FROM lease_expires_at - now())::float8 AS left_s FROM tasks WHERE id = $1", [id]);
    expect(rows[0]!.left_s).toBeGreaterThan(0);
    expect(rows[0]!.left_s).toBeLessThanOrEqual(30);
  });
});
