// A worker that claims a task again while an earlier run of it is still in its hands (the task's lease was recovered
// while the first handler went on, then the same worker won the task back): the earlier run is lost at once, and only
// the later run extends, completes or gives back the lease. The heartbeat and the release name one run per task.

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createWorker, TaskLeaseLostError, type Worker } from "../../src/worker/create-worker.js";
import { defineTasks } from "../../src/index.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WORKER_DIALECTS, WorkerTestBed } from "./harness.js";

/** Each run of the stubborn task, by "id#attempt": it ignores its signal and ends when the test lets it. */
const runs = new Map<string, { abortedWith?: unknown; finish: () => void }>();
const key = (id: string, attempt: number) => `${id}#${attempt}`;
const tasks = defineTasks({
  stubborn: {
    payload: z.object({}),
    handler: async (_payload, ctx) => {
      await new Promise<void>((resolve) => {
        const run: { abortedWith?: unknown; finish: () => void } = { finish: resolve };
        ctx.signal.addEventListener("abort", () => {
          run.abortedWith = ctx.signal.reason as unknown;
        });
        runs.set(key(ctx.task.id, ctx.attempt), run);
      });
      return { attempt: ctx.attempt };
    },
  },
});

describe.each(WORKER_DIALECTS)("a task claimed again while its earlier run goes on ($name)", (dialect) => {
  let bed: WorkerTestBed;
  let worker: Worker | undefined;
  const logger = recordingLogger();
  const leaseMs = 900;

  beforeAll(async () => {
    bed = await WorkerTestBed.create(dialect);
  });
  afterEach(async () => {
    for (const run of runs.values()) run.finish();
    await worker?.stop();
    worker = undefined;
    runs.clear();
  });
  afterAll(async () => {
    await bed?.close();
  });

  /** Starts a worker, runs the task once, recovers its lease behind the worker's back, and has it claimed again. */
  async function twoRunsOfOneTask(): Promise<string> {
    worker = createWorker({
      tasks,
      databaseUrl: bed.url,
      amqpUrl: bed.amqpUrl,
      amqpPrefix: bed.prefix,
      logger,
      leaseMs,
      pollIntervalMs: 600_000,
      concurrency: 4,
      shutdownGraceMs: 0,
    });
    await worker.start();
    const id = await bed.insertTask("stubborn", {}, { publishedNow: true });
    await bed.wake([id]);
    await waitUntil(() => runs.has(key(id, 1)), "the first run to start");
    // What a cleaner's recovery writes when the lease expired (the run counted): pending again, nobody's.
    await bed.exec(`UPDATE tasks SET status = 'pending', lease_owner = NULL, lease_expires_at = NULL WHERE id = '${id}'`);
    await bed.wake([id]);
    await waitUntil(() => runs.has(key(id, 2)), "the second run to start");
    return id;
  }

  /** Waits until the row's lease has been extended `times` more times (its expiry moved on each time). */
  async function leaseExtended(id: string, times: number): Promise<void> {
    let last = (await bed.row(id)).lease_expires_at?.getTime();
    for (let seen = 0; seen < times;) {
      const row = await bed.row(id);
      expect(row).toMatchObject({ status: "running", attempts: 2 });
      const expiry = row.lease_expires_at?.getTime();
      if (expiry !== undefined && last !== undefined && expiry > last) seen += 1;
      last = expiry;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it("loses the earlier run at once, keeps the later one's lease beat after beat, and records the later run alone", async () => {
    const id = await twoRunsOfOneTask();
    await waitUntil(() => runs.get(key(id, 1))!.abortedWith !== undefined, "the earlier run to be aborted");
    expect(runs.get(key(id, 1))!.abortedWith).toBeInstanceOf(TaskLeaseLostError);
    // Beats after the second claim: each must extend the later run's lease, none may take it for lost.
    await leaseExtended(id, 3);
    expect(runs.get(key(id, 2))!.abortedWith).toBeUndefined();

    runs.get(key(id, 1))!.finish(); // the earlier handler returns now: nothing of it is written
    runs.get(key(id, 2))!.finish();
    await waitUntil(async () => (await bed.status(id)) === "succeeded", "the later run to succeed");
    expect(await bed.row(id)).toMatchObject({ status: "succeeded", attempts: 2, result: { attempt: 2 }, lease_owner: null });
    expect(logger.find("task lease lost; abandoning the run without recording it", { taskId: id, attempt: 1 })).toHaveLength(1);
    expect(logger.find("task lease lost; abandoning the run without recording it", { taskId: id, attempt: 2 })).toHaveLength(0);
  });

  it("gives back the later run at shutdown, once, without counting it", async () => {
    const id = await twoRunsOfOneTask();
    await leaseExtended(id, 1);
    const stopping = worker!.stop();
    worker = undefined;
    await waitUntil(() => runs.get(key(id, 2))!.abortedWith !== undefined, "the later run to be told of the shutdown");
    for (const run of runs.values()) run.finish();
    await stopping;
    expect(await bed.row(id)).toMatchObject({ status: "pending", attempts: 1, lease_owner: null });
  });
});
