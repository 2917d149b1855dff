// runDueTasks(), the worker and cleaner of a deployment where no process lives between requests, on every dialect:
// tasks run only when their timeout fits in the budget (theirs are 5 s here); a call with nothing due costs two store
// operations (two statements), schedules or not; a queue limited in the database runs within its limit; a call runs
// what is due (a failure counts as failed and retries later, a task delayed past now stays), recovers a task whose
// worker died and runs it, fires a schedule's slot; it starts only tasks whose timeout fits in its budget; two
// overlapping calls never run a task twice.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, runDueTasks } from "../../src/index.js";
import type { PrismaClient } from "../generated/client.js";
import { countingStore } from "../support/counting-store.js";
import { waitUntil } from "../support/wait.js";
import { WORKER_DIALECTS, WorkerTestBed } from "../worker/harness.js";

const runs: string[] = [];
const tasks = defineTasks({
  quick: { payload: z.object({ n: z.number() }), timeoutMs: 5_000, handler: async (_payload, ctx) => void runs.push(ctx.task.id) },
  broken: {
    payload: z.object({}),
    maxAttempts: 3,
    timeoutMs: 5_000,
    handler: async () => {
      throw new Error("always fails");
    },
  },
  long: { payload: z.object({}), timeoutMs: 120_000, handler: async (_payload, ctx) => void runs.push(ctx.task.id) },
});
const scheduled = defineTasks({
  tick: { payload: z.object({}), timeoutMs: 5_000, schedules: [{ cron: "* * * * * *" }], handler: async (_payload, ctx) => void runs.push(ctx.task.id) },
});

// Its next slot is at most once a year away: never due while the test runs, unless it starts within a second of the new year.
const yearly = defineTasks({
  newYear: { payload: z.object({}), timeoutMs: 5_000, schedules: [{ cron: "0 0 1 1 *" }], handler: async (_payload, ctx) => void runs.push(ctx.task.id) },
});

const transactional = defineTasks<PrismaClient>()({
  "write-report": {
    payload: z.object({ reportId: z.string().uuid() }),
    timeoutMs: 5_000,
    transactional: true,
    handler: async ({ reportId }, ctx) => void (await ctx.tx.report.create({ data: { id: reportId, status: "done" } })),
  },
});

/** A workflow and its child: the child's end, written by a pass, makes its waiting parent due in that pass. */
const family = defineTasks<PrismaClient>()({
  parent: {
    payload: z.object({}),
    timeoutMs: 5_000,
    handler: async (_payload, ctx) => {
      const children = await ctx.step.startChildren("start", (tx) => Promise.all([tx.task.enqueue("child", {})]));
      const [outcome] = await ctx.step.waitForChildren<string>("wait", children, { recheckMs: 3_600_000 });
      return outcome?.status === "succeeded" ? outcome.result : null;
    },
  },
  child: { payload: z.object({}), timeoutMs: 5_000, handler: async () => "packed" },
});

describe.each(WORKER_DIALECTS)("runDueTasks ($name)", (dialect) => {
  let bed: WorkerTestBed;

  beforeAll(async () => {
    bed = await WorkerTestBed.create(dialect);
  });
  afterAll(async () => {
    await bed?.closeAll();
  });

  it("a child's end written by a pass makes its waiting parent due at once, and the next pass at the latest runs it", async () => {
    const prisma = bed.prisma(family);
    const parent = await prisma.task.enqueue("parent", {});
    // The parent starts its child and waits (its recheck an hour away); the child runs; its end makes the parent due.
    expect(await runDueTasks({ tasks: family, store: bed.store, prisma, budgetMs: 10_000 })).toMatchObject({ failed: 0 });
    const after = await bed.store.findTask(parent.id);
    if (after!.status !== "succeeded") expect(after!.runAt.getTime(), "due now, not at its recheck").toBeLessThanOrEqual(after!.now.getTime());
    await runDueTasks({ tasks: family, store: bed.store, prisma, budgetMs: 10_000 });
    expect(await bed.store.findTask(parent.id)).toMatchObject({ status: "succeeded", result: "packed" });
  });

  it("with nothing due, answers idle after two store operations (two statements) and sweeps nothing", async () => {
    const { store, calls } = countingStore(bed.store);
    const summary = await runDueTasks({ tasks, store, budgetMs: 10_000 });
    expect(summary).toMatchObject({ ran: 0, succeeded: 0, failed: 0, ended: "idle", sweep: null });
    expect(Object.fromEntries(calls)).toEqual({ probeWork: 1, claimDue: 1 });
  });

  it("with schedules whose next slot is not due, nothing due still costs the same two statements", async () => {
    // The first call finds the schedule never synced and sweeps (the cleaner writes its row); the next one has nothing to do.
    const first = await runDueTasks({ tasks: yearly, store: bed.store, budgetMs: 10_000 });
    expect(first.sweep).toMatchObject({ fired: 0 });
    const { store, calls } = countingStore(bed.store);
    const summary = await runDueTasks({ tasks: yearly, store, budgetMs: 10_000 });
    expect(summary).toMatchObject({ ran: 0, ended: "idle", sweep: null });
    expect(Object.fromEntries(calls)).toEqual({ probeWork: 1, claimDue: 1 });
  });

  it("runs the due tasks, counts a failure (which retries later), leaves a delayed one, and recovers a dead worker's task", async () => {
    runs.length = 0;
    const due = await Promise.all([1, 2, 3, 4, 5].map((n) => bed.insertTask("quick", { n })));
    const failing = await bed.insertTask("broken", {});
    const prisma = bed.prisma(tasks, undefined);
    const delayed = await prisma.task.enqueue("quick", { n: 6 }, { delayMs: 3_600_000 });
    // A worker claimed this one and died: its lease runs out, and the sweep puts it back.
    const orphan = await bed.insertTask("quick", { n: 7 });
    const [claimed] = await bed.store.claimByIds([orphan], { owner: "gone", leaseMs: 1, names: ["quick"], queues: ["default"] });
    expect(claimed!.claimed).not.toBeNull();
    await waitUntil(async () => (await bed.store.findExpiredLeases(10)).length === 1, "the dead worker's lease to expire");

    const summary = await runDueTasks({ tasks, store: bed.store, budgetMs: 20_000 });
    expect(summary).toMatchObject({ ran: 7, succeeded: 6, failed: 1, ended: "idle", sweep: { retried: 1, dead: 0 } });
    expect(runs.sort()).toEqual([...due, orphan].sort());
    for (const id of [...due, orphan]) expect(await bed.status(id)).toBe("succeeded");
    expect(await bed.row(failing)).toMatchObject({ status: "pending", attempts: 1, last_error: expect.stringContaining("always fails") });
    expect(await bed.status(delayed.id)).toBe("pending");
    await bed.exec("DELETE FROM tasks");
  });

  it("starts only tasks whose timeout fits in the budget; the others wait for the next call", async () => {
    runs.length = 0;
    const long = await bed.insertTask("long", {});
    const quick = await bed.insertTask("quick", { n: 1 });
    const summary = await runDueTasks({ tasks, store: bed.store, budgetMs: 60_000 });
    expect(summary).toMatchObject({ ran: 1, succeeded: 1, ended: "idle" });
    expect(runs).toEqual([quick]);
    expect(await bed.row(long)).toMatchObject({ status: "pending", attempts: 0 });
    expect((await runDueTasks({ tasks, store: bed.store, budgetMs: 150_000 })).ran).toBe(1);
    expect(await bed.status(long)).toBe("succeeded");
    await bed.exec("DELETE FROM tasks");
  });

  it("runs the tasks of a queue limited in the database, never more at once than its limit", async () => {
    runs.length = 0;
    await bed.store.syncQueues([{ queue: "default", concurrency: 1, rateLimit: null }]);
    try {
      const ids = await Promise.all([1, 2, 3].map((n) => bed.insertTask("quick", { n })));
      const summary = await runDueTasks({ tasks, store: bed.store, budgetMs: 20_000, concurrency: 3 });
      expect(summary).toMatchObject({ ran: 3, succeeded: 3, ended: "idle" });
      expect(runs.sort()).toEqual([...ids].sort());
    } finally {
      await bed.store.syncQueues([{ queue: "default", concurrency: null, rateLimit: null }]);
      await bed.exec("DELETE FROM tasks");
    }
  });

  it("two overlapping calls run each task once", async () => {
    runs.length = 0;
    const ids = await Promise.all(Array.from({ length: 40 }, (_, n) => bed.insertTask("quick", { n })));
    const [a, b] = await Promise.all([
      runDueTasks({ tasks, store: bed.store, budgetMs: 20_000, concurrency: 3 }),
      runDueTasks({ tasks, store: bed.store, budgetMs: 20_000, concurrency: 3 }),
    ]);
    expect(a.ran + b.ran).toBe(ids.length);
    expect(runs.sort()).toEqual([...ids].sort());
    expect(await bed.countStatus("succeeded", "quick")).toBe(ids.length);
    await bed.exec("DELETE FROM tasks");
  });

  it("fires a schedule's due slots and runs their tasks", async () => {
    // The first call records the schedule (it fires from its first slot after now; the sweep fires the next few ahead,
    // delayed to their slots); a call a second later runs the slots now due.
    const first = await runDueTasks({ tasks: scheduled, store: bed.store, budgetMs: 10_000 });
    const since = await bed.store.now();
    await waitUntil(async () => (await bed.store.now()).getTime() > since.getTime() + 1_100, "a slot to pass");
    runs.length = 0;
    const second = await runDueTasks({ tasks: scheduled, store: bed.store, budgetMs: 10_000 });
    expect((first.sweep?.fired ?? 0) + (second.sweep?.fired ?? 0)).toBeGreaterThanOrEqual(1);
    expect(second.ran).toBeGreaterThanOrEqual(1);
    expect(runs.length).toBe(second.ran);
    await bed.exec("DELETE FROM tasks");
  });

  it("gives a transactional task the client that a prisma function returns, called at the call", async () => {
    const client = bed.prisma(transactional, undefined);
    let made = 0;
    const reportId = crypto.randomUUID();
    const id = await bed.insertTask("write-report", { reportId });
    const summary = await runDueTasks({ tasks: transactional, store: bed.store, budgetMs: 10_000, prisma: () => (made++, client) });
    expect({ ...summary, error: (await bed.row(id)).last_error }).toMatchObject({ ran: 1, succeeded: 1, error: null });
    expect(made).toBe(1);
    expect(await client.report.count({ where: { id: reportId } })).toBe(1);
    expect(await bed.status(id)).toBe("succeeded");
    await bed.exec("DELETE FROM tasks");
  });

  it("refuses a budget out of range, naming the value and the fix", async () => {
    await expect(runDueTasks({ tasks, store: bed.store, budgetMs: 50 })).rejects.toThrow(/budgetMs.*from 1000 to 900000 ms.*got 50/);
  });
});
