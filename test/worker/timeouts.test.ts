// Time limits and leases: timeoutMs aborts the signal and counts as a failure; a handler that ignores its signal is
// failed after timeoutMs and its slot freed; the heartbeat extends the lease, and a lost lease aborts without recording.

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks } from "../../src/index.js";
import { TaskLeaseLostError, TaskTimeoutError } from "../../src/worker/create-worker.js";
import { sleep } from "../fixtures/worker-tasks.js";
import { waitUntil } from "../support/wait.js";
import { WORKER_DIALECTS, workerFixture } from "./harness.js";

const reasons = new Map<string, unknown>();
const finishedQuick: string[] = [];

const tasks = defineTasks({
  polite: {
    payload: z.object({}),
    timeoutMs: 300,
    maxAttempts: 1,
    handler: async (_p, ctx) => {
      ctx.signal.addEventListener("abort", () => reasons.set(ctx.task.id, ctx.signal.reason));
      await sleep(20_000, ctx.signal);
    },
  },
  deaf: {
    payload: z.object({}),
    timeoutMs: 300,
    maxAttempts: 2,
    backoff: { baseMs: 60_000 },
    handler: () => new Promise(() => {}),
  },
  quick: { payload: z.object({}), handler: async (_p, ctx) => void finishedQuick.push(ctx.task.id) },
  long: {
    payload: z.object({ ms: z.number() }),
    handler: async ({ ms }, ctx) => {
      ctx.signal.addEventListener("abort", () => reasons.set(ctx.task.id, ctx.signal.reason));
      await sleep(ms, ctx.signal);
      return "done";
    },
  },
});

describe.each(WORKER_DIALECTS)("time limits and leases ($name)", (dialect) => {
  const fixture = workerFixture(tasks, { dialect, worker: { concurrency: 1, leaseMs: 600 } });

  it("aborts the signal with TaskTimeoutError at timeoutMs and counts the run as a failure", async () => {
    const task = await fixture.prisma.task.enqueue("polite", {});
    await waitUntil(async () => (await fixture.bed.status(task.id)) === "dead", "the task to go dead");
    expect(reasons.get(task.id)).toBeInstanceOf(TaskTimeoutError);
    expect((await fixture.bed.row(task.id)).last_error).toContain(`Task "polite" (${task.id}) ran longer than its timeoutMs of 300 ms and was aborted.`);
  });

  it("fails a handler that ignores its signal after timeoutMs and frees its slot for the next task", async () => {
    const deaf = await fixture.prisma.task.enqueue("deaf", {});
    await waitUntil(async () => (await fixture.bed.status(deaf.id)) === "running", "the deaf task to start");
    const quick = await fixture.prisma.task.enqueue("quick", {});
    // concurrency is 1: the quick task can only run once the deaf one's slot is freed.
    await waitUntil(async () => (await fixture.bed.status(quick.id)) === "succeeded", "the quick task to run");
    expect(await fixture.bed.row(deaf.id)).toMatchObject({ status: "pending", attempts: 1, lease_owner: null, lease_expires_at: null, published_at: null });
    expect((await fixture.bed.row(deaf.id)).last_error).toContain("ran longer than its timeoutMs of 300 ms");
    expect(finishedQuick).toContain(quick.id);
  });

  it("keeps extending the lease while a handler runs longer than leaseMs", async () => {
    const task = await fixture.prisma.task.enqueue("long", { ms: 2000 });
    await waitUntil(async () => (await fixture.bed.status(task.id)) === "running", "the task to start");
    const first = (await fixture.bed.row(task.id)).lease_expires_at as Date;
    await waitUntil(async () => ((await fixture.bed.row(task.id)).lease_expires_at as Date) > first, "the heartbeat to extend the lease");
    await waitUntil(async () => (await fixture.bed.status(task.id)) === "succeeded", "the task to succeed", 15_000);
    expect((await fixture.bed.row(task.id)).result).toBe("done");
  });

  it("aborts a run whose lease another owner took, and records nothing for it", async () => {
    const task = await fixture.prisma.task.enqueue("long", { ms: 20_000 });
    await waitUntil(async () => (await fixture.bed.status(task.id)) === "running", "the task to start");
    await fixture.bed.exec(`UPDATE tasks SET lease_owner = 'cleaner-took-it' WHERE id = '${task.id}'`);
    await waitUntil(() => reasons.has(task.id), "the handler's signal to abort");
    expect(reasons.get(task.id)).toBeInstanceOf(TaskLeaseLostError);
    await waitUntil(() => fixture.logger.find("task lease lost; abandoning the run without recording it", { taskId: task.id }).length === 1, "the log line");
    expect(await fixture.bed.row(task.id)).toMatchObject({ status: "running", lease_owner: "cleaner-took-it", attempts: 1, last_error: null });
    // Its slot is free again.
    const quick = await fixture.prisma.task.enqueue("quick", {});
    await waitUntil(async () => (await fixture.bed.status(quick.id)) === "succeeded", "the next task to run");
  });
});
