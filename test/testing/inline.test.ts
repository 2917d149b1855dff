// inlineQueue() on every dialect: a committed task runs right after its COMMIT through the worker's claim and outcome
// writes (the row goes running → succeeded / pending / dead, attempts counted), drain() surfaces what a handler threw,
// a rollback runs nothing, delayed tasks and retries wait for drain({ scheduled: true }), and nothing another client
// commits is run.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, openStore, type Store } from "../../src/index.js";
import { inlineQueue, InlineTaskError, type InlineQueue } from "../../src/testing/index.js";
import { waitUntil } from "../support/wait.js";
import { appTasks, type AppBaseClient, handled, requestReport, Rollback, type AppClient } from "./app.js";
import { appDatabase, TESTING_DIALECTS, type AppDatabase } from "./dialects.js";

describe.each(TESTING_DIALECTS)("inlineQueue on $name", (harness) => {
  let db: AppDatabase;
  let prisma: AppClient;
  let store: Store;
  let queue: InlineQueue<typeof appTasks>;

  beforeAll(async () => {
    db = await appDatabase(harness);
    prisma = db.client();
    store = openStore(db.url, { max: 2 });
  });
  afterAll(async () => {
    await store?.close();
    await db?.close();
  });
  beforeEach(async () => {
    handled.length = 0;
    queue = await inlineQueue(prisma, { tasks: appTasks });
  });
  afterEach(async () => {
    await queue?.close();
  });

  async function status(reportId: string): Promise<string | undefined> {
    return (await prisma.report.findUnique({ where: { id: reportId } }))?.status;
  }

  it("runs a committed task right after the commit, through the real claim and completion", async () => {
    const { reportId, task } = await requestReport(prisma);
    await waitUntil(async () => (await status(reportId)) === "sent", "the handler to run without drain()");
    const runs = await queue.drain();
    // The audit task commits with send-report's completion, so its run may settle first: drain() returns runs in the
    // order they settled.
    expect(runs.map((run) => [run.name, run.status, run.attempt]).sort()).toEqual([
      ["audit", "succeeded", 1],
      ["send-report", "succeeded", 1],
    ]);
    const sent = runs.find((run) => run.name === "send-report");
    expect(sent).toMatchObject({ id: task.id, payload: { reportId }, result: { sent: reportId } });
    expect(sent!.error).toBeUndefined();
    const row = await store.findTask(task.id);
    expect(row).toMatchObject({ status: "succeeded", attempts: 1, result: { sent: reportId }, lastError: null });
    expect(handled[0], "the handler saw the row as the claim left it").toMatchObject({
      status: "running",
      attempt: 1,
      leaseOwner: expect.stringMatching(/^inline:[0-9a-f]{8}$/),
    });
    expect(row!.finishedAt).toBeInstanceOf(Date);
    expect(await queue.drain()).toEqual([]);
  });

  it("surfaces what a handler threw: drain() rejects with it, the row is pending again with the attempt counted", async () => {
    const { task } = await requestReport(prisma, { failWith: "the mail server said no" });
    const error = await queue.drain().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InlineTaskError);
    const failure = error as InlineTaskError;
    expect(failure.message).toBe(
      `1 inline task failed:\n  1. task "send-report" (id ${task.id}, attempt 1) threw Error: the mail server said no; the task is now pending again for a retry`,
    );
    expect(failure.failures).toHaveLength(1);
    expect(failure.failures[0]!.error).toBeInstanceOf(Error);
    expect((failure.failures[0]!.error as Error).message).toBe("the mail server said no");
    expect(failure.cause).toBe(failure.failures[0]!.error);
    expect(await store.findTask(task.id)).toMatchObject({ status: "pending", attempts: 1, lastError: expect.stringContaining("the mail server said no") });
    expect(await queue.drain(), "a failure is reported once").toEqual([]);
  });

  it("runs retries now with drain({ scheduled: true }), one attempt per drain, until the task is dead", async () => {
    const { task } = await requestReport(prisma, { failWith: "still down" });
    await expect(queue.drain()).rejects.toThrow("attempt 1) threw Error: still down; the task is now pending again for a retry");
    await expect(queue.drain({ scheduled: true })).rejects.toThrow("attempt 2) threw Error: still down; the task is now pending again for a retry");
    await expect(queue.drain({ scheduled: true })).rejects.toThrow("attempt 3) threw Error: still down; the task is now dead");
    expect(await queue.drain({ scheduled: true })).toEqual([]);
    expect(await store.findTask(task.id)).toMatchObject({ status: "dead", attempts: 3 });
    expect(handled.map((run) => run.attempt)).toEqual([1, 2, 3]);
    expect(queue.runs().map((run) => run.status)).toEqual(["pending", "pending", "dead"]);
  });

  it("sends an UnrecoverableError straight to dead", async () => {
    const { task } = await requestReport(prisma, { unrecoverable: true });
    await expect(queue.drain()).rejects.toThrow(`task "send-report" (id ${task.id}, attempt 1) threw UnrecoverableError: report`);
    expect(await store.findTask(task.id)).toMatchObject({ status: "dead", attempts: 1 });
  });

  it("runs nothing for a rolled-back transaction", async () => {
    let id = "";
    await expect(
      prisma.$transaction(async (tx) => {
        id = (await tx.task.enqueue("audit", { event: "never" })).id;
        throw new Rollback("changed my mind");
      }),
    ).rejects.toBeInstanceOf(Rollback);
    await expect(requestReport(prisma, { rollback: true })).rejects.toBeInstanceOf(Rollback);
    expect(await queue.drain()).toEqual([]);
    expect(handled).toEqual([]);
    expect(await store.findTask(id)).toBeUndefined();
  });

  it("leaves a delayed task for drain({ scheduled: true }), which runs it now", async () => {
    const { reportId, task } = await requestReport(prisma, { delayMs: 3_600_000 });
    expect(await queue.drain()).toEqual([]);
    expect(await store.findTask(task.id)).toMatchObject({ status: "pending", attempts: 0 });
    const runs = await queue.drain({ scheduled: true });
    expect(runs.map((run) => [run.name, run.status])).toEqual([
      ["send-report", "succeeded"],
      ["audit", "succeeded"],
    ]);
    expect(await status(reportId)).toBe("sent");
  });

  it("runs a transactional handler inside the transaction that completes its task", async () => {
    const { reportId } = await requestReport(prisma);
    await queue.drain();
    const closing = await prisma.task.enqueue("close-report", { reportId });
    const runs = await queue.drain();
    expect(runs).toMatchObject([{ id: closing.id, name: "close-report", status: "succeeded", attempt: 1 }]);
    expect(await status(reportId)).toBe("closed");
    expect(await store.findTask(closing.id)).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  it("runs nothing another client commits, nor what committed before it started", async () => {
    await queue.close();
    const before = await prisma.task.enqueue("audit", { event: "before the queue" });
    queue = await inlineQueue(prisma, { tasks: appTasks });
    const other = db.client();
    const theirs = await other.task.enqueue("audit", { event: "another test's" });
    expect(await queue.drain()).toEqual([]);
    expect(await store.findTask(before.id)).toMatchObject({ status: "pending", attempts: 0 });
    expect(await store.findTask(theirs.id)).toMatchObject({ status: "pending", attempts: 0 });
    expect(handled).toEqual([]);
  });

  it("runs a test double given as tasks, and leaves tasks without a handler there pending", async () => {
    await queue.close();
    const seen: string[] = [];
    const doubles = defineTasks<AppBaseClient>()({
      ...appTasks,
      "send-report": { ...appTasks["send-report"], handler: async ({ reportId }: { reportId: string }) => void seen.push(reportId) },
      audit: { payload: z.object({ event: z.string() }) },
    });
    queue = await inlineQueue(prisma, { tasks: doubles });
    const { reportId } = await requestReport(prisma);
    const audit = await prisma.task.enqueue("audit", { event: "not run" });
    const runs = await queue.drain();
    expect(runs.map((run) => run.name)).toEqual(["send-report"]);
    expect(seen).toEqual([reportId]);
    expect(handled).toEqual([]);
    expect(await store.findTask(audit.id)).toMatchObject({ status: "pending", attempts: 0 });
    const later = await prisma.task.enqueue("audit", { event: "later" }, { delayMs: 3_600_000 });
    expect(await queue.drain({ scheduled: true })).toEqual([]);
    expect((await store.findTask(later.id))!.runAt, "a task it cannot run is not made due").toEqual(later.runAt);
  });
});
